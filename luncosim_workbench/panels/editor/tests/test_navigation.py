"""Snippets, import completion, signatures, regex find, F12 through the resolver, the outline and
find references (Shift+F12), driven like a user."""

from __future__ import annotations

from PySide6.QtCore import Qt

from luncosim_workbench.testing import wait_for

SCENARIO = "scenarios/yard_drill.rhai"
USE = ("model Use\n  Workbench.Control.FirstOrder lag(T = 0.5);\n  Real z;\nequation\n  lag.u = z;\n"
       "  z = lag.y;\nend Use;\n")


def _new_line_after(editor, qtbot, line):
    editor.gotoPos(editor.lineEndPosition(line - 1))
    qtbot.keyClick(editor, Qt.Key.Key_Return)


def _models(twin_copy):
    folder = twin_copy / "models"
    folder.mkdir(exist_ok=True)
    (folder / "Use.mo").write_text(USE)
    (folder / "Other.mo").write_text("model Other\n  import Workbench.Control.FirstOrder;\n  FirstOrder f;\nend Other;\n")
    return folder / "Use.mo"


def _double_click(qtbot, tree, item):
    tree.scrollToItem(item)
    at = tree.visualItemRect(item).center()
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=at)  # a double click starts with a press
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=at)


def _view_text(editor):
    return bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode()


