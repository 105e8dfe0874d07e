"""Errors: malformed scripts give positioned syntax errors; runtime errors say what went wrong
in Rhai's terms, where, and through which functions."""

from __future__ import annotations

import pytest

from luncosim_core.scripting.rhai import (
    Engine,
    Limits,
    RhaiError,
    RhaiRuntimeError,
    RhaiSyntaxError,
)

SYNTAX = [
    # (source, message fragment, line, col)
    ("let x = ;", "Unexpected ';'", 1, 9),
    ("let = 5;", "Expecting a variable name", 1, 5),
    ("let x = 1\nlet y = 2;", "Expecting ';'", 2, 1),
    ("fn f( { }", "Expecting a parameter name", 1, 7),
    ("fn f(a, a) { }", "Duplicated parameter: a", 1, 9),
    ("let s = \"abc", "Unterminated string", 1, 9),
    ("let s = `abc", "Unterminated string", 1, 9),
    ("/* never closed", "Unterminated comment", 1, 1),
    ("let x = 1;\n  let y = (2 + 3;", "Expecting ')'", 2, 17),
    ("let a = [1, 2;", "Expecting ',' or ']'", 1, 14),
    ("let m = #{a: 1 b: 2};", "Expecting ',' or '}'", 1, 16),
    ("let m = #{a: 1, a: 2};", "Duplicated property 'a'", 1, 17),
    ("if true { 1 } else 2", "Expecting '{'", 1, 20),
    ("while true { 1 ", "Expecting '}'", 1, 16),
    ("fn outer() { fn inner() {} }", "Functions can only be defined at global level", 1, 14),
    ("break;", "'break' can only be used inside a loop", 1, 1),
    ("continue;", "'continue' can only be used inside a loop", 1, 1),
    ("const X = 1; X = 2;", "Cannot modify constant X", 1, 14),
    ("1 + 2 = 3;", "Cannot assign to this expression", 1, 7),
    ("let x = 5 @ 3;", "Expecting ';'", 1, 11),
    ("let c = 'ab';", "Invalid character literal", 1, 9),
    ("let x = \"\\q\";", "Invalid escape sequence", 1, 11),
    ("let x = 0x1_0000_0000_0000_0000;", "Integer literal too large", 1, 9),
    ("switch 1 { _ => 1, 2 => 3 }", "default case must be the last", 1, 20),
    ("fn f() {} fn f() {}", "already defined", 1, 14),
    ("let var = 1;", "reserved keyword", 1, 5),
    ("try { 1 }", "Expecting 'catch'", 1, 10),
    ("for x [1] {}", "Expecting 'in'", 1, 7),
    ("let x = 1 +", "unexpected end of script", 1, 12),
    ("`a ${ 1 + } b`", "Unexpected '}'", 1, 11),
]


@pytest.mark.parametrize(("src", "fragment", "line", "col"), SYNTAX,
                         ids=[s[0][:40] for s in SYNTAX])
def test_syntax_error_is_positioned(src: str, fragment: str, line: int, col: int) -> None:
    with pytest.raises(RhaiSyntaxError) as ei:
        Engine().compile(src, file="mission.rhai")
    err = ei.value
    assert fragment in err.message
    assert (err.file, err.line, err.col) == ("mission.rhai", line, col)
    assert f"mission.rhai:{line}:{col}" in str(err)


