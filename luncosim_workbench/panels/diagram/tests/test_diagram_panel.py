"""The Modelica Diagram panel driven like a user: drag to connect (and be refused), drag five
selected icons as one undo step, keys, and the journal holding exactly the user's ops."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QLineEdit

from luncosim_core.modelica.syntax.ops import AddConnection, RemoveComponent, SetPlacement
from luncosim_core.twin.roots import repository_root

LIB = repository_root() / "assets" / "models"


@pytest.fixture
def rc_file(tmp_path) -> Path:
    """A copy of our library (so saves never touch the repository) and its RCCircuit."""
    shutil.copytree(LIB / "Workbench", tmp_path / "lib" / "Workbench")
    return tmp_path / "lib" / "Workbench" / "Electrical" / "RCCircuit.mo"


@pytest.fixture
def external_assets() -> Path:
    root = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    if not root or not Path(root).is_dir():
        pytest.skip("LUNCOSIM_EXTERNAL_ASSETS not set")
    return Path(root)


@pytest.fixture
def panel(window, qtbot):
    p = window.panels["diagram"]
    dock = p.parentWidget()
    while dock is not None and not isinstance(dock, QDockWidget):
        dock = dock.parentWidget()
    dock.setFloating(True)
    dock.show()
    dock.resize(900, 700)
    qtbot.waitExposed(dock)
    return p


def _send(view, kind, pos: QPoint, buttons, modifiers=Qt.KeyboardModifier.NoModifier):
    button = Qt.MouseButton.LeftButton if kind != QEvent.Type.MouseMove else Qt.MouseButton.NoButton
    ev = QMouseEvent(kind, QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)), button, buttons, modifiers)
    QApplication.sendEvent(view.viewport(), ev)


def drag(qtbot, view, start: QPoint, end: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Press, move in steps (with the button held), release: what a hand does."""
    left = Qt.MouseButton.LeftButton
    _send(view, QEvent.Type.MouseButtonPress, start, left, modifiers)
    for k in range(1, 9):
        p = start + (end - start) * (k / 8)
        _send(view, QEvent.Type.MouseMove, QPoint(int(p.x()), int(p.y())), left, modifiers)
        qtbot.wait(5)
    _send(view, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton, modifiers)
    qtbot.wait(20)


def click(view, pos: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    _send(view, QEvent.Type.MouseButtonPress, pos, Qt.MouseButton.LeftButton, modifiers)
    _send(view, QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.NoButton, modifiers)


def at_port(panel, ref: str) -> QPoint:
    head, _, port = ref.partition(".")
    node = panel.nodes[head]
    item = node.port(port) if port else node.ports[0]
    return panel.view.mapFromScene(item.scene_center())


def at_node(panel, name: str) -> QPoint:
    node = panel.nodes[name]
    r = node._rect  # the icon's body, away from its connectors (an own connector: its rim)
    y = r.center().y() + r.height() * (0.4 if node.view.own_connector is not None else 0.1)
    return panel.view.mapFromScene(node.mapToScene(QPointF(r.center().x(), y)))


def changed_lines(old: str, new: str) -> list[str]:
    return sorted(set(new.splitlines()) - set(old.splitlines()))


def test_drag_connect_refuses_incompatible_connectors_and_joins_compatible_ones(panel, qtbot, rc_file):
    original = rc_file.read_text()
    assert panel.open_file(rc_file)
    view = panel.view
    drag(qtbot, view, at_port(panel, "ground.p"), at_port(panel, "v_cap"))
    assert "Connect refused" in panel.message.text()
    assert "ground.p is a Pin connector (flow i, v) but v_cap is an output Real signal" in panel.message.text()
    assert rc_file.read_text() == original and panel.edits.done == []
    drag(qtbot, view, at_port(panel, "ground.p"), at_port(panel, "capacitor.n"))
    assert [tx.ops for tx in panel.edits.done] == [(AddConnection("RCCircuit", "ground.p", "capacitor.n"),)]
    after = rc_file.read_text()
    assert changed_lines(original, after) == ["  connect(ground.p, capacitor.n);"]
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
    moved = rc_file.read_text()
    assert len(changed_lines(original, moved)) == 5  # one Placement line each, nothing else
    assert panel.selected() == sorted(names)  # re-projected from the text, selection kept
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert rc_file.read_text() == original and panel.edits.done == []
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert rc_file.read_text() == moved and len(panel.edits.done) == 1


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
    text = rc_file.read_text()
    assert "Resistor resistor" not in text and "connect(source.p, resistor.p)" not in text
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert rc_file.read_text() == original


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
    pos = at_node(panel, "bat")
    _send(panel.view, QEvent.Type.MouseButtonPress, pos, Qt.MouseButton.LeftButton)
    _send(panel.view, QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.NoButton)
    ev = QMouseEvent(QEvent.Type.MouseButtonDblClick, QPointF(pos), QPointF(panel.view.viewport().mapToGlobal(pos)),
                     Qt.MouseButton.LeftButton, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(panel.view.viewport(), ev)
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
    assert "is not a Modelica expression" in dialog.problem.text() and path.read_text() == original
    _type_modifier(qtbot, dialog, "soc_initial", "0.5")
    _type_modifier(qtbot, dialog, "r_internal", "0.1")
    _ok(qtbot, dialog)
    assert not dialog.isVisible()
    assert [tx.label for tx in panel.edits.done] == ["Parameters of bat"]
    assert changed_lines(original, path.read_text()) == [
        "  Workbench.Power.Battery bat(r_internal = 0.1, soc_initial = 0.5) annotation(Placement("
        "transformation(extent = {{-10, -10}, {10, 10}})));"]