def test_a_modelica_snippet_expands_its_fields_fill_with_tab_and_the_name_follows(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    path = twin_copy / "models" / "Empty.mo"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n")
    editor = opened.open_location(str(path))
    editor.gotoPos(0)
    qtbot.keyClicks(editor, "mod")
    assert "model…" in panel.complete(editor)
    editor.autoCSelect("model…")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # accept: the snippet, not the word "model…"
    assert editor.doc.text.startswith('model Name "description"\n  Real x(start = 0);\nequation\n  \nend Name;')
    assert editor.selected_text() == "Name"  # the first field is selected
    qtbot.keyClicks(editor, "Tank")  # overtype it
    qtbot.keyClick(editor, Qt.Key.Key_Tab)  # next field; the class name is written into 'end' too
    assert editor.doc.text.startswith('model Tank "description"\n') and "end Tank;" in editor.doc.text
    assert editor.selected_text() == "description"
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.selected_text() == "Real x(start = 0);"
    qtbot.keyClick(editor, Qt.Key.Key_Tab)  # the end: the equation section's empty line
    assert editor.cursor_line_col() == (4, 3) and not editor.snippet.active
    qtbot.keyClicks(editor, "der(x) = -x;")
    wait_for(qtbot, lambda: panel.results.get(editor.doc.path, (0,))[0] == editor.doc.revision)
    assert [d for d in panel.results[editor.doc.path][1] if d.is_error] == []  # it compiles
    assert _view_text(editor) == editor.doc.text
    labels = [e.edit.label for e in editor.doc.entries()]
    assert labels[0] == "type" and labels[1] == "snippet" and "snippet" in labels[2:]  # typed, expanded, mirrored
    assert all(e.author == "user" for e in editor.doc.entries())


def test_rhai_snippets_import_completion_and_signatures(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    (twin_copy / "scenarios" / "helpers.rhai").write_text("fn double(x) {\n    x * 2\n}\n")
    editor = opened.open_location(str(twin_copy / SCENARIO))
    _new_line_after(editor, qtbot, 7)
    qtbot.keyClicks(editor, 'import "sce')
    shown = panel.complete(editor)
    assert "scenarios/helpers" in shown and "scenarios/yard_drill" not in shown  # as the runtime resolves them
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, '" as h;')
    assert 'import "scenarios/helpers" as h;' in editor.doc.text
    _new_line_after(editor, qtbot, 8)
    qtbot.keyClicks(editor, "on_t")
    assert "on_tick…" in panel.complete(editor)
    editor.autoCSelect("on_tick…")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert "fn on_tick(me) {\n    \n}" in editor.doc.text and editor.line_prefix() == "    "
    qtbot.keyClicks(editor, "world_pos(")
    assert editor.callTipActive() and panel.show_signature(editor) == "world_pos(ident)"


def test_regex_find_and_replace_with_groups(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    editor = opened.open_location(str(twin_copy / SCENARIO))
    editor.gotoPos(0)
    qtbot.keyClick(editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.mouseClick(panel.find_regex, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(panel.find_field, r"this\.(\w+)")
    qtbot.keyClick(panel.find_field, Qt.Key.Key_Return)
    a, b = editor.char_offset(editor.anchor()), editor.char_offset(editor.currentPos())
    assert editor.doc.text[a:b].startswith("this.") and b - a > 5
    import re

    count = len(re.findall(r"this\.(\w+)", editor.doc.text))
    assert panel.replace_all(r"this\.(\w+)", r"state.\1") == count
    assert "this." not in editor.doc.text and "state.phase" in editor.doc.text
    assert [e.edit.label for e in editor.doc.entries()] == ["replace all"]
    assert panel.replace_all("(", "x") == 0 and "bad regular expression" in panel.status.text()


def test_f12_in_modelica_goes_through_the_resolver(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    editor = opened.open_location(str(_models(twin_copy)), 5)
    editor.gotoPos(editor.positionFromLine(4) + len("  lag.u"))  # the field u of the component lag
    qtbot.keyClick(editor, Qt.Key.Key_F12)
    target = panel.current()
    assert target.doc.path.name == "FirstOrder.mo" and target.cursor_line_col() == (6, 14)  # "input Real u"
    editor = panel.open_file(twin_copy / "models" / "Use.mo", 6)
    editor.gotoPos(editor.positionFromLine(5) + len("  z = la"))
    qtbot.keyClick(editor, Qt.Key.Key_F12)
    assert panel.current() is editor and editor.cursor_line_col() == (2, 32)  # the declaration of lag
    editor.gotoPos(editor.positionFromLine(1) + len("  Workbench.Con"))  # the package part of the name
    qtbot.keyClick(editor, Qt.Key.Key_F12)
    assert panel.current().doc.path.name == "package.mo" and panel.current().doc.path.parent.name == "Control"


def test_the_outline_lists_classes_components_equations_and_rhai_hooks(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    editor = opened.open_location(str(_models(twin_copy)))
    wait_for(qtbot, lambda: panel.side.outline_labels() != [])
    assert panel.side.outline_labels() == ["model Use", "  lag : Workbench.Control.FirstOrder", "  z : Real",
                                           "  equation (2)", "    lag.u = z;", "    z = lag.y;"]
    _new_line_after(editor, qtbot, 3)
    qtbot.keyClicks(editor, "  parameter Real k = 2;")
    wait_for(qtbot, lambda: "  parameter k : Real" in panel.side.outline_labels())
    item = panel.side.outline.topLevelItem(0).child(3).child(1)  # "z = lag.y;"
    _double_click(qtbot, panel.side.outline, item)
    assert editor.cursor_line_col() == (7, 3)
    opened.open_location(str(twin_copy / SCENARIO))
    wait_for(qtbot, lambda: panel.side.outline_labels()[:1] == ["hook on_start(me)"])
    assert "hook on_tick(me)" in panel.side.outline_labels()


def test_shift_f12_lists_references_in_the_twin(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    editor = opened.open_location(str(_models(twin_copy)), 2)
    editor.gotoPos(editor.positionFromLine(1) + len("  Workbench.Control.First"))
    qtbot.keyClick(editor, Qt.Key.Key_F12, Qt.KeyboardModifier.ShiftModifier)
    assert panel.side.currentWidget() is panel.side.refs
    hits = panel.side.reference_labels()
    assert hits[1:] == ["models/Other.mo:2:28  import Workbench.Control.FirstOrder;",
                        "models/Other.mo:3:3  FirstOrder f;",
                        "models/Use.mo:2:21  Workbench.Control.FirstOrder lag(T = 0.5);"]
    assert hits[0].endswith("FirstOrder.mo:2:7  block FirstOrder \"First-order lag: T der(y) = k u - y\"")
    head = panel.side.refs.topLevelItem(0)
    _double_click(qtbot, panel.side.refs, head.child(2))
    assert panel.current().doc.path.name == "Other.mo" and panel.current().cursor_line_col() == (3, 3)
