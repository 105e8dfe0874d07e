"""The rules of issue 21, each pinned by our own scripts written from the Rhai book: string
literals, ranges, the bit-field/BLOB/string packages, call semantics, Elvis and `??`, numbers,
maps and switch, `eval`, compile-time checks and limits counted as Rhai counts them."""

from __future__ import annotations

from typing import Any

import pytest

from luncosim_core.scripting.rhai import (
    Char,
    Engine,
    FnPtr,
    Limits,
    RhaiLimitError,
    RhaiRuntimeError,
    RhaiSyntaxError,
    Scope,
    Unit,
)

STRINGS = [
    ('"say ""hi"""', 'say "hi"'),                      # a doubled quote is one quote
    ("''''", Char("'")),
    # `\` at the end of a line: the next line's whitespace is skipped up to the column of
    # the opening quote, the rest is kept
    ('"ab\\\n cd"', "abcd"),
    ('"ab\\\n   cd"', "ab  cd"),
    ('  "ab\\\n     cd"', "ab  cd"),
    ("`\nfirst line\nsecond`", "first line\nsecond"),  # newline after the backtick dropped
    ("`\r\nwin\r\nlines`", "win\nlines"),               # also after CR LF; CR LF reads LF
    ("` kept`", " kept"),
]

RANGES = [
    ('let s = "rocket"; s[1..4]', "ock"),
    ('let s = "rocket"; s[..]', "rocket"),
    ('let s = "rocket"; s[2..]', "cket"),
    ('let s = "rocket"; s[..=1]', "ro"),
    ('let s = "rocket"; s[1..-2]', "ock"),              # a negative end counts from the end
    ('let s = "rocket"; s[3..99]', "ket"),              # an end past the string is clipped
    ('let s = "rocket"; s[4..2]', ""),
    ('let s = "rocket"; s[1..3] = "aa"; s', "raaket"),  # a range assignment splices
    ("let x = 0b1101_0110; x[1..=3]", 0b011),           # integer bit fields
    ("let x = 0b1101_0110; x[4..]", 0b1101),
    ("let x = 0; x[2..5] = 0b111; x", 0b11100),
    ('let s = "abcdef"; crop(s, ..); s', "abcdef"),
    ('let s = "abcdef"; crop(s, 2..); s', "cdef"),
    ('chars("abcdef", 2..=3)', [Char("c"), Char("d")]),
    ("let r = 3..; r.start", 3),
    ("let t = 0; for i in ..4 { t += i; } t", 6),       # `..4` starts at 0
]

PACKAGES = [
    ("get_bits(0b1011_0000, 4, 3)", 0b011),
    ("get_bits(0b1011_0000, 4..7)", 0b011),
    ("let x = 0; set_bits(x, 8, 4, 0xF); x", 0xF00),
    ("let x = 0; x.set_bits(0..=1, 3); x", 3),
    ("let n = 0; for b in bits(0b1011) { if b { n += 1; } } n", 3),
    ("let v = []; for b in bits(0b0110, 1, 2) { v.push(b); } v", [True, True]),
    ('"x-y-z".split_rev("-")', ["z", "y", "x"]),
    ('"x-y-z".split_rev("-", 2)', ["z", "x-y"]),
    ("\"x-y-z\".split_rev('-')", ["z", "y", "x"]),
    ("let b = blob(4); b.write_le(0, 4, 0x01020304); b.parse_le_int(0, 4)", 0x01020304),
    ("let b = blob(8); b.write_be(0, 8, 0x0A0B); [b[6], b[7]]", [0x0A, 0x0B]),
    ("let b = blob(8); b.write_be(0, 8, -2); b.parse_be_int(0, 8)", -2),
    ("let b = blob(2); b[0] = 0xFF; b[1] = 0xFF; b.parse_le_int(0, 2)", 0xFFFF),
    ("let b = blob(8); b.write_le(0..8, 2.5); b.parse_le_float(0..8)", 2.5),
    ("let b = blob(8); b.write_be(0, 8, -1.25); b.parse_be_float(0, 8)", -1.25),
    ('let b = blob(5); b.write_utf8(0..5, "héllo"); b.as_string()', "héll"),
    ('let b = blob(3, 0x2E); b.write_ascii(1, 2, "é!"); b.as_string()', ".!."),
    ("let t = timestamp(); t <= timestamp()", True),
    ("let t = timestamp(); t > timestamp()", False),
    ("is_shared(42)", False),
    ("get_bit(0b100, 2)", True),
    ("let x = 0; x.set_bit(3, true); x", 8),
    ('let s = "rocket"; let c = s.pop(); [s, c]', ["rocke", Char("t")]),
    ('let s = "rocket"; let t = s.pop(3); [s, t]', ["roc", "ket"]),
    ('pop("ab")', Char("b")),                              # on a temporary: just the value
    ('trim(" a ")', Unit),
    ('"ab".to_chars()', [Char("a"), Char("b")]),
    ('" a  b ".split_whitespace()', ["a", "b"]),
    ("let a = [3, 1, 2]; a.sort_desc(); a", [3, 2, 1]),
    ("let a = [3, 1, 2]; [a.order(), a.order_desc(), a]", [[1, 2, 3], [3, 2, 1], [3, 1, 2]]),
    ("[3, 1, 2].order_by(|a, b| b - a)", [3, 2, 1]),
    ("let x = [1]; let y = take(x); [x, y]", [Unit, [1]]),
    ('parse_json("{\\"a\\": [1, 2.5, null, true]}")', {"a": [1, 2.5, Unit, True]}),
]

