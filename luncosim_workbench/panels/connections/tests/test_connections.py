"""The Connections canvas driven like a user: it shows the assembly's ports and wires, a drag from
an output to an input is one SetConnection by the user, incompatible units are refused at the
drop with the reason, Delete removes a selected wire, node places stay in the view layer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
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
