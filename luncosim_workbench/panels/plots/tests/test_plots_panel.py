"""The Plots panel: every tick's telemetry, CSV export, ports dropped from the Ports panel."""

from __future__ import annotations

import csv

import pytest

from luncosim_workbench.testing import AXLE_FL, CHASSIS_X, ports_ready


def test_telemetry_keeps_every_tick_and_plots_export_csv(opened, qtbot, tmp_path):
    plots = opened.panels["plots"]
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    plots.add_channel(AXLE_FL + ".angle")
    plots.add_channel(CHASSIS_X)
    assert not plots.add_channel(CHASSIS_X)  # one curve per channel
    opened.set_speed("max")
    opened.bridge.step(300)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick >= 300, timeout=120000)  # a loaded machine is slow, not wrong
    ticks, _times, values = opened.bridge.telemetry.read([CHASSIS_X])
    # every tick reached the ring, though the UI drew far fewer frames
    assert ticks.tolist()[-300:] == list(range(1, 301))
    assert opened.bridge.frames < 300
    opened.bridge.flush()
    xs, ys = plots.curves[CHASSIS_X].getData()
    assert len(xs) > 0
    assert "t=" in plots.readout_at(1.0)
    out = plots.export_csv(tmp_path / "t.csv")
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["tick", "time", AXLE_FL + ".angle", CHASSIS_X]
    assert [int(r[0]) for r in rows[1:]][-300:] == list(range(1, 301))


def test_dragging_a_port_onto_the_plots_adds_a_curve(opened, qtbot):
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QDropEvent

    ports = opened.panels["ports"]
    plots = opened.panels["plots"]
    qtbot.waitUntil(ports_ready(opened), timeout=15000)
    opened.session.selection.set([AXLE_FL])
    row = next(r for r in range(ports.proxy.rowCount()) if ports.proxy.index(r, 0).data() == AXLE_FL + ".velocity")
    data = ports.model.mimeData([ports.proxy.mapToSource(ports.proxy.index(row, 0))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    plots.dropEvent(event)
    assert plots.channels == [AXLE_FL + ".velocity"]
    assert AXLE_FL + ".velocity" in plots.curves


def _luminance(hex_color: str) -> float:
    from pyqtgraph import mkColor

    c = mkColor(hex_color)
    lin = [(v / 255 / 12.92) if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in (c.red(), c.green(), c.blue())]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_legend_reads_in_both_themes(window, theme):
    from pyqtgraph import mkColor

    from luncosim_workbench import resources

    plots = window.panels["plots"]
    plots.add_channel(CHASSIS_X)  # a label made before the switch is redrawn too
    window.set_theme("dark" if theme == "light" else "light")
    window.set_theme(theme)
    plots.add_channel(AXLE_FL + ".angle")
    colours = resources.load_theme(theme)
    for _sample, label in plots.legend.items:
        assert mkColor(label.opts["color"]).name() == colours.plot_foreground
        assert colours.plot_foreground.lstrip("#") in label.item.toHtml()
    box = plots.legend.opts["brush"].color()
    assert box.name() == colours.plot_background and box.alpha() > 180
    light, dark = sorted((_luminance(colours.plot_foreground), _luminance(colours.plot_background)), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= 4.5  # WCAG AA contrast of the legend text on its box


def test_the_grid_follows_the_axes_ticks_and_the_theme(window):
    from luncosim_workbench import resources

    plots = window.panels["plots"]
    window.set_theme("dark")
    plots.plot.setXRange(10.0, 30.0, padding=0)
    plots.plot.setYRange(-1.0, 1.0, padding=0)
    grid = plots.grids[0]
    major = grid.lines()[0]
    vertical = sorted(line.x1() for line in major if line.x1() == line.x2())
    horizontal = sorted(line.y1() for line in major if line.y1() == line.y2())
    assert vertical and all(10.0 <= x <= 30.0 for x in vertical)
    assert horizontal and all(-1.0 <= y <= 1.0 for y in horizontal)
    vb = plots.plot.getPlotItem().vb
    ticks = plots.plot.getAxis("bottom").tickValues(10.0, 30.0, vb.width())[0][1]
    assert vertical == sorted(ticks)
    assert grid._pens[0].color().name() == resources.load_theme("dark").plot_foreground
    assert grid.boundingRect().contains(20.0, 0.0)
