"""Property and index access on Rhai values (reads, and writes that may replace an immutable
container such as a string or an integer's bits)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import RhaiRuntimeError
from .values import I64_MAX, Char, RhaiRange, Unit, type_of

GETTERS: dict[tuple[type, str], Callable[[Any], Any]] = {}


def getter(name: str, *types: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Also serve ``x.name`` for values of ``types`` with the decorated function, as Rhai's
    packages register some functions as property getters too (``get = "name"``)."""
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for t in types:
            GETTERS[(t, name)] = fn
        return fn
    return deco


def get_prop(o: Any, name: str) -> Any:
    """``o.name``: a map's property (``()`` when missing) or a built-in getter."""
    if type(o) is dict:
        return o.get(name, Unit)
    g = GETTERS.get((type(o), name))
    if g is not None:
        return g(o)
    if o is Unit:
        raise RhaiRuntimeError(f"Cannot access property '{name}' of ()")
    raise RhaiRuntimeError(f"Property not found: {name} ({type_of(o)})")


def set_prop(o: Any, name: str, v: Any) -> None:
    """``o.name = v`` on a map (in place)."""
    if type(o) is dict:
        o[name] = v
        return
    if o is Unit:
        raise RhaiRuntimeError(f"Cannot set property '{name}' of ()")
    raise RhaiRuntimeError(f"Cannot set property '{name}' of a value of type {type_of(o)}")


def _norm_index(i: Any, n: int, what: str) -> int:
    if type(i) is not int:
        raise RhaiRuntimeError(f"Indexing a {what} requires an integer index, not {type_of(i)}")
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        unit = "character" if what == "string" else "element"
        if n == 0:
            tail = f"{what} is empty"
        else:
            tail = f"only {n} {unit}{'s' if n != 1 else ''} in {what}"
        raise RhaiRuntimeError(f"{what.capitalize()} index {i} out of bounds: {tail}")
    return j


def str_range(n: int, r: RhaiRange) -> tuple[int, int]:
    """Character span of ``s[r]`` as Rhai computes it: a negative bound counts from the end,
    an end past the string is clipped, an empty or reversed range is empty."""
    start, end = r.start, r.end
    if start < 0:
        if start + n < 0:
            raise RhaiRuntimeError(f"String index {start} out of bounds: only {n} characters "
                                   f"in string")
        start += n
    if end < 0:
        end = max(0, end + n)
    if r.inclusive:  # Rhai takes nothing unless the end is past the start (`s[1..=1]` is "")
        end = end + 1 if end > start else start
    end = min(end, n)
    return start, max(start, end)


def bit_mask(r: RhaiRange) -> tuple[int, int]:
    """(shift, width) of the bit field ``x[r]``; open ends mean all the bits."""
    if r.start < 0 or r.end < 0:  # a range of bits does not count from the end
        bad = r.start if r.start < 0 else r.end
        raise RhaiRuntimeError(f"Bit-field index {bad} out of bounds: only 64 bits in bit-field")
    start = r.start
    end = r.end
    if end == I64_MAX:
        end = 63 if r.inclusive else 64
    if r.inclusive:
        end += 1
    if not 0 <= start < 64 or not 0 <= end <= 64:
        bad = r.start if not 0 <= start < 64 else r.end
        raise RhaiRuntimeError(f"Bit-field index {bad} out of bounds: only 64 bits in bit-field")
    return start, max(0, end - start)


def get_bits(o: int, shift: int, width: int) -> int:
    u = (o & 0xFFFFFFFFFFFFFFFF) >> shift
    v = u & ((1 << width) - 1)
    return v - (1 << 64) if v >= (1 << 63) else v


def set_bits(o: int, shift: int, width: int, v: int) -> int:
    mask = ((1 << width) - 1) << shift
    u = ((o & 0xFFFFFFFFFFFFFFFF) & ~mask) | ((v << shift) & mask)
    return u - (1 << 64) if u >= (1 << 63) else u


