"""No edit the user did not make: the inspector driven with the keyboard as a user drives it
(type, Enter, Tab, Escape, a selection change and a panel refresh in the middle of typing); the
journal holds exactly the ops the user made, each with its author, and Save writes only them."""

from __future__ import annotations

import difflib

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from luncosim_core.usd.ops import SetAttribute

ROVER_B = "/PracticeYard/RoverB"
MARKER = "/PracticeYard/Marker"


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


@pytest.fixture
def inspector(opened, qtbot):
    opened.docks["assembly"].show()  # as View > Panels does (the Simulate perspective hides it)
    opened.activateWindow()
    return opened.panels["assembly"].inspector


def _show(opened, qtbot, inspector, path):
    opened.session.selection.set([path])
    qtbot.waitUntil(lambda: inspector.prim_path == path and bool(inspector.editors), timeout=3000)


def _focus(qtbot, field):
    """Give ``field`` the keyboard focus (its window activated first: on a busy display the
    window may lose activation to one a previous test left behind)."""
    def focused() -> bool:
        if not field.hasFocus():
            field.window().activateWindow()
            field.setFocus()
        return field.hasFocus()

    qtbot.waitUntil(focused, timeout=10000)


def _type_into(qtbot, field, text):
    _focus(qtbot, field)
    field.selectAll()
    qtbot.keyClicks(field, text)


def _tab_through(qtbot, inspector, n):
    for _ in range(n):
        qtbot.keyClick(QApplication.focusWidget() or inspector, Qt.Key.Key_Tab)


def test_typing_a_translate_records_that_edit_and_nothing_else(opened, qtbot, inspector):
    doc = opened.session.document
    scene = doc.path
    original = scene.read_bytes()
    _show(opened, qtbot, inspector, ROVER_B)
    assert "outputs:speed" not in inspector.editors  # an output is read-only: no field to type in
    field = inspector.editors["xformOp:translate"]
    _type_into(qtbot, field, "0, 0, 7")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: inspector.editors.get("xformOp:translate") is not field, timeout=2000)  # refreshed
    seen = set()
    first = next(iter(inspector.editors.values()))
    _focus(qtbot, first)
    for _ in range(2 * len(inspector.editors) + 2):  # walk every field after the refresh
        seen.add(next((n for n, w in inspector.editors.items() if w.hasFocus()), ""))
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert set(inspector.editors) <= seen  # every field was focused and left
    qtbot.wait(50)
    assert _journal(doc) == [(f"set {ROVER_B}.xformOp:translate", "user")]
    assert tuple(doc.stage.GetPrimAtPath(ROVER_B).GetAttribute("xformOp:translate").Get()) == (0, 0, 7)
    assert opened.save()
    changed = [line for line in difflib.diff_bytes(difflib.unified_diff, original.splitlines(),
                                                    scene.read_bytes().splitlines(), lineterm=b"", n=0)
               if line[:1] in b"+-" and not line.startswith((b"+++", b"---"))]
    assert changed == [b"-        double3 xformOp:translate = (0, 0, 5)", b"+        double3 xformOp:translate = (0, 0, 7)"]
    opened.action("edit.undo").trigger()  # the first undo takes back the user's edit itself
    assert tuple(doc.stage.GetPrimAtPath(ROVER_B).GetAttribute("xformOp:translate").Get()) == (0, 0, 5)


def test_escape_restores_the_shown_value_and_commits_nothing(opened, qtbot, inspector):
    doc = opened.session.document
    _show(opened, qtbot, inspector, MARKER)
    field = inspector.editors["size"]
    _type_into(qtbot, field, "9")
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert field.text() == "0.5" and not field.isModified()
    _tab_through(qtbot, inspector, 3)
    qtbot.wait(50)
    assert _journal(doc) == []


