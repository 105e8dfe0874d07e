"""Rhai operators on Python values: checked i64 arithmetic, int/float mixing, string
concatenation, array/map/blob operators and Rhai's comparison rules.

Each operator raises :class:`RhaiRuntimeError` (unpositioned; the evaluator adds the place) when
no overload applies, with Rhai's wording ``Function not found: + (bool, i64)``.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import RhaiRuntimeError
from .values import (
    I64_MAX,
    I64_MIN,
    Char,
    RhaiRange,
    Timestamp,
    deep_copy,
    rhai_equals,
    to_display,
    type_of,
)

_NUM = (int, float)


def no_fn(name: str, *args: Any) -> RhaiRuntimeError:
    return RhaiRuntimeError(f"Function not found: {name} ({', '.join(type_of(a) for a in args)})")


_OVERFLOW_NAMES = {
    "+": "Addition", "-": "Subtraction", "*": "Multiplication", "/": "Division",
    "**": "Exponential", "<<": "Left-shift", ">>": "Right-shift",
}


def overflow(op: str, a: Any, b: Any = None) -> RhaiRuntimeError:
    """Rhai's checked-arithmetic error, e.g. ``Addition overflow: 9223372036854775807 + 1``."""
    if b is None:
        return RhaiRuntimeError(f"Negation overflow: {op}{a}")
    return RhaiRuntimeError(f"{_OVERFLOW_NAMES.get(op, 'Arithmetic')} overflow: {a} {op} {b}")


def check_int(r: int, op: str, a: int, b: int) -> int:
    if I64_MIN <= r <= I64_MAX:
        return r
    raise overflow(op, a, b)


def _is_num(v: Any) -> bool:
    t = type(v)
    return t is int or t is float


def add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        r = a + b
        if I64_MIN <= r <= I64_MAX:
            return r
        raise overflow("+", a, b)
    if (ta is float or ta is int) and (tb is float or tb is int):
        return a + b
    if ta is str or tb is str:
        return to_display(a) + to_display(b)
    if ta is Char and tb is Char:
        return str(a) + str(b)
    if ta is list and tb is list:
        return deep_copy(a) + deep_copy(b)
    if ta is dict and tb is dict:
        r = deep_copy(a)
        r.update(deep_copy(b))
        return r
    if ta is bytearray and tb is bytearray:
        return a + b
    if ta is Timestamp and (tb is int or tb is float):
        return Timestamp(a.t + b)
    raise no_fn("+", a, b)


def add_assign(a: Any, b: Any) -> Any:
    """``a += b``: like ``+`` but arrays append in place and maps mix in."""
    ta = type(a)
    if ta is list:
        if type(b) is list:
            a.extend(deep_copy(b))
        else:
            a.append(deep_copy(b))
        return a
    if ta is dict and type(b) is dict:
        a.update(deep_copy(b))
        return a
    if ta is bytearray:
        if type(b) is int:
            a.append(b & 0xFF)
        elif type(b) in (bytearray, bytes):
            a.extend(b)
        else:
            raise no_fn("+=", a, b)
        return a
    return add(a, b)


def sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        r = a - b
        if I64_MIN <= r <= I64_MAX:
            return r
        raise overflow("-", a, b)
    if (ta is float or ta is int) and (tb is float or tb is int):
        return a - b
    if ta is str and (tb is str or tb is Char):
        return a.replace(str(b), "")  # string minus string/char removes every occurrence
    if ta is Timestamp:
        if tb is Timestamp:
            return a.t - b.t  # seconds between two timestamps
        if tb is int or tb is float:
            return Timestamp(a.t - b)
    raise no_fn("-", a, b)


def mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        r = a * b
        if I64_MIN <= r <= I64_MAX:
            return r
        raise overflow("*", a, b)
    if (ta is float or ta is int) and (tb is float or tb is int):
        return a * b
    raise no_fn("*", a, b)


def div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if b == 0:
            raise RhaiRuntimeError(f"Division by zero: {a} / {b}")
        q = abs(a) // abs(b)
        r = q if (a >= 0) == (b >= 0) else -q
        if r > I64_MAX:
            raise overflow("/", a, b)
        return r
    if (ta is float or ta is int) and (tb is float or tb is int):
        if b == 0:
            if a == 0 or a != a:
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise no_fn("/", a, b)


