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
