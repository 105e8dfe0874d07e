"""No edit the user did not make: the inspector driven with the keyboard as a user drives it
(type, Enter, Tab, Escape, a selection change and a panel refresh in the middle of typing); the
journal holds exactly the ops the user made, each with its author, and Save writes only them."""

from __future__ import annotations

import difflib

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from luncosim_core.usd.ops import SetAttribute

ROVER_B = "/PracticeYard/RoverB"
MARKER = "/PracticeYard/Marker"


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


@pytest.fixture
def inspector(opened, qtbot):
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
    #  # an output is read-only
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
