"""Standard packages, part 2: strings, arrays, object maps and BLOBs.

Functions that change their receiver in Rhai (``push``, ``trim``, ``pad``, ...) change it in
place; for strings (immutable in Python) they return a :class:`WriteBack` so the method-call
site stores the new string in the receiver's place. Values stored into a container and
elements handed out of one are deep-copied (value semantics).
"""

from __future__ import annotations

import functools
from typing import Any

from .access import getter
from .errors import FnNotFound, RhaiLimitError, RhaiRuntimeError
from .memory import BLOB, CHAR, ELEM, ENTRY
from .ops import eq
from .runtime import WriteBack
from .std_core import _fn as _fn_ptr
from .std_core import native
from .std_core import valid_fn_name as _valid_fn_name
from .values import (
    ACTIVE,
    Char,
    FnPtr,
    RhaiRange,
    Unit,
    deep_copy,
    rhai_equals,
    to_display,
    type_of,
)

_STRS = (str, Char)


def _is_str(x: Any) -> bool:
    return type(x) is str


def _text(x: Any) -> str:
    """A string or char argument as text, else no overload."""
    if type(x) is str or type(x) is Char:
        return str(x)
    raise FnNotFound


def _int(x: Any) -> int:
    if type(x) is not int:
        raise FnNotFound
    return x


def _span(n: int, start: int, length: int | None) -> tuple[int, int]:
    """Rhai's (start, len) clamping: negative start counts from the end."""
    if start < 0:
        start = max(0, n + start)
    start = min(start, n)
    if length is None:
        return start, n
    if length <= 0:
        return start, start
    return start, min(n, start + length)


def _range_span(n: int, r: RhaiRange) -> tuple[int, int]:
    end = r.end + 1 if r.inclusive else r.end
    s = max(0, min(r.start, n))
    return s, max(s, min(end, n))


def _call(rt: Any, fp: Any, *args: Any, base: int = 1) -> Any:
    """Call ``fp`` with as many of ``args`` as it takes (closures of 1 or 2 parameters); a
    named function without the trailing extra argument (the index) gets the first ``base``."""
    if type(fp) is not FnPtr:
        raise FnNotFound
    if fp.closure is not None:
        n = fp.closure.fn.nparams - len(fp.curry)
        if n <= 0 and args:  # `|| this + 1`: a closure without parameters sees the element
            return rt.call_fnptr_this(fp, [], args[0])[0]  # as `this`, as in Rhai
        return rt.call_fnptr(fp, list(args[:max(n, 0)]))
    try:
        return rt.call_fnptr(fp, list(args))
    except RhaiRuntimeError as e:
        if e.message.startswith("Function not found") and len(args) > base:
            return rt.call_fnptr(fp, list(args[:base]))
        raise


def _by_name(fp: Any) -> Any:
    """A function's name given where a function is expected: a function pointer to it, as
    Rhai's (deprecated, still registered) name variants of the array functions take it."""
    if type(fp) is str:
        return _fn_ptr(fp)
    return fp


def _charge(n: int) -> None:
    """``n`` bytes are about to be allocated: charge the running engine's memory budget."""
    m = ACTIVE.meter
    if m is not None:
        m.charge(n)


def _truthy(v: Any, what: str) -> bool:
    if type(v) is not bool:
        raise RhaiRuntimeError(f"{what}: the function must return a bool, not {type_of(v)}")
    return v


# ── shared names (dispatch on the receiver's type) ─────────────────────────────────────
@native("len")
@getter("len", str, list, bytearray)
def _len(x: Any) -> int:
    if type(x) in (str, list, dict, bytearray):
        return len(x)
    if type(x) is RhaiRange:
        return len(x.to_range())
    raise FnNotFound


@native("is_empty")
@getter("is_empty", str, list, bytearray, RhaiRange)
def _is_empty(x: Any) -> bool:
    if type(x) is RhaiRange:
        return x.start > x.end if x.inclusive else x.start >= x.end
    return _len(x) == 0