def test_tab_commits_what_was_typed_once(opened, qtbot, inspector):
    doc = opened.session.document
    _show(opened, qtbot, inspector, MARKER)
    field = inspector.editors["size"]
    _type_into(qtbot, field, "1.25")
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: _journal(doc) == [(f"set {MARKER}.size", "user")], timeout=2000)
    _tab_through(qtbot, inspector, len(inspector.editors) + 2)
    qtbot.wait(50)
    assert _journal(doc) == [(f"set {MARKER}.size", "user")]


def test_a_selection_change_mid_edit_commits_to_the_prim_it_was_typed_for(opened, qtbot, inspector):
    doc = opened.session.document
    _show(opened, qtbot, inspector, MARKER)
    _type_into(qtbot, inspector.editors["size"], "3")
    opened.session.selection.set([ROVER_B])  # e.g. a click in the viewport, focus stays put
    qtbot.waitUntil(lambda: inspector.prim_path == ROVER_B, timeout=2000)
    _tab_through(qtbot, inspector, len(inspector.editors) + 2)
    qtbot.wait(50)
    assert _journal(doc) == [(f"set {MARKER}.size", "user")]
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("size").Get() == 3.0


def test_a_refresh_mid_edit_keeps_the_typing_and_its_focus(opened, qtbot, inspector):
    doc = opened.session.document
    _show(opened, qtbot, inspector, MARKER)
    _type_into(qtbot, inspector.editors["size"], "1.5")
    # another client edits the same prim meanwhile: the panel refreshes under the typing
    opened.panels["assembly"].ctx.apply(SetAttribute(path=MARKER, name="xformOp:translate", value=(10.0, 0.25, 1.0)),
                                        author="api")
    inspector.refresh()
    field = inspector.editors["size"]
    assert field.text() == "1.5" and field.isModified() and field.hasFocus()
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert _journal(doc) == [(f"set {MARKER}.xformOp:translate", "api"), (f"set {MARKER}.size", "user")]


def test_a_bad_number_is_refused_with_the_reason(opened, qtbot, inspector):
    doc = opened.session.document
    _show(opened, qtbot, inspector, MARKER)
    field = inspector.editors["size"]
    _type_into(qtbot, field, "big")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert _journal(doc) == []
    assert "not a number" in inspector.error.text() and MARKER in inspector.error.text()


def _item(inspector, name):
    return next(inspector.tree.topLevelItem(i) for i in range(inspector.tree.topLevelItemCount())
                if inspector.tree.topLevelItem(i).text(0) == name)


