"""The source editor driven like a user: typing, squiggles, completion, F12, Save & Run."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QInputMethodEvent, QKeyEvent
from PySide6.QtWidgets import QApplication

from luncosim_workbench.panels.editor.widget import IMPLICIT_COMPLETIONS
from luncosim_workbench.testing import wait_for

SCENARIO = "scenarios/yard_drill.rhai"


def _editor_panel(window):
    return window.panels["editor"]


def _end_of_line(editor, line):
    editor.gotoPos(editor.lineEndPosition(line - 1))


def test_typing_an_error_squiggles_it_and_the_fix_clears_it(opened, twin_copy, qtbot):
    panel = _editor_panel(opened)
    editor = opened.open_location(str(twin_copy / SCENARIO), 9)
    assert editor is panel.current() and editor.cursor_line_col()[0] == 9
    wait_for(qtbot, lambda: editor.doc.path in panel.results)
    assert editor.squiggles() == []
    _end_of_line(editor, 9)  # "fn on_start(me) {"
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "let x = ;")
    wait_for(qtbot, lambda: editor.squiggles() != [])
    assert editor.doc.text.splitlines()[9] == "let x = ;"
    assert editor.squiggles() == [("error", 10, 9)]  # at the ';' the parser did not expect
    assert "Unexpected" in editor.diagnostics[0].message
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClicks(editor, "1;")
    wait_for(qtbot, lambda: panel.results[editor.doc.path][0] == editor.doc.revision and editor.squiggles() == [])
    # the journal holds exactly what the user typed: the newline, then the words (coalesced)
    labels = [(e.author, e.edit.label) for e in editor.doc.entries()]
    assert all(a == "user" for a, _l in labels)
    assert editor.doc.dirty and "let x = 1;" in editor.doc.text
    while editor.doc.can_undo:
        qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.doc.text == (twin_copy / SCENARIO).read_text()
    assert bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode() == editor.doc.text
    assert not editor.doc.dirty


def test_unknown_host_function_is_a_warning_at_the_call(opened, twin_copy, qtbot):
    editor = opened.open_location(str(twin_copy / SCENARIO))
    _end_of_line(editor, 9)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "fnd(1);")
    wait_for(qtbot, lambda: editor.squiggles() == [("warning", 10, 1)])
    assert "fnd" in editor.diagnostics[0].message


def test_completion_offers_host_api_names_and_scene_ports(opened, twin_copy, qtbot):
    panel = _editor_panel(opened)
    editor = opened.open_location(str(twin_copy / SCENARIO))
    _end_of_line(editor, 9)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "wor")
    qtbot.keyClick(editor, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    assert editor.autoCActive()
    shown = panel.complete(editor)
    assert "world_pos" in shown and "world_forward" in shown and "find" not in shown
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.keyClicks(editor, '_pos(find("/PracticeYard/RoverA/Con')
    shown = panel.complete(editor)
    assert "/PracticeYard/RoverA/Controller" in shown
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # accept the completion
    assert 'find("/PracticeYard/RoverA/Controller' in editor.doc.text
    qtbot.keyClicks(editor, '"), "thr')
    assert "throttle" in panel.complete(editor)  # a port name inside a get/set string


def test_the_list_does_not_pop_up_in_comments_and_stays_short_while_typing(opened, twin_copy, qtbot, tmp_path):
    panel = _editor_panel(opened)
    editor = opened.open_location(str(twin_copy / SCENARIO))
    _end_of_line(editor, 9)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "// the rover wo")
    assert not editor.autoCActive()  # prose in a line comment
    qtbot.keyClick(editor, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    assert editor.autoCActive()  # Ctrl+Space still asks
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, 'let s = "// not a comment"; wo')
    assert editor.autoCActive()  # the // was inside a string
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    # a script of thousands of functions: the list that pops up while typing is capped, Ctrl+Space has them all
    big = tmp_path / "many.rhai"
    big.write_text("".join(f"fn helper_{i}(x) {{ x }}\n" for i in range(1500)) + "fn on_tick(me) {\n}\n")
    editor = panel.open_file(big)
    qtbot.waitUntil(lambda: len(panel._script_names.get(str(editor.doc.path), ())) >= 1500, timeout=15000)
    editor.gotoPos(editor.lineEndPosition(1500))
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "he")
    assert editor.autoCActive()
    assert len(panel.complete(editor, explicit=False)) == IMPLICIT_COMPLETIONS
    assert len([w for w in panel.complete(editor) if w.startswith("helper_")]) == 1500
    qtbot.keyClicks(editor, "lper_149")
    assert panel.complete(editor, explicit=False) == ["helper_149"] + [f"helper_149{d}" for d in range(10)]
    qtbot.keyClick(editor, Qt.Key.Key_Escape)


def test_f12_jumps_across_files(opened, twin_copy, qtbot):
    panel = _editor_panel(opened)
    (twin_copy / "scenarios" / "helpers.rhai").write_text("// helpers\n\nfn double(x) {\n    x * 2\n}\n")
    editor = opened.open_location(str(twin_copy / SCENARIO))
    _end_of_line(editor, 9)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, 'import "helpers" as h; let z = h::double(2);')
    editor.gotoPos(editor.currentPos() - 6)  # inside "double"
    qtbot.keyClick(editor, Qt.Key.Key_F12)
    other = panel.current()
    assert other is not editor and other.doc.path.name == "helpers.rhai"
    assert other.cursor_line_col()[0] == 3
    # Modelica: a class name jumps into the model library
    model = twin_copy / "models" / "Use.mo"
    model.parent.mkdir()
    model.write_text("model Use\n  Workbench.Control.FirstOrder lag(T = 0.5);\nequation\n  lag.u = 1;\nend Use;\n")
    mo = panel.open_file(model, 2)
    mo.gotoPos(mo.positionFromLine(1) + 22)
    qtbot.keyClick(mo, Qt.Key.Key_F12)
    target = panel.current()
    assert target.doc.path.name == "FirstOrder.mo" and target.cursor_line_col()[0] == 2


def test_ctrl_s_saves_atomically_and_closing_a_dirty_tab_asks(opened, twin_copy, qtbot):
    panel = _editor_panel(opened)
    path = twin_copy / SCENARIO
    editor = opened.open_location(str(path))
    editor.gotoPos(0)
    qtbot.keyClicks(editor, "// edited")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert panel.tabs.tabText(panel.tabs.indexOf(editor)).endswith("*")
    asked = []
    panel.ask_close = lambda name: asked.append(name) or "cancel"
    assert not panel.close_tab(panel.tabs.indexOf(editor)) and asked == ["yard_drill.rhai"]
    scene_before = (twin_copy / "scenes" / "practice_yard.usda").read_text()
    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert path.read_text().startswith("// edited\n") and not editor.doc.dirty
    assert (twin_copy / "scenes" / "practice_yard.usda").read_text() == scene_before  # Ctrl+S saved the file only
    assert panel.close_tab(panel.tabs.indexOf(editor))


def test_twin_browser_and_diagnostics_open_sources_in_the_editor(opened, twin_copy, qtbot):
    from luncosim_core.diagnostics import Diagnostic

    browser = opened.panels["twin_browser"]
    files = browser.sections["files"]
    item = next(files.child(i) for i in range(files.childCount()) if files.child(i).text(0) == SCENARIO)
    browser.tree.itemActivated.emit(item, 0)
    panel = _editor_panel(opened)
    assert panel.current() is not None and panel.current().doc.path == (twin_copy / SCENARIO).resolve()
    opened.panels["diagnostics"].activate(Diagnostic("error", "rhai.runtime", "boom", layer=str(twin_copy / SCENARIO),
                                                     line=26, column=5, source="rhai"))
    assert panel.current().cursor_line_col() == (26, 5)  # the diagnostic's line and column
    assert len(panel.editors) == 1  # the same tab, not a second copy


def test_closing_the_window_asks_about_an_unsaved_source_and_saves_it(opened, twin_copy, qtbot):
    path = twin_copy / SCENARIO
    editor = opened.open_location(str(path))
    editor.gotoPos(0)
    qtbot.keyClicks(editor, "//x")
    asked = []
    opened.ask_unsaved = lambda why: asked.append(why) or "cancel"
    opened.close()
    assert opened.isVisible() and asked == ["closing (yard_drill.rhai has unsaved edits)"]
    opened.ask_unsaved = lambda why: "save"
    opened.close()
    assert not opened.isVisible() and path.read_text().startswith("//x")


def test_the_dark_theme_colours_the_editor(opened, twin_copy):
    editor = opened.open_location(str(twin_copy / SCENARIO))
    opened.set_theme("dark")
    assert opened.panels["editor"].theme == "dark" and editor.styleBack(32) == 0x2A2624
    opened.set_theme("light")
    assert editor.styleBack(32) == 0xFFFFFF


def test_find_and_replace_through_the_journal(opened, twin_copy, qtbot):
    panel = _editor_panel(opened)
    editor = opened.open_location(str(twin_copy / SCENARIO))
    editor.gotoPos(0)
    qtbot.keyClick(editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert panel.find_bar.isVisible()
    qtbot.keyClicks(panel.find_field, "this.phase")
    qtbot.keyClick(panel.find_field, Qt.Key.Key_Return)
    first = editor.doc.text.find("this.phase")
    assert editor.char_offset(editor.anchor()) == first and editor.char_offset(editor.currentPos()) == first + 10
    count = editor.doc.text.count("this.phase")
    qtbot.keyClicks(panel.replace_field, "this.stage")
    panel.replace_all("this.phase", "this.stage")
    assert "this.phase" not in editor.doc.text and editor.doc.text.count("this.stage") == count
    assert bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode() == editor.doc.text
    assert [(e.author, e.edit.label) for e in editor.doc.entries()] == [("user", "replace all")]
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.doc.text == (twin_copy / SCENARIO).read_text()
    assert bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode() == editor.doc.text



def test_live_diagnostics_appear_in_the_diagnostics_panel_and_lead_back(opened, twin_copy, qtbot):
    panel = _editor_panel(opened)
    table = opened.panels["diagnostics"]
    editor = opened.open_location(str(twin_copy / SCENARIO))
    _end_of_line(editor, 9)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "let x = ;")
    rows = lambda: [(d.code, d.line) for o, d in table.model.rows if o == "editor"]  # noqa: E731
    wait_for(qtbot, lambda: rows() == [("rhai.syntax", 10)])
    editor.gotoPos(0)
    row = next(i for i, (o, _d) in enumerate(table.model.rows) if o == "editor")
    table._on_activated(table.proxy.mapFromSource(table.model.index(row, 0)))
    assert panel.current() is editor and editor.cursor_line_col() == (10, 9)  # activation leads back to the spot
    _end_of_line(editor, 10)
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClicks(editor, "1;")
    wait_for(qtbot, lambda: rows() == [])


def test_non_ascii_text_keeps_editor_and_document_in_step(opened, twin_copy, qtbot):
    editor = opened.open_location(str(twin_copy / SCENARIO), 1)
    editor.gotoPos(editor.lineEndPosition(0))  # after "// Practice-yard drill."
    for ch in " é→":  # QTest types ASCII only: send what a keyboard layout sends
        QApplication.sendEvent(editor, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier, ch))
    commit = QInputMethodEvent()  # and what an input method commits (a character outside the BMP)
    commit.setCommitString("𝛼")
    QApplication.sendEvent(editor, commit)
    qtbot.keyClicks(editor, " ok")
    assert editor.doc.text.splitlines()[0] == "// Practice-yard drill. é→𝛼 ok"
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    assert editor.doc.text.splitlines()[0] == "// Practice-yard drill. é→𝛼 "
    _end_of_line(editor, 9)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "let x = ;")
    wait_for(qtbot, lambda: editor.squiggles() == [("error", 10, 9)])  # columns count characters, not bytes
    text = lambda: bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode()  # noqa: E731
    assert text() == editor.doc.text
    while editor.doc.can_undo:
        editor.doc.undo()
        assert text() == editor.doc.text
    assert editor.doc.text == (twin_copy / SCENARIO).read_text()


def test_modelica_completion_offers_fields_after_a_dot_and_library_classes(opened, twin_copy, qtbot):
    model = twin_copy / "models" / "Use.mo"
    model.parent.mkdir()
    model.write_text("model Use\n  Workbench.Control.FirstOrder lag(T = 0.5);\nequation\n  lag.u = 1;\nend Use;\n")
    panel = _editor_panel(opened)
    editor = opened.open_location(str(model), 4)
    _end_of_line(editor, 4)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "  lag.")
    assert editor.autoCActive()  # the dot opened the list by itself
    assert panel.complete(editor) == ["T", "k", "u", "y", "y_start"]
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.keyClicks(editor, "y = Workbench.Control.")
    assert {"FirstOrder", "PIDAxis"} <= set(panel.complete(editor))
    qtbot.keyClicks(editor, "Fir")
    assert panel.complete(editor) == ["FirstOrder"]