RUNTIME = [
    ("foo(1, \"a\")", "Function not found: foo (i64, string)", 1, 1),
    ("let a = 1;\nlet b = a + zz;", "Variable not found: zz", 2, 13),
    ("let x = 9223372036854775807;\nx + 1", "Addition overflow: 9223372036854775807 + 1", 2, 3),
    ("let x = -9223372036854775807 - 1; x - 1", "Subtraction overflow", 1, 37),
    ("9223372036854775807 * 2", "Multiplication overflow", 1, 21),
    ("let i = 9223372036854775800;\nwhile i > 0 { i += 1; }", "Addition overflow", 2, 17),
    ("let i = 1; let k = 3037000500;\nwhile i > 0 { i = k * k; }", "Multiplication overflow", 2, 21),
    ("let x = 9223372036854775807; x += 1;", "Addition overflow", 1, 32),
    ("2 ** 64", "Exponential overflow", 1, 3),
    ("abs(-9223372036854775807 - 1)", "Negation overflow", 1, 1),
    ("10 / 0", "Division by zero", 1, 4),
    ("10 % 0", "Modulo division by zero", 1, 4),
    ("2 ** -1", "negative power", 1, 3),
    ("true + 1", "Function not found: + (bool, i64)", 1, 6),
    ("[1] - 1", "Function not found: - (array, i64)", 1, 5),
    ("[1] < [2]", "Function not found: < (array, array)", 1, 5),
    ("let a = [1, 2];\na[5]", "Array index 5 out of bounds: only 2 elements in array", 2, 2),
    ("\"abc\"[10]", "String index 10 out of bounds: only 3 characters in string", 1, 6),
    ("let x = 5; x.nope", "Property not found: nope (i64)", 1, 14),
    ("let m = (); m.a", "Cannot access property 'a' of ()", 1, 15),
    ("if 1 { 2 }", "Data type incorrect: i64 (expecting bool)", 1, 4),
    ("while \"x\" { }", "Data type incorrect: string (expecting bool)", 1, 7),
    ("1 && true", "Data type incorrect: i64 (expecting bool)", 1, 3),
    ("!5", "Function not found: ! (i64)", 1, 1),
    ("throw \"mission abort\"", "mission abort", 1, 1),
    ("fn f(x) { x } f()", "Function not found: f ()", 1, 15),
    ("[1, \"a\"].sort()", "Cannot sort", 1, 10),
    ("to_int(1e300)", "cannot convert to i64", 1, 1),
    ("parse_int(\"x1\")", "Error parsing integer", 1, 1),
    ("let f = |x| x; f.call()", "Function not found: anon$", 1, 18),
    ("import \"m\" as m;", "no module roots", 1, 1),
    ("for x in 5 { }", "For loop expects", 1, 1),
    ("Fn(\"1abc\")", "Invalid function name", 1, 1),
    ("fn f() {\n  this.x = 1;\n}\nf()", "'this' not bound", 2, 3),
    ("let m = #{}; m.a.b = 1;", "Cannot set property 'b' of ()", 1, 18),
]


@pytest.mark.parametrize(("src", "fragment", "line", "col"), RUNTIME,
                         ids=[s[0][:40] for s in RUNTIME])
def test_runtime_error_is_positioned(src: str, fragment: str, line: int, col: int) -> None:
    eng = Engine()
    ast = eng.compile(src, file="tick.rhai")
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.run(ast)
    err = ei.value
    assert fragment in err.message
    assert (err.file, err.line, err.col) == ("tick.rhai", line, col)


def test_error_inside_function_names_the_function_and_the_line() -> None:
    src = "fn helper(x) {\n    x + missing\n}\nfn outer() { helper(1) }\nouter()"
    eng = Engine()
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.run(eng.compile(src, file="lib.rhai"))
    err = ei.value
    assert err.message == "Variable not found: missing"
    assert (err.line, err.col) == (2, 9)
    assert err.call_stack == ["helper @ lib.rhai:1:1", "outer @ lib.rhai:4:1"]
    assert "helper @ lib.rhai:1:1" in str(err)


def test_thrown_value_is_kept_for_the_host() -> None:
    with pytest.raises(RhaiRuntimeError) as ei:
        Engine().eval("throw #{code: 3}")
    assert ei.value.value == {"code": 3}


def test_errors_convert_to_project_diagnostics() -> None:
    with pytest.raises(RhaiError) as ei:
        Engine().compile("let x = ;", file="a.rhai")
    d = ei.value.to_diagnostic()
    assert (d.severity, d.code, d.layer, d.line, d.column, d.source) == (
        "error", "rhai.syntax", "a.rhai", 1, 9, "rhai")


def test_expression_depth_limit_is_a_syntax_error() -> None:
    deep = "(" * 40 + "1" + ")" * 40
    assert Engine().eval(deep) == 1
    with pytest.raises(RhaiSyntaxError) as ei:
        Engine(limits=Limits(max_expr_depth=20)).compile(deep)
    assert "maximum complexity" in ei.value.message


def test_try_catch_does_not_swallow_limits() -> None:
    eng = Engine(limits=Limits(max_operations=1000))
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval("try { loop { } } catch { 1 }")
    assert "Too many operations" in ei.value.message