CALLS = [
    ("let y = [1, 2]; pad(y, 4, 0); y", [1, 2, 0, 0]),     # function style changes `y`
    ("let y = [1, 2]; push(y, 3); y.len()", 3),
    ('let s = "hello"; trim(s); crop(s, 1, 3); s', "ell"),
    ("const C = [1]; push(C, 2); C", [1]),                  # a constant is never changed
    ("fn twice(x) { x * 2 } let f = twice; f.call(21)", 42),  # a bare name is a pointer
    ("fn twice(x) { x * 2 } call(twice, 4)", 8),
    ('fn is_big(x) { x > 10 } [3, 30, 4].index_of("is_big")', 1),
    ('["a", "b"].index_of("b")', 1),                         # no such function: a value
    ("[1, 2, 3].map(|| this * 10)", [10, 20, 30]),          # no parameter: `this` is the item
    ("[1, 2, 3].filter(|| this != 2)", [1, 3]),
    ("let acc = #{n: 1}; acc.call(|x| this.n += x, 41); acc.n", 42),  # x.call(fp): this = x
    ("fn bump(d) { total += d; total } let total = 40; bump!(2) + total", 84),  # `!`: caller's
    ("fn peek() { secret * 2 } let secret = 21; peek!()", 42),                 # scope
]

ELVIS = [
    ("let x = (); x?.a.b.c", Unit),                   # the whole chain short-circuits
    ("let x = #{a: #{b: 7}}; x?.a.b", 7),
    ("let x = (); x?[2] = 42; x", Unit),               # the assignment does nothing
    ("let x = [0, 0, 0]; x?[2] = 42; x", [0, 0, 42]),
    ("let r = for v in [1, (), 3] { v ?? break 99; }; r", 99),
    ("let n = 0; for v in [1, (), 3] { n += v ?? continue; } n", 4),
    ("fn f(v) { let x = v ?? return -1; x * 2 } [f(4), f(())]", [8, -1]),
]

NUMBERS = [
    ("let x = 1.;\nx", 1.0),
    ("let x = 2.; x * 3", 6.0),
    ("[1., 2.]", [1.0, 2.0]),
    ("1.max(2)", 2),                                 # `1.` then a name is a method call
    ("0 < 1e-16", False),                            # Rhai's float epsilon
    ("0.1 + 0.2 == 0.3", True),
    ("1.0 < 1.0000001", True),
    ("-9223372036854775808", -9223372036854775808),
]

MAPS_SWITCH = [
    ("#{`with space`: 1}[\"with space\"]", 1),
    ('#{f: Fn("g")}.to_json()', '{"f":"g"}'),
    ('#{f: Fn("g").curry(1)}.to_json()', '{"f":["g",1]}'),
    ("let r = 1..5; switch r { 1..5 => true, _ => false }", True),
    ("switch 3 { 1 => 'a', 2..4 => 'b', _ => 'c' }", Char("b")),
]

