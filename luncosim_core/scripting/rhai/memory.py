"""The memory budget of an engine (``Limits.max_memory_bytes``): all live values together, not
each container on its own.

Cheap part: a running estimate. Every place that makes or grows a string, array, map, blob or
closure charges its approximate size (:data:`ELEM` per array element, :data:`ENTRY` per map
entry, a string's or blob's length plus a header) to the engine's :class:`MemoryMeter`; a
charge is an addition and a comparison. Charges only add up: values that die are not taken
off, so the estimate is an upper bound of what was allocated since the last measure.

Exact-enough part: when the estimate passes the budget, :meth:`MemoryMeter.measure` walks
what the engine can still reach (the Python frames of the running call down from the engine's
entry, its scopes, the ``this`` maps and :class:`Scope` objects hosts ran it with, its
constants, modules and printed lines) and sizes each value once (see :func:`value_bytes`); big
allocations not found that way but still referenced (a temporary inside an expression or a
native being built) are counted too. If the live total is over the budget the allocation is
refused with a :class:`RhaiLimitError` ``memory budget exceeded: N MB of M MB`` at the
script position being evaluated; otherwise the estimate restarts from the live total. So values
a script freed never count, and a script that allocates and frees within its budget runs on.
To keep measuring rare, the next measure comes once a sixteenth of the budget more has been
charged (live values can pass the budget by up to that much before they are refused).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from .errors import budget_error
from .runtime import Cell, Closure, Module, WriteBack
from .values import Char, FnPtr, RhaiRange, Timestamp, _UnitType

MB = 1 << 20

# Estimates charged where values are made (CPython 3.11, 64-bit): generous on purpose, an
# over-estimate only makes the next measure come sooner.
ELEM = 40  # an array element: its 8-byte slot, a number object and list over-allocation
ENTRY = 100  # a map entry: hash-table slot, key string, value
LIST = 56  # an empty list
MAP = 64  # an empty dict
STR = 49  # an empty ASCII string
BLOB = 57  # an empty bytearray
CLOSURE = 200  # a function pointer with its closure and cells
CHAR = 64  # one character as an element of a list (a Char object and its slot)

# Sizes used when measuring
_NUM = 24  # an int or float object (shared ones, ``()``, bools, counted too)
_CELL = 48
_OBJ = 64  # a range, timestamp or module object
_BIG_STR = 256  # strings longer than this are counted once however often they are referenced

_getsizeof = sys.getsizeof
_getrefcount = sys.getrefcount


def _scalar_types() -> frozenset[type]:
    from .runtime import _Unbound

    return frozenset((int, float, bool, _UnitType, type(None), _Unbound))


_SCALARS = _scalar_types()
_STRS = frozenset((str, Char))


def value_bytes(roots: Iterable[Any], seen: set[int]) -> int:
    """Approximate bytes of the values reachable from ``roots`` not yet in ``seen`` (ids of
    containers, closures and long strings already counted; updated). A string or blob counts
    its CPython size, an array or map its table plus each element (:data:`_NUM` for a number,
    a string's size, a nested value's own total), a cell or closure a small header plus what it
    holds. Modules and tuples count what they hold; other (host) objects nothing."""
    total = 0
    stack = list(roots)
    pop, sizers, scalars = stack.pop, _SIZERS, _SCALARS
    while stack:
        v = pop()
        t = type(v)
        if t in scalars:
            continue
        size = sizers.get(t)
        if size is not None:
            total += size(v, stack, seen)
        elif hasattr(t, "__rhai_iter__"):  # a stepped range
            total += _OBJ
    return total


def _first_time(v: Any, seen: set[int]) -> bool:
    i = id(v)
    if i in seen:
        return False
    seen.add(i)
    return True


def _str_bytes(v: str, stack: list, seen: set[int]) -> int:
    if len(v) > _BIG_STR and not _first_time(v, seen):
        return 0
    return _getsizeof(v)


def _items_bytes(items: Any, n: int, stack: list) -> int:
    """Elements of an array or values of a map: numbers and short strings at C speed, the
    rest pushed on ``stack``."""
    kinds = set(map(type, items))
    if kinds <= _SCALARS:
        return _NUM * n
    if kinds <= _STRS and max(map(len, items)) <= _BIG_STR:
        return sum(map(_getsizeof, items))
    total = 0
    for x in items:
        if type(x) in _SCALARS:
            total += _NUM
        else:
            stack.append(x)
    return total


def _list_bytes(v: list, stack: list, seen: set[int]) -> int:
    if not _first_time(v, seen):
        return 0
    return _getsizeof(v) + (_items_bytes(v, len(v), stack) if v else 0)


def _dict_bytes(v: dict, stack: list, seen: set[int]) -> int:
    if not _first_time(v, seen):
        return 0
    total = _getsizeof(v)
    if not v:
        return total
    keys = v.keys()
    if set(map(type, keys)) <= _STRS and max(map(len, keys)) <= _BIG_STR:
        total += sum(map(_getsizeof, keys))
    else:  # long keys are counted once; a host's map may have other keys
        stack.extend(keys)
    return total + _items_bytes(v.values(), len(v), stack)


def _blob_bytes(v: bytearray, stack: list, seen: set[int]) -> int:
    return _getsizeof(v) if _first_time(v, seen) else 0


def _cell_bytes(v: Cell, stack: list, seen: set[int]) -> int:
    if not _first_time(v, seen):
        return 0
    stack.append(v.v)
    return _CELL


def _fnptr_bytes(v: FnPtr, stack: list, seen: set[int]) -> int:
    if not _first_time(v, seen):
        return 0
    stack.extend(v.curry)
    if type(v.closure) is Closure:
        stack.extend(v.closure.cells)
    return CLOSURE


def _tuple_bytes(v: tuple, stack: list, seen: set[int]) -> int:
    stack.extend(v)
    return 0


def _module_bytes(v: Module, stack: list, seen: set[int]) -> int:
    if not _first_time(v, seen):
        return 0
    stack.extend(v.vars.values())
    stack.extend(v.submodules.values())
    return _OBJ


def _object_bytes(v: Any, stack: list, seen: set[int]) -> int:
    return _OBJ


_SIZERS: dict[type, Callable[[Any, list, set[int]], int]] = {
    str: _str_bytes, Char: _str_bytes, list: _list_bytes, dict: _dict_bytes,
    bytearray: _blob_bytes, bytes: _blob_bytes, Cell: _cell_bytes, FnPtr: _fnptr_bytes,
    tuple: _tuple_bytes, Module: _module_bytes, RhaiRange: _object_bytes,
    Timestamp: _object_bytes,
}


def result_bytes(r: Any) -> int:
    """The estimate charged for a native's result: a new string, array, map, blob, function
    pointer, or the new text of a string it changed in place (its elements are charged where
    they were made)."""
    t = type(r)
    if t is str:
        return STR + len(r)
    if t is list:
        return LIST + ELEM * len(r)
    if t is dict:
        return MAP + ENTRY * len(r)
    if t is bytearray:
        return BLOB + len(r)
    if t is FnPtr:
        return CLOSURE
    if t is WriteBack:
        n = r.new_this
        return STR + len(n) if type(n) is str else 0
    return 0


def _quick_bytes(v: Any) -> int:
    """O(1) size of a tracked large value (its own table or text, not what it holds)."""
    t = type(v)
    if t is list:
        return LIST + ELEM * len(v)
    if t is dict:
        return MAP + ENTRY * len(v)
    return _getsizeof(v)


class MemoryMeter:
    """One engine's running estimate and budget (see the module doc). ``owner`` is the engine;
    ``entry_codes`` the code objects of its entry points (a frame running one of them with
    ``self`` the owner starts the part of the Python stack that belongs to the engine);
    ``roots()`` yields the values it holds between calls."""

    __slots__ = ("budget", "est", "trigger", "large_at", "large", "large_bytes", "measures",
                 "live", "_owner", "_entry_codes", "_roots", "nesting")

    def __init__(self, budget: int, owner: Any, entry_codes: frozenset,
                 roots: Callable[[], Iterable[Any]]) -> None:
        self.budget = budget
        self.est = 0  # bytes: live at the last measure plus everything charged since
        self.trigger = budget  # measure when the estimate passes this
        self.large_at = max(64 << 10, min(MB, budget // 32))  # track allocations this big
        self.large: list[Any] = []  # big values made since: kept to see if they are still used
        self.large_bytes = 0
        self.measures = 0
        self.live = 0  # the last measure
        self._owner = weakref.ref(owner)
        self._entry_codes = entry_codes
        self._roots = roots
        self.nesting = 0  # entries into the owner currently running

    # ── charging ───────────────────────────────────────────────────────────────────────
    def charge(self, n: int) -> None:
        """``n`` bytes are about to be allocated."""
        e = self.est + n
        self.est = e
        if e > self.trigger:
            self.over(n)

    def note(self, obj: Any, n: int) -> None:
        """``obj`` (about ``n`` bytes) was just made."""
        e = self.est + n
        self.est = e
        if n >= self.large_at:
            self.keep(obj, n)
        if e > self.trigger:
            self.over(0)

    def keep(self, obj: Any, n: int) -> None:
        """Track a big value (to count it while something still uses it)."""
        self.large.append(obj)
        self.large_bytes += n
        if self.large_bytes > self.budget >> 3:
            self.prune()

    def prune(self) -> None:
        """Stop tracking the big values nothing else uses any more (they are freed)."""
        large, keep = self.large, []
        self.large = keep
        probe: list = []
        base = _getrefcount(probe)  # a value referenced only by one local
        while large:
            obj = large.pop()
            if _getrefcount(obj) > base:
                keep.append(obj)
        obj = None
        keep.reverse()
        self.large_bytes = sum(map(_quick_bytes, keep))

    def over(self, pending: int) -> None:
        """The estimate passed the trigger: measure, refuse if over the budget."""
        live, where = self.measure()
        live += pending
        self.est = live
        self.live = live
        if live > self.budget:
            err = budget_error(live, self.budget)
            if where is not None:
                err.locate(*where)
            raise err
        self.trigger = max(self.budget, live + (self.budget >> 4))

    # ── measuring ──────────────────────────────────────────────────────────────────────
    def measure(self) -> tuple[int, tuple[str, int, int] | None]:
        """Bytes of the live values and the innermost script position on the stack."""
        self.measures += 1
        frames = self._engine_frames(sys._getframe(1))
        where = None
        roots: list[Any] = []
        for loc in frames:
            if where is None:
                line, col, file = loc.get("line"), loc.get("col"), loc.get("file")
                if type(line) is int and type(col) is int and type(file) is str and line > 0:
                    where = (file, line, col)
            roots.extend(loc.values())
        roots.extend(self._roots())
        seen: set[int] = set()
        total = value_bytes(roots, seen)
        roots = frames = []  # type: ignore[assignment]
        # big values made here and not reachable that way, but still referenced: a temporary
        # being built (the partial result of a native, an operand); count them as live
        large, keep, hidden = self.large, [], []
        self.large = keep
        probe: list = []
        base = _getrefcount(probe)
        while large:
            obj = large.pop()
            if id(obj) in seen:
                keep.append(obj)
            elif _getrefcount(obj) > base:
                keep.append(obj)
                hidden.append(obj)
        obj = None
        keep.reverse()
        self.large_bytes = sum(map(_quick_bytes, keep))
        total += value_bytes(hidden, seen)
        return total, where

    def _engine_frames(self, fr: Any) -> list[dict]:
        """The locals of the Python frames from ``fr`` up to the outermost entry into the
        owner (an empty list when none is running)."""
        chain = []
        entry = -1
        owner = self._owner()
        codes = self._entry_codes
        while fr is not None:
            chain.append(fr)
            if fr.f_code in codes and fr.f_locals.get("self") is owner:
                entry = len(chain)
            fr = fr.f_back
        return [f.f_locals for f in chain[:entry]] if entry > 0 else []

