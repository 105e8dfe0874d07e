"""The Modelica Diagram panel driven like a user: drag to connect (and be refused), drag five
selected icons as one undo step, keys, and the document's journal holding exactly the user's ops.
Edits go to the file's shared TextDocument; only Save writes the file."""

from __future__ import annotations

import shutil

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLineEdit

from luncosim_core.modelica.syntax.ops import AddConnection, RemoveComponent, SetPlacement

from .gestures import at_node, at_port, changed_lines, click, drag


def test_drag_connect_refuses_incompatible_connectors_and_joins_compatible_ones(panel, qtbot, rc_file):
    original = rc_file.read_text()
    assert panel.open_file(rc_file)
    view = panel.view
    drag(qtbot, view, at_port(panel, "ground.p"), at_port(panel, "v_cap"))
    assert "Connect refused" in panel.message.text()
    assert "ground.p is a Pin connector (flow i, v) but v_cap is an output Real signal" in panel.message.text()
    assert panel.doc.text == original and panel.edits.done == []
    drag(qtbot, view, at_port(panel, "ground.p"), at_port(panel, "capacitor.n"))
    assert [tx.ops for tx in panel.edits.done] == [(AddConnection("RCCircuit", "ground.p", "capacitor.n"),)]
    after = panel.doc.text
    assert changed_lines(original, after) == ["  connect(ground.p, capacitor.n);"]
    assert rc_file.read_text() == original and panel.doc.dirty  # written only when saved
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert rc_file.read_text() == after and not panel.doc.dirty
    assert len(panel.scene.items()) > 0 and len(panel.edits.view("RCCircuit").wires) == 5


def test_dragging_five_selected_icons_is_one_undo_step(panel, qtbot, rc_file):
    original = rc_file.read_text()
    assert panel.open_file(rc_file)
    view = panel.view
    names = ["source", "resistor", "capacitor", "ground", "current"]
    click(view, at_node(panel, names[0]))
    for n in names[1:]:
        click(view, at_node(panel, n), Qt.KeyboardModifier.ControlModifier)
    assert panel.selected() == sorted(names)
    drag(qtbot, view, at_node(panel, "resistor"), at_node(panel, "resistor") + QPoint(60, 0))
    [tx] = panel.edits.done
    assert len(tx.ops) == 5 and all(isinstance(op, SetPlacement) for op in tx.ops)
    assert sorted(op.component for op in tx.ops) == sorted(names)
    moved = panel.doc.text
    assert len(changed_lines(original, moved)) == 5  # one Placement line each, nothing else
    assert len(panel.doc.entries()) == 1  # one journal entry
    assert panel.selected() == sorted(names)  # re-projected from the text, selection kept
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.doc.text == original and panel.edits.done == [] and not panel.doc.dirty
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert panel.doc.text == moved and len(panel.edits.done) == 1


def test_keys_rotate_flip_and_delete_selected_components(panel, qtbot, rc_file):
    original = rc_file.read_text()
    assert panel.open_file(rc_file)
    view = panel.view
    click(view, at_node(panel, "resistor"))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_R)
    qtbot.keyClick(view, Qt.Key.Key_H)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    ops = [tx.ops for tx in panel.edits.done]
    assert ops == [(SetPlacement("RCCircuit", "resistor", rotation=90),),
                   (SetPlacement("RCCircuit", "resistor", flip_h=True),),
                   (RemoveComponent("RCCircuit", "resistor"),)]
    text = panel.doc.text
    assert "Resistor resistor" not in text and "connect(source.p, resistor.p)" not in text
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.doc.text == original and rc_file.read_text() == original


def test_a_lunco_model_with_icons_opens_with_its_components(panel, external_assets, tmp_path):
    src = external_assets / "models" / "AnnotatedRocketStage.mo"
    path = tmp_path / src.name
    shutil.copy(src, path)
    assert panel.open_file(path)
    assert panel.cls == "AnnotatedRocketStage.RocketStage"
    assert sorted(panel.nodes) == ["airframe", "engine", "tank", "valve"]
    assert all(n.view.icon.graphics for n in panel.nodes.values())
    assert {p.port.name for p in panel.nodes["valve"].ports} >= {"port_a", "port_b", "opening"}


def _type_modifier(qtbot, dialog, name: str, text: str) -> None:
    from luncosim_workbench.panels.diagram.params import MODIFIER

    table = dialog.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == name)
    table.setCurrentCell(row, MODIFIER)
    table.editItem(table.item(row, MODIFIER))  # what a double-click or F2 on the cell does
    editor = [e for e in table.findChildren(QLineEdit) if e.isVisible()][-1]
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)  # commits the cell


def _ok(qtbot, dialog) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    box = dialog.findChild(QDialogButtonBox)
    qtbot.mouseClick(box.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def test_parameters_dialog_shows_inherited_parameters_and_refuses_bad_values(panel, qtbot, rc_file):
    path = rc_file.parent / "Pack.mo"
    path.write_text('within Workbench.Electrical;\nmodel Pack "a battery"\n  // the pack\n'
                    '  Workbench.Power.Battery bat annotation(Placement(transformation(extent = {{-10, -10}, {10, 10}})));\n'
                    'end Pack;\n')
    original = path.read_text()
    assert panel.open_file(path)
    click(panel.view, at_node(panel, "bat"))
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_Return)  # Enter on a selected component: its Parameters
    dialog = panel.dialog
    assert dialog is not None and dialog.isVisible()
    rows = {dialog.table.item(r, 0).text(): [dialog.table.item(r, c).text() for c in range(6)]
            for r in range(dialog.table.rowCount())}
    assert rows["soc_initial"][2] == "1 [0..1]" and rows["soc_initial"][3] == "0.9"
    assert rows["r_internal"][2] == "Ohm" and rows["r_internal"][5] == "Series resistance"
    _type_modifier(qtbot, dialog, "soc_initial", "1.5")
    _ok(qtbot, dialog)
    assert dialog.isVisible() and "soc_initial = 1.5 is above its maximum 1" in dialog.problem.text()
    _type_modifier(qtbot, dialog, "soc_initial", "0.5 *")
    _ok(qtbot, dialog)
    assert "is not a Modelica expression" in dialog.problem.text() and panel.doc.text == original
    _type_modifier(qtbot, dialog, "soc_initial", "0.5")
    _type_modifier(qtbot, dialog, "r_internal", "0.1")
    _ok(qtbot, dialog)
    assert not dialog.isVisible()
    assert [tx.label for tx in panel.edits.done] == ["Parameters of bat"]
    assert changed_lines(original, panel.doc.text) == [
        "  Workbench.Power.Battery bat(r_internal = 0.1, soc_initial = 0.5) annotation(Placement("
        "transformation(extent = {{-10, -10}, {10, 10}})));"]