@native("contains", ctx=True)
def _contains(rt: Any, c: Any, x: Any) -> bool:
    t = type(c)
    if t is str:
        return _text(x) in c
    if t is list:
        return any(rhai_equals(e, x) for e in c)
    if t is dict:
        return _text(x) in c
    if t is RhaiRange:
        return x in c
    if t is bytearray:
        return type(x) is int and (x & 0xFF) in c
    raise FnNotFound


@native("clear")
def _clear(x: Any) -> Any:
    if type(x) in (list, dict, bytearray):
        x.clear()
        return Unit
    if type(x) is str:
        return WriteBack("")
    raise FnNotFound


@native("index_of", ctx=True)
def _index_of(rt: Any, c: Any, x: Any, start: Any = 0) -> int:
    start = _int(start)
    if type(c) is str:
        s, _ = _span(len(c), start, None)
        return c.find(_text(x), s)
    if type(c) is list:
        s, _ = _span(len(c), start, None)
        if type(x) is str and c and _valid_fn_name(x):
            # a function's name is a predicate, as in Rhai; with no function of that name the
            # string is the value looked for
            try:
                return _index_where(rt, c, FnPtr(x), s)
            except RhaiRuntimeError as e:
                if not e.message.startswith(f"Function not found: {x} "):
                    raise
        if type(x) is FnPtr:
            return _index_where(rt, c, x, s)
        for i in range(s, len(c)):
            if rhai_equals(c[i], x):
                return i
        return -1
    raise FnNotFound


def _index_where(rt: Any, c: list, fp: FnPtr, start: int) -> int:
    for i in range(start, len(c)):
        if _truthy(_call(rt, fp, c[i], i), "index_of"):
            return i
    return -1


@native("get")
def _get(c: Any, i: Any) -> Any:
    if type(c) is list:
        i = _int(i)
        j = i + len(c) if i < 0 else i
        return deep_copy(c[j]) if 0 <= j < len(c) else Unit
    if type(c) is bytearray:  # as Rhai's blob `get`: 0 past the end; before the start, byte 0
        j, _ = _span(len(c), _int(i), None)
        return c[j] if j < len(c) else 0
    if type(c) is str:
        i = _int(i)
        j = i + len(c) if i < 0 else i
        return Char(c[j]) if 0 <= j < len(c) else Unit
    if type(c) is dict:
        return deep_copy(c.get(_text(i), Unit))
    raise FnNotFound


@native("set")
def _set(c: Any, i: Any, v: Any) -> Any:
    if type(c) is list:
        i = _int(i)
        j = i + len(c) if i < 0 else i
        if 0 <= j < len(c):
            c[j] = deep_copy(v)
        return Unit
    if type(c) is dict:
        k = _text(i)
        if k not in c:
            _charge(ENTRY + len(k))
        c[k] = deep_copy(v)
        return Unit
    if type(c) is bytearray:  # as Rhai's blob `set`: past the end nothing, before the start byte 0
        j, _ = _span(len(c), _int(i), None)
        if j < len(c):
            c[j] = _int(v) & 0xFF
        return Unit
    raise FnNotFound


@native("remove")
def _remove(c: Any, x: Any) -> Any:
    if type(c) is list or type(c) is bytearray:
        i = _int(x)
        j = i + len(c) if i < 0 else i
        if 0 <= j < len(c):
            return c.pop(j)
        return Unit if type(c) is list else 0  # a blob gives 0, as Rhai's
    if type(c) is dict:
        return c.pop(_text(x), Unit)
    if type(c) is str:
        return WriteBack(c.replace(_text(x), ""))
    raise FnNotFound


@native("reverse")
def _reverse(c: Any) -> Any:
    if type(c) in (list, bytearray):
        c.reverse()
        return Unit
    raise FnNotFound


@native("truncate")
def _truncate(c: Any, n: Any) -> Any:
    n = max(0, _int(n))
    if type(c) in (list, bytearray):
        del c[n:]
        return Unit
    if type(c) is str:
        return WriteBack(c[:n])
    raise FnNotFound