def mod(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if b == 0:
            raise RhaiRuntimeError(f"Modulo division by zero or overflow: {a} % {b}")
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return a - b * q
    if (ta is float or ta is int) and (tb is float or tb is int):
        if b == 0:
            return math.nan
        return math.fmod(a, b)
    raise no_fn("%", a, b)


def power(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if b < 0:
            raise RhaiRuntimeError(f"Integer raised to a negative power: {a} ** {b}")
        if b > 64 and a not in (-1, 0, 1):
            raise overflow("**", a, b)
        return check_int(a**b, "**", a, b)
    if (ta is float or ta is int) and (tb is float or tb is int):
        try:
            r = math.pow(a, b)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.nan
        return r
    raise no_fn("**", a, b)


def shl(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        if b < 0:
            return shr(a, -b)
        if b >= 64:
            raise overflow("<<", a, b)
        r = (a << b) & 0xFFFFFFFFFFFFFFFF
        return r - (1 << 64) if r > I64_MAX else r
    raise no_fn("<<", a, b)


def shr(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        if b < 0:
            return shl(a, -b)
        if b >= 64:
            raise overflow(">>", a, b)
        return a >> b
    raise no_fn(">>", a, b)


def band(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is bool and tb is bool):
        return a & b
    raise no_fn("&", a, b)


def bor(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is bool and tb is bool):
        return a | b
    raise no_fn("|", a, b)


def bxor(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is bool and tb is bool):
        return a ^ b
    raise no_fn("^", a, b)


def _char_str_key(v: Any) -> tuple[str, str]:
    """Rhai compares a char with a string by their first two characters (missing sorts
    first), so ``'a' == "a"`` and ``'a' < "ab"``."""
    s = str(v)
    return (s[0] if s else "", s[1] if len(s) > 1 else "")


def _char_str(a: Any, b: Any) -> bool:
    ta, tb = type(a), type(b)
    return (ta is Char and tb is str) or (ta is str and tb is Char)


_EPS = 2.220446049250313e-16  # f64::EPSILON


def float_cmp(op: str, x: float, y: float) -> bool:
    """Rhai compares floats with a relative epsilon (absolute next to zero): ``0.1 + 0.2 ==
    0.3`` is true and ``0 < 1e-16`` is false."""
    m = 1.0 if x * y == 0.0 else max(abs(x), abs(y))
    d = (x - y) / m
    if op == "==":
        return abs(d) <= _EPS
    if op == "!=":
        return not abs(d) <= _EPS
    if op == ">":
        return d > _EPS
    if op == ">=":
        return d > -_EPS
    if op == "<":
        return -d > _EPS
    return -d > -_EPS


def _has_float(ta: type, tb: type) -> bool:
    return (ta is float and (tb is float or tb is int)) or (ta is int and tb is float)


def eq(a: Any, b: Any) -> bool:
    ta, tb = type(a), type(b)
    if _has_float(ta, tb):
        return float_cmp("==", a, b)
    if ta is tb and ta is not list and ta is not dict:
        return a == b
    if _char_str(a, b):
        return _char_str_key(a) == _char_str_key(b)
    return rhai_equals(a, b)


def ne(a: Any, b: Any) -> bool:
    if _has_float(type(a), type(b)):
        return float_cmp("!=", a, b)
    return not eq(a, b)


_ORDERED = (int, float, str, Char, bool)


def _compare(op: str, a: Any, b: Any) -> Any:
    """Rhai's ordering rules: numbers mix; a char and a string compare by their first two
    characters; other mismatched types compare false; same-typed values without an ordering
    (arrays, maps, ...) have no such operator."""
    ta, tb = type(a), type(b)
    if _has_float(ta, tb):
        return float_cmp(op, a, b)
    if ta is Timestamp and tb is Timestamp:
        return _PY_CMP[op](a.t, b.t)
    if ta is tb:
        if ta in _ORDERED:
            return _PY_CMP[op](a, b)
        raise no_fn(op, a, b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return _PY_CMP[op](a, b)
    if _char_str(a, b):
        return _PY_CMP[op](_char_str_key(a), _char_str_key(b))
    return False


_PY_CMP = {
    "<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
}


def lt(a: Any, b: Any) -> bool:
    return _compare("<", a, b)


def le(a: Any, b: Any) -> bool:
    return _compare("<=", a, b)


def gt(a: Any, b: Any) -> bool:
    return _compare(">", a, b)


def ge(a: Any, b: Any) -> bool:
    return _compare(">=", a, b)


def neg(a: Any) -> Any:
    t = type(a)
    if t is int:
        if a == I64_MIN:
            raise overflow("-", a)
        return -a
    if t is float:
        return -a
    raise no_fn("-", a)


def pos(a: Any) -> Any:
    if type(a) in (int, float):
        return a
    raise no_fn("+", a)


def not_(a: Any) -> bool:
    if type(a) is bool:
        return not a
    raise no_fn("!", a)


def contains(container: Any, item: Any) -> bool:
    """The ``in`` operator."""
    t = type(container)
    if t is list:
        return any(rhai_equals(x, item) for x in container)
    if t is dict:
        if type(item) is str or type(item) is Char:
            return str(item) in container
        raise no_fn("contains", container, item)
    if t is str:
        if type(item) is str or type(item) is Char:
            return str(item) in container
        raise no_fn("contains", container, item)
    if t is RhaiRange:
        return item in container
    if t is bytearray:
        return type(item) is int and (item & 0xFF) in container
    raise no_fn("contains", container, item)


BINARY = {
    "+": add, "-": sub, "*": mul, "/": div, "%": mod, "**": power, "<<": shl, ">>": shr,
    "&": band, "|": bor, "^": bxor, "==": eq, "!=": ne, "<": lt, "<=": le, ">": gt, ">=": ge,
}
UNARY = {"-": neg, "+": pos, "!": not_}


def metered(meter: Any) -> tuple[dict[str, Any], Any]:
    """``BINARY`` and :func:`add_assign` for an engine with a memory budget: ``+`` and ``+=``
    charge ``meter`` (a :class:`~.memory.MemoryMeter`) for the strings, arrays and blobs they
    make or grow (copies of containers are charged by ``deep_copy``)."""
    from .memory import BLOB, ELEM, LIST, STR

    def add_m(a: Any, b: Any) -> Any:
        r = add(a, b)
        t = type(r)
        if t is str:
            meter.note(r, STR + len(r))
        elif t is list:
            meter.note(r, LIST + ELEM * len(r))
        elif t is bytearray:
            meter.note(r, BLOB + len(r))
        return r

    def add_assign_m(a: Any, b: Any) -> Any:
        ta, tb = type(a), type(b)
        if ta is list:
            if tb is not list:
                meter.charge(ELEM)
            return add_assign(a, b)
        if ta is bytearray:
            if tb is bytearray or tb is bytes:
                meter.charge(len(b))
            return add_assign(a, b)
        if ta is dict and tb is dict:
            return add_assign(a, b)
        return add_m(a, b)  # a new value, as `+` makes it

    return {**BINARY, "+": add_m}, add_assign_m
