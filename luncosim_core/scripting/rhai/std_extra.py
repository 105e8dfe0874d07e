"""Standard packages, part 3: the bit-field package (``get_bits``, ``set_bits``, ``bits``),
``split_rev``, ``chars`` over a range, ``is_shared`` and the BLOB read/write functions
(``parse_le_int`` ... ``write_utf8``), each as the Rhai book describes it.

A native that changes its first argument returns a :class:`WriteBack` (integers and strings
are immutable in Python): called on a variable, in method or function style, the variable is
updated, as Rhai passes the first argument by reference.
"""

from __future__ import annotations

import struct
from typing import Any

from .access import bit_mask, get_bits, getter, set_bits
from .errors import FnNotFound, RhaiRuntimeError
from .memory import CHAR, value_bytes
from .runtime import WriteBack
from .std_collections import _charge, _range_span, _span
from .std_core import native
from .values import ACTIVE, Char, RhaiRange, Unit, deep_copy


def _int(x: Any) -> int:
    if type(x) is not int:
        raise FnNotFound
    return x


def _field(start: Any, length: Any) -> tuple[int, int]:
    """(shift, width) of a bit field given as ``start, bits`` or as a range."""
    if type(start) is RhaiRange and length is None:
        return bit_mask(start)
    start, length = _int(start), _int(length)
    shift = start + 64 if start < 0 else start
    if not 0 <= shift < 64:
        raise RhaiRuntimeError(f"Bit-field index {start} out of bounds: only 64 bits in "
                               f"bit-field")
    return shift, max(0, min(length, 64 - shift))


# ── bit fields ─────────────────────────────────────────────────────────────────────────
@native("get_bits")
def _get_bits(x: Any, start: Any, length: Any = None) -> int:
    return get_bits(_int(x), *_field(start, length))


@native("set_bits")
def _set_bits(x: Any, start: Any, length: Any, value: Any = None) -> Any:
    if value is None:  # set_bits(x, range, value)
        return WriteBack(set_bits(_int(x), *_field(start, None), _int(length)))
    return WriteBack(set_bits(_int(x), *_field(start, length), _int(value)))


@native("bits")
@getter("bits", int)
def _bits(x: Any, start: Any = 0, length: Any = None) -> list:
    """The bits of ``x`` from bit ``start`` upward (``for b in bits(x, 2, 10)``)."""
    x = _int(x)
    if type(start) is RhaiRange:
        shift, width = bit_mask(start)
    else:
        shift, width = _field(start, 64 if length is None else length)
    u = (x & 0xFFFFFFFFFFFFFFFF) >> shift
    return [bool((u >> i) & 1) for i in range(width)]


# ── strings ────────────────────────────────────────────────────────────────────────────
@native("split_rev")
def _split_rev(s: Any, delim: Any, segments: Any = None) -> list:
    """Split from the end: ``"a,b,c".split_rev(",")`` is ``["c", "b", "a"]``; with a segment
    count the last piece holds the rest (``split_rev(",", 2)`` is ``["c", "a,b"]``)."""
    if type(s) is not str or type(delim) not in (str, Char):
        raise FnNotFound
    d = str(delim)
    if segments is not None and (_int(segments) <= 1):
        return [s]
    if not s or (d and d not in s):
        return [s]
    _charge(len(s) + CHAR * ((s.count(d) if d else len(s)) + 2))
    if not d:
        parts = ["", *s, ""]
    else:
        parts = s.split(d) if segments is None else s.rsplit(d, _int(segments) - 1)
    return parts[::-1]


@native("chars")
def _chars_from(s: Any, start: Any, length: Any = None) -> list:
    """``chars(s, 2..=3)``, ``chars(s, from)``, ``chars(s, from, len)``."""
    if type(s) is not str:
        raise FnNotFound
    if type(start) is RhaiRange:
        a, b = _range_span(len(s), start)
    else:
        a, b = _span(len(s), _int(start), None if length is None else _int(length))
    _charge(CHAR * (b - a))
    return [Char(c) for c in s[a:b]]


@native("is_shared")
def _is_shared(_: Any) -> bool:
    """A value that is not a variable is never shared (``is_shared(var)`` is compiled: a
    variable a closure has captured is)."""
    return False


# ── BLOB ───────────────────────────────────────────────────────────────────────────────
def _blob(b: Any) -> bytearray:
    if type(b) is not bytearray:
        raise FnNotFound
    return b


def _bytes_span(b: bytearray, start: Any, length: Any) -> tuple[int, int]:
    """Start and length of a BLOB slice given as ``start, len`` or as a range."""
    if type(start) is RhaiRange and length is None:
        a = max(start.start, 0)
        end = max(start.end, a) + (1 if start.inclusive else 0)
        start, length = a, end - a
    start, length = _int(start), _int(length)
    if not b or length <= 0:
        return 0, 0
    a, e = _span(len(b), start, length)
    return a, e - a


def _parse(b: Any, start: Any, length: Any, order: str, fmt: str) -> Any:
    b = _blob(b)
    a, n = _bytes_span(b, start, length)
    n = min(n, 8)
    buf = bytes(b[a:a + n]) + bytes(8 - n)  # as Rhai: the bytes fill the buffer's start
    if fmt == "int":
        return int.from_bytes(buf, order, signed=True)
    return struct.unpack("<d" if order == "little" else ">d", buf)[0]


@native("parse_le_int")
def _parse_le_int(b: Any, start: Any, length: Any = None) -> int:
    return _parse(b, start, length, "little", "int")


