"""Rhai values as Python objects, their type names and their Display/Debug text.

Mapping: i64 -> int, f64 -> float, bool -> bool, string -> str, char -> :class:`Char`,
array -> list, object map -> dict, ``()`` -> the :data:`Unit` singleton, function pointer ->
:class:`FnPtr`, range -> :class:`RhaiRange`, blob -> bytearray, timestamp -> :class:`Timestamp`.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

I64_MIN = -(2**63)
I64_MAX = 2**63 - 1


class _Active(threading.local):
    """Per thread: the memory meter of the engine evaluating on it (``None``: no engine, or
    one without a memory budget). Set by the engine on entry; read where values are made by
    code that has no runtime at hand (:func:`deep_copy`, the operators, some natives)."""

    meter: Any = None


ACTIVE = _Active()


class _UnitType:
    """Rhai's ``()``: the one value of the unit type."""

    __slots__ = ()
    _instance: _UnitType | None = None

    def __new__(cls) -> _UnitType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Unit"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "Unit"


Unit = _UnitType()


class Char(str):
    """A Rhai ``char``: one Unicode scalar, distinct from a one-letter string."""

    __slots__ = ()

    def __new__(cls, value: str) -> Char:
        if len(value) != 1:
            raise ValueError(f"a char holds exactly one character, got {value!r}")
        return super().__new__(cls, value)

    def __repr__(self) -> str:
        return f"Char({str.__repr__(self)})"

    def __eq__(self, other: object) -> bool:
        return type(other) is Char and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return str.__hash__(self) ^ 0x5A5A


class FnPtr:
    """A Rhai function pointer: a function name, curried arguments and (for closures) the
    compiled closure body with its captured cells."""

    __slots__ = ("name", "curry", "closure")

    def __init__(self, name: str, curry: tuple[Any, ...] = (), closure: Any = None) -> None:
        self.name = name
        self.curry = tuple(curry)
        self.closure = closure

    def __repr__(self) -> str:
        return f"Fn({self.name})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, FnPtr)
            and other.name == self.name
            and other.curry == self.curry
            and other.closure is self.closure
        )

    def __hash__(self) -> int:
        return hash(self.name)

    def is_anonymous(self) -> bool:
        return self.closure is not None


class RhaiRange:
    """An integer range ``start..end`` (exclusive) or ``start..=end`` (inclusive)."""

    __slots__ = ("start", "end", "inclusive")

    def __init__(self, start: int, end: int, inclusive: bool = False) -> None:
        self.start = start
        self.end = end
        self.inclusive = inclusive

    def to_range(self) -> range:
        return range(self.start, self.end + 1 if self.inclusive else self.end)

    def __contains__(self, x: object) -> bool:
        if type(x) is not int:
            return False
        return self.start <= x <= self.end if self.inclusive else self.start <= x < self.end

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RhaiRange)
            and (self.start, self.end, self.inclusive) == (other.start, other.end, other.inclusive)
        )

    def __hash__(self) -> int:
        return hash((self.start, self.end, self.inclusive))

    def __repr__(self) -> str:
        return f"{self.start}..{'=' if self.inclusive else ''}{self.end}"


class Timestamp:
    """A point in monotonic time (``timestamp()``); ``elapsed`` is seconds since it."""

    __slots__ = ("t",)

    def __init__(self, t: float | None = None) -> None:
        self.t = time.monotonic() if t is None else t

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.t

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and other.t == self.t

    def __hash__(self) -> int:
        return hash(self.t)

    def __repr__(self) -> str:
        return "<timestamp>"


def type_of(v: Any) -> str:
    """Rhai's ``type_of`` name for a value."""
    t = type(v)
    name = _TYPE_NAMES.get(t)
    if name is not None:
        return name
    if t is RhaiRange:
        return "range=" if v.inclusive else "range"
    if v is None:
        return "()"
    return _host_type_name(v)


def _host_type_name(v: Any) -> str:
    return type(v).__name__


_TYPE_NAMES: dict[type, str] = {
    int: "i64",
    float: "f64",
    bool: "bool",
    str: "string",
    Char: "char",
    list: "array",
    dict: "map",
    _UnitType: "()",
    FnPtr: "Fn",
    bytearray: "blob",
    bytes: "blob",
    Timestamp: "timestamp",
}


# ── number text ──────────────────────────────────────────────────────────────────────────

def _positional(x: float) -> str:
    """Shortest round-trip digits of a finite, non-zero float, written without exponent."""
    r = repr(abs(x))
    if "e" in r or "E" in r:
        mant, exp_s = r.split("e")
        exp = int(exp_s)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = (ip + fp).lstrip("0")
    # position of the decimal point relative to the start of ip+fp
    point = len(ip) + exp
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    point -= lead_zeros
    digits = digits.rstrip("0") or "0"
    if point <= 0:
        s = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        s = digits + "0" * (point - len(digits))
    else:
        s = digits[:point] + "." + digits[point:]
    return ("-" if x < 0 else "") + s


def _exponent(x: float) -> str:
    """Rust's ``{:e}`` for f64: shortest digits, ``1.5e14``, ``1e-14``."""
    r = repr(abs(x))
    if "e" in r:
        mant, exp_s = r.split("e")
        exp = int(exp_s)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = ip + fp
    stripped = digits.lstrip("0")
    exp += len(ip) - 1 - (len(digits) - len(stripped))
    digits = stripped.rstrip("0") or "0"
    m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return ("-" if x < 0 else "") + f"{m}e{exp}"