def get_index(o: Any, i: Any) -> Any:
    """``o[i]``: array/blob element (negative counts from the end), map value (``()`` when
    missing), string char, or integer bit."""
    t = type(o)
    if type(i) is RhaiRange:
        return _get_range(o, i)
    if t is list:
        return o[_norm_index(i, len(o), "array")]
    if t is dict:
        if type(i) is str or type(i) is Char:
            return o.get(str(i), Unit)
        raise RhaiRuntimeError(f"Indexing an object map requires a string index, not "
                               f"{type_of(i)}")
    if t is str:
        return Char(o[_norm_index(i, len(o), "string")])
    if t is bytearray:
        return o[_norm_index(i, len(o), "blob")]
    if t is int:
        if type(i) is not int:
            raise RhaiRuntimeError(f"Bit-field index must be an integer, not {type_of(i)}")
        bit = i + 64 if i < 0 else i
        if not 0 <= bit < 64:
            raise RhaiRuntimeError(f"Bit-field index {i} out of bounds: only 64 bits in bit-field")
        return bool((o >> bit) & 1)
    if o is Unit:
        raise RhaiRuntimeError("Cannot index into ()")
    raise RhaiRuntimeError(f"Cannot index into a value of type {type_of(o)}")


def set_index(o: Any, i: Any, v: Any) -> Any:
    """``o[i] = v``. Returns the container (a new one for strings/ints), which the caller
    stores back when it differs."""
    t = type(o)
    if type(i) is RhaiRange:
        return _set_range(o, i, v)
    if t is list:
        o[_norm_index(i, len(o), "array")] = v
        return o
    if t is dict:
        if type(i) is str or type(i) is Char:
            o[str(i)] = v
            return o
        raise RhaiRuntimeError(f"Indexing an object map requires a string index, not "
                               f"{type_of(i)}")
    if t is str:
        j = _norm_index(i, len(o), "string")
        if type(v) is not Char:
            raise RhaiRuntimeError(f"Only a char can be assigned into a string, not {type_of(v)}")
        return o[:j] + v + o[j + 1:]
    if t is bytearray:
        if type(v) is not int:
            raise RhaiRuntimeError(f"Only an integer can be assigned into a blob, not "
                                   f"{type_of(v)}")
        o[_norm_index(i, len(o), "blob")] = v & 0xFF
        return o
    if t is int:
        if type(i) is not int or type(v) is not bool:
            raise RhaiRuntimeError("Bit-field assignment needs an integer index and a bool")
        bit = i + 64 if i < 0 else i
        if not 0 <= bit < 64:
            raise RhaiRuntimeError(f"Bit-field index {i} out of bounds: only 64 bits in bit-field")
        u = o & 0xFFFFFFFFFFFFFFFF
        u = (u | (1 << bit)) if v else (u & ~(1 << bit))
        return u - (1 << 64) if u >= (1 << 63) else u
    if o is Unit:
        raise RhaiRuntimeError("Cannot index into ()")
    raise RhaiRuntimeError(f"Cannot index into a value of type {type_of(o)}")


def _get_range(o: Any, r: RhaiRange) -> Any:
    """``s[1..3]`` (a substring) and ``x[1..=3]`` (an integer's bit field)."""
    t = type(o)
    if t is str:
        a, b = str_range(len(o), r)
        return o[a:b]
    if t is int:
        return get_bits(o, *bit_mask(r))
    if o is Unit:
        raise RhaiRuntimeError("Cannot index into ()")
    raise RhaiRuntimeError(f"Indexing a {type_of(o)} requires an integer index, not "
                           f"{type_of(r)}")


def _set_range(o: Any, r: RhaiRange, v: Any) -> Any:
    """``s[1..3] = "x"`` replaces the substring; ``x[1..4] = 7`` sets the bit field."""
    t = type(o)
    if t is str:
        if type(v) is not str and type(v) is not Char:
            raise RhaiRuntimeError(f"Only a string can be assigned into a string range, "
                                   f"not {type_of(v)}")
        a, b = str_range(len(o), r)
        return o[:a] + v + o[b:]
    if t is int:
        if type(v) is not int:
            raise RhaiRuntimeError(f"Only an integer can be assigned into a bit field, "
                                   f"not {type_of(v)}")
        return set_bits(o, *bit_mask(r), v)
    raise RhaiRuntimeError(f"Indexing a {type_of(o)} requires an integer index, not "
                           f"{type_of(r)}")