def test_an_output_cannot_be_typed_into(opened, qtbot, inspector):
    doc = opened.session.document
    _show(opened, qtbot, inspector, ROVER_B)
    item = _item(inspector, "outputs:speed")
    assert inspector.tree.itemWidget(item, 1) is None and "outputs:speed" not in inspector.editors
    assert item.text(1) == "<- /PracticeYard/RoverB/Odometer.outputs:speed"
    assert not item.flags() & Qt.ItemFlag.ItemIsEditable
    rect = inspector.tree.visualItemRect(item)
    rect.setLeft(inspector.tree.columnViewportPosition(1))
    QTest.mouseDClick(inspector.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.keyClicks(QApplication.focusWidget() or inspector.tree, "5")
    qtbot.keyClick(QApplication.focusWidget() or inspector.tree, Qt.Key.Key_Return)
    qtbot.wait(50)
    assert _journal(doc) == []


def test_unauthored_fields_are_empty_with_the_fallback_greyed(opened, qtbot, inspector):
    """A new rigid body from Create: its mass API's ``physics:density`` is not authored; the field
    is empty with the schema's 0 as a placeholder, and walking every field authors nothing."""
    doc = opened.session.document
    opened.session.selection.set(["/PracticeYard"])
    opened.action("assembly.create.rigid_body").trigger()
    body = "/PracticeYard/Body"
    qtbot.waitUntil(lambda: inspector.prim_path == body and bool(inspector.editors), timeout=3000)
    assert _journal(doc) == [(f"create Rigid Body {body}", "user")]
    density = inspector.editors["physics:density"]
    assert density.text() == "" and density.placeholderText() == "0 (fallback)"
    assert "fallback 0.0 applies" in density.toolTip()
    assert _item(inspector, "physics:density").text(3) == "fallback"
    mass = inspector.editors["physics:mass"]  # authored by Create: a value, not a placeholder
    assert mass.text() != "" and _item(inspector, "physics:mass").text(3) != "fallback"
    purpose = inspector.editors["purpose"]  # a token choice: nothing chosen, the fallback shown greyed
    assert purpose.currentIndex() == -1 and purpose.placeholderText() == "default (fallback)"
    enabled = inspector.editors["physics:rigidBodyEnabled"]
    assert enabled.isChecked() and enabled.text() == "(fallback)"
    _focus(qtbot, density)
    _tab_through(qtbot, inspector, 2 * len(inspector.editors) + 2)
    qtbot.wait(50)
    assert _journal(doc) == [(f"create Rigid Body {body}", "user")]
    _type_into(qtbot, inspector.editors["physics:density"], "0")  # typing the fallback authors it
    qtbot.keyClick(inspector.editors["physics:density"], Qt.Key.Key_Return)
    assert _journal(doc)[-1] == (f"set {body}.physics:density", "user")
    qtbot.waitUntil(lambda: inspector.editors["physics:density"].text() == "0", timeout=2000)


def test_add_transform_gives_a_prim_without_xform_ops_its_transform_in_one_step(opened, qtbot, inspector):
    doc = opened.session.document
    editor = opened.panels["assembly"]
    opened.session.selection.set(["/PracticeYard"])
    holder = editor.add_child("Holder", "Xform")  # a prim with no xformOps
    qtbot.waitUntil(lambda: inspector.prim_path == holder, timeout=3000)
    assert inspector.add_transform.isVisible() and "xformOp:translate" not in inspector.editors
    QTest.mouseClick(inspector.add_transform, Qt.MouseButton.LeftButton)
    assert _journal(doc) == [(f"add {holder}", "user"), (f"transform {holder}", "user")]
    prim = doc.stage.GetPrimAtPath(holder)
    assert list(prim.GetAttribute("xformOpOrder").Get()) == ["xformOp:translate", "xformOp:rotateXYZ", "xformOp:scale"]
    qtbot.waitUntil(lambda: "xformOp:translate" in inspector.editors, timeout=2000)
    assert not inspector.add_transform.isVisible()
    field = inspector.editors["xformOp:translate"]
    assert field.text() == "0, 0, 0"
    _type_into(qtbot, field, "1, 2, 3")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert _journal(doc)[-1] == (f"set {holder}.xformOp:translate", "user") and len(_journal(doc)) == 3
    opened.action("edit.undo").trigger()
    opened.action("edit.undo").trigger()  # the one Add Transform step
    assert not doc.stage.GetPrimAtPath(holder).GetAttribute("xformOpOrder").HasAuthoredValue()
    qtbot.waitUntil(lambda: inspector.add_transform.isVisible(), timeout=2000)


def test_a_rigid_body_gets_no_scale_from_add_transform(opened, qtbot, inspector):
    doc = opened.session.document
    opened.session.selection.set(["/PracticeYard"])
    body = opened.panels["assembly"].add_child("Crate", "Xform")
    from luncosim_core.usd.ops import SetApiSchemas

    opened.panels["assembly"].ctx.apply(SetApiSchemas(path=body, schemas=("PhysicsRigidBodyAPI",)), author="api")
    qtbot.waitUntil(lambda: inspector.prim_path == body and inspector.add_transform.isVisible(), timeout=3000)
    QTest.mouseClick(inspector.add_transform, Qt.MouseButton.LeftButton)
    order = list(doc.stage.GetPrimAtPath(body).GetAttribute("xformOpOrder").Get())
    assert order == ["xformOp:translate", "xformOp:rotateXYZ"]
