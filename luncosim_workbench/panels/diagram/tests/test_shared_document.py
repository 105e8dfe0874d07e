"""The diagram and the code editor edit one TextDocument: an edit saved in the editor survives a
diagram gesture, typing re-projects the diagram (selection and view kept), a diagram gesture
changes only its lines in the open editor, one undo history, and Save refuses to overwrite a
file changed on disk."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from .gestures import at_node, changed_lines, click, drag


def _editor(window, path):
    editors = window.panels["editor"]
    return editors, editors.open_file(path)


def test_an_edit_saved_in_the_editor_survives_a_move_in_the_diagram(window, panel, qtbot, rc_file):
    editors, editor = _editor(window, rc_file)
    editor.gotoPos(0)
    qtbot.keyClicks(editor, "// checked by hand")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert rc_file.read_text().startswith("// checked by hand\n")
    assert panel.open_file(rc_file)
    assert panel.doc is editor.doc  # one document for the file
    drag(qtbot, panel.view, at_node(panel, "resistor"), at_node(panel, "resistor") + QPoint(40, 0))
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = rc_file.read_text()
    assert saved.startswith("// checked by hand\n")  # the editor's edit is still there
    assert saved == editor.doc.text and "Resistor resistor" in saved
    # the journal: what was typed, then the diagram's one gesture with its op
    entries = editor.doc.entries()
    assert [e.edit.label for e in entries][-1] == "Move"
    [op] = entries[-1].edit.ops
    assert op.component == "resistor" and all(not e.edit.ops for e in entries[:-1])


def test_typing_in_the_editor_reprojects_the_diagram_keeping_selection_and_view(window, panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    click(panel.view, at_node(panel, "capacitor"))
    panel.view.scale(1.5, 1.5)
    qtbot.wait(50)  # the scroll bars appear (the viewport shrinks) before the view is measured
    transform = panel.view.transform()
    center = panel.view.mapToScene(panel.view.viewport().rect().center())
    before = panel.nodes["resistor"].sceneBoundingRect()
    _, editor = _editor(window, rc_file)
    text = editor.doc.text
    line = next(ln for ln in text.splitlines() if "Resistor resistor" in ln)
    old = line[line.index("extent = "):line.index("}}") + 2]
    start = text.index(old)
    editor.select_chars(start, start + len(old))
    qtbot.keyClicks(editor, "extent = {{-10, 30}, {10, 50}}")
    qtbot.waitUntil(lambda: panel.nodes["resistor"].sceneBoundingRect() != before, timeout=3000)
    assert panel.selected() == ["capacitor"]
    assert panel.view.transform() == transform
    after = panel.view.mapToScene(panel.view.viewport().rect().center())
    assert abs(after.x() - center.x()) < 1 and abs(after.y() - center.y()) < 1
    assert all(not e.edit.ops and e.author == "user" for e in editor.doc.entries())  # typed, not ops


def test_a_diagram_gesture_changes_only_its_lines_in_the_open_editor(window, panel, qtbot, rc_file):
    _, editor = _editor(window, rc_file)
    editor.gotoPos(editor.positionFromLine(2) + 1)
    caret = editor.currentPos()
    assert panel.open_file(rc_file)
    touched = []
    editor.modified.connect(lambda kind, pos, length, *_rest: touched.append(editor.lineFromPosition(pos))
                            if kind & 0x3 else None)  # SC_MOD_INSERTTEXT | SC_MOD_DELETETEXT
    original = editor.doc.text
    placed = panel.nodes["resistor"].view.placement
    click(panel.view, at_node(panel, "resistor"))
    click(panel.view, at_node(panel, "ground"), Qt.KeyboardModifier.ControlModifier)
    drag(qtbot, panel.view, at_node(panel, "resistor"), at_node(panel, "resistor") + QPoint(0, 40))
    new = editor.doc.text
    lines = [i for i, (a, b) in enumerate(zip(original.splitlines(), new.splitlines(), strict=True)) if a != b]
    assert len(lines) == 2 and sorted(set(touched)) == lines  # only the two Placement lines were spliced
    assert bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode() == new
    assert editor.currentPos() == caret  # the caret did not jump
    # one undo history: Ctrl+Z in the editor takes back the diagram's gesture
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.doc.text == original
    assert panel.edits.done == []
    qtbot.waitUntil(lambda: panel.nodes["resistor"].view.placement == placed, timeout=3000)  # re-projected


def test_undo_in_the_canvas_walks_back_through_typing_and_gestures(window, panel, qtbot, rc_file):
    _, editor = _editor(window, rc_file)
    original = editor.doc.text
    editor.gotoPos(0)
    qtbot.keyClicks(editor, "// a")
    typed = editor.doc.text
    assert panel.open_file(rc_file)
    panel.view.setFocus()
    click(panel.view, at_node(panel, "resistor"))
    qtbot.keyClick(panel.view, Qt.Key.Key_R)
    assert changed_lines(typed, editor.doc.text) and editor.doc.text.startswith("// a")
    qtbot.keyClick(panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.doc.text == typed
    qtbot.keyClick(panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.doc.text == original and not editor.doc.dirty
    assert bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode() == original


def test_save_refuses_to_overwrite_a_file_changed_on_disk(panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    click(panel.view, at_node(panel, "resistor"))
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_R)
    rc_file.write_text(rc_file.read_text() + "// someone else\n")  # another tool saved meanwhile
    theirs = rc_file.read_text()
    asked = []
    panel.ask_conflict = lambda why: asked.append(why) or "cancel"
    qtbot.keyClick(panel.view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert rc_file.read_text() == theirs and panel.doc.dirty
    assert "changed on disk" in asked[0] and "Not saved" in panel.message.text()
    panel.ask_conflict = lambda why: "overwrite"
    qtbot.keyClick(panel.view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert rc_file.read_text() == panel.doc.text and "rotation = 90" in rc_file.read_text()


def test_a_gesture_on_a_clean_buffer_of_a_file_changed_on_disk_reloads_first(panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    rc_file.write_text(rc_file.read_text().replace("equation\n", "equation\n  // changed elsewhere\n", 1))
    click(panel.view, at_node(panel, "resistor"))
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_R)
    assert "changed on disk and was reloaded" in panel.message.text()
    assert panel.doc.text == rc_file.read_text() and panel.edits.done == []
    qtbot.keyClick(panel.view, Qt.Key.Key_R)  # now on the disk's text
    assert "rotation = 90" in panel.doc.text and "// changed elsewhere" in panel.doc.text