@native("parse_be_int")
def _parse_be_int(b: Any, start: Any, length: Any = None) -> int:
    return _parse(b, start, length, "big", "int")


@native("parse_le_float")
def _parse_le_float(b: Any, start: Any, length: Any = None) -> float:
    return _parse(b, start, length, "little", "float")


@native("parse_be_float")
def _parse_be_float(b: Any, start: Any, length: Any = None) -> float:
    return _parse(b, start, length, "big", "float")


def _write_num(b: Any, start: Any, length: Any, value: Any, order: str) -> Any:
    b = _blob(b)
    if value is None:  # write_le(blob, range, value)
        start, length, value = start, None, length
    a, n = _bytes_span(b, start, length)
    if type(value) is int:
        raw = (value & 0xFFFFFFFFFFFFFFFF).to_bytes(8, order)
    elif type(value) is float:
        raw = struct.pack("<d" if order == "little" else ">d", value)
    else:
        raise FnNotFound
    n = min(n, 8)
    b[a:a + n] = raw[:n]
    return b


@native("write_le")
def _write_le(b: Any, start: Any, length: Any, value: Any = None) -> Any:
    _write_num(b, start, length, value, "little")


@native("write_be")
def _write_be(b: Any, start: Any, length: Any, value: Any = None) -> Any:
    _write_num(b, start, length, value, "big")


def _write_text(b: Any, start: Any, length: Any, text: Any, ascii_only: bool) -> None:
    b = _blob(b)
    if text is None:  # write_utf8(blob, range, string)
        start, length, text = start, None, length
    if type(text) is not str:
        raise FnNotFound
    a, n = _bytes_span(b, start, length)
    raw = (text.encode("ascii", "ignore") if ascii_only else text.encode("utf-8"))[:n]
    b[a:a + len(raw)] = raw


@native("write_utf8")
def _write_utf8(b: Any, start: Any, length: Any, text: Any = None) -> None:
    _write_text(b, start, length, text, False)


@native("write_ascii")
def _write_ascii(b: Any, start: Any, length: Any, text: Any = None) -> None:
    _write_text(b, start, length, text, True)


@native("get_bit")
def _get_bit(x: Any, bit: Any) -> bool:
    return get_bits(_int(x), *_field(bit, 1)) == 1


@native("set_bit")
def _set_bit(x: Any, bit: Any, value: Any) -> Any:
    if type(value) is not bool:
        raise FnNotFound
    return WriteBack(set_bits(_int(x), *_field(bit, 1), int(value)))


# ── more strings ───────────────────────────────────────────────────────────────────────
@native("pop")
def _pop_string(s: Any, n: Any = None) -> Any:
    """``s.pop()`` removes and returns the last character (``()`` when empty);
    ``s.pop(n)`` removes and returns the last ``n`` characters as a string."""
    if type(s) is not str:
        raise FnNotFound
    if n is None:
        return WriteBack(s[:-1], Char(s[-1])) if s else Unit
    n = _int(n)
    if n <= 0:
        return ""
    return WriteBack(s[:-n] if n < len(s) else "", s[-n:])


@native("to_chars")
def _to_chars(s: Any) -> list:
    if type(s) is not str:
        raise FnNotFound
    _charge(CHAR * len(s))
    return [Char(c) for c in s]


@native("split_whitespace")
def _split_whitespace(s: Any) -> list:
    if type(s) is not str:
        raise FnNotFound
    _charge(len(s) + CHAR * (len(s) // 2 + 1))  # at most a word every two characters
    return s.split()


# ── ordering (new arrays) ──────────────────────────────────────────────────────────────
@native("sort_desc", ctx=True)
def _sort_desc(rt: Any, a: Any) -> Any:
    from .std_collections import _sort

    if type(a) is not list:
        raise FnNotFound
    _sort(rt, a)
    a.reverse()
    return Unit


@native("order", "order_by", ctx=True)
def _order(rt: Any, a: Any, fp: Any = None) -> list:
    """A sorted copy (``sort`` leaves the array alone here), by a comparer if given."""
    from .std_collections import _sort

    if type(a) is not list:
        raise FnNotFound
    out = deep_copy(a)
    _sort(rt, out, fp)
    return out


@native("order_desc", ctx=True)
def _order_desc(rt: Any, a: Any) -> list:
    out = _order(rt, a)
    out.reverse()
    return out


# ── values ─────────────────────────────────────────────────────────────────────────────
@native("take")
def _take(v: Any) -> Any:
    """Returns the value and leaves ``()`` in its place."""
    return WriteBack(Unit, v)


@native("parse_json")
def _parse_json(s: Any) -> Any:
    """JSON text to Rhai values (null -> (), integers -> i64, numbers -> f64)."""
    import json

    if type(s) is not str:
        raise FnNotFound
    try:
        raw = json.loads(s)
    except json.JSONDecodeError as e:
        raise RhaiRuntimeError(f"Invalid JSON: {e.msg} at line {e.lineno} column {e.colno}") \
            from None
    out = _from_json(raw)
    m = ACTIVE.meter
    if m is not None and type(out) in (list, dict):  # a tree of any size: measured as a whole
        m.note(out, value_bytes([out], set()))
    return out


def _from_json(v: Any) -> Any:
    if v is None:
        return Unit
    if type(v) is int and not -(1 << 63) <= v < (1 << 63):
        return float(v)
    if type(v) is list:
        return [_from_json(x) for x in v]
    if type(v) is dict:
        return {k: _from_json(x) for k, x in v.items()}
    return v