def format_float(x: float) -> str:
    """Rhai's Display of an f64: ``1.0``, ``0.00001``, exponent form past 1e13 / below 1e-13."""
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    a = abs(x)
    if a == 0.0:
        return "0.0"
    if a > 1e13 or a < 1e-13:
        return _exponent(x)
    s = _positional(x)
    if a == math.floor(a):
        s += ".0"
    return s


def debug_float(x: float) -> str:
    """Rust's ``{:?}`` of an f64: decimal within [1e-4, 1e16), exponent form outside."""
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    a = abs(x)
    if a == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if a < 1e-4 or a >= 1e16:
        return _exponent(x)
    s = _positional(x)
    if "." not in s:
        s += ".0"
    return s


def _debug_str(s: str) -> str:
    """A string as Rhai's Debug writes it: quoted, with escapes (at C speed: a 16 MB string
    takes milliseconds, not seconds)."""
    if s.isprintable():
        if '"' in s or "\\" in s:
            s = s.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{s}"'
    return '"' + s.translate(_ESCAPES) + '"'


class _Escapes(dict):
    """``str.translate`` table for :func:`_debug_str`, filled as characters are met."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        e = _ESC.get(ch) or (ch if ch.isprintable() else f"\\u{{{code:x}}}")
        if len(self) < 4096:
            self[code] = e
        return e


_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
_ESCAPES = _Escapes()


def _debug_char(ch: str) -> str:
    c = str(ch)
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    e = _ESC.get(c)
    return f"'{e or c}'"


def to_display(v: Any) -> str:
    """Rhai's Display text (what ``print`` and ``to_string`` produce; ``()`` prints empty)."""
    t = type(v)
    if t is str or t is Char:
        return str(v)
    if t is int:
        return str(v)
    if t is float:
        return format_float(v)
    if t is bool:
        return "true" if v else "false"
    if v is Unit or v is None:
        return ""
    return to_debug(v)


def to_debug(v: Any) -> str:
    """Rhai's Debug text (what ``debug`` and ``to_debug`` produce: quoted strings, ``()``)."""
    f = _DEBUG.get(type(v))
    if f is not None:
        return f(v)
    if v is None:
        return "()"
    return repr(v)


def _debug_fnptr(v: FnPtr) -> str:
    if v.curry:
        return f"Fn({v.name}, {to_debug(list(v.curry))})"
    return f"Fn({v.name})"


def _debug_blob(v: bytes | bytearray) -> str:
    parts = []
    for i, b in enumerate(v):
        if i > 0 and i % 8 == 0:
            parts.append(" ")
        parts.append(f"{b:02x}")
    return "[" + "".join(parts) + "]"


_DEBUG: dict[type, Any] = {
    str: _debug_str,
    Char: _debug_char,
    int: str,
    float: debug_float,
    bool: lambda v: "true" if v else "false",
    _UnitType: lambda v: "()",
    list: lambda v: "[" + ", ".join(to_debug(x) for x in v) + "]",
    dict: lambda v: "#{" + ", ".join(f"{_debug_str(k)}: {to_debug(v[k])}" for k in sorted(v)) + "}",
    FnPtr: _debug_fnptr,
    RhaiRange: repr,
    bytearray: _debug_blob,
    bytes: _debug_blob,
    Timestamp: lambda v: "<timestamp>",
}


def deep_copy(v: Any) -> Any:
    """Value-semantics copy: arrays, maps and blobs are copied all the way down (each copy
    charged to the running engine's memory budget, if it has one, before it is made)."""
    t = type(v)
    if t is list:
        m = ACTIVE.meter
        if m is None:
            return [deep_copy(x) if type(x) in _CONTAINERS else x for x in v]
        n = 56 + 40 * len(v)  # memory.LIST + memory.ELEM per element
        m.charge(n)
        out = [deep_copy(x) if type(x) in _CONTAINERS else x for x in v]
        if n >= m.large_at:
            m.keep(out, n)
        return out
    if t is dict:
        m = ACTIVE.meter
        if m is None:
            return {k: (deep_copy(x) if type(x) in _CONTAINERS else x) for k, x in v.items()}
        n = 64 + 100 * len(v)  # memory.MAP + memory.ENTRY per entry
        m.charge(n)
        d = {k: (deep_copy(x) if type(x) in _CONTAINERS else x) for k, x in v.items()}
        if n >= m.large_at:
            m.keep(d, n)
        return d
    if t is bytearray:
        m = ACTIVE.meter
        if m is not None:
            m.charge(57 + len(v))  # memory.BLOB
        return bytearray(v)
    return v


_CONTAINERS = frozenset((list, dict, bytearray))


def rhai_equals(a: Any, b: Any) -> bool:
    """``==`` with Rhai's rules: mismatched types are unequal, except int/float mix."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is list:
            return len(a) == len(b) and all(rhai_equals(x, y) for x, y in zip(a, b, strict=True))
        if ta is dict:
            return a.keys() == b.keys() and all(rhai_equals(a[k], b[k]) for k in a)
        return a == b
    if (ta is int and tb is float) or (ta is float and tb is int):
        return a == b
    if {ta, tb} == {bytes, bytearray}:
        return a == b
    return False
