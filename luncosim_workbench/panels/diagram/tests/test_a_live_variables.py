"""The model's own variables on the diagram while a simulation runs it: a small twin of our own
(a circuit with a signal input and the DriveController, as Modelica program prims), the panel
hovered, a slider dragged, wires read, variables plotted. Named ``test_a_…`` to run with the
other live test, before the panel's plain-window tests (see ``test_a_live_values.py``)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt

from luncosim_core.api import ModelVariables, SetPorts
from luncosim_core.twin.roots import repository_root
from luncosim_workbench.panels.diagram.live import fmt

from .gestures import at_node, send

DRIVE = repository_root() / "assets" / "models" / "Workbench" / "Rover" / "DriveController.mo"

LIVE_RC = """model LiveRC "A signal-driven source charging a capacitor through a resistor"
  Modelica.Blocks.Interfaces.RealInput V_supply(unit = "V", min = 0, max = 10, start = 5) "Supply voltage"
    annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output Real v_cap(unit = "V") "Capacitor voltage"
    annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
  Modelica.Electrical.Analog.Sources.SignalVoltage source
    annotation(Placement(transformation(extent = {{-70, -10}, {-50, 10}}, rotation = -90)));
  Modelica.Electrical.Analog.Basic.Resistor resistor(R = 10)
    annotation(Placement(transformation(extent = {{-20, 30}, {0, 50}})));
  Modelica.Electrical.Analog.Basic.Capacitor capacitor(C = 0.05)
    annotation(Placement(transformation(extent = {{30, -10}, {50, 10}}, rotation = -90)));
  Modelica.Electrical.Analog.Basic.Ground ground
    annotation(Placement(transformation(extent = {{-10, -60}, {10, -40}})));
  Modelica.Blocks.Sources.Sine wave(amplitude = 2, f = 0.5)
    annotation(Placement(transformation(extent = {{40, 60}, {60, 80}})));
  Modelica.Blocks.Interfaces.RealOutput wave_out "The sine, passed out"
    annotation(Placement(transformation(extent = {{100, 60}, {120, 80}})));
equation
  connect(wave.y, wave_out);
  connect(V_supply, source.v_in);
  connect(source.p, resistor.p);
  connect(resistor.n, capacitor.p);
  connect(capacitor.n, source.n);
  connect(source.n, ground.p);
  v_cap = capacitor.v;
end LiveRC;
"""

SCENE = """#usda 1.0
(
    defaultPrim = "Lab"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "Lab"
{
    def Scope "RC" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @../models/LiveRC.mo@
        float inputs:V_supply = 5
        float outputs:v_cap
    }
    def Scope "Drive" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @lunco://models/Workbench/Rover/DriveController.mo@
        float inputs:throttle = 0.6
        float inputs:steer = -0.3
        float outputs:torque_left
        float outputs:torque_right
        float outputs:speed_cmd
    }
}
"""

TWIN = """name = "live-lab"
version = "0.1.0"
description = "Modelica programs for the diagram's live values"

