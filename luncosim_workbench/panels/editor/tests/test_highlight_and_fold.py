"""Highlighting (our Modelica container lexer, Lexilla's Rust lexer for Rhai) and folding, driven
like a user: typing restyles only the changed line; the fold margin folds a class."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from luncosim_core.language.modelica_lexer import STYLE_NAMES
from luncosim_workbench.testing import wait_for

MODEL = '''model Tank "A tank"
  parameter Real A = 2.5 "area";
  Real h(start = 1);
  input Real q;
equation
  der(h) = (q - sqrt(h)) / A; // outflow
  annotation(Icon(graphics = {Rectangle(extent = {{-100, -100}, {100, 100}})}));
end Tank;
'''


def _model(twin_copy):
    path = twin_copy / "models" / "Tank.mo"
    path.parent.mkdir(exist_ok=True)
    path.write_text(MODEL)
    return path


def _style_of(editor, line: int, word: str) -> str:
    """The style name at the first occurrence of ``word`` on 1-based ``line``."""
    text = bytes(editor.textRange(editor.positionFromLine(line - 1), editor.lineEndPosition(line - 1)))
    return STYLE_NAMES[editor.styleAt(editor.positionFromLine(line - 1) + text.index(word.encode()))]


def _styles(editor) -> list[int]:
    return [editor.styleAt(i) for i in range(editor.textLength())]


def _styled(editor):
    return lambda: editor.endStyled() >= editor.textLength()


def test_modelica_is_styled_by_our_lexer_and_typing_restyles_only_that_line(opened, twin_copy, qtbot):
    editor = opened.open_location(str(_model(twin_copy)), 1)
    wait_for(qtbot, _styled(editor))
    assert [_style_of(editor, 1, w) for w in ("model", "Tank", '"A tank"')] == ["keyword", "identifier", "string"]
    assert [_style_of(editor, 2, w) for w in ("parameter", "Real", "2.5", "=")] == ["keyword", "type", "number",
                                                                                   "operator"]
    assert [_style_of(editor, 6, w) for w in ("der", "sqrt", "// outflow")] == ["builtin", "builtin", "comment"]
    assert _style_of(editor, 7, "Rectangle") == "annotation" and _style_of(editor, 8, "end") == "keyword"
    before = _styles(editor)
    editor.lexer.restyled = 0
    editor.gotoPos(editor.positionFromLine(2) + len("  Real h"))
    qtbot.keyClicks(editor, "2")  # Real h2(start = 1);
    wait_for(qtbot, _styled(editor))
    assert editor.lexer.restyled == 1  # the typed line only
    after = _styles(editor)
    at = editor.positionFromLine(2)
    assert after[:at] == before[:at] and after[editor.positionFromLine(3):] == before[at + len("  Real h(start = 1);\n"):]
    editor.gotoPos(editor.positionFromLine(1))
    qtbot.keyClicks(editor, "/*")  # a comment opened: every line after it changes
    wait_for(qtbot, _styled(editor))
    assert _style_of(editor, 8, "end") == "comment" and editor.lexer.restyled > 5
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    wait_for(qtbot, _styled(editor))
    assert _style_of(editor, 8, "end") == "keyword"


def test_the_fold_margin_folds_a_modelica_class_and_a_rhai_function(opened, twin_copy, qtbot):
    editor = opened.open_location(str(_model(twin_copy)), 1)
    wait_for(qtbot, _styled(editor))
    assert editor.fold_points() == [(1, 8)]  # the class; its one-line annotation folds nothing
    x = sum(editor.marginWidthN(m) for m in range(2)) + editor.marginWidthN(2) // 2
    y = editor.pointYFromPosition(editor.positionFromLine(0)) + editor.textHeight(0) // 2
    qtbot.mouseClick(editor.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(x, y))
    wait_for(qtbot, lambda: not editor.lineVisible(2))
    assert editor.lineVisible(0) and not any(editor.lineVisible(n) for n in range(1, 8))
    qtbot.mouseClick(editor.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(x, y))
    wait_for(qtbot, lambda: editor.lineVisible(4))
    rhai = opened.open_location(str(twin_copy / "scenarios" / "yard_drill.rhai"), 1)
    rhai.colourise(0, -1)
    text = rhai.doc.text.splitlines()
    points = rhai.fold_points()
    assert points and all(text[a - 1].rstrip().endswith("{") for a, _b in points if not text[a - 1].lstrip().startswith("//"))
    first_fn = next(i + 1 for i, t in enumerate(text) if t.startswith("fn "))
    assert any(a == first_fn for a, _b in points)