EVAL = [
    ('eval("40 + 2")', 42),
    ('let a = 1; eval("let a = 5"); a', 5),                     # same block: shadows
    ('let a = 1; { eval("let a = 5"); } a', 1),                 # an inner block's own
    ('let a = 1; eval("a += 9"); a', 10),
    ('let code = "a * 3"; let a = 7; eval(code)', 21),         # computed at run time
    ('let code = "a = 11"; let a = 7; eval(code); a', 11),
]

ALL = STRINGS + RANGES + PACKAGES + CALLS + ELVIS + NUMBERS + MAPS_SWITCH + EVAL


@pytest.mark.parametrize(("src", "expected"), ALL, ids=[c[0][:50] for c in ALL])
def test_rule(src: str, expected: Any, same: Any) -> None:
    got = Engine(limits=Limits(max_operations=100_000)).eval(src)
    assert same(got, expected), f"{src!r}: got {got!r}, expected {expected!r}"


def test_closures_made_in_a_for_loop_share_the_loop_variable() -> None:
    """The `for` variables are one variable across iterations, so every closure sees the last
    value; a `let` in the body is a new variable each time, so closures over it differ."""
    src = """
        let fs = [];
        for (x, i) in [10, 20, 30] { fs.push(|| x + i); }
        fs.map(|f| f.call())
    """
    assert Engine().eval(src) == [32, 32, 32]
    src = """
        let fs = [];
        for x in [10, 20, 30] { let y = x; fs.push(|| y); }
        fs.map(|f| f.call())
    """
    assert Engine().eval(src) == [10, 20, 30]


def test_literal_eval_global_constant() -> None:
    src = 'const K = 1; fn k() { global::K } eval("const K = 2;"); k()'
    assert Engine().eval(src) == 2
    src = 'const K = 1; fn k() { global::K } { eval("const K = 2;"); } k()'
    assert Engine().eval(src) == 1


def test_bang_call_does_not_leak_to_callees_or_plain_calls() -> None:
    with pytest.raises(RhaiRuntimeError, match="Variable not found: z"):
        Engine().eval("fn f() { z } let z = 3; f()")
    with pytest.raises(RhaiRuntimeError, match="Variable not found: z"):
        Engine().eval("fn f() { g() } fn g() { z } let z = 3; f!()")


def test_bare_function_name_is_a_function_pointer_value() -> None:
    v = Engine().eval("fn dbl(x) { x * 2 } let f = dbl; f")
    assert type(v) is FnPtr and v.name == "dbl"


COMPILE_ERRORS = [
    ("[1, 2, 3][\"x\"]", "Array access expects integer index, not string", 1, 11),
    ("[1, 2, 3][1.5]", "Array access expects integer index, not f64", 1, 11),
    ("[1, 2, 3][()]", "Array access expects integer index, not ()", 1, 11),
    ("[1, 2, 3][true || false]", "Array access expects integer index, not bool", 1, 16),
    ("#{a: 1}[0]", "Object map access expects string index, not i64", 1, 9),
    ("#{a: 1}['a']", "Object map access expects string index, not char", 1, 9),
    ("let m = #{};\nm.keys().x = 1;", "Cannot assign to this expression", 2, 12),
    ("let m = [];\nm.pop()[0] = 1;", "Cannot assign to this expression", 2, 12),
    ("switch 5 { 1..3 => 1, 5 => 2 }", "Numeric switch case cannot follow a range case", 1, 23),
    ("switch 5 { 1..3 => 1, 5.0 => 2 }", "Numeric switch case cannot follow a range case",
     1, 23),
    ("let x = ( );", "Unexpected ')'", 1, 11),
    ("const A = [1, 2];\nA[0] = 5;", "Cannot modify constant A", 2, 1),
    ("const M = #{a: 1};\nM.a = 5;", "Cannot modify constant M", 2, 1),
]


@pytest.mark.parametrize(("src", "message", "line", "col"), COMPILE_ERRORS,
                         ids=[c[0][:40] for c in COMPILE_ERRORS])
