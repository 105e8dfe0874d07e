"""Rules an audit found missing, each pinned by our own scripts written from the Rhai book and
the behaviour of Rhai's packages: number literals that do not fit, ASCII-only names, BLOB and
function-name variants of the array functions, property getters, `is_shared`, `sleep`, data
races and operations counted as Rhai counts them."""

from __future__ import annotations

from typing import Any

import pytest

from luncosim_core.scripting.rhai import (
    Engine,
    Limits,
    RhaiSyntaxError,
)


def run(src: str, eng: Engine | None = None) -> Any:
    eng = eng or Engine(limits=Limits(max_operations=1_000_000))
    return eng.run(eng.compile(src))


# ── number literals ────────────────────────────────────────────────────────────────────
LITERALS = [
    ("-9223372036854775808", -9223372036854775808),          # i64's minimum
    ("type_of(-9223372036854775808)", "i64"),
    # a negated integer that does not fit becomes a float (Rhai's parser: checked negation)
    ("-0x8000000000000000", 9223372036854775808.0),
    ("-(-9223372036854775808)", 9223372036854775808.0),
    ("- 9223372036854775808", -9223372036854775808.0),      # apart, the number is a float
    ("9223372036854775808", 9223372036854775808.0),         # too large for i64: a float
    ("99999999999999999999", 1e20),
    ("0xffffffffffffffff", -1),                              # radix literals are 64-bit patterns
    ("-0x10", -16),
    ("0x7fffffffffffffff", 9223372036854775807),
]


@pytest.mark.parametrize(("src", "expected"), LITERALS, ids=[s for s, _ in LITERALS])
def test_number_literals(src: str, expected: Any, same: Any) -> None:
    assert same(run(src), expected)


@pytest.mark.parametrize("src", ["0x1_0000_0000_0000_0000", "0b" + "1" * 65])
def test_radix_literal_over_64_bits_is_an_error(src: str) -> None:
    with pytest.raises(RhaiSyntaxError, match="Integer literal too large"):
        Engine().compile(src)


# ── names ──────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(("src", "col"), [("let café = 1;", 8), ("let 变量 = 1;", 5),
                                         ("let x = ñ;", 9)])
def test_non_ascii_names_are_rejected(src: str, col: int) -> None:
    """Rhai's default build (no `unicode-xid-ident`) takes ASCII names only."""
    with pytest.raises(RhaiSyntaxError, match="Unexpected '") as ei:
        Engine().compile(src)
    assert (ei.value.line, ei.value.col) == (1, col)


def test_non_ascii_text_in_strings_and_comments_is_fine() -> None:
    assert run('// ünïcödé comment\nlet s = "café 变量"; s.len()') == 7


# ── property getters ───────────────────────────────────────────────────────────────────
# Rhai's packages register these functions as getters too (`get = "..."`): `x.name` calls them
GETTERS = [
    ("let x = 3.7; x.floor", 3.0),
    ("let x = 3.2; x.ceiling", 4.0),
    ("let x = -2.5; x.round", -3.0),
    ("let x = 3.75; x.int", 3.0),
    ("int(-3.75)", -3.0),
    ("let x = 3.75; x.fraction", 0.75),
    ("let x = 0.0 / 0.0; x.is_nan", True),
    ("let x = 1.5; x.is_nan", False),
    ("let x = 1.0 / 0.0; x.is_infinite", True),
    ("let x = 1.5; x.is_finite", True),
    ("let x = 0.0; x.is_zero", True),
    ("let x = 0; x.is_zero", True),
    ("let x = 7; x.is_odd", True),
    ("let x = -4; x.is_even", True),
    ("let x = 5; let n = 0; for b in x.bits { if b { n += 1; } } n", 2),
    ('let s = "héllo"; s.len', 5),
    ('let s = "héllo"; s.bytes', 6),
    ('let s = ""; s.is_empty', True),
    ('let s = "ab"; let n = 0; for c in s.chars { n += 1; } n', 2),
    ("let a = [1, 2]; a.len", 2),
    ("let a = []; a.is_empty", True),
    ("let b = blob(3); b.len", 3),
    ("let b = blob(); b.is_empty", True),
    ("let r = 1..5; r.start", 1),
    ("let r = 1..5; r.end", 5),
    ("let r = 1..=5; r.is_inclusive", True),
    ("let r = 1..5; r.is_exclusive", True),
    ("let r = 5..5; r.is_empty", True),
    ("let r = 5..=5; r.is_empty", False),
    ("let r = 3..; r.is_empty", False),
    ("(1..=4).is_inclusive()", True),
    ("(1..4).is_exclusive()", True),
    ('let f = Fn("foo"); f.name', "foo"),
    ("let f = |x| x; f.is_anonymous", True),
    ("let m = #{len: 3}; m.len", 3),                  # a map's property is its entry
    ("let m = #{}; m.len", ()),
]


