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
