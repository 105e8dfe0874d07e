"""Canvas pieces driven like a user: bends drawn by hand, orthogonal routing of unrouted wires
around icons, resize handles, copy/paste/duplicate, drilling into a class (a library class
read-only, "Duplicate to edit"). Each gesture is one journal entry of exactly the user's ops."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from luncosim_core.modelica.syntax.ops import (
    AddComponent,
    AddConnection,
    SetLinePoints,
    SetPlacement,
)
from luncosim_workbench.panels.diagram.canvas import WireItem

from .gestures import at_node, changed_lines, click, drag


def _wire(panel, a: str, b: str) -> WireItem:
    return next(i for i in panel.scene.items() if isinstance(i, WireItem) and {i.view.a, i.view.b} == {a, b})


def _double_click(view, pos: QPoint) -> None:
    click(view, pos)
    ev = QMouseEvent(QEvent.Type.MouseButtonDblClick, QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)),
                     Qt.MouseButton.LeftButton, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), ev)


def _orthogonal(points) -> bool:
    return all(abs(a.x() - b.x()) < 1e-6 or abs(a.y() - b.y()) < 1e-6 for a, b in zip(points, points[1:], strict=False))


def _crosses(points, rect) -> bool:
    """Whether the polyline passes through the inside of ``rect`` (scene coordinates)."""
    inner = rect.adjusted(1, 1, -1, -1)
    for a, b in zip(points, points[1:], strict=False):
        for k in range(21):
            t = k / 20
            if inner.contains(QPointF(a.x() + t * (b.x() - a.x()), a.y() + t * (b.y() - a.y()))):
                return True
    return False


def test_unrouted_wires_go_around_the_icons_orthogonally(panel, rc_file):
    path = rc_file.parent / "Around.mo"
    path.write_text(
        "within Workbench.Electrical;\nmodel Around\n"
        "  Resistor left annotation(Placement(transformation(extent = {{-80, -10}, {-60, 10}})));\n"
        "  Resistor wall annotation(Placement(transformation(extent = {{-20, -40}, {20, 40}}, rotation = 90)));\n"
        "  Resistor right annotation(Placement(transformation(extent = {{60, -10}, {80, 10}})));\n"
        "equation\n  connect(left.n, right.p);\nend Around;\n")
    assert panel.open_file(path)
    pts = _wire(panel, "left.n", "right.p").points()
    assert len(pts) >= 4 and _orthogonal(pts)
    assert not _crosses(pts, panel.nodes["wall"].sceneBoundingRect().adjusted(2, 2, -2, -2))
    start, end = pts[0], pts[-1]
    assert start == panel.nodes["left"].port("n").scene_center() and end == panel.nodes["right"].port("p").scene_center()


def test_dragging_a_wire_segment_bends_it_and_double_click_adds_and_removes_bends(panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    original = panel.doc.text
    wire = _wire(panel, "source.n", "ground.p")
    before = wire.points()
    seg = max(range(len(before) - 1), key=lambda i: abs(before[i].x() - before[i + 1].x()))  # a horizontal one
    mid = (before[seg] + before[seg + 1]) / 2
    start = panel.view.mapFromScene(mid)
    drag(qtbot, panel.view, start, start + QPoint(0, 30))
    [tx] = panel.edits.done
    [op] = tx.ops
    assert isinstance(op, SetLinePoints) and (op.a, op.b) == ("source.n", "ground.p") and tx.label == "Bend connection"
    new = _wire(panel, "source.n", "ground.p")
    assert _orthogonal(new.points()) and len(new.view.points) == len(op.points) >= 4
    assert new.points()[0] == panel.nodes["source"].port("n").scene_center()  # still attached
    [line] = changed_lines(original, panel.doc.text)
    assert line.startswith("  connect(source.n, ground.p) annotation(Line(points = {{")
    # double-click on a segment adds a bend there; on the bend, removes it
    pts = new.points()
    seg = max(range(len(pts) - 1), key=lambda i: abs(pts[i].x() - pts[i + 1].x()) + abs(pts[i].y() - pts[i + 1].y()))
    at = panel.view.mapFromScene((pts[seg] + pts[seg + 1]) / 2)
    _double_click(panel.view, at)
    added = panel.edits.done[-1].ops[0]
    assert isinstance(added, SetLinePoints) and len(added.points) == len(op.points) + 1
    bend = _wire(panel, "source.n", "ground.p").points()[seg + 1]
    _double_click(panel.view, panel.view.mapFromScene(bend))
    assert panel.edits.done[-1].ops[0].points == op.points
    for _ in range(3):
        qtbot.keyClick(panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.doc.text == original


def test_a_corner_handle_resizes_the_icon_changing_only_its_extent(panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    original = panel.doc.text
    click(panel.view, at_node(panel, "capacitor"))  # rotated -90: its rotation must stay
    node = panel.nodes["capacitor"]
    handles = [h for h in node.handles if h.isVisible()]
    assert len(handles) == 4
    handle = next(h for h in node.handles if h.corner == (1, 1))
    start = panel.view.mapFromScene(handle.scenePos())
    drag(qtbot, panel.view, start, start + QPoint(25, 25))
    [tx] = panel.edits.done
    [op] = tx.ops
    assert isinstance(op, SetPlacement) and op.extent is not None
    assert (op.origin, op.rotation, op.flip_h, op.flip_v) == (None, None, None, None)  # only the extent
    [line] = changed_lines(original, panel.doc.text)
    assert "rotation = -90" in line and line.startswith("  Capacitor capacitor(C = C) annotation(Placement(transformation(extent = {{")
    (x1, y1), (x2, y2) = op.extent
    assert abs(x2 - x1) > 20 and abs(y2 - y1) > 20  # grew
    click(panel.view, at_node(panel, "resistor"), Qt.KeyboardModifier.ControlModifier)
    assert not any(h.isVisible() for n in panel.nodes.values() for h in n.handles)  # two selected: no handles


def test_copy_paste_and_duplicate_copy_components_and_their_connections_in_one_step(panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    original = panel.doc.text
    view = panel.view
    click(view, at_node(panel, "resistor"))
    click(view, at_node(panel, "capacitor"), Qt.KeyboardModifier.ControlModifier)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    [tx] = panel.edits.done
    assert tx.label == "Paste 2 components"
    adds = [op for op in tx.ops if isinstance(op, AddComponent)]
    links = [op for op in tx.ops if isinstance(op, AddConnection)]
    assert [(op.name, op.type, op.modification) for op in adds] == [
        ("capacitor1", "Workbench.Electrical.Capacitor", "C = C"), ("resistor1", "Workbench.Electrical.Resistor", "R = R")]
    assert [(op.a, op.b) for op in links] == [("resistor1.n", "capacitor1.p")]  # only the one among them
    resistor = next(op for op in adds if op.name == "resistor1")
    assert resistor.extent == ((-10, 20), (10, 40))  # offset by (10, -10)
    capacitor = next(op for op in adds if op.name == "capacitor1")
    assert capacitor.rotation == -90
    assert len(changed_lines(original, panel.doc.text)) == 3 and panel.selected() == ["capacitor1", "resistor1"]
    qtbot.keyClick(view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)  # duplicate the pasted ones
    [*_, dup] = panel.edits.done
    assert sorted(op.name for op in dup.ops if isinstance(op, AddComponent)) == ["capacitor2", "resistor2"]
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.doc.text == original


def test_double_click_drills_into_a_class_library_classes_read_only_until_duplicated(panel, qtbot, rc_file):
    path = rc_file.parent.parent.parent / "Mine.mo"  # outside any package: not a library file
    path.write_text("model Mine\n  Modelica.Electrical.Analog.Basic.Resistor r1(R = 2) annotation(Placement("
                    "transformation(extent = {{-10, -10}, {10, 10}})));\n"
                    "  Workbench.Electrical.RCCircuit rc annotation(Placement(transformation(extent = {{30, -10}, {50, 10}})));\n"
                    "end Mine;\n")
    assert panel.open_file(path)
    _double_click(panel.view, at_node(panel, "r1"))
    assert panel.cls == "Electrical.Analog.Basic.Resistor" and panel.read_only is not None
    assert "library class, read-only" in panel.message.text() and panel.duplicate_button.isVisibleTo(panel)
    assert sorted(panel.nodes) == ["n", "p"]  # the Resistor's own connectors, from its base OnePort
    click(panel.view, at_node(panel, "p"))
    assert not any(h.isVisible() for n in panel.nodes.values() for h in n.handles)
    assert panel.nodes["p"].view.inherited  # from OnePort
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_R)
    assert "inherited from a base class" in panel.message.text()
    assert panel.add_component("Modelica.Electrical.Analog.Basic.Ground") is None
    assert "refused" in panel.message.text() and "read-only" in panel.message.text() and panel.edits.done == []
    qtbot.mouseClick(panel.duplicate_button, Qt.MouseButton.LeftButton)
    copy = path.parent / "ResistorCopy.mo"
    assert copy.is_file() and copy.read_text().startswith("within Modelica.Electrical.Analog.Basic;\nmodel ResistorCopy")
    assert copy.read_text().rstrip().endswith("end ResistorCopy;")
    assert panel.read_only is None and panel.edits.path == copy.resolve() and panel.cls == "ResistorCopy"
    assert sorted(panel.nodes) == ["n", "p"]  # its names still resolve
    tx = panel.add_component("Modelica.Electrical.Analog.Basic.Ground")
    assert tx is not None and tx.ops[0].cls == "ResistorCopy" and tx.ops[0].name == "G1"
    # Back twice: the read-only library class, then the model it was opened from
    qtbot.mouseClick(panel.back_button, Qt.MouseButton.LeftButton)
    assert panel.cls == "Electrical.Analog.Basic.Resistor" and panel.read_only is not None
    qtbot.mouseClick(panel.back_button, Qt.MouseButton.LeftButton)
    assert panel.edits.path == path.resolve() and panel.read_only is None and not panel.back_button.isEnabled()
    # a class of the twin's own files is editable when drilled into
    _double_click(panel.view, at_node(panel, "rc"))
    assert panel.cls == "RCCircuit" and panel.read_only is None
