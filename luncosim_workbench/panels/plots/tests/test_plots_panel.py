"""The Plots panel: every tick's telemetry, CSV export, ports dropped from the Ports panel."""

from __future__ import annotations

import csv

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
