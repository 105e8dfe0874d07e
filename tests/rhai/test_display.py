"""Display (print/to_string) and Debug (debug/to_debug) text, as Rhai writes it: floats follow
Rust's `{}` between 1e-13 and 1e13 (always with a fraction) and `{:e}` outside; Debug floats
follow Rust's `{:?}`."""

from __future__ import annotations

import math

import pytest

from luncosim_core.scripting.rhai import (
    Char,
    Engine,
    FnPtr,
    RhaiRange,
    Timestamp,
    Unit,
    to_debug,
    to_display,
)

FLOAT_DISPLAY = [
    (1.0, "1.0"),
    (0.0, "0.0"),
    (-0.0, "0.0"),
    (-2.5, "-2.5"),
    (0.1 + 0.2, "0.30000000000000004"),
    (0.00001, "0.00001"),
    (1e-7, "0.0000001"),
    (1.5e-13, "0.00000000000015"),
    (1e-14, "1e-14"),
    (2.5e-20, "2.5e-20"),
    (123456789.125, "123456789.125"),
    (1e13, "10000000000000.0"),
    (1e14, "1e14"),
    (1.5e14, "1.5e14"),
    (-3.25e20, "-3.25e20"),
    (1e100, "1e100"),
    (100.0, "100.0"),
    (math.pi, "3.141592653589793"),
    (math.nan, "NaN"),
    (math.inf, "inf"),
    (-math.inf, "-inf"),
]


@pytest.mark.parametrize(("x", "text"), FLOAT_DISPLAY, ids=[t for _, t in FLOAT_DISPLAY])
def test_float_display(x: float, text: str) -> None:
    assert to_display(x) == text


FLOAT_DEBUG = [
    (1.0, "1.0"),
    (-0.0, "-0.0"),
    (0.0001, "0.0001"),
    (0.00001, "1e-5"),
    (1e-7, "1e-7"),
    (1.5e-7, "1.5e-7"),
    (1e15, "1000000000000000.0"),
    (1e16, "1e16"),
    (12.5, "12.5"),
    (math.nan, "NaN"),
]


@pytest.mark.parametrize(("x", "text"), FLOAT_DEBUG, ids=[t for _, t in FLOAT_DEBUG])
def test_float_debug(x: float, text: str) -> None:
    assert to_debug(x) == text


VALUES = [
    # (value, display, debug)
    (Unit, "", "()"),
    (True, "true", "true"),
    (42, "42", "42"),
    (-7, "-7", "-7"),
    ("hi \"x\"\n", "hi \"x\"\n", '"hi \\"x\\"\\n"'),
    (Char("c"), "c", "'c'"),
    (Char("'"), "'", "'\\''"),
    ([1, "a", 2.0, Unit, Char("z")], '[1, "a", 2.0, (), \'z\']', '[1, "a", 2.0, (), \'z\']'),
    ({"b": 1, "a": [True]}, '#{"a": [true], "b": 1}', '#{"a": [true], "b": 1}'),
    (FnPtr("foo"), "Fn(foo)", "Fn(foo)"),
    (RhaiRange(1, 5), "1..5", "1..5"),
    (RhaiRange(1, 5, True), "1..=5", "1..=5"),
    (bytearray([1, 2, 255]), "[0102ff]", "[0102ff]"),
    (Timestamp(), "<timestamp>", "<timestamp>"),
]


@pytest.mark.parametrize(("value", "display", "debug"), VALUES, ids=[v[2] for v in VALUES])
def test_value_display_and_debug(value: object, display: str, debug: str) -> None:
    assert to_display(value) == display
    assert to_debug(value) == debug


@pytest.mark.parametrize(("src", "printed"), [
    ("print(1.0)", "1.0"),
    ("print(10.0 / 4.0)", "2.5"),
    ("print(1e-5)", "0.00001"),
    ("print(2.0 ** 60)", "1.152921504606847e18"),
    ("print(\"v=\" + 0.5)", "v=0.5"),
    ("print(`${3.0 * 2}`)", "6.0"),
    ("print([1.0, \"s\"])", '[1.0, "s"]'),
    ("print(())", ""),
])
def test_print_uses_display(src: str, printed: str) -> None:
    eng = Engine()
    eng.eval(src)
    assert eng.printed == [printed]