@native("split")
def _split(c: Any, sep: Any = None, segments: Any = None) -> Any:
    if type(c) is str:
        if sep is None:
            _charge(len(c) + CHAR * (len(c) // 2 + 1))  # at most a word every two characters
            return c.split()
        if type(sep) is int and segments is None:
            s, _ = _span(len(c), sep, None)
            return [c[:s], c[s:]]
        text = _text(sep)
        if segments is None:
            _charge(len(c) + CHAR * ((c.count(text) if text else len(c)) + 2))
            return c.split(text) if text else [""] + list(c) + [""]
        n = _int(segments)
        if n < 1:
            return [c]
        return c.split(text, n - 1)
    if type(c) in (list, bytearray) and segments is None and type(sep) is int:
        s, _ = _span(len(c), sep, None)
        tail = c[s:]
        del c[s:]
        return tail
    raise FnNotFound


@native("pad", ctx=True)
def _pad(rt: Any, c: Any, n: Any, v: Any) -> Any:
    n = _int(n)
    lim = rt.limits
    m = rt.meter
    if type(c) is list:
        if lim.max_array_size and n > lim.max_array_size:
            raise RhaiLimitError(f"Size of array too large: {n} > {lim.max_array_size}")
        if len(c) < n:
            if m is not None:  # containers as the fill value are charged as they are copied
                m.charge(ELEM * (n - len(c)))
            c.extend(deep_copy(v) for _ in range(n - len(c)))
        return Unit
    if type(c) is bytearray:
        if lim.max_array_size and n > lim.max_array_size:
            raise RhaiLimitError(f"Size of blob too large: {n} > {lim.max_array_size}")
        if len(c) < n:
            if m is not None:
                m.charge(n - len(c))
            c.extend([_int(v) & 0xFF] * (n - len(c)))
        return Unit
    if type(c) is str:
        if lim.max_string_size and n > lim.max_string_size:
            raise RhaiLimitError(f"Length of string too large: {n} > {lim.max_string_size}")
        fill = _text(v)
        if len(c) >= n or not fill:
            return WriteBack(c)
        if m is not None and n >= m.large_at:  # a huge text is refused before it is made
            m.charge(n)  # (a small one is charged when it comes back)
        reps = (n - len(c)) // len(fill) + 1
        return WriteBack((c + fill * reps)[:n])
    raise FnNotFound


@native("extract")
def _extract(c: Any, start: Any, length: Any = None) -> Any:
    if type(c) not in (list, bytearray):
        raise FnNotFound
    if type(start) is RhaiRange and length is None:
        s, e = _range_span(len(c), start)
    else:
        s, e = _span(len(c), _int(start), None if length is None else _int(length))
    return deep_copy(c[s:e])


@native("drain", ctx=True)
def _drain(rt: Any, c: Any, a: Any, length: Any = None) -> Any:
    if type(c) is dict and type(a) is FnPtr:
        gone = {k: v for k, v in c.items() if _truthy(_call(rt, a, k, v), "drain")}
        for k in gone:
            del c[k]
        return gone
    if type(c) not in (list, bytearray):
        raise FnNotFound
    if type(c) is list:
        a = _by_name(a)
    if type(a) is FnPtr:
        keep, out = [], []
        for i, x in enumerate(c):
            (out if _truthy(_call(rt, a, x, i), "drain") else keep).append(x)
        c[:] = keep
        return out if type(c) is list else bytearray(out)
    if type(a) is RhaiRange and length is None:
        s, e = _range_span(len(c), a)
    else:
        s, e = _span(len(c), _int(a), None if length is None else _int(length))
    out = c[s:e]
    del c[s:e]
    return out


@native("retain", ctx=True)
def _retain(rt: Any, c: Any, a: Any, length: Any = None) -> Any:
    if type(c) is dict and type(a) is FnPtr:
        gone = {k: v for k, v in c.items() if not _truthy(_call(rt, a, k, v), "retain")}
        for k in gone:
            del c[k]
        return gone
    if type(c) not in (list, bytearray):
        raise FnNotFound
    if type(c) is list:
        a = _by_name(a)
    if type(a) is FnPtr:
        keep, out = [], []
        for i, x in enumerate(c):
            (keep if _truthy(_call(rt, a, x, i), "retain") else out).append(x)
        c[:] = keep
        return out if type(c) is list else bytearray(out)
    if type(a) is RhaiRange and length is None:
        s, e = _range_span(len(c), a)
    else:
        s, e = _span(len(c), _int(a), None if length is None else _int(length))
    out = c[:s] + c[e:]
    c[:] = c[s:e]
    return out


# ── strings ────────────────────────────────────────────────────────────────────────────
def _str(x: Any) -> str:
    if type(x) is not str:
        raise FnNotFound
    return x


@native("starts_with")
def _starts_with(s: Any, p: Any) -> bool:
    return _str(s).startswith(_text(p))


@native("ends_with")
def _ends_with(s: Any, p: Any) -> bool:
    return _str(s).endswith(_text(p))


@native("sub_string")
def _sub_string(s: Any, start: Any, length: Any = None) -> str:
    s = _str(s)
    if type(start) is RhaiRange and length is None:
        a, b = _range_span(len(s), start)
    else:
        a, b = _span(len(s), _int(start), None if length is None else _int(length))
    return s[a:b]


@native("crop")
def _crop(s: Any, start: Any, length: Any = None) -> Any:
    if type(s) is str:
        return WriteBack(_sub_string(s, start, length))
    raise FnNotFound


@native("trim")
def _trim(s: Any) -> Any:
    return WriteBack(_str(s).strip())


@native("trim_start")
def _trim_start(s: Any) -> Any:
    return WriteBack(_str(s).lstrip())


@native("trim_end")
def _trim_end(s: Any) -> Any:
    return WriteBack(_str(s).rstrip())


@native("to_upper")
def _to_upper(s: Any) -> Any:
    if type(s) is Char:
        u = s.upper()
        return Char(u) if len(u) == 1 else Char(s)
    return _str(s).upper()


@native("to_lower")
def _to_lower(s: Any) -> Any:
    if type(s) is Char:
        u = s.lower()
        return Char(u) if len(u) == 1 else Char(s)
    return _str(s).lower()


@native("make_upper")
def _make_upper(s: Any) -> Any:
    return WriteBack(_str(s).upper())


@native("make_lower")
def _make_lower(s: Any) -> Any:
    return WriteBack(_str(s).lower())


@native("replace")
def _replace(s: Any, find: Any, sub: Any) -> Any:
    return WriteBack(_str(s).replace(_text(find), _text(sub)))


@native("chars")
@getter("chars", str)
def _chars(s: Any) -> list:
    _charge(CHAR * len(_str(s)))
    return [Char(c) for c in s]


@native("bytes")
@getter("bytes", str)
def _bytes(s: Any) -> int:
    return len(_str(s).encode("utf-8"))


@native("to_blob")
def _to_blob(s: Any) -> bytearray:
    _charge(4 * len(_str(s)))  # its UTF-8 bytes, on their way
    return bytearray(s.encode("utf-8"))


@native("is_digit")
def _is_digit(c: Any) -> bool:
    if type(c) is not Char:
        raise FnNotFound
    return c.isdigit()


@native("is_alphabetic")
def _is_alpha(c: Any) -> bool:
    if type(c) is not Char:
        raise FnNotFound
    return c.isalpha()


@native("is_whitespace")
def _is_ws(c: Any) -> bool:
    if type(c) is not Char:
        raise FnNotFound
    return c.isspace()


# ── arrays ─────────────────────────────────────────────────────────────────────────────
def _arr(x: Any) -> list:
    if type(x) is not list:
        raise FnNotFound
    return x


@native("push", ctx=True)
def _push(rt: Any, c: Any, v: Any) -> Any:
    if type(c) is list:
        m = rt.meter
        if m is not None:  # one element more (a container is charged as it is copied)
            e = m.est + ELEM
            m.est = e
            if e > m.trigger:
                m.over(ELEM)
        c.append(deep_copy(v))
        rt.check_array(c)
        return Unit
    if type(c) is bytearray:
        c.append(_int(v) & 0xFF)
        return Unit
    raise FnNotFound


@native("append", ctx=True)
def _append(rt: Any, c: Any, v: Any) -> Any:
    m = rt.meter
    if type(c) is list:
        if type(v) is list:
            c.extend(deep_copy(v))  # the copy is charged to the memory budget
        else:
            if m is not None:
                m.charge(ELEM)
            c.append(deep_copy(v))
        rt.check_array(c)
        return Unit
    if type(c) is bytearray:
        if type(v) in (bytearray, bytes):
            if m is not None:
                m.charge(len(v))
            c.extend(v)
        elif type(v) in _STRS:  # a string's or char's UTF-8 bytes
            if m is not None:
                m.charge(4 * len(v))
            c.extend(str(v).encode("utf-8"))
        else:
            c.append(_int(v) & 0xFF)
        return Unit
    if type(c) is str:
        return WriteBack(rt.check_string(c + to_display(v)))
    raise FnNotFound


@native("pop")
def _pop(c: Any) -> Any:
    if type(c) is list:
        return c.pop() if c else Unit
    if type(c) is bytearray:  # an empty blob gives 0, as Rhai's
        return c.pop() if c else 0
    raise FnNotFound


@native("shift")
def _shift(c: Any) -> Any:
    if type(c) is list:
        return c.pop(0) if c else Unit
    if type(c) is bytearray:
        return c.pop(0) if c else 0
    raise FnNotFound


@native("insert", ctx=True)
def _insert(rt: Any, c: Any, i: Any, v: Any) -> Any:
    i = _int(i)
    if type(c) is list:
        j = max(0, len(c) + i) if i < 0 else min(i, len(c))
        if rt.meter is not None:
            rt.meter.charge(ELEM)
        c.insert(j, deep_copy(v))
        rt.check_array(c)
        return Unit
    if type(c) is bytearray:
        j = max(0, len(c) + i) if i < 0 else min(i, len(c))
        c.insert(j, _int(v) & 0xFF)
        return Unit
    raise FnNotFound


@native("first")
def _first(c: Any) -> Any:
    return deep_copy(_arr(c)[0]) if c else Unit


@native("last")
def _last(c: Any) -> Any:
    return deep_copy(_arr(c)[-1]) if c else Unit


@native("chop")
def _chop(c: Any, n: Any) -> Any:
    if type(c) is not bytearray:
        _arr(c)
    n = _int(n)
    if n <= 0:
        c.clear()
    elif len(c) > n:
        del c[:len(c) - n]
    return Unit


@native("splice")
def _splice(c: Any, start: Any, length: Any, repl: Any = None) -> Any:
    if type(c) is bytearray:
        return _splice_blob(c, start, length, repl)
    _arr(c)
    if type(start) is RhaiRange and repl is None:
        repl = length
        s, e = _range_span(len(c), start)
    else:
        s, e = _span(len(c), _int(start), _int(length))
    c[s:e] = deep_copy(repl if type(repl) is list else [repl])
    return Unit


def _splice_blob(c: bytearray, start: Any, length: Any, repl: Any) -> Any:
    """Rhai's blob ``splice``: a range or ``start, len``; an empty blob becomes the other one,
    and (as Rhai's code does) a zero length appends it at the end."""
    if type(start) is RhaiRange and repl is None:
        repl, r = length, start
        s = max(r.start, 0)
        n = max(r.end, s) - s + (1 if r.inclusive else 0)
    else:
        s, n = _int(start), _int(length)
    if type(repl) not in (bytearray, bytes):
        raise FnNotFound
    if not c:
        c[:] = repl
        return Unit
    a, b = _span(len(c), s, n)
    if a == b:
        c.extend(repl)
    else:
        c[a:b] = repl
    return Unit


@native("map", ctx=True)
def _map(rt: Any, c: Any, fp: Any) -> list:
    fp = _by_name(fp)
    out = []  # a local (not a comprehension): the memory budget's measure sees it grow
    for i, x in enumerate(_arr(c)):
        out.append(_call(rt, fp, deep_copy(x), i))
    return out


@native("filter", ctx=True)
def _filter(rt: Any, c: Any, fp: Any) -> Any:
    if type(c) is list:
        fp = _by_name(fp)
    if type(c) is dict:
        return {k: deep_copy(v) for k, v in c.items() if _truthy(_call(rt, fp, k, v), "filter")}
    out = []  # a local: the memory budget's measure sees it grow
    for i, x in enumerate(_arr(c)):
        if _truthy(_call(rt, fp, deep_copy(x), i), "filter"):
            out.append(deep_copy(x))
    return out


@native("reduce", ctx=True)
def _reduce(rt: Any, c: Any, fp: Any, init: Any = Unit) -> Any:
    fp = _by_name(fp)
    acc = init
    for i, x in enumerate(_arr(c)):
        acc = _call(rt, fp, acc, deep_copy(x), i, base=2)
    return acc


@native("reduce_rev", ctx=True)
def _reduce_rev(rt: Any, c: Any, fp: Any, init: Any = Unit) -> Any:
    fp = _by_name(fp)
    acc = init
    arr = _arr(c)
    for i in range(len(arr) - 1, -1, -1):
        acc = _call(rt, fp, acc, deep_copy(arr[i]), i, base=2)
    return acc


@native("some", ctx=True)
def _some(rt: Any, c: Any, fp: Any) -> bool:
    fp = _by_name(fp)
    return any(_truthy(_call(rt, fp, deep_copy(x), i), "some") for i, x in enumerate(_arr(c)))


@native("all", ctx=True)
def _all(rt: Any, c: Any, fp: Any) -> bool:
    fp = _by_name(fp)
    return all(_truthy(_call(rt, fp, deep_copy(x), i), "all") for i, x in enumerate(_arr(c)))


@native("find", ctx=True)
def _find(rt: Any, c: Any, fp: Any) -> Any:
    for i, x in enumerate(_arr(c)):
        if _truthy(_call(rt, fp, deep_copy(x), i), "find"):
            return deep_copy(x)
    return Unit


@native("find_map", ctx=True)
def _find_map(rt: Any, c: Any, fp: Any) -> Any:
    for i, x in enumerate(_arr(c)):
        r = _call(rt, fp, deep_copy(x), i)
        if r is not Unit:
            return r
    return Unit


@native("for_each", ctx=True)
def _for_each(rt: Any, c: Any, fp: Any) -> Any:
    arr = _arr(c)
    for i in range(len(arr)):
        args = [i] if _arity(fp) >= 1 else []
        arr[i] = rt.call_fnptr_this(fp, args, arr[i])[1]
    return Unit


def _arity(fp: FnPtr) -> int:
    if fp.closure is not None:
        return fp.closure.fn.nparams - len(fp.curry)
    return 1


@native("dedup", ctx=True)
def _dedup(rt: Any, c: Any, fp: Any = None) -> Any:
    fp = _by_name(fp)
    arr = _arr(c)
    out: list = []
    for x in arr:
        if out:
            same = (_truthy(_call(rt, fp, out[-1], x), "dedup") if fp is not None
                    else rhai_equals(out[-1], x))
            if same:
                continue
        out.append(x)
    arr[:] = out
    return Unit


def _default_key(x: Any) -> Any:
    return x


@native("sort", ctx=True)
def _sort(rt: Any, c: Any, fp: Any = None) -> Any:
    fp = _by_name(fp)
    arr = _arr(c)
    if fp is None:
        if not arr:
            return Unit
        kinds = {type(x) for x in arr}
        if kinds <= {int, float} or (len(kinds) == 1 and kinds <= {str, Char, bool}):
            arr.sort()
            return Unit
        raise RhaiRuntimeError("Cannot sort an array of mixed or unordered types: "
                               + ", ".join(sorted(type_of(x) for x in {type(x): x
                                                                        for x in arr}.values())))
    if type(fp) is not FnPtr:
        raise FnNotFound

    def cmp(a: Any, b: Any) -> int:
        r = rt.call_fnptr(fp, [a, b])
        if type(r) is not int:
            raise RhaiRuntimeError(f"sort: the comparer must return an integer, not "
                                   f"{type_of(r)}")
        return (r > 0) - (r < 0)
    arr.sort(key=functools.cmp_to_key(cmp))
    return Unit


@native("zip", ctx=True)
def _zip(rt: Any, a: Any, b: Any, fp: Any) -> list:
    out = []  # a local: the memory budget's measure sees it grow
    for i, (x, y) in enumerate(zip(_arr(a), _arr(b), strict=False)):
        out.append(_call(rt, fp, deep_copy(x), deep_copy(y), i, base=2))
    return out


# ── maps ───────────────────────────────────────────────────────────────────────────────
def _map_(x: Any) -> dict:
    if type(x) is not dict:
        raise FnNotFound
    return x


@native("keys")
def _keys(m: Any) -> list:
    return sorted(_map_(m))


@native("values")
def _values(m: Any) -> list:
    d = _map_(m)
    return [deep_copy(d[k]) for k in sorted(d)]


@native("mixin")
def _mixin(m: Any, other: Any) -> Any:
    _map_(m).update(deep_copy(_map_(other)))  # the copy is charged to the memory budget
    return Unit


@native("fill_with")
def _fill_with(m: Any, other: Any) -> Any:
    """Add the properties of ``other`` that ``m`` does not have yet."""
    d = _map_(m)
    _charge(ENTRY * len(_map_(other)))
    for k, v in other.items():
        if k not in d:
            d[k] = deep_copy(v)
    return Unit


@native("to_json")
def _to_json(m: Any) -> str:
    """Compact JSON with keys in Rhai's (sorted) order; NaN and infinities become null."""
    import json
    import math

    def conv(v: Any) -> Any:
        t = type(v)
        if t is dict:
            return {k: conv(v[k]) for k in sorted(v)}
        if t is list:
            return [conv(x) for x in v]
        if v is Unit:
            return None
        if t is float:
            return v if math.isfinite(v) else None
        if t in (int, bool, str):
            return v
        if t is FnPtr:  # as Rhai serializes a function pointer: its name, or with its curry
            return [v.name, *[conv(x) for x in v.curry]] if v.curry else v.name
        return to_display(v)
    return json.dumps(conv(_map_(m)), separators=(",", ":"), allow_nan=False)


# ── BLOBs ──────────────────────────────────────────────────────────────────────────────
@native("blob", ctx=True)
def _blob(rt: Any, n: Any = 0, v: Any = 0) -> bytearray:
    n = max(0, _int(n))
    if rt.limits.max_array_size and n > rt.limits.max_array_size:
        raise RhaiLimitError(f"Size of blob too large: {n} > {rt.limits.max_array_size}")
    if rt.meter is not None:
        rt.meter.charge(BLOB + n)
    return bytearray([_int(v) & 0xFF]) * n


@native("to_array")
def _to_array(b: Any) -> list:
    if type(b) is not bytearray:
        raise FnNotFound
    _charge(ELEM * len(b))
    return list(b)


@native("as_string")
def _as_string(b: Any) -> str:
    if type(b) is not bytearray:
        raise FnNotFound
    return b.decode("utf-8", errors="replace")


@native("equals")
def _equals(a: Any, b: Any) -> bool:
    return eq(a, b)
