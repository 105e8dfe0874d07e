"""Run-time state of an engine and the function-call machinery (script functions, closures,
function pointers, native and host functions, method-call dispatch with ``this`` write-back).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import ops
from .errors import (
    FnNotFound,
    ReturnSignal,
    RhaiLimitError,
    RhaiRuntimeError,
    out_of_memory_error,
)
from .values import ACTIVE, FnPtr, Unit, deep_copy, type_of

NativeFn = Callable[..., Any]


class _Unbound:
    """Frame slot 0 when a function was not called in method style (``this`` is unbound)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unbound this>"


UNBOUND = _Unbound()


class Cell:
    """A shared variable: captured by a closure, visible to both it and its definer.
    ``shared`` is set (it is unset until then) once a closure has captured it."""

    __slots__ = ("v", "shared")

    def __init__(self, v: Any) -> None:
        self.v = v


class WriteBack:
    """Returned by a native that mutates an immutable receiver (a string): the call site
    stores ``new_this`` back into the receiver's place and yields ``result``."""

    __slots__ = ("new_this", "result")

    def __init__(self, new_this: Any, result: Any = Unit) -> None:
        self.new_this = new_this
        self.result = result


@dataclass(eq=False)
class ScriptFn:
    """A compiled script function or closure body."""

    name: str
    nparams: int
    file: str
    line: int
    col: int
    nslots: int = 1
    body: Callable[[list], Any] | None = None
    boxed_params: tuple[int, ...] = ()
    copy_params: tuple[int, ...] = ()  # argument indices the body may mutate: copied on entry
    this_type: str | None = None
    private: bool = False
    capture_slots: tuple[int, ...] = ()  # closures: where captured cells go in the frame
    lib: Any = None  # the CompiledLib this function belongs to
    ops: int = 1  # operations one call counts (its body's statements and expressions)


class Closure:
    """A closure value's payload: its compiled body plus the captured cells."""

    __slots__ = ("fn", "cells")

    def __init__(self, fn: ScriptFn, cells: tuple[Cell, ...]) -> None:
        self.fn = fn
        self.cells = cells


@dataclass(eq=False)
class Module:
    """An imported module: its exported variables and its public functions."""

    name: str
    vars: dict[str, Any] = field(default_factory=dict)
    fns: dict[tuple[str, int], ScriptFn] = field(default_factory=dict)
    submodules: dict[str, Module] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<module {self.name}>"


@dataclass
class LimitValues:
    max_operations: int = 0
    max_call_depth: int = 64
    max_expr_depth: int = 0
    max_string_size: int = 0
    max_array_size: int = 0
    max_map_size: int = 0
    max_memory_bytes: int = 0


