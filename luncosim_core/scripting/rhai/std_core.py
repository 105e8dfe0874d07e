"""Standard packages, part 1: core (type_of, print, debug, Fn, call, curry, is_def_fn), math,
number conversion and parsing, time and ranges.

Natives are plain Python functions registered by name; overloads are by arity, and a native
raises :class:`FnNotFound` when the argument types fit none of its overloads. A native that
needs the runtime takes it as its first parameter (``ctx=True``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .access import getter
from .errors import FnNotFound, RhaiRuntimeError
from .values import (
    I64_MAX,
    I64_MIN,
    Char,
    FnPtr,
    RhaiRange,
    Timestamp,
    Unit,
    deep_copy,
    to_debug,
    to_display,
    type_of,
)

Registry = list[tuple[str, Callable[..., Any], bool]]  # (name, fn, wants runtime)
REGISTRY: Registry = []


def native(*names: str, ctx: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for n in names:
            REGISTRY.append((n, fn, ctx))
        return fn
    return deco


def _num(x: Any) -> bool:
    t = type(x)
    return t is int or t is float


def _f(x: Any) -> float:
    t = type(x)
    if t is float:
        return x
    if t is int:
        return float(x)
    raise FnNotFound


# ── core ───────────────────────────────────────────────────────────────────────────────
@native("type_of")
def _type_of(x: Any) -> str:
    return type_of(x)


@native("print", ctx=True)
def _print(rt: Any, x: Any) -> Any:
    rt.on_print(to_display(x))
    return Unit


@native("debug", ctx=True)
def _debug(rt: Any, x: Any) -> Any:
    rt.on_debug(to_debug(x))
    return Unit


@native("to_string")
def _to_string(x: Any) -> str:
    return to_display(x)


@native("to_debug")
def _to_debug(x: Any) -> str:
    return to_debug(x)


def valid_fn_name(name: str) -> bool:
    """A name a function can have: ASCII letters, digits and ``_``, not starting with a
    digit."""
    return bool(name) and name.isascii() and (name[0].isalpha() or name[0] == "_") and \
        all(c.isalnum() or c == "_" for c in name)


@native("Fn")
def _fn(name: Any) -> FnPtr:
    if type(name) is not str:
        raise FnNotFound
    if not valid_fn_name(name):
        raise RhaiRuntimeError(f"Invalid function name in Fn: '{name}'")
    return FnPtr(name)


@native("call", ctx=True)
def _call(rt: Any, fp: Any, *args: Any) -> Any:
    if type(fp) is not FnPtr:
        raise FnNotFound
    return rt.call_fnptr(fp, list(args))


@native("curry")
def _curry(fp: Any, *args: Any) -> FnPtr:
    if type(fp) is not FnPtr:
        raise FnNotFound
    return FnPtr(fp.name, fp.curry + tuple(deep_copy(a) for a in args), fp.closure)


@native("is_def_fn", ctx=True)
def _is_def_fn(rt: Any, name: Any, arity: Any) -> bool:
    if type(name) is not str or type(arity) is not int:
        raise FnNotFound
    return rt.is_def_fn(name, arity)


@native("is_anonymous")
@getter("is_anonymous", FnPtr)
def _is_anon(fp: Any) -> bool:
    if type(fp) is not FnPtr:
        raise FnNotFound
    return fp.closure is not None


@native("name")
@getter("name", FnPtr)
def _fp_name(fp: Any) -> str:
    if type(fp) is not FnPtr:
        raise FnNotFound
    return fp.name


# ── math ───────────────────────────────────────────────────────────────────────────────
def _float1(fn: Callable[[float], float]) -> Callable[[Any], float]:
    def g(x: Any) -> float:
        try:
            return fn(_f(x))
        except (ValueError, OverflowError):
            return math.nan
    return g


for _name, _fn1 in {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "asinh": math.asinh,
    "acosh": math.acosh, "atanh": math.atanh, "exp": math.exp,
    "to_degrees": math.degrees, "to_radians": math.radians,
}.items():
    native(_name)(_float1(_fn1))


@native("sqrt")
def _sqrt(x: Any) -> float:
    v = _f(x)
    return math.sqrt(v) if v >= 0 else math.nan


@native("ln")
def _ln(x: Any) -> float:
    v = _f(x)
    if v > 0:
        return math.log(v)
    return -math.inf if v == 0 else math.nan


@native("log")
def _log(x: Any, base: Any = None) -> float:
    v = _f(x)
    b = 10.0 if base is None else _f(base)
    if v > 0:
        return math.log(v, b) if base is not None else math.log10(v)
    return -math.inf if v == 0 else math.nan


@native("atan")
def _atan(x: Any, y: Any = None) -> float:
    if y is None:
        return math.atan(_f(x))
    return math.atan2(_f(x), _f(y))


@native("hypot")
def _hypot(x: Any, y: Any) -> float:
    return math.hypot(_f(x), _f(y))


def _round_half_away(v: float) -> float:
    """Round half away from zero (Rust's ``f64::round``); ``v - trunc(v)`` is exact."""
    if not math.isfinite(v):
        return v
    t = float(math.trunc(v))
    if abs(v - t) >= 0.5:
        t += math.copysign(1.0, v)
    return t


@native("floor")
@getter("floor", float)
def _floor(x: Any) -> Any:
    if type(x) is int:
        return x
    v = _f(x)
    return float(math.floor(v)) if math.isfinite(v) else v


@native("ceiling")
@getter("ceiling", float)
def _ceiling(x: Any) -> Any:
    if type(x) is int:
        return x
    v = _f(x)
    return float(math.ceil(v)) if math.isfinite(v) else v


@native("round")
@getter("round", float)
def _round(x: Any) -> Any:
    if type(x) is int:
        return x
    return _round_half_away(_f(x))


@native("int", "int_part")
@getter("int", float)
def _int_part(x: Any) -> Any:
    if type(x) is int:
        return x
    v = _f(x)
    return float(math.trunc(v)) if math.isfinite(v) else v


@native("fraction")
@getter("fraction", float)
def _fraction(x: Any) -> Any:
    if type(x) is int:
        return 0
    v = _f(x)
    return v - math.trunc(v) if math.isfinite(v) else math.nan


@native("abs")
def _abs(x: Any) -> Any:
    if type(x) is int:
        if x == I64_MIN:
            raise RhaiRuntimeError(f"Negation overflow: abs({x})")
        return abs(x)
    return abs(_f(x))


@native("sign")
def _sign(x: Any) -> int:
    if type(x) is int:
        return (x > 0) - (x < 0)
    v = _f(x)
    if v != v:
        raise RhaiRuntimeError("Cannot take the sign of NaN")
    return (v > 0) - (v < 0)


@native("min")
def _min(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return a if a <= b else b
    if _num(a) and _num(b):
        fa, fb = float(a), float(b)
        return fa if fa <= fb else fb
    if type(a) is type(b) and type(a) in (str, Char):
        return a if a <= b else b
    raise FnNotFound


@native("max")
def _max(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return a if a >= b else b
    if _num(a) and _num(b):
        fa, fb = float(a), float(b)
        return fa if fa >= fb else fb
    if type(a) is type(b) and type(a) in (str, Char):
        return a if a >= b else b
    raise FnNotFound


@native("is_nan")
@getter("is_nan", float)
def _is_nan(x: Any) -> bool:
    if type(x) is not float:
        raise FnNotFound
    return math.isnan(x)


@native("is_finite")
@getter("is_finite", float)
def _is_finite(x: Any) -> bool:
    return math.isfinite(_f(x))


@native("is_infinite")
@getter("is_infinite", float)
def _is_infinite(x: Any) -> bool:
    return math.isinf(_f(x))


@native("is_zero")
@getter("is_zero", int, float)
def _is_zero(x: Any) -> bool:
    if not _num(x):
        raise FnNotFound
    return x == 0


@native("is_odd")
@getter("is_odd", int)
def _is_odd(x: Any) -> bool:
    if type(x) is not int:
        raise FnNotFound
    return x % 2 == 1


@native("is_even")
@getter("is_even", int)
def _is_even(x: Any) -> bool:
    if type(x) is not int:
        raise FnNotFound
    return x % 2 == 0


@native("to_int")
def _to_int(x: Any) -> int:
    t = type(x)
    if t is int:
        return x
    if t is bool:
        return int(x)
    if t is Char:
        return ord(x)
    v = _f(x)
    if not math.isfinite(v) or not (I64_MIN <= math.trunc(v) <= I64_MAX):
        raise RhaiRuntimeError(f"Integer overflow: {to_display(v)} cannot convert to i64")
    return int(math.trunc(v))


@native("to_float")
def _to_float(x: Any) -> float:
    if type(x) is bool:
        raise FnNotFound
    return _f(x)


@native("to_char")
def _to_char(x: Any) -> Char:
    if type(x) is not int:
        raise FnNotFound
    try:
        return Char(chr(x))
    except (ValueError, OverflowError):
        raise RhaiRuntimeError(f"Invalid character code: {x}") from None


@native("parse_int")
def _parse_int(s: Any, radix: Any = 10) -> int:
    if type(s) is not str or type(radix) is not int:
        raise FnNotFound
    if not 2 <= radix <= 36:
        raise RhaiRuntimeError(f"Invalid radix: '{radix}'")
    if "_" in s:
        raise RhaiRuntimeError(f"Error parsing integer number '{s}'")
    try:
        v = int(s.strip(), radix)
    except ValueError:
        raise RhaiRuntimeError(f"Error parsing integer number '{s}'") from None
    if not I64_MIN <= v <= I64_MAX:
        raise RhaiRuntimeError(f"Error parsing integer number '{s}': out of range")
    return v


@native("parse_float")
def _parse_float(s: Any) -> float:
    if type(s) is not str:
        raise FnNotFound
    t = s.strip().replace("_", "")
    if t and all(c in "0123456789.eE+-" for c in t):
        try:
            return float(t)
        except ValueError:
            pass
    raise RhaiRuntimeError(f"Error parsing floating-point number '{s}'")


@native("PI")
def _pi() -> float:
    return math.pi


@native("E")
def _e() -> float:
    return math.e


@native("to_hex")
def _to_hex(x: Any) -> str:
    if type(x) is not int:
        raise FnNotFound
    return format(x & 0xFFFFFFFFFFFFFFFF, "x")


@native("to_octal")
def _to_octal(x: Any) -> str:
    if type(x) is not int:
        raise FnNotFound
    return format(x & 0xFFFFFFFFFFFFFFFF, "o")


@native("to_binary")
def _to_binary(x: Any) -> str:
    if type(x) is not int:
        raise FnNotFound
    return format(x & 0xFFFFFFFFFFFFFFFF, "b")


# ── time and ranges ────────────────────────────────────────────────────────────────────
@native("sleep", ctx=True)
def _sleep(rt: Any, seconds: Any) -> Any:
    """Block for ``seconds`` (an int or a float); zero, negative, NaN or infinite does not
    sleep, as in Rhai."""
    t = type(seconds)
    if t is int:
        if seconds > 0:
            rt.on_sleep(float(seconds))
        return Unit
    if t is not float:
        raise FnNotFound
    if math.isfinite(seconds) and seconds > 0 and abs(seconds) >= 2.2250738585072014e-308:
        rt.on_sleep(seconds)
    return Unit


@native("timestamp")
def _timestamp() -> Timestamp:
    return Timestamp()


@native("elapsed")
@getter("elapsed", Timestamp)
def _elapsed(ts: Any) -> float:
    if type(ts) is not Timestamp:
        raise FnNotFound
    return ts.elapsed


class StepRange:
    """``range(from, to, step)``: a stepped, exclusive integer or float range."""

    __slots__ = ("start", "end", "step")

    def __init__(self, start: Any, end: Any, step: Any) -> None:
        self.start, self.end, self.step = start, end, step

    def __rhai_iter__(self) -> Any:
        x, end, step = self.start, self.end, self.step
        if type(x) is int and type(end) is int and type(step) is int:
            return range(x, end, step)
        return self._floats()

    def _floats(self) -> Any:
        """Lazily: ``range(0.0, 1e12, 1e-6)`` is not made as a list first (the loop's
        operation limit ends it)."""
        x, end, step = self.start, self.end, self.step
        i = 0
        while (step > 0 and x < end) or (step < 0 and x > end):
            yield x
            i += 1
            x = self.start + step * i

    def __repr__(self) -> str:
        return f"range({self.start}, {self.end}, {self.step})"


@native("range")
def _range(a: Any, b: Any, step: Any = None) -> Any:
    if step is None:
        if type(a) is int and type(b) is int:
            return RhaiRange(a, b, False)
        if type(a) is RhaiRange and type(b) is int:
            return _range(a.start, a.end + (1 if a.inclusive else 0), b)
        raise FnNotFound
    if not (_num(a) and _num(b) and _num(step)):
        raise FnNotFound
    if step == 0:
        raise RhaiRuntimeError("Step value cannot be zero")
    return StepRange(a, b, step)


@native("start")
@getter("start", RhaiRange)
def _start(r: Any) -> int:
    if type(r) is not RhaiRange:
        raise FnNotFound
    return r.start


@native("end")
@getter("end", RhaiRange)
def _end(r: Any) -> int:
    if type(r) is not RhaiRange:
        raise FnNotFound
    return r.end


@native("is_inclusive")
@getter("is_inclusive", RhaiRange)
def _is_inclusive(r: Any) -> bool:
    if type(r) is not RhaiRange:
        raise FnNotFound
    return r.inclusive


@native("is_exclusive")
@getter("is_exclusive", RhaiRange)
def _is_exclusive(r: Any) -> bool:
    if type(r) is not RhaiRange:
        raise FnNotFound
    return not r.inclusive