def test_compile_time_check(src: str, message: str, line: int, col: int) -> None:
    """Rhai rejects these when compiling, before anything runs; the error names the place."""
    eng = Engine()
    with pytest.raises(RhaiSyntaxError) as ei:
        eng.compile(src)
    assert (ei.value.message, ei.value.line, ei.value.col) == (message, line, col)


def test_compile_checks_do_not_reject_computed_indices() -> None:
    assert Engine().eval('let k = "a"; #{a: 3}[k]') == 3
    assert Engine().eval("let i = 1; [5, 6][i]") == 6


def test_eval_stays_inside_the_limits() -> None:
    eng = Engine(limits=Limits(max_operations=5_000))
    with pytest.raises(RhaiLimitError, match="Too many operations"):
        eng.eval('let n = 0; loop { let c = "n += 1"; eval(c); }')
    eng = Engine(limits=Limits(max_call_depth=10, max_operations=100_000))
    with pytest.raises(RhaiLimitError, match="Stack overflow"):
        eng.eval('fn f() { let c = "f()"; eval(c) } f()')
    with pytest.raises(RhaiRuntimeError, match="Syntax error in eval") as ei:
        Engine().eval('let c = "1 +";\nlet v = eval(c);')
    assert (ei.value.line, ei.value.col) == (2, 9)


def test_array_size_counts_nested_arrays() -> None:
    eng = Engine(limits=Limits(max_array_size=6, max_operations=100_000))
    assert eng.eval("let a = [[1, 2], [3, 4]]; a.len()") == 2  # 2 + 4 = 6: allowed
    with pytest.raises(RhaiLimitError, match="Size of array too large: 8 > 6") as ei:
        eng.eval("let a = [[1, 2], [3, 4]];\na.push([5]);")
    assert ei.value.line == 2


def test_string_size_counts_characters() -> None:
    eng = Engine(limits=Limits(max_string_size=4, max_operations=100_000))
    assert eng.eval('let s = "éé"; s += "éé"; s.len()') == 4
    with pytest.raises(RhaiLimitError, match="Length of string too large: 5 > 4"):
        eng.eval('let s = "éééé"; s += "x";')


def test_integer_while_loop_keeps_the_language_rules() -> None:
    """The integer-specialised `while` (variables in Python locals) still checks overflow at
    the right place, counts operations, and falls back when a variable is not an int."""
    eng = Engine(limits=Limits(max_operations=1_000_000))
    assert eng.eval("let i = 0; let s = 0; while i < 1000 { s += i; i += 1; } s") == 499500
    assert eng.eval("let i = 0; let s = 0.5; while i < 4 { s += i; i += 1; } s") == 6.5
    with pytest.raises(RhaiRuntimeError, match="Addition overflow") as ei:
        eng.eval("let i = 0;\nlet s = 9223372036854775000;\nwhile i < 100 { s += i; i += 1; }")
    assert (ei.value.line, ei.value.col) == (3, 19)
    with pytest.raises(RhaiLimitError, match="Too many operations"):
        Engine(limits=Limits(max_operations=500)).eval("let i = 0; while i < 10000 { i += 1; }")
    # the values reached are kept when the loop stops by an error
    eng2 = Engine(limits=Limits(max_operations=1_000_000))
    assert eng2.eval("let i = 1; try { while i != 0 { i *= 2; } } catch { } i") == 1 << 62


def test_operations_count_expressions_not_only_iterations() -> None:
    """Rhai counts one operation per statement and expression: a loop with a bigger body
    reaches the limit in fewer iterations; a call counts its body too."""
    def iterations(body: str) -> int:
        eng = Engine(limits=Limits(max_operations=2_000))
        scope_src = f"let n = 0; let x = 0; loop {{ n += 1; {body} }}"
        ast = eng.compile(scope_src)
        sc = Scope()
        with pytest.raises(RhaiLimitError, match="Too many operations"):
            eng.run(ast, sc)
        return sc["n"]
    small = iterations("")
    big = iterations("x = x + 1 * 2 - 3; x = x * 1; x = x - 0;")
    assert 0 < big < small / 3
    eng = Engine(limits=Limits(max_operations=300))
    src = "fn f(a) { let b = a + 1; let c = b * 2 + a - 1; c } let s = 0; " \
          "for i in 0..1000 { s += f(i); } s"
    with pytest.raises(RhaiLimitError):
        eng.eval(src)