class Runtime:
    """Mutable engine state the compiled closures consult while running."""

    def __init__(self, limits: LimitValues) -> None:
        self.limits = limits
        self.ops = 0
        self.max_ops = limits.max_operations or (1 << 62)
        self.depth = 0
        self.max_depth = limits.max_call_depth or (1 << 30)
        self.natives: dict[str, dict[int, NativeFn]] = {}
        self.variadic: dict[str, NativeFn] = {}
        self.global_fns: dict[tuple[str, int], list[ScriptFn]] = {}
        self.main_lib: Any = None
        self.scope: dict[str, Any] = {}
        self.scope_consts: set[str] = set()
        self.entry_depth = -1  # call depth of the function the host called via call_fn
        self.version = 0
        self.on_print: Callable[[str], None] = print
        self.on_debug: Callable[[str], None] = print
        self.on_sleep: Callable[[float], None] = time.sleep
        self.import_module: Callable[[str, str, int, int], Module] | None = None
        #: the engine's :class:`~.memory.MemoryMeter` (None without a memory budget), and
        #: what compiled code calls for operators and natives (metered ones with a budget)
        self.meter: Any = None
        self.binary: dict[str, Callable[[Any, Any], Any]] = ops.BINARY
        self.add_assign: Callable[[Any, Any], Any] = ops.add_assign
        self.call_native: Callable[[NativeFn, str, list[Any]], Any] = call_native

    def set_meter(self, meter: Any) -> None:
        """Give the engine a memory budget (before anything is compiled)."""
        self.meter = meter
        self.binary, self.add_assign = ops.metered(meter)
        self.call_native = metered_call_native(meter)

    # ── limits ─────────────────────────────────────────────────────────────────────────
    def too_many_ops(self) -> RhaiLimitError:
        return RhaiLimitError(f"Too many operations (the limit is {self.limits.max_operations})")

    def check_ops(self, file: str = "") -> None:
        """At the end of a run: the total is over the limit (some counts, such as the right
        side of ``&&``, are only added, and checked by the next check)."""
        if self.ops > self.max_ops:
            raise RhaiLimitError(self.too_many_ops().message, file)

    def check_string(self, s: str) -> str:
        m = self.limits.max_string_size
        if m and len(s) > m:
            raise RhaiLimitError(f"Length of string too large: {len(s)} > {m}")
        return s

    def check_array(self, a: list) -> list:
        """As Rhai counts: a nested array counts as one element plus its own elements (checked
        deeply when the array holds arrays at either end, so flat arrays stay O(1))."""
        m = self.limits.max_array_size
        if m and len(a) > m:
            raise RhaiLimitError(f"Size of array too large: {len(a)} > {m}")
        if m and a and (type(a[0]) is list or type(a[-1]) is list):
            n = deep_array_size(a)
            if n > m:
                raise RhaiLimitError(f"Size of array too large: {n} > {m}")
        return a

    def check_map(self, d: dict) -> dict:
        m = self.limits.max_map_size
        if m and len(d) > m:
            raise RhaiLimitError(f"Size of object map too large: {len(d)} > {m}")
        return d

    def check_size(self, v: Any) -> Any:
        t = type(v)
        if t is str:
            return self.check_string(v)
        if t is list:
            return self.check_array(v)
        if t is dict:
            return self.check_map(v)
        return v

    # ── lookup ─────────────────────────────────────────────────────────────────────────
    def find_script(self, name: str, nargs: int, lib: Any = None) -> list[ScriptFn] | None:
        if lib is not None:
            r = lib.fns.get((name, nargs))
            if r:
                return r
        if self.main_lib is not None and self.main_lib is not lib:
            r = self.main_lib.fns.get((name, nargs))
            if r:
                return r
        return self.global_fns.get((name, nargs))

    def find_native(self, name: str, nargs: int) -> NativeFn | None:
        by_arity = self.natives.get(name)
        if by_arity is not None:
            f = by_arity.get(nargs)
            if f is not None:
                return f
        return self.variadic.get(name)

    def is_def_fn(self, name: str, nargs: int) -> bool:
        return bool(self.find_script(name, nargs)) or self.find_native(name, nargs) is not None

    # ── invocation ─────────────────────────────────────────────────────────────────────
    def invoke(self, sf: ScriptFn, args: list[Any], this: Any = UNBOUND,
               cells: tuple[Cell, ...] = ()) -> tuple[Any, Any]:
        """Run a script function; returns ``(result, this_after)``."""
        if len(args) != sf.nparams:
            raise RhaiRuntimeError(
                f"Function not found: {sf.name} ({', '.join(type_of(a) for a in args)})")
        self.depth += 1
        if self.depth > self.max_depth:
            self.depth -= 1
            raise RhaiLimitError(f"Stack overflow: call depth exceeds {self.max_depth} "
                                 f"in function '{sf.name}'")
        self.ops += sf.ops
        if self.ops > self.max_ops:
            self.depth -= 1
            raise self.too_many_ops()
        f: list[Any] = [None] * sf.nslots
        f[0] = this
        f[1:1 + len(args)] = args
        for i in sf.copy_params:
            f[1 + i] = deep_copy(f[1 + i])
        for s in sf.boxed_params:
            f[s] = Cell(f[s])
        if cells:
            for s, c in zip(sf.capture_slots, cells, strict=True):
                f[s] = c
        try:
            r = sf.body(f)  # type: ignore[misc]
        except ReturnSignal as ret:
            r = ret.value
        except RhaiRuntimeError as e:
            e.call_stack.append(f"{sf.name} @ {sf.file or '<script>'}:{sf.line}:{sf.col}")
            e.args = (e._text(),)
            raise
        finally:
            self.depth -= 1
        return (Unit if r is None else r), f[0]

    def call_fnptr(self, fp: FnPtr, args: list[Any], this: Any = UNBOUND) -> Any:
        """Call a function pointer (closure or named function) with extra ``args``."""
        return self.call_fnptr_this(fp, args, this)[0]

    def call_fnptr_this(self, fp: FnPtr, args: list[Any], this: Any = UNBOUND) -> tuple[Any, Any]:
        full = list(fp.curry) + list(args) if fp.curry else list(args)
        if fp.closure is not None:
            c: Closure = fp.closure
            if len(full) != c.fn.nparams:
                raise RhaiRuntimeError(
                    f"Function not found: {fp.name} ({', '.join(type_of(a) for a in full)})")
            return self.invoke(c.fn, full, this, c.cells)
        return self.call_named(fp.name, full, this)

    def call_named(self, name: str, args: list[Any], this: Any = UNBOUND,
                   lib: Any = None) -> tuple[Any, Any]:
        """Call a function by name (script first, then native); returns (result, this)."""
        fns = self.find_script(name, len(args), lib)
        if fns:
            sf = pick_untyped(fns) or fns[0]
            return self.invoke(sf, args, this)
        nf = self.find_native(name, len(args))
        if nf is not None:
            r = self.call_native(nf, name, args)
            return (r.result if type(r) is WriteBack else r), this
        raise RhaiRuntimeError(
            f"Function not found: {name} ({', '.join(type_of(a) for a in args)})")

    def call_method(self, name: str, recv: Any, args: list[Any], lib: Any) -> tuple[Any, Any]:
        """``recv.name(args)``: returns ``(result, new_receiver)``; the caller writes the new
        receiver back into the receiver's place."""
        # a script function's call is counted with its body, not as the method step
        if name == "call" and type(recv) is FnPtr:
            self.ops -= 1
            return self.call_fnptr(recv, args), recv
        if name == "call" and args and type(args[0]) is FnPtr:  # `x.call(fp, ...)`: this = x
            self.ops -= 1
            return self.call_fnptr_this(args[0], args[1:], recv)
        if type(recv) is dict:
            fp = recv.get(name)
            if type(fp) is FnPtr:
                self.ops -= 1
                return self.call_fnptr_this(fp, args, recv)
        nargs = len(args)
        fns = self.find_script(name, nargs, lib)
        if fns:
            tn = type_of(recv)
            sf = None
            for cand in fns:
                if cand.this_type == tn:
                    sf = cand
                    break
            if sf is None:
                sf = pick_untyped(fns)
            if sf is not None:
                self.ops -= 1
                return self.invoke(sf, args, recv)
        nf = self.find_native(name, nargs + 1)
        if nf is not None:
            r = self.call_native(nf, name, [recv, *args])
            if type(r) is WriteBack:
                return r.result, r.new_this
            return r, recv
        if type(recv) is FnPtr and fns is None:
            pass
        raise RhaiRuntimeError(
            f"Function not found: {name} ({', '.join(type_of(a) for a in [recv, *args])})")


