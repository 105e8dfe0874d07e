"""Property checks: checked i64 arithmetic, truncating division, float text round trips."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from luncosim_core.scripting.rhai import Engine, Limits, RhaiRuntimeError, Scope, to_display

I64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
ENGINE = Engine()
ADD = ENGINE.compile("a + b")
SUB = ENGINE.compile("a - b")
MUL = ENGINE.compile("a * b")
DIVMOD = ENGINE.compile("[a / b, a % b]")
SHOW = ENGINE.compile("to_string(x)")
PARSE = ENGINE.compile("parse_float(to_string(x))")


def _run(ast, **values):
    scope = Scope()
    for k, v in values.items():
        scope.push(k, v)
    return ENGINE.run(ast, scope)


@settings(max_examples=150, deadline=None)
@given(I64, I64)
def test_integer_arithmetic_is_exact_or_an_overflow_error(a: int, b: int) -> None:
    for ast, exact in ((ADD, a + b), (SUB, a - b), (MUL, a * b)):
        if -(2**63) <= exact < 2**63:
            assert _run(ast, a=a, b=b) == exact
        else:
            try:
                _run(ast, a=a, b=b)
            except RhaiRuntimeError as e:
                assert "overflow" in e.message
            else:
                raise AssertionError(f"no overflow error for {a}, {b}")


@settings(max_examples=150, deadline=None)
@given(I64, I64.filter(lambda v: v != 0))
def test_division_truncates_toward_zero(a: int, b: int) -> None:
    if a == -(2**63) and b == -1:
        return
    q, r = _run(DIVMOD, a=a, b=b)
    assert q == int(abs(a) // abs(b)) * (1 if (a >= 0) == (b >= 0) else -1)
    assert a == q * b + r
    assert r == 0 or (r > 0) == (a > 0)


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_display_round_trips(x: float) -> None:
    text = _run(SHOW, x=x)
    assert text == to_display(x)
    assert "." in text or "e" in text
    back = _run(PARSE, x=x)
    assert back == x or (x == 0 and back == 0 and math.copysign(1, back) == 1)


LOOP = """
let a = {a}; let b = {b}; let i = 0;
while i < {n} {{ a += b; b = a * {k}; i += 1; a -= {d}; }}
[a, b, i]
"""


def _outcome(eng: Engine, src: str):
    try:
        return ("ok", eng.eval(src))
    except RhaiRuntimeError as e:
        return ("error", e.message, e.line, e.col)


@settings(max_examples=120, deadline=None)
# i64::MIN has no literal form (the literal 9223372036854775808 overflows before negation)
@given(st.one_of(st.integers(-(2**63) + 1, 2**63 - 1), st.floats(-1e6, 1e6)), st.integers(-1000, 1000),
       st.integers(0, 40), st.integers(-5, 5), st.one_of(st.integers(-9, 9), st.just(0.5)))
def test_generated_while_loop_matches_the_general_evaluator(a, b, n, k, d) -> None:
    src = LOOP.format(a=repr(a) if isinstance(a, float) else a, b=b, n=n, k=k, d=d)
    fast = _outcome(Engine(), src)  # simple numeric loops are generated as one function
    general = _outcome(Engine(limits=Limits(max_string_size=1 << 30)), src)  # closures only
    assert fast == general
