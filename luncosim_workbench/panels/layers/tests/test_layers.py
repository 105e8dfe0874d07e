"""The Layer stack on the demo twin: its layers strongest first with their files, the referenced
rover asset among the composed layers, the edit target switched for every panel by a
double-click, and the layers holding opinions about the selected prim."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from luncosim_core.usd.ops import SetAttribute

ROVER_B = "/PracticeYard/RoverB"


def _panel(window):
    dock = window.docks["layers"]
    dock.show()
    dock.raise_()
    return window.panels["layers"]


def test_the_stack_lists_layers_strongest_first_with_their_files(opened):
    panel = _panel(opened)
    rows = panel.rows
    assert [r.role for r in rows[:3]] == ["view", "runtime", "base"]
    assert rows[2].file == str(opened.session.document.path)
    assert any(r.role == "used" and r.file.endswith("yard_rover.usda") for r in rows)


def test_choosing_runtime_switches_the_edit_target_for_every_panel(opened, qtbot):
    panel = _panel(opened)
    doc = opened.session.document
    qtbot.waitUntil(lambda: panel.tree.isVisible() and not panel.tree.visualItemRect(panel.tree.topLevelItem(1)).isEmpty(),
                    timeout=3000)
    rect = panel.tree.visualItemRect(panel.tree.topLevelItem(1))
    panel.tree.setFocus()
    panel.tree.setCurrentItem(panel.tree.itemAt(rect.center()))  # the runtime row, as a click or arrow keys
    QTest.keyClick(panel.tree, Qt.Key.Key_Return)
    assert doc.edit_target == "runtime"
    assert opened.panels["assembly"].inspector.edit_target == "runtime"
    assert panel.tree.topLevelItem(1).text(1) == "✎"
    opened.panels["assembly"].ctx.apply(SetAttribute(path=ROVER_B, name="xformOp:translate", value=(0.0, 0.0, 6.0),
                                                     target=doc.edit_target))
    assert doc.runtime.GetAttributeAtPath(f"{ROVER_B}.xformOp:translate") is not None
    assert not doc.dirty or doc.base.GetAttributeAtPath(f"{ROVER_B}.xformOp:translate").default[2] == 5


def test_the_selection_shows_which_layers_hold_its_opinions(opened, qtbot):
    panel = _panel(opened)
    opened.session.selection.set([ROVER_B])
    qtbot.waitUntil(lambda: any(r.opinions for r in panel.rows), timeout=2000)
    by_role = {r.role: r for r in panel.rows if r.role in ("base", "runtime", "view")}
    assert by_role["base"].opinions == 1 and by_role["base"].strongest
    rover = next(r for r in panel.rows if r.file.endswith("yard_rover.usda"))
    assert rover.opinions == 1 and not rover.strongest
    shots = os.environ.get("LUNCOSIM_SHOTS")
    if shots:
        panel.resize(900, 300)
        panel.grab().save(str(Path(shots) / "layer-stack.png"))


def _property_row(inspector, name):
    tree = inspector.tree
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0) == name)
    rect = tree.visualItemRect(item)
    return QPoint(tree.columnViewportPosition(0) + tree.columnWidth(0) // 2, rect.center().y())  # on its name


def test_the_inspectors_current_property_shows_each_layers_opinion(opened, qtbot):
    panel = _panel(opened)
    opened.docks["assembly"].show()
    opened.activateWindow()
    inspector = opened.panels["assembly"].inspector
    opened.session.selection.set([ROVER_B])
    qtbot.waitUntil(lambda: inspector.prim_path == ROVER_B and bool(inspector.editors), timeout=3000)
    QTest.mouseClick(inspector.tree.viewport(), Qt.MouseButton.LeftButton, pos=_property_row(inspector, "inputs:throttle"))
    assert panel.ctx.selected_property == f"{ROVER_B}.inputs:throttle"
    rover = next(r for r in panel.rows if r.file.endswith("yard_rover.usda"))
    assert rover.property_opinion == "0" and rover.property_wins  # only the asset authors it
    assert not any(r.property_opinion for r in panel.rows if r is not rover)
    assert panel.tree.headerItem().text(3) == "Opinion on inputs:throttle"
    # a runtime opinion on the translate: it wins over the scene file's
    panel.set_edit_target("runtime")
    field = inspector.editors["xformOp:translate"]
    qtbot.waitUntil(lambda: (field.window().activateWindow(), field.setFocus(), field.hasFocus())[-1], timeout=10000)
    assert panel.ctx.selected_property == f"{ROVER_B}.xformOp:translate"  # focusing the field makes it current
    field.selectAll()
    qtbot.keyClicks(field, "0, 0, 7")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(r.role == "runtime" and r.property_wins for r in panel.rows), timeout=3000)
    by_role = {r.role: r for r in panel.rows}
    assert by_role["runtime"].property_opinion == "(0, 0, 7)"
    assert by_role["base"].property_opinion == "(0, 0, 5)" and not by_role["base"].property_wins
    assert panel.tree.topLevelItem(1).text(3) == "(0, 0, 7)  (wins)"


def test_composed_layers_are_ordered_by_strength_not_by_name(window, tmp_path):
    for name, size in (("a_weak", 1), ("z_strong", 2)):
        (tmp_path / f"{name}.usda").write_text(f'#usda 1.0\n(\n    defaultPrim = "Part"\n)\n\ndef Cube "Part"\n{{\n'
                                               f'    double size = {size}\n}}\n')
    scene = tmp_path / "scene.usda"
    scene.write_text('#usda 1.0\n(\n    defaultPrim = "W"\n)\n\ndef Xform "W"\n{\n    def Cube "Part" (\n'
                     '        prepend references = [@./z_strong.usda@, @./a_weak.usda@]\n    )\n    {\n    }\n}\n')
    assert window.open_path(scene)
    panel = _panel(window)
    used = [Path(r.file).name for r in panel.rows if r.role == "used"]
    assert used == ["z_strong.usda", "a_weak.usda"]  # the first reference is the stronger
    window.session.selection.set(["/W/Part"])
    panel.ctx.select_property("/W/Part.size")
    by_file = {Path(r.file).name: r for r in panel.rows if r.file}
    assert by_file["z_strong.usda"].property_opinion == "2" and by_file["z_strong.usda"].property_wins
    assert by_file["a_weak.usda"].property_opinion == "1" and not by_file["a_weak.usda"].property_wins
    assert window.session.document.stage.GetAttributeAtPath("/W/Part.size").Get() == 2


def test_save_scene_as_writes_the_edits_to_a_new_file_and_works_on_it(opened, qtbot, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    doc = opened.session.document
    old = doc.path
    before = old.read_bytes()
    opened.panels["assembly"].ctx.apply(SetAttribute(path=ROVER_B, name="xformOp:translate", value=(0.0, 0.0, 9.0)))
    new = old.parent / "practice_yard_copy.usda"
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *args, **kw: (asked.append(args[1:3]), (str(new), "USD text (*.usda)"))[1])
    opened.action("layers.save_as").trigger()  # File > Save Scene As…
    assert asked and asked[0][0] == "Save Scene As"
    assert old.read_bytes() == before  # the old file as it was
    assert b"double3 xformOp:translate = (0, 0, 9)" in new.read_bytes()
    now = opened.session.document
    assert Path(now.path) == new and not now.dirty and opened.session.scene == new
    assert tuple(now.stage.GetPrimAtPath(ROVER_B).GetAttribute("xformOp:translate").Get()) == (0, 0, 9)
    assert now is doc and len(doc.journal.entries()) == 1  # the same document: its undo history kept
    opened.action("edit.undo").trigger()
    assert tuple(now.stage.GetPrimAtPath(ROVER_B).GetAttribute("xformOp:translate").Get()) != (0, 0, 9)
    assert now.dirty  # against the new file, which holds the edit
    opened.action("edit.redo").trigger()
    assert not now.dirty
    panel = _panel(opened)
    assert panel.rows[2].role == "base" and panel.rows[2].file == str(new)
    file_menu = opened.qt_actions.menus["file"]
    assert opened.action("layers.save_as") in file_menu.actions() and opened.action("layers.new_twin") in file_menu.actions()


def test_new_twin_from_the_file_menu_opens_a_twin_at_lunar_gravity(opened, qtbot, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit

    folder = tmp_path / "crater_base"
    filled = []

    def fill():
        dialog = QApplication.activeModalWidget()
        if dialog is None or dialog.windowTitle() != "New Twin":
            QTimer.singleShot(20, fill)
            return
        fields = dialog.findChildren(QLineEdit)
        fields[0].selectAll()
        QTest.keyClicks(fields[0], str(folder))
        QTest.keyClicks(fields[1], "Crater Base")
        ground = dialog.findChild(QCheckBox)
        ground.setFocus()
        QTest.keyClick(ground, Qt.Key.Key_Space)  # no ground
        filled.append(True)
        QTest.keyClick(fields[1], Qt.Key.Key_Return)

    QTimer.singleShot(0, fill)
    opened.action("layers.new_twin").trigger()  # File > New Twin…
    assert filled
    assert opened.session.twin.root == folder.resolve()
    scene = opened.session.scene
    assert scene == (folder / "scenes" / "crater_base.usda").resolve()
    stage = opened.session.document.stage
    physics = stage.GetPrimAtPath("/CraterBase/PhysicsScene")
    assert physics and abs(physics.GetAttribute("physics:gravityMagnitude").Get() - 1.62) < 1e-6
    assert not stage.GetPrimAtPath("/CraterBase/Ground")