def pick_untyped(fns: list[ScriptFn]) -> ScriptFn | None:
    for f in fns:
        if f.this_type is None:
            return f
    return None


def call_native(nf: NativeFn, name: str, args: list[Any]) -> Any:
    try:
        r = nf(*args)
    except (RhaiRuntimeError, ReturnSignal):
        raise
    except Exception as e:  # noqa: BLE001 - each failure becomes a Rhai error (see below)
        raise native_error(e, name, args)  # noqa: B904 - native_error sets the cause
    if r is None:
        return Unit
    return r


def metered_call_native(meter: Any) -> Callable[[NativeFn, str, list[Any]], Any]:
    """:func:`call_native` for an engine with a memory budget: a new string, array, map or
    blob a native returns is charged to ``meter`` (its :class:`~.memory.MemoryMeter`)."""
    from .memory import LIST, MAP, STR, result_bytes

    sized, unit = _SIZED, Unit  # (closure cells: quicker than globals)

    def call_native_m(nf: NativeFn, name: str, args: list[Any]) -> Any:
        try:
            r = nf(*args)
        except (RhaiRuntimeError, ReturnSignal):
            raise
        except Exception as e:  # noqa: BLE001
            raise native_error(e, name, args)  # noqa: B904
        if r is None:
            return unit
        t = type(r)
        if t in sized:
            if t is str:
                n = STR + len(r)
            elif t is dict:
                n = MAP + 100 * len(r)  # memory.ENTRY
            elif t is list:
                n = LIST + 40 * len(r)  # memory.ELEM
            else:
                n = result_bytes(r)
            e = meter.est + n
            meter.est = e
            if n >= meter.large_at:
                meter.keep(r.new_this if t is WriteBack else r, n)
            if e > meter.trigger:
                meter.over(0)
        return r
    return call_native_m


_SIZED = frozenset((str, list, dict, bytearray, FnPtr, WriteBack))


def native_error(e: Exception, name: str, args: list[Any]) -> RhaiRuntimeError:
    """A native function's failure in Rhai's terms: no overload for the argument types; a
    stack overflow or the process out of memory (limit errors); else the host or library
    error's text."""
    if isinstance(e, FnNotFound):
        err: RhaiRuntimeError = RhaiRuntimeError(
            f"Function not found: {name} ({', '.join(type_of(a) for a in args)})")
    elif isinstance(e, RecursionError):
        err = RhaiLimitError(f"Stack overflow in function '{name}'")
    elif isinstance(e, MemoryError):
        e.__traceback__ = None  # let the frames that filled the memory go
        m = ACTIVE.meter
        err = out_of_memory_error(m.budget if m is not None else 0)
    else:
        err = RhaiRuntimeError(f"Error in function '{name}': {e}")
        err.__cause__ = e
        return err
    err.__suppress_context__ = True
    return err


def copy_value(v: Any) -> Any:
    return deep_copy(v)


def deep_array_size(a: list) -> int:
    """Rhai's array size: each element counts one, a nested array or blob adds its size."""
    n = len(a)
    for x in a:
        t = type(x)
        if t is list:
            n += deep_array_size(x)
        elif t is bytearray:
            n += len(x)
    return n