@pytest.mark.parametrize(("src", "expected"), GETTERS, ids=[s for s, _ in GETTERS])
def test_getters(src: str, expected: Any, same: Any) -> None:
    from luncosim_core.scripting.rhai import Unit

    got = run(src)
    assert same(got, Unit if expected == () else expected), got


@pytest.mark.parametrize(("src", "message"), [
    ("let x = -5; x.abs", "Property not found: abs (i64)"),     # `abs` is no getter in Rhai
    ("let x = 3; x.floor", "Property not found: floor (i64)"),  # floor is a float function
    ("let x = 2.0; x.is_odd", "Property not found: is_odd (f64)"),
    ("let c = '1'; c.is_digit", "Property not found: is_digit (char)"),
    ("let r = 1..3; r.len", "Property not found: len (range)"),
])
def test_no_getter(src: str, message: str) -> None:
    from luncosim_core.scripting.rhai import RhaiRuntimeError

    with pytest.raises(RhaiRuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(src)


# ── BLOBs ──────────────────────────────────────────────────────────────────────────────
def blob(*xs: int) -> bytearray:
    return bytearray(xs)


B5 = "let b = blob(); b += 1; b += 2; b += 3; b += 4; b += 5; "
BLOBS = [
    (B5 + "b.set(0, 0x42); b", blob(0x42, 2, 3, 4, 5)),
    (B5 + "b.set(-3, 0); b", blob(1, 2, 0, 4, 5)),
    (B5 + "b.set(99, 123); b", blob(1, 2, 3, 4, 5)),          # past the end: unchanged
    (B5 + "b.set(1, 0x1ff); b", blob(1, 0xFF, 3, 4, 5)),      # only the low 8 bits
    (B5 + "set(b, 4, 9); b", blob(1, 2, 3, 4, 9)),
    (B5 + "b.get(-1)", 5),
    (B5 + "b.get(99)", 0),                                    # a blob gives 0 past the end
    ("let b = blob(); b.pop()", 0),
    ("let b = blob(); b.shift()", 0),
    (B5 + "b.remove(9)", 0),
    (B5 + "b.chop(3); b", blob(3, 4, 5)),
    (B5 + "b.chop(10); b", blob(1, 2, 3, 4, 5)),
    (B5 + "b.chop(0); b", blob()),
    (B5 + "let t = b.split(2); [b, t]", [blob(1, 2), blob(3, 4, 5)]),
    (B5 + "let t = b.split(-2); [b, t]", [blob(1, 2, 3), blob(4, 5)]),
    (B5 + "let t = b.split(0); [b, t]", [blob(), blob(1, 2, 3, 4, 5)]),
    (B5 + "let t = b.split(9); [b, t]", [blob(1, 2, 3, 4, 5), blob()]),
    ("let b1 = blob(10, 0x42); let b2 = blob(5, 0x18); b1.splice(1, 3, b2); b1",
     blob(0x42, *[0x18] * 5, *[0x42] * 6)),
    ("let b1 = blob(10, 0x42); let b2 = blob(5, 0x18); b1.splice(1..4, b2); b1",
     blob(0x42, *[0x18] * 5, *[0x42] * 6)),
    ("let b1 = blob(10, 0x42); let b2 = blob(5, 0x18); b1.splice(1..=4, b2); b1",
     blob(0x42, *[0x18] * 5, *[0x42] * 5)),
    ("let b1 = blob(10, 0x42); let b2 = blob(5, 0x18); b1.splice(-5, 4, b2); b1",
     blob(*[0x42] * 5, *[0x18] * 5, 0x42)),
    ("let b1 = blob(); let b2 = blob(2, 7); b1.splice(3, 1, b2); b1", blob(7, 7)),
    ("let b1 = blob(2, 1); b1.splice(5, 1, blob(1, 9)); b1", blob(1, 1, 9)),  # past the end
    ('let b = blob(); b.append("hé"); b', blob(0x68, 0xC3, 0xA9)),          # UTF-8 bytes
    ("let b = blob(); b.append('é'); b", blob(0xC3, 0xA9)),
]


@pytest.mark.parametrize(("src", "expected"), BLOBS, ids=[s[len(B5):] if s.startswith(B5) else s
                                                         for s, _ in BLOBS])
def test_blob_functions(src: str, expected: Any, same: Any) -> None:
    got = run(src)
    assert same(got, expected), got


# ── a function's name where a function is expected ─────────────────────────────────────
FN_NAMES = """
fn square(x) { x * x }
fn multiply(x, i) { x * i }
fn big(x) { x > 2 }
fn sum(a, x) { if a == () { x } else { a + x } }
fn desc(a, b) { b - a }
fn same_parity(a, b) { (a - b) % 2 == 0 }
"""
BY_NAME = [
    ('[1, 2, 3].map("square")', [1, 4, 9]),
    ('[1, 2, 3].map("multiply")', [0, 2, 6]),
    ('[1, 2, 3, 4].filter("big")', [3, 4]),
    ('[1, 2, 3, 4, 5].filter("is_odd")', [1, 3, 5]),           # a package function too
    ('[1, 2, 3].some("big")', True),
    ('[1, 2, 3].all("big")', False),
    ('[1, 2, 3].reduce("sum")', 6),
    ('[1, 2, 3].reduce("sum", 10)', 16),
    ('[1, 2, 3].reduce_rev("sum", 0)', 6),
    ('let a = [3, 1, 2]; a.sort("desc"); a', [3, 2, 1]),
    ('let a = [1, 3, 2, 4, 4]; a.dedup("same_parity"); a', [1, 2]),
    ('let a = [1, 2, 3, 4]; let d = a.drain("big"); [a, d]', [[1, 2], [3, 4]]),
    ('let a = [1, 2, 3, 4]; let d = a.retain("big"); [a, d]', [[3, 4], [1, 2]]),
    ('[1, 2, 3, 4].index_of("big")', 2),
    ('[1, 2, 3, 4, 5].index_of("big", 3)', 3),
    ('["a", "big", "c"].index_of("c")', 2),         # no function `c`: the string is the value
    ('["x y", "z"].index_of("x y")', 0),            # not a function name: the value
    ('[].index_of("big")', -1),
]


@pytest.mark.parametrize(("src", "expected"), BY_NAME, ids=[s for s, _ in BY_NAME])
def test_function_names_as_functions(src: str, expected: Any, same: Any) -> None:
    got = run(FN_NAMES + src)
    assert same(got, expected), got


def test_unknown_function_name_is_not_found() -> None:
    from luncosim_core.scripting.rhai import RhaiRuntimeError

    with pytest.raises(RhaiRuntimeError, match="Function not found: nosuch"):
        run('[1, 2].map("nosuch")')


# ── is_shared ──────────────────────────────────────────────────────────────────────────
SHARED = [
    ("let a = 41; let foo = |x| { a += x }; is_shared(a)", True),
    ("let a = 41; let foo = |x| { a += x }; a.is_shared()", True),
    ("let a = 41; is_shared(a)", False),
    ("let a = 41; let s = is_shared(a); let foo = || a; s", False),  # shared once captured
    ("let a = 41; let foo = || a; let b = a; is_shared(b)", False),  # a copy is not shared
    ("let x = 42; let y = []; let f = || x; for n in 0..3 { y += x; } some(y, |v| is_shared(v))",
     False),
    ("is_shared(1)", False),
    ("fn f(p) { let g = || p; is_shared(p) } f(1)", True),
    ("let a = [1]; let f = || a.len(); is_shared(a)", True),
]


@pytest.mark.parametrize(("src", "expected"), SHARED, ids=[s for s, _ in SHARED])
def test_is_shared(src: str, expected: bool) -> None:
    assert run(src) is expected


def test_data_race_on_a_captured_receiver() -> None:
    """Rhai locks a shared receiver for `x.call(closure)`; a closure that captured `x` itself
    then races on it."""
    from luncosim_core.scripting.rhai import RhaiRuntimeError

    assert run("let a = 1; let b = 40; let foo = |x| { this += a + x }; b.call(foo, 1); b") == 42
    with pytest.raises(RhaiRuntimeError, match="Data race detected"):
        run("let a = 20; let foo = |x| { this += a + x }; a.call(foo, 1); a")
    with pytest.raises(RhaiRuntimeError, match="Data race detected"):
        run("let a = 20; a.call(|x| this += a + x, 1); a")


def test_sleep() -> None:
    eng = Engine()
    slept: list[float] = []
    eng.on_sleep = slept.append
    run("sleep(2); sleep(0.25); sleep(0); sleep(-1); sleep(-0.5); sleep(0.0 / 0.0)", eng)
    assert slept == [2.0, 0.25]
    import time

    t = time.perf_counter()
    Engine().eval("sleep(0.01)")  # by default it blocks, as Rhai's does
    assert time.perf_counter() - t >= 0.009


# ── operations counted as Rhai counts them ─────────────────────────────────────────────
def passes(src: str, max_operations: int) -> bool:
    from luncosim_core.scripting.rhai import RhaiLimitError

    eng = Engine(limits=Limits(max_operations=max_operations))
    eng.on_print = lambda s: None
    try:
        eng.run(eng.compile(src))
    except RhaiLimitError:
        return False
    return True


# Rhai's own limit cases (its tests/operations.rs): straight-line code counts too
LIMITS = [
    (500, "let x = 0; while x < 20 { x += 1; }", True),
    (500, "for x in 0..500 {}", False),
    (10, "[1, 2, 3, 4, 5, 6, 7]", True),
    (10, "[1, 2, 3, 4, 5, 6, 7, 8, 9]", False),
    (10, "#{a:1, b:2, c:3, d:4, e:5, f:6, g:7}", True),
    (10, "#{a:1, b:2, c:3, d:4, e:5, f:6, g:7, h:8, i:9}", False),
    (500, 'print("Test1"); let x = 0; while x < 28 { print(x); x += 1; }', True),
    (500, 'print("Test2"); fn inc(x) { x + 1 } let x = 0; while x < 20 { x = inc(x); }', True),
    (500, 'print("Test3"); fn inc(x) { x + 1 } let x = 0; while x < 36 { print(x); x = inc(x); }',
     False),
    (500, 'let script = "for x in 0..500 {}"; eval(script);', False),
]


@pytest.mark.parametrize(("limit", "src", "ok"), LIMITS, ids=[s for _, s, _ in LIMITS])
def test_rhai_limit_cases(limit: int, src: str, ok: bool) -> None:
    assert passes(src, limit) is ok


# Exact totals, as Rhai's evaluator counts (optimization off): each statement and expression
# evaluated, each native call and each script function call. `n` passes with limit n and
# fails with n - 1.
COUNTS = [
    ("42", 2),                                            # statement + literal
    ("let x = 1; x", 4),
    ("[1, 2, 3]", 5),
    ("let x = 1; x = 2;", 5),                             # statement, value, target
    ("let x = 1; -x", 6),                                 # `-x` calls the `-` function
    ("print(1)", 4),                                      # call expression, argument, native
    ("fn inc(x) { x + 1 } inc(1)", 8),                    # ... script call and its body
    ("let a = [1]; a.len()", 7),
    ("let m = #{a: 1}; m.a", 7),
    ("let a = [1, 2]; a[0]", 8),
    ("let a = [1, 2]; let i = 0; a[i]", 12),
    ("if true { 1 } else { 2 }", 4),                      # only the branch taken
    ("if false { 1; 2; 3; 4 } else { 5 }", 4),
    ("let x = if true { 1 } else { 2 };", 6),             # an `if` value is one more
    ("true && false", 4),
    ("false && [1, 2, 3, 4, 5, 6]", 3),                   # the right side never ran
    ("() ?? 5", 4),
    ("let x = 0; while x < 20 { x += 1; }", 126),         # 20 x (3 + 3) + the last condition
    ("for x in 0..500 {}", 504),                          # an empty body counts 1
    ("let s = 0; for i in 0..3 { s += i; }", 15),
    ("loop { break; }", 2),
    ("let x = 0; do { x += 1; } while x < 3;", 21),
    ("switch 2 { 1 => 10, 2 => 20, _ => 0 }", 3),
    ("try { throw 1; } catch { 0 }", 5),
    ("let f = |x| x + 1; f.call(2)", 12),
    ("let f = |x| x + 1; f(2)", 10),
    ("let f = |x| x + 1; call(f, 2)", 11),                # `call`, `Fn`, `curry`: no native call
    ('let f = Fn("abs");', 3),
    ('let f = curry(Fn("max"), 1);', 5),
    ("fn f() { return 1; [1, 2, 3, 4, 5, 6, 7, 8, 9]; } f()", 5),   # nothing after `return`
    ("let x = 0; while x < 3 { if x > 5 { break; } x += 1; }", 36),
]


@pytest.mark.parametrize(("src", "n"), COUNTS, ids=[s for s, _ in COUNTS])
def test_operation_totals(src: str, n: int) -> None:
    assert passes(src, n), f"{src!r} should run within {n} operations"
    assert not passes(src, n - 1), f"{src!r} should need more than {n - 1} operations"


def test_the_limit_stops_a_loop_of_calls_inside_it() -> None:
    """A loop counting locally still stops where functions called in it pass the limit."""
    from luncosim_core.scripting.rhai import RhaiLimitError

    eng = Engine(limits=Limits(max_operations=2000))
    eng.on_print = lambda s: None
    src = "fn heavy() { let s = 0; for i in 0..50 { s += i; } s } let n = 0; " \
          "for i in 0..1000 { n += 1; print(n); heavy(); }"
    printed: list[str] = []
    eng.on_print = printed.append
    with pytest.raises(RhaiLimitError, match="Too many operations"):
        eng.run(eng.compile(src))
    assert len(printed) < 20  # stopped within the first iterations, not after the loop


def test_each_host_call_has_its_own_budget() -> None:
    eng = Engine(limits=Limits(max_operations=100))
    ast = eng.compile("fn tick() { let s = 0; for i in 0..10 { s += i; } s }")
    for _ in range(50):  # 50 calls of ~40 operations each, every call within the limit
        assert eng.call_fn(ast, "tick") == 45
