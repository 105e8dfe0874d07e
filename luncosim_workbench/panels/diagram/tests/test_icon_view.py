"""The Icon view: a class's Icon graphics edited with the diagram's gestures — draw a rectangle,
ellipse, line, polygon or text with a tool, drag to move (its origin), R rotates, Delete removes —
each one journal entry of span-preserving graphics ops; undo restores the bytes."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt

from luncosim_core.modelica.syntax.ops import AddGraphic, RemoveGraphic, SetGraphic

from .gestures import changed_lines, click, drag

MODEL = ('model Box "a box"\n'
         '  input Real u annotation(Placement(transformation(extent = {{-120, -10}, {-100, 10}})));\n'
         "equation\n"
         "annotation(Icon(graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 0})}));\n"
         "end Box;\n")


def _at(panel, x: float, y: float) -> QPoint:
    return panel.view.mapFromScene(QPointF(x, -y))


def test_drawing_moving_rotating_and_deleting_graphics_in_the_icon_view(panel, qtbot, tmp_path):
    path = tmp_path / "Box.mo"
    path.write_text(MODEL)
    assert panel.open_file(path)
    qtbot.mouseClick(panel.icon_button, Qt.MouseButton.LeftButton)
    assert panel.layer == "Icon" and sorted(panel.graphics) == [0] and "u" in panel.nodes  # the connector, for reference
    assert all(b.isVisibleTo(panel) for b in panel.tools.values())
    qtbot.mouseClick(panel.tools["Ellipse"], Qt.MouseButton.LeftButton)
    drag(qtbot, panel.view, _at(panel, -40, -20), _at(panel, 40, 20))
    [tx] = panel.edits.done
    [op] = tx.ops
    assert isinstance(op, AddGraphic) and op.item.startswith("Ellipse(extent = {{") and tx.label == "Draw ellipse"
    assert sorted(panel.graphics) == [0, 1] and panel.selected_graphics() == [1]
    [line] = changed_lines(MODEL, panel.doc.text)
    assert line.startswith("annotation(Icon(graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, "
                           "lineColor = {0, 0, 0}), Ellipse(extent = {{")
    qtbot.mouseClick(panel.tools["Ellipse"], Qt.MouseButton.LeftButton)  # the tool off: drags move again
    assert panel.view.tool is None
    drag(qtbot, panel.view, _at(panel, 0, 18), _at(panel, 0, 18) + QPoint(60, 0))
    [move] = panel.edits.done[-1].ops
    assert isinstance(move, SetGraphic) and (move.index, move.name) == (1, "origin") and move.value.endswith(", 0}")
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_R)
    assert panel.edits.done[-1].ops == (SetGraphic("Box", 1, "rotation", "90"),)
    qtbot.keyClick(panel.view, Qt.Key.Key_Delete)
    assert panel.edits.done[-1].ops == (RemoveGraphic("Box", 1),) and sorted(panel.graphics) == [0]
    for _ in range(4):
        qtbot.keyClick(panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.doc.text == MODEL


def test_every_tool_draws_its_primitive_and_a_class_without_an_icon_gets_one(panel, qtbot, tmp_path):
    path = tmp_path / "Bare.mo"
    source = "model Bare\n  Real x;\nequation\n  x = 1;\nend Bare;\n"
    path.write_text(source)
    assert panel.open_file(path)
    panel.set_layer("Icon")
    assert panel.graphics == {}
    for k, tool in enumerate(("Rectangle", "Ellipse", "Line", "Polygon", "Text")):
        panel.choose_tool(tool)
        drag(qtbot, panel.view, _at(panel, -50 + 20 * k, -10), _at(panel, -40 + 20 * k, 10))
    kinds = [tx.ops[0].item.split("(")[0] for tx in panel.edits.done]
    assert kinds == ["Rectangle", "Ellipse", "Line", "Polygon", "Text"] and sorted(panel.graphics) == [0, 1, 2, 3, 4]
    text = panel.doc.text
    assert text.startswith(source[:source.index("end Bare;")]) and "  annotation(Icon(graphics = {Rectangle(" in text
    assert 'Text(extent = {{' in text and 'textString = "%name")' in text
    panel.choose_tool(None)
    panel.set_layer("Diagram")
    assert panel.layer == "Diagram" and not panel.view.icon_layer
    click(panel.view, _at(panel, 0, 0))  # nothing breaks back in the diagram
