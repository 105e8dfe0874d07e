"""The Connections canvas driven like a user: it shows the assembly's ports and wires, a drag from
an output to an input is one SetConnection by the user, incompatible units are refused at the
drop with the reason, Delete removes a selected wire, node places stay in the view layer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from luncosim_workbench.panels.connections.model import POSITION_ATTR, build_graph

SCENE = """#usda 1.0
(
    defaultPrim = "Rig"
)

def Xform "Rig"
{
    def Scope "Sensor"
    {
        float outputs:speed = 0 (customData = {string unit = "m/s"})
        float outputs:temperature = 0 (customData = {string unit = "K"})
    }

    def Scope "Filter"
    {
        float inputs:x (customData = {string unit = "km/h"})
        float outputs:y (customData = {string unit = "km/h"})
        prepend float inputs:x.connect = </Rig/Sensor.outputs:speed>
    }

    def Scope "Display"
    {
        float inputs:shown (customData = {string unit = "km/h"})
        float inputs:ghost
        prepend float inputs:ghost.connect = </Rig/Gone.outputs:y>
    }
}
"""


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


@pytest.fixture
def canvas(window, tmp_path, qtbot):
    scene = tmp_path / "rig.usda"
    scene.write_text(SCENE)
    assert window.open_path(scene)
    window.show()
    dock = window.docks["connections"]
    dock.show()
    dock.raise_()
    panel = window.panels["connections"]
    panel.resize(900, 400)
    qtbot.waitUntil(lambda: len(panel.nodes) == 3, timeout=3000)
    return panel


def _center(panel, port_item):
    return panel.view.mapFromScene(port_item.anchor())


def test_the_graph_has_nodes_by_rank_wires_broken_and_converted(canvas):
    g = build_graph(canvas.document.stage, "/Rig")
    assert [g.nodes[p].rank for p in ("/Rig/Sensor", "/Rig/Filter", "/Rig/Display")] == [0, 1, 0]
    wires = {w.sink: w for w in g.wires}
    assert wires["/Rig/Filter.inputs:x"].converted == "m/s -> km/h"
    assert "no prim at /Rig/Gone" in wires["/Rig/Display.inputs:ghost"].broken


def test_drag_output_to_input_wires_them_through_the_journal(canvas, qtbot):
    doc = canvas.document
    src = canvas.nodes["/Rig/Filter"].ports["outputs:y"]
    dst = canvas.nodes["/Rig/Display"].ports["inputs:shown"]
    view = canvas.view.viewport()
    QTest.mousePress(view, Qt.MouseButton.LeftButton, pos=_center(canvas, src))
    QTest.mouseMove(view, _center(canvas, dst))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, pos=_center(canvas, dst))
    assert _journal(doc) == [("wire /Rig/Display.inputs:shown", "user")]
    attr = doc.stage.GetAttributeAtPath("/Rig/Display.inputs:shown")
    assert [str(s) for s in attr.GetConnections()] == ["/Rig/Filter.outputs:y"]
    assert any(w.wire and w.wire.sink == "/Rig/Display.inputs:shown" for w in canvas.wires)  # redrawn
    shots = os.environ.get("LUNCOSIM_SHOTS")
    if shots:
        canvas.window().grab().save(str(Path(shots) / "connections.png"))


def test_incompatible_units_are_refused_at_the_drop(canvas):
    doc = canvas.document
    src = canvas.nodes["/Rig/Sensor"].ports["outputs:temperature"]
    dst = canvas.nodes["/Rig/Display"].ports["inputs:shown"]
    view = canvas.view.viewport()
    QTest.mousePress(view, Qt.MouseButton.LeftButton, pos=_center(canvas, src))
    QTest.mouseMove(view, _center(canvas, dst))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, pos=_center(canvas, dst))
    assert _journal(doc) == []
    assert "cannot convert 'K' to 'km/h'" in canvas.status.text()


def test_delete_removes_the_selected_wire_and_undo_brings_it_back(canvas, qtbot):
    doc = canvas.document
    item = next(w for w in canvas.wires if w.wire and w.wire.sink == "/Rig/Filter.inputs:x")
    item.setSelected(True)
    canvas.view.setFocus()
    QTest.keyClick(canvas.view, Qt.Key.Key_Delete)
    assert _journal(doc) == [("wire /Rig/Filter.inputs:x", "user")]
    assert doc.stage.GetAttributeAtPath("/Rig/Filter.inputs:x").GetConnections() == []
    doc.undo()
    assert [str(s) for s in doc.stage.GetAttributeAtPath("/Rig/Filter.inputs:x").GetConnections()] == \
        ["/Rig/Sensor.outputs:speed"]


def test_a_moved_node_keeps_its_place_in_the_view_layer_only(canvas):
    doc = canvas.document
    canvas.nodes["/Rig/Display"].setPos(500, 300)
    assert tuple(doc.view.GetAttributeAtPath(f"/Rig/Display.{POSITION_ATTR}").default) == (500, 300)
    assert not doc.dirty and _journal(doc) == []
    canvas.rebuild()
    assert (canvas.nodes["/Rig/Display"].pos().x(), canvas.nodes["/Rig/Display"].pos().y()) == (500, 300)
    canvas.auto_layout()
    assert canvas.nodes["/Rig/Display"].pos().x() == 0.0


def test_wires_show_live_values_while_the_simulation_runs(canvas, qtbot):
    window = canvas.window()
    qtbot.waitUntil(lambda: window.bridge.latest is not None, timeout=15000)
    window.bridge.step(3)
    qtbot.waitUntil(lambda: window.bridge.latest.tick >= 3, timeout=15000)
    window.bridge.flush()
    wire = next(w for w in canvas.wires if w.wire and w.wire.sink == "/Rig/Filter.inputs:x")
    qtbot.waitUntil(lambda: wire.value.text() != "", timeout=5000)
    assert float(wire.value.text()) == window.bridge.latest.port("/Rig/Sensor.speed") == 0.0


CHAIN = """#usda 1.0
(
    defaultPrim = "Line"
)