[usd]
default_scene = "scenes/lab.usda"
scenes = ["scenes/*.usda"]
"""


@pytest.fixture
def lab(make_window, tmp_path, qtbot):
    twin = tmp_path / "lab"
    (twin / "scenes").mkdir(parents=True)
    (twin / "models").mkdir()
    (twin / "twin.toml").write_text(TWIN)
    (twin / "scenes" / "lab.usda").write_text(SCENE)
    (twin / "models" / "LiveRC.mo").write_text(LIVE_RC)
    w = make_window()
    w.resize(1500, 950)
    w.show()
    assert w.open_path(twin)
    qtbot.waitUntil(lambda: w.bridge.latest is not None, timeout=60000)
    w.bridge.step(30)
    qtbot.waitUntil(lambda: w.bridge.latest.tick >= 30, timeout=150000)  # a loaded machine is slow, not wrong
    w.twin_dir = twin
    return w


def _read(window, qtbot, prim: str, *names: str) -> dict:
    fut = window.bridge.query(ModelVariables(prim, names))
    qtbot.waitUntil(fut.done, timeout=30000)
    result = fut.result()
    assert result.ok, result.diagnostics
    return result.value["variables"]


def _port(snapshot, key: str) -> float:
    return float(snapshot.port_values[snapshot.port_keys.index(key)])


def _open(panel, qtbot, path: Path) -> None:
    assert panel.open_file(path)
    qtbot.waitUntil(lambda: panel.live.active(), timeout=30000)


def test_hover_card_wire_values_and_a_slider_writing_the_input_port(lab, qtbot):
    p = lab.panels["diagram"]
    _open(p, qtbot, lab.twin_dir / "models" / "LiveRC.mo")
    assert p.live.prim == "/Lab/RC" and p.live.model == "LiveRC"
    view = p.view
    send(view, QEvent.Type.MouseMove, at_node(p, "resistor"), Qt.MouseButton.NoButton)  # hover the resistor
    now = _read(lab, qtbot, "/Lab/RC", "resistor.i", "resistor.v", "resistor.R", "resistor.n.v", "V_supply")
    want = f"i {fmt(now['resistor.i']['value'], 'A')}"
    qtbot.waitUntil(lambda: p.live.card is not None and p.live.card.isVisible()
                    and want in " ".join(p.live.card.plain().split()), timeout=10000)
    card = " ".join(p.live.card.plain().split())
    assert card.startswith("resistor : Resistor")
    assert f"v {fmt(now['resistor.v']['value'], 'V')}" in card and "R 10 Ohm" in card
    assert 0 < now["resistor.i"]["value"] < 0.5  # the capacitor is charging

    # each wire shows its potential variable's value; the signal wire its signal's
    wires = {(w.view.a, w.view.b): w for n in p.nodes.values() for w in n.wires}
    qtbot.waitUntil(lambda: wires[("resistor.n", "capacitor.p")].value_label is not None, timeout=10000)
    label = wires[("resistor.n", "capacitor.p")].value_label
    assert label.isVisible() and label.text() == f"v = {fmt(now['resistor.n.v']['value'], 'V')}"
    wave = _read(lab, qtbot, "/Lab/RC", "wave.y")["wave.y"]["value"]
    assert wires[("wave.y", "wave_out")].value_label.text() == fmt(wave)  # a signal wire: the signal's value
    assert wires[("V_supply", "source.v_in")].value_label is None  # source.v_in has no Placement: not drawn

    # the top-level input's slider: ranged by min/max, writing the port through SetPorts on release
    slider = p.live.sliders["V_supply"]
    assert slider.isEnabled() and (slider.lo, slider.hi) == (0.0, 10.0) and slider.value() == 500
    proxy = slider.graphicsProxyWidget()
    handle = slider.style().subControlRect(slider.style().ComplexControl.CC_Slider, _option(slider),
                                           slider.style().SubControl.SC_SliderHandle, slider).center()
    start = proxy.deviceTransform(view.viewportTransform()).map(QPointF(handle)).toPoint()  # it ignores the zoom
    groove = slider.width()  # the handle starts in the middle (5 V of 0…10): drag it 30 % of the width right
    left = Qt.MouseButton.LeftButton
    send(view, QEvent.Type.MouseButtonPress, start, left)
    for k in range(1, 9):
        send(view, QEvent.Type.MouseMove, start + QPoint(int(groove * 0.3 * k / 8), 0), left)
        qtbot.wait(30)
    send(view, QEvent.Type.MouseButtonRelease, start + QPoint(int(groove * 0.3), 0), Qt.MouseButton.NoButton)
    assert p.live.writes, "the drag wrote nothing"
    assert all(isinstance(c, SetPorts) and c.target == "/Lab/RC" and list(c.writes) == ["V_supply"]
               for c in p.live.writes)
    assert len(p.live.writes) <= 4  # throttled while dragging, one on release
    final = p.live.writes[-1].writes["V_supply"]
    assert 6.0 < final < 9.5 and final == pytest.approx(slider.value_of())
    assert p.doc is not None and not p.doc.dirty  # a runtime write, never a document edit
    tick = lab.bridge.latest.tick
    lab.bridge.step(1)
    qtbot.waitUntil(lambda: lab.bridge.latest.tick > tick, timeout=60000)
    assert _port(lab.bridge.latest, "/Lab/RC.V_supply") == pytest.approx(final, rel=1e-6)  # in the next snapshot
    lab.bridge.step(1)
    qtbot.waitUntil(lambda: wires[("source.p", "resistor.p")].value_label.text() == f"v = {fmt(final, 'V')}",
                    timeout=10000)  # the source follows its input
    _shot(p, qtbot, "diagram-live-rc.png", hover="capacitor")


def _option(slider):
    from PySide6.QtWidgets import QStyleOptionSlider

    opt = QStyleOptionSlider()
    slider.initStyleOption(opt)
    return opt


def test_plotting_a_port_and_a_model_variable_and_the_drive_controller_picture(lab, qtbot):
    p = lab.panels["diagram"]
    plots = lab.panels["plots"]
    _open(p, qtbot, lab.twin_dir / "models" / "LiveRC.mo")
    assert p.live.plot("v_cap") == "port" and "/Lab/RC.v_cap" in plots.channels
    assert p.live.plot("capacitor.i") == "watch"
    qtbot.waitUntil(lambda: "/Lab/RC.capacitor.i" in plots.watches and bool(plots.watches["/Lab/RC.capacitor.i"].times),
                    timeout=10000)
    series = plots.watches["/Lab/RC.capacitor.i"]
    current = _read(lab, qtbot, "/Lab/RC", "capacitor.i")["capacitor.i"]["value"]
    assert series.values[-1] == pytest.approx(current) and series.unit == "A"
    lab.bridge.step(12)
    qtbot.waitUntil(lambda: len(plots.watches["/Lab/RC.capacitor.i"].times) >= 2, timeout=20000)
    assert series.times[-1] > series.times[0] and all(math.isfinite(v) for v in series.values)
    menu = p.context_menu(p.nodes["capacitor"])
    plot_menu = next(a.menu() for a in menu.actions() if a.text() == "Plot")
    assert "capacitor.v" in [a.text() for a in plot_menu.actions()]

    # DriveController: its inputs get sliders, its protected variables show in the Variables table
    _open(p, qtbot, DRIVE)
    assert p.live.prim == "/Lab/Drive" and set(p.live.sliders) == {"throttle", "steer"}
    assert (p.live.sliders["throttle"].lo, p.live.sliders["throttle"].hi) == (-1.0, 1.0)
    p.variables_button.setChecked(True)
    now = _read(lab, qtbot, "/Lab/Drive", "mix_right", "frac_left")
    qtbot.waitUntil(lambda: p.live.row("mix_right") is not None
                    and p.live.row("mix_right").text(1) == fmt(now["mix_right"]["value"]), timeout=10000)
    row = p.live.row("frac_left")
    assert row.text(2) == "1" and row.text(3) == "plot"
    table = p.live.table
    table.scrollToItem(row)
    cell = table.visualRect(table.indexFromItem(row, 3))  # the row's "plot" link
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(cell.left() + 8, cell.center().y()))
    qtbot.waitUntil(lambda: "/Lab/Drive.frac_left" in plots.watches, timeout=10000)  # not a port: sampled
    assert "Plotting frac_left" in p.message.text()
    send(p.view, QEvent.Type.MouseMove, at_node(p, "torque_right"), Qt.MouseButton.NoButton)
    qtbot.waitUntil(lambda: p.live.card is not None and p.live.card.isVisible(), timeout=10000)
    assert "torque_right" in p.live.card.plain() and "N.m" in p.live.card.plain()
    _shot(p, qtbot, "diagram-drive-controller.png", hover="throttle")


def _shot(p, qtbot, name: str, hover: str) -> None:
    """The panel as a picture in $LUNCOSIM_SHOTS (docs/images/diagram-drive-controller.png)."""
    shots = os.environ.get("LUNCOSIM_SHOTS")
    if not shots:
        return
    dock = p.parentWidget()
    while dock is not None and not dock.inherits("QDockWidget"):
        dock = dock.parentWidget()
    dock.setFloating(True)
    dock.resize(1100, 600)
    p.library_button.setChecked(False)
    qtbot.wait(300)
    p.fit()
    send(p.view, QEvent.Type.MouseMove, QPoint(2, 2), Qt.MouseButton.NoButton)
    send(p.view, QEvent.Type.MouseMove, at_node(p, hover), Qt.MouseButton.NoButton)
    qtbot.wait(600)
    Path(shots).mkdir(parents=True, exist_ok=True)
    p.grab().save(str(Path(shots) / name))
