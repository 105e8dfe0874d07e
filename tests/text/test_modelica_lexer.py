"""The Modelica lexer behind the editor's highlighting and folding (Lexilla has none)."""

from __future__ import annotations

from pathlib import Path

from luncosim_core.language.modelica_lexer import (
    STYLE_NAMES,
    fold_level,
    style_line,
    style_text,
    unpack,
)
from luncosim_core.modelica.compiler import BUNDLED_LIBRARY

SAMPLE = '''within Workbench.Demo;
model Tank "A tank" /* block
 comment */
  parameter Real A = 2.5e-1 "area";
  Real h(start = 1, fixed = true);
  input Real q;
  type Height = Real(unit = "m");
equation
  der(h) = (q - sqrt(h)) / A; // outflow
  when h > 3 then
    reinit(h, 3);
  end when;
  annotation(Icon(graphics = {Rectangle(extent = {{-100, -100}, {100, 100}})}),
    Documentation(info = "<html>
multi-line</html>"));
end Tank;
'''


def _tokens(text: str) -> list[list[tuple[str, str]]]:
    """Per line: (text, style name) runs, blanks dropped."""
    out = []
    for raw, (styles, _state) in zip(text.encode().splitlines(keepends=True), style_text(text), strict=True):
        runs: list[tuple[str, str]] = []
        i = 0
        while i < len(raw):
            j = i
            while j < len(raw) and styles[j] == styles[i]:
                j += 1
            chunk = raw[i:j].decode()
            if chunk.strip():
                runs.append((chunk.strip(), STYLE_NAMES[styles[i]]))
            i = j
        out.append(runs)
    return out


def test_the_sample_is_styled_token_by_token():
    lines = _tokens(SAMPLE)
    assert lines[0] == [("within", "keyword"), ("Workbench", "identifier"), (".", "operator"), ("Demo", "identifier"),
                        (";", "operator")]
    assert lines[1] == [("model", "keyword"), ("Tank", "identifier"), ('"A tank"', "string"), ("/* block", "comment")]
    assert lines[2] == [("comment */", "comment")]  # the block comment carries over the line end
    assert lines[3] == [("parameter", "keyword"), ("Real", "type"), ("A", "identifier"), ("=", "operator"),
                        ("2.5e-1", "number"), ('"area"', "string"), (";", "operator")]
    assert ("der", "builtin") in lines[8] and ("sqrt", "builtin") in lines[8] and ("// outflow", "comment") in lines[8]
    assert ("/", "operator") in lines[8] and ("(", "operator") in lines[8]
    # an annotation and everything in it, over three lines and a multi-line string, is 'annotation'
    assert lines[12][0] == ("annotation(Icon(graphics = {Rectangle(extent = {{-100, -100}, {100, 100}})}),",
                            "annotation")
    assert lines[13] == [('Documentation(info = "<html>', "annotation")]
    assert lines[14] == [('multi-line</html>"))', "annotation"), (";", "operator")]
    assert lines[15] == [("end", "keyword"), ("Tank", "identifier"), (";", "operator")]


def test_fold_levels_follow_classes_statements_and_brackets():
    levels = [fold_level(state) for _styles, state in style_text(SAMPLE)]
    assert levels[1] == 2  # model Tank opens; the block comment opens a second level
    assert levels[2] == 1  # ... which closes on the next line
    assert levels[6] == 1  # the short class 'type Height = Real(...)' folds nothing
    assert levels[9] == 2 and levels[11] == 1  # when .. end when
    assert levels[12] == 2 and levels[14] == 1  # the annotation's brackets across lines
    assert levels[-1] == 0  # end Tank


def test_a_reduction_for_inside_brackets_is_no_statement():
    text = "model M\nequation\n  y = sum(\n    x[i]\n    for i in 1:3);\n  for i in 1:3 loop\n  end for;\nend M;\n"
    assert [fold_level(s) for _st, s in style_text(text)] == [1, 1, 2, 2, 1, 2, 1, 0]


def test_every_library_file_folds_back_to_level_zero():
    files = sorted(Path(BUNDLED_LIBRARY).rglob("*.mo"))
    assert files
    for path in files:
        mode, _pending, depth, level, brackets = unpack(style_text(path.read_text(encoding="utf-8"))[-1][1])
        assert (mode, depth, level, brackets) == (0, 0, 0, 0), path


def test_a_line_restyles_from_the_state_before_it():
    _styles, inside = style_line(b"  /* opened\n")
    styles, after = style_line(b"  still comment */ Real x;\n", inside)
    assert set(styles[:18]) == {STYLE_NAMES.index("comment")}
    assert STYLE_NAMES[styles[19]] == "type" and unpack(after)[0] == 0
    styles = style_line("  Real é = 1; // ü\n".encode(), 0)[0]  # offsets are bytes of UTF-8
    assert styles[7:9] == bytes(2) and set(styles[15:20]) == {STYLE_NAMES.index("comment")}