def Xform "Line"
{
    def Scope "Src"
    {
        float outputs:a = 1
        float outputs:b = 2
    }

    def Scope "Mid"
    {
        float inputs:x
        float inputs:y
        float outputs:z
        prepend float inputs:x.connect = </Line/Src.outputs:a>
        prepend float inputs:y.connect = </Line/Src.outputs:b>
    }

    def Scope "Dst"
    {
        float inputs:w
        prepend float inputs:w.connect = </Line/Mid.outputs:z>
    }
}
"""


def _open_canvas(window, scene, qtbot, nodes):
    assert window.open_path(scene)
    window.show()
    dock = window.docks["connections"]
    dock.show()
    dock.raise_()
    panel = window.panels["connections"]
    panel.resize(900, 400)
    qtbot.waitUntil(lambda: len(panel.nodes) == nodes, timeout=5000)
    return panel


@pytest.fixture
def chain(window, tmp_path, qtbot):
    scene = tmp_path / "line.usda"
    scene.write_text(CHAIN)
    return _open_canvas(window, scene, qtbot, 3)


def _sources(doc, attr):
    return [str(s) for s in doc.stage.GetAttributeAtPath(attr).GetConnections()]


def _click_node(panel, path, modifier=Qt.KeyboardModifier.NoModifier):
    item = panel.nodes[path]
    at = panel.view.mapFromScene(item.mapToScene(QPointF(60, 10)))  # on the title
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, modifier, at)


def _click_wire(panel, sink, modifier=Qt.KeyboardModifier.NoModifier):
    item = next(w for w in panel.wires if w.wire and w.wire.sink == sink)
    at = panel.view.mapFromScene(item.path().pointAtPercent(0.5))
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, modifier, at)
    assert item.isSelected(), sink


def test_delete_on_a_node_clears_all_its_wires_in_one_undo_step(chain, qtbot):
    doc = chain.document
    _click_node(chain, "/Line/Mid")
    assert chain.nodes["/Line/Mid"].isSelected()
    chain.view.setFocus()
    QTest.keyClick(chain.view, Qt.Key.Key_Delete)
    assert _journal(doc) == [("delete 3 wires of /Line/Mid", "user")]
    assert _sources(doc, "/Line/Mid.inputs:x") == [] and _sources(doc, "/Line/Mid.inputs:y") == []
    assert _sources(doc, "/Line/Dst.inputs:w") == []
    assert doc.stage.GetPrimAtPath("/Line/Mid")  # the prim stays: only its wires go
    assert not [w for w in chain.wires if w.wire]  # redrawn without them
    doc.undo()  # one step brings all three back
    assert _sources(doc, "/Line/Mid.inputs:x") == ["/Line/Src.outputs:a"]
    assert _sources(doc, "/Line/Mid.inputs:y") == ["/Line/Src.outputs:b"]
    assert _sources(doc, "/Line/Dst.inputs:w") == ["/Line/Mid.outputs:z"]


def test_deleting_several_selected_wires_is_one_undo_step(chain, qtbot):
    doc = chain.document
    _click_wire(chain, "/Line/Mid.inputs:x")
    _click_wire(chain, "/Line/Dst.inputs:w", Qt.KeyboardModifier.ControlModifier)
    chain.view.setFocus()
    QTest.keyClick(chain.view, Qt.Key.Key_Delete)
    assert _journal(doc) == [("delete 2 wires", "user")]
    assert _sources(doc, "/Line/Mid.inputs:x") == [] and _sources(doc, "/Line/Dst.inputs:w") == []
    assert _sources(doc, "/Line/Mid.inputs:y") == ["/Line/Src.outputs:b"]  # not selected: kept
    doc.undo()
    assert _sources(doc, "/Line/Mid.inputs:x") == ["/Line/Src.outputs:a"]
    assert _sources(doc, "/Line/Dst.inputs:w") == ["/Line/Mid.outputs:z"]


def test_node_places_come_back_after_a_restart(make_window, tmp_path, qtbot):
    scene = tmp_path / "line.usda"
    scene.write_text(CHAIN)
    first = make_window()
    panel = _open_canvas(first, scene, qtbot, 3)
    item = panel.nodes["/Line/Dst"]
    start = panel.view.mapFromScene(item.mapToScene(QPointF(60, 10)))
    end = start + QPoint(90, 60)
    view = panel.view.viewport()
    QTest.mousePress(view, Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 6):
        QTest.mouseMove(view, start + (end - start) * k / 5)
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, pos=end)
    moved = (item.pos().x(), item.pos().y())
    assert moved != (0.0, 0.0)
    sidecar = tmp_path / ".lunco" / "connections" / "line.usda.json"
    qtbot.waitUntil(sidecar.exists, timeout=3000)
    assert not first.session.document.dirty and _journal(first.session.document) == []
    first.close()
    second = make_window()  # a restart: a new window, a new document, an empty view layer
    again = _open_canvas(second, scene, qtbot, 3)
    placed = again.nodes["/Line/Dst"].pos()
    assert (placed.x(), placed.y()) == pytest.approx(moved, abs=0.01)
    again.auto_layout()  # forgets them, on disk too
    assert not sidecar.exists() and again.nodes["/Line/Dst"].pos() != placed


def test_demo_units_come_from_the_simulation_and_a_torque_into_the_throttle_is_refused(opened, qtbot):
    rover = "/PracticeYard/RoverB"
    dock = opened.docks["connections"]
    dock.show()
    dock.raise_()
    canvas = opened.panels["connections"]
    canvas.resize(1200, 700)
    opened.session.selection.set([rover])  # the yard's canvas (or the rover's): both show its nodes
    qtbot.waitUntil(lambda: canvas.graph is not None and {rover, rover + "/Controller"} <= set(canvas.graph.nodes),
                    timeout=5000)
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(1)  # waits out the controller's compile: its units are live after it
    qtbot.waitUntil(lambda: canvas.graph.nodes[rover + "/Controller"].port("outputs:torque_left").unit == "N.m",
                    timeout=120000)
    controller = canvas.graph.nodes[rover + "/Controller"]
    assert controller.port("outputs:torque_left").label == "torque_left [N.m]"
    assert controller.port("outputs:torque_left").unit_from == "live"
    throttle = canvas.graph.nodes[rover].port("inputs:throttle")
    assert (throttle.unit, throttle.unit_from) == ("1", "wire")  # it drives the controller's throttle [1]
    doc = opened.session.document
    src = canvas.nodes[rover + "/Controller"].ports["outputs:torque_left"]
    dst = canvas.nodes[rover].ports["inputs:throttle"]
    view = canvas.view.viewport()
    QTest.mousePress(view, Qt.MouseButton.LeftButton, pos=_center(canvas, src))
    QTest.mouseMove(view, _center(canvas, dst))
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, pos=_center(canvas, dst))
    assert _journal(doc) == []
    assert (f"cannot wire {rover}/Controller.outputs:torque_left to {rover}.inputs:throttle: "
            "cannot convert 'N.m' to '1'") in canvas.status.text()
    shots = os.environ.get("LUNCOSIM_SHOTS")
    if shots:
        canvas.grab().save(str(Path(shots) / "connections-demo.png"))
