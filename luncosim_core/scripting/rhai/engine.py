"""The public face of the interpreter: :class:`Engine`, :class:`Limits`, :class:`Scope`,
:class:`AST` and the confined module resolver."""

from __future__ import annotations

import functools
import inspect
import traceback
import typing
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from luncosim_core.fsutil import UnreadableFile, read_text_limited

from . import (
    std_collections,  # noqa: F401  (registers the collection natives)
    std_extra,  # noqa: F401  (bit fields, split_rev, BLOB read/write)
)
from .compiler import CompiledLib, Compiler
from .errors import (
    BreakSignal,
    ContinueSignal,
    FnNotFound,
    ReturnSignal,
    RhaiLimitError,
    RhaiRuntimeError,
    RhaiSyntaxError,
    out_of_memory_error,
)
from .memory import MemoryMeter
from .parser import parse
from .runtime import UNBOUND, Cell, LimitValues, Module, Runtime, ScriptFn, pick_untyped
from .std_core import REGISTRY
from .values import ACTIVE, Char, FnPtr, RhaiRange, Timestamp, Unit

_METERED = False  # an engine with a memory budget was made in this process


@dataclass(frozen=True)
class Limits:
    """Host-set limits; 0 means unlimited. Operations are counted as Rhai counts them (one
    per statement and expression, tallied per loop iteration and per call), so an endless loop
    or recursion is always stopped. ``max_call_depth`` is Rhai's ``max_call_levels``.

    ``max_memory_bytes`` bounds all the engine's live values together (strings, arrays, maps,
    blobs and closures its scripts hold, in its scopes, constants and modules and in the call
    running), approximately: see :mod:`.memory`. Past it the allocation fails with the
    runtime error ``memory budget exceeded: N MB of M MB``. Scenario runtimes use 256 MB
    (``luncosim_core.scripting.runtime.DEFAULT_LIMITS``)."""

    max_operations: int = 0
    max_call_depth: int = 64
    max_expr_depth: int = 0
    max_string_size: int = 0
    max_array_size: int = 0
    max_map_size: int = 0
    max_memory_bytes: int = 0


class Scope:
    """Script variables that persist across runs (top-level ``let``s are written back)."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self.vars: dict[str, Any] = dict(values or {})
        self.consts: set[str] = set()
        # the engine (a weak reference) whose memory budget counts this scope, and the `this`
        # last run with it there
        self.held_by: Any = None
        self.held_this: Any = None

    def push(self, name: str, value: Any) -> Scope:
        self.vars[name] = value
        self.consts.discard(name)
        return self

    def push_constant(self, name: str, value: Any) -> Scope:
        self.vars[name] = value
        self.consts.add(name)
        return self

    def set(self, name: str, value: Any) -> None:
        self.vars[name] = value

    def get(self, name: str, default: Any = None) -> Any:
        return self.vars.get(name, default)

    def is_constant(self, name: str) -> bool:
        return name in self.consts

    def __getitem__(self, name: str) -> Any:
        return self.vars[name]

    def __contains__(self, name: object) -> bool:
        return name in self.vars

    def __len__(self) -> int:
        return len(self.vars)

    def __iter__(self) -> Iterator[str]:
        return iter(self.vars)

    def __repr__(self) -> str:
        return f"Scope({self.vars!r})"


class AST:
    """A compiled script. It belongs to the engine that compiled it."""

    def __init__(self, lib: CompiledLib, source: str, file: str, engine: Engine) -> None:
        self.lib = lib
        self.source = source
        self.file = file
        self._engine = engine

    def functions(self) -> list[tuple[str, int]]:
        """``(name, arity)`` of every script function, in definition order of first sight."""
        return sorted(self.lib.fns, key=lambda k: (self.lib.fns[k][0].line, k))

    def __repr__(self) -> str:
        return f"<AST {self.file or '<script>'}: {len(self.lib.fns)} functions>"


def _chain_all(fns: list[Callable[..., Any]]) -> Callable[..., Any]:
    """One callable trying ``fns`` in order, moving on when one raises FnNotFound."""
    if len(fns) == 1:
        return fns[0]
    first, rest = fns[0], _chain_all(fns[1:])

    def chained(*args: Any) -> Any:
        try:
            return first(*args)
        except FnNotFound:
            return rest(*args)
    return chained


def _typed(fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool]:
    """Wrap a host function whose parameters carry type annotations with an exact type check
    (raising FnNotFound on a mismatch). Returns the callable and whether every positional
    parameter is typed (a fully typed function is more specific than the built-ins)."""
    try:
        hints = typing.get_type_hints(fn)
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError, NameError):
        return fn, False
    checks: list[tuple[int, tuple[type, ...]]] = []
    for i, p in enumerate(params):
        h = hints.get(p.name)
        allowed = _ALLOWED.get(h) if h is not None else None
        if allowed is not None:
            checks.append((i, allowed))
    varargs = any(p.kind is p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values())
    fully = len(checks) == len(params) and not varargs
    if not checks:
        return fn, fully

    def typed(*args: Any) -> Any:
        for i, allowed in checks:
            if i < len(args) and type(args[i]) not in allowed:
                raise FnNotFound
        return fn(*args)
    return typed, fully


_ALLOWED: dict[Any, tuple[type, ...]] = {
    int: (int,), float: (float,), bool: (bool,), str: (str,), list: (list,), dict: (dict,),
    Char: (Char,), FnPtr: (FnPtr,), bytearray: (bytearray,), RhaiRange: (RhaiRange,),
    Timestamp: (Timestamp,),
}


class Engine:
    """A Rhai engine: compile scripts, run them, call their functions; no file, process or
    network access except the module resolver confined to ``module_roots``."""

    def __init__(self, limits: Limits | None = None,
                 module_roots: list[Path] | list[str] | None = None) -> None:
        self.limits = limits or Limits()
        lv = LimitValues(**{k: getattr(self.limits, k) for k in LimitValues.__dataclass_fields__})
        self.rt = Runtime(lv)
        self.module_roots = [Path(r).resolve() for r in (module_roots or [])]
        self._modules: dict[Path, Module] = {}
        self._loading: set[Path] = set()
        self.printed: list[str] = []
        self.rt.on_print = self.printed.append
        self.rt.on_debug = self.printed.append
        self.rt.import_module = self._import
        self._entries: dict[str, dict[int | str, dict[str, Any]]] = {}
        # what the memory budget counts between calls: the scopes hosts run scripts with
        # (and the `this` they pass with them) while they live, the libraries that ran
        self._held: weakref.WeakSet[Scope] = weakref.WeakSet()
        self._ref = weakref.ref(self)  # what a held Scope is marked with
        self._libs: weakref.WeakSet[CompiledLib] = weakref.WeakSet()
        if self.limits.max_memory_bytes:
            global _METERED
            _METERED = True
            entries = frozenset(m.__code__ for m in (Engine._exec_top, Engine.call_fn,
                                                    Engine.call_fn_ptr))
            self.rt.set_meter(MemoryMeter(self.limits.max_memory_bytes, self, entries,
                                          self._memory_roots))
        for name, fn, ctx in REGISTRY:
            self._add_native(name, functools.partial(fn, self.rt) if ctx else fn, fn,
                             skip_first=ctx)

    # ── host configuration ─────────────────────────────────────────────────────────────
    @property
    def on_print(self) -> Callable[[str], None]:
        return self.rt.on_print

    @on_print.setter
    def on_print(self, fn: Callable[[str], None]) -> None:
        self.rt.on_print = fn

    @property
    def on_debug(self) -> Callable[[str], None]:
        return self.rt.on_debug

    @on_debug.setter
    def on_debug(self, fn: Callable[[str], None]) -> None:
        self.rt.on_debug = fn

    @property
    def on_sleep(self) -> Callable[[float], None]:
        """What ``sleep(seconds)`` calls (default ``time.sleep``, blocking as Rhai's does; a
        host running on simulated time can replace it)."""
        return self.rt.on_sleep

    @on_sleep.setter
    def on_sleep(self, fn: Callable[[float], None]) -> None:
        self.rt.on_sleep = fn

    def _add_native(self, name: str, call: Callable[..., Any], sig_of: Callable[..., Any],
                    arity: int | None = None, skip_first: bool = False,
                    kind: str = "builtin") -> None:
        """Register ``call`` under ``name`` for each arity its signature allows.

        Resolution for one name and arity, as Rhai's type-based dispatch would pick: host
        functions with every parameter typed (newest first), then the built-in package
        functions, then the newest host function with untyped (dynamic) parameters. Each
        candidate that raises :class:`FnNotFound` passes to the next."""
        rt = self.rt
        if arity is not None:
            arities, variadic = [arity], False
        else:
            params = list(inspect.signature(sig_of).parameters.values())
            if skip_first:
                params = params[1:]
            variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
            params = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            lo = sum(1 for p in params if p.default is p.empty)
            arities = list(range(lo, len(params) + 1))
        entries = self._entries.setdefault(name, {})
        keys: list[int | str] = [*arities, "*"] if variadic else list(arities)
        for key in keys:
            slot = entries.setdefault(key, {"typed": [], "builtin": [], "dynamic": None})
            if kind == "dynamic":
                slot["dynamic"] = call
            else:
                slot[kind].insert(0, call)
        star = entries.get("*")
        for key, slot in entries.items():
            chain = [*slot["typed"], *slot["builtin"]]
            if slot["dynamic"] is not None:
                chain.append(slot["dynamic"])
            if key == "*":
                rt.variadic[name] = _chain_all(chain)
                continue
            if star is not None:  # a variadic function also serves every fixed arity
                chain += [*star["typed"], *star["builtin"]]
                if star["dynamic"] is not None:
                    chain.append(star["dynamic"])
            rt.natives.setdefault(name, {})[key] = _chain_all(chain)
        rt.version += 1

    def register_fn(self, name: str, fn: Callable[..., Any], arity: int | None = None) -> None:
        """Expose a Python function to scripts. Arity comes from the signature (each count
        allowed by default parameters is registered; ``*args`` makes it variadic) unless
        given. It receives and returns Rhai values as Python objects (see the package doc);
        returning ``None`` gives ``()``.

        Overloading follows Rhai's type dispatch: parameters annotated with Rhai-mapped types
        (``int``, ``float``, ``bool``, ``str``, ``list``, ``dict``, :class:`Char`,
        :class:`FnPtr`, ...) only accept exactly those types. A function whose parameters are
        all typed (or that has none) is tried before the built-in functions of the same name
        and arity; one with untyped (``Any``/unannotated) parameters only after them, so
        ``get(entity, port)`` coexists with the built-in array/map ``get``. Registering an
        untyped function again replaces the previous one; raising ``FnNotFound`` from a host
        function passes the call on to the next candidate."""
        wrapped, fully_typed = _typed(fn)
        self._add_native(name, wrapped, fn, arity, kind="typed" if fully_typed else "dynamic")

    def register_global_module(self, ast_or_source: AST | str, file: str = "") -> AST:
        """Make a script's non-private functions callable from every script (a prelude).
        Its top level runs once (so its constants exist for its own ``global::`` reads)."""
        ast = ast_or_source if isinstance(ast_or_source, AST) else \
            self.compile(ast_or_source, file=file)
        self._exec_top(ast.lib, Scope())
        for key, fns in ast.lib.fns.items():
            public = [f for f in fns if not f.private]
            if public:
                self.rt.global_fns[key] = public + self.rt.global_fns.get(key, [])
        self.rt.version += 1
        return ast

    # ── compile and run ────────────────────────────────────────────────────────────────
    def compile(self, source: str, file: str = "") -> AST:
        """Parse and compile; raises :class:`RhaiSyntaxError` (file, line, col, message)."""
        try:
            script = parse(source, file, self.limits.max_expr_depth)
            lib = Compiler(self.rt, script, file).compile()
        except RecursionError:
            raise RhaiSyntaxError("Expression exceeds maximum complexity", file, 1, 1) from None
        except MemoryError:
            raise RhaiSyntaxError("Script too large to compile: out of memory", file, 1, 1) \
                from None
        return AST(lib, source, file, self)

    def run(self, ast: AST | str, scope: Scope | None = None) -> Any:
        """Run the top level; top-level variables are written back into ``scope``."""
        if isinstance(ast, str):
            ast = self.compile(ast)
        if scope is None:
            scope = Scope()
        elif self.rt.meter is not None:
            self._hold(scope, scope.held_this if scope.held_by is self._ref else None)
        return self._exec_top(ast.lib, scope)[0]

    def eval(self, source: str, scope: Scope | None = None, file: str = "") -> Any:
        """Compile and run ``source``; returns the value of its last statement."""
        return self.run(self.compile(source, file), scope)

    def has_fn(self, ast: AST, name: str, arity: int | None = None) -> bool:
        """Does the script define ``name`` (with ``arity`` parameters, if given)?"""
        if arity is None:
            return any(k[0] == name for k in ast.lib.fns)
        return (name, arity) in ast.lib.fns

    def call_fn(self, ast: AST, name: str, args: list[Any] | tuple[Any, ...] = (),
                this: Any = None, scope: Scope | None = None) -> Any:
        """Call a script function (of ``ast``, else of a global module, e.g. a prelude driver)
        without re-running the top level. ``this`` (a dict for
        entity state) is bound as ``this``; changes, including reassignment, are written
        back into the same dict so state persists across calls."""
        fns = ast.lib.fns.get((name, len(args))) or self.rt.global_fns.get((name, len(args)))
        if not fns:
            raise RhaiRuntimeError(f"Function not found: {name} with {len(args)} "
                                   f"parameter{'s' if len(args) != 1 else ''}", ast.file)
        sf = pick_untyped(fns) or fns[0]
        rt = self.rt
        if scope is None:
            scope = Scope()
        elif rt.meter is not None:
            self._hold(scope, this)
        saved = self._enter(ast.lib, scope)
        this_in = UNBOUND if this is None else this
        rt.entry_depth = rt.depth + 1
        oom = None
        try:
            res, new_this = rt.invoke(sf, list(args), this_in)
            rt.check_ops(ast.file)
        except RecursionError:
            raise RhaiLimitError(f"Stack overflow in function '{name}'", ast.file) from None
        except MemoryError as e:
            oom = self._out_of_memory(e, ast.file)
        finally:
            self._leave(saved)
        if oom is not None:
            raise oom
        if type(this) is dict and new_this is not this and type(new_this) is dict:
            this.clear()
            this.update(new_this)
        return res

    def call_fn_ptr(self, fp: FnPtr, args: list[Any] | tuple[Any, ...] = (),
                    this: Any = None, ast: AST | None = None, scope: Scope | None = None) -> Any:
        """Call a function pointer a script handed to the host (a closure, or a named function
        looked up in ``ast`` and the global modules); ``this`` is written back as in
        :meth:`call_fn`."""
        rt = self.rt
        if scope is None:
            scope = Scope()
        elif rt.meter is not None:
            self._hold(scope, this)
        saved = self._enter(ast.lib if ast is not None else rt.main_lib, scope)
        oom = None
        try:
            res, new_this = rt.call_fnptr_this(fp, list(args),
                                               UNBOUND if this is None else this)
            rt.check_ops()
        except RecursionError:
            raise RhaiLimitError(f"Stack overflow in function '{fp.name}'") from None
        except MemoryError as e:
            oom = self._out_of_memory(e, ast.file if ast is not None else "")
        finally:
            self._leave(saved)
        if oom is not None:
            raise oom
        if type(this) is dict and new_this is not this and type(new_this) is dict:
            this.clear()
            this.update(new_this)
        return res

    # ── internals ──────────────────────────────────────────────────────────────────────
    def _enter(self, lib: CompiledLib, scope: Scope) -> tuple[Any, ...]:
        rt = self.rt
        m = rt.meter
        # the thread's running meter, switched to this engine's (untouched while no engine in
        # the process has a memory budget)
        prev = ACTIVE.meter if _METERED else None
        saved = (rt.ops, rt.depth, rt.scope, rt.scope_consts, rt.main_lib, rt.entry_depth, prev)
        rt.ops = 0
        rt.entry_depth = -1
        rt.scope = scope.vars
        rt.scope_consts = scope.consts
        rt.main_lib = lib
        if prev is not m:
            ACTIVE.meter = m
        if m is not None:
            m.nesting += 1
        return saved

    def _leave(self, saved: tuple[Any, ...]) -> None:
        rt = self.rt
        rt.ops, rt.depth, rt.scope, rt.scope_consts, rt.main_lib, rt.entry_depth, prev = saved
        m = rt.meter
        if prev is not m:
            ACTIVE.meter = prev
        if m is not None:
            m.nesting -= 1
            if not m.nesting and m.large:
                m.prune()  # let go of the big values the call made and dropped

    def _hold(self, scope: Scope, this: Any) -> None:
        """Count ``scope`` (and the ``this`` passed with it) in the memory budget while the
        host keeps it (a mark on the scope: one attribute store a call)."""
        if scope.held_by is not self._ref:
            scope.held_by = self._ref
            self._held.add(scope)
        scope.held_this = this

    def _memory_roots(self) -> list[Any]:
        """What the engine holds between calls, for the memory budget's measure."""
        rt = self.rt
        roots: list[Any] = [rt.scope, self.printed, *self._modules.values()]
        if rt.main_lib is not None:
            roots.append(rt.main_lib.globals)
        roots += [lib.globals for lib in list(self._libs)]
        for scope in list(self._held):
            if scope.held_by is self._ref:
                roots.append(scope.vars)
                roots.append(scope.held_this)
        return roots

    def _out_of_memory(self, e: MemoryError, file: str) -> RhaiLimitError:
        """A Python ``MemoryError`` as the memory-budget error, at the innermost script
        position in its traceback; the traceback's frames are cleared so their values go."""
        m = self.rt.meter
        err = out_of_memory_error(m.budget if m is not None else 0)
        where = None
        tb = e.__traceback__
        try:
            while tb is not None:  # compiled nodes keep their position in file/line/col
                loc = tb.tb_frame.f_locals
                line, col, fl = loc.get("line"), loc.get("col"), loc.get("file")
                if type(line) is int and type(col) is int and type(fl) is str and line > 0:
                    where = (fl, line, col)
                tb = tb.tb_next
        except MemoryError:  # still none to spare: the innermost position found so far
            pass
        traceback.clear_frames(e.__traceback__)
        e.__traceback__ = tb = None
        if where is not None:
            err.locate(*where)
        elif file:
            err.file = file
        if m is not None:
            m.est = m.trigger + 1  # measure again at the next allocation
        return err

    def _exec_top(self, lib: CompiledLib, scope: Scope) -> tuple[Any, list]:
        top = lib.top
        assert top is not None and top.body is not None
        f: list[Any] = [None] * top.nslots
        f[0] = UNBOUND
        saved = self._enter(lib, scope)
        if self.rt.meter is not None:
            self._libs.add(lib)
        oom = None
        try:
            try:
                r = top.body(f)
            except ReturnSignal as ret:
                r = ret.value
            except (BreakSignal, ContinueSignal):
                raise RhaiRuntimeError("break/continue outside a loop", lib.file) from None
            except RecursionError:
                raise RhaiLimitError("Stack overflow: script nests too deeply", lib.file) \
                    from None
            except MemoryError as e:
                oom = self._out_of_memory(e, lib.file)
                r = Unit
            self.rt.check_ops(lib.file)
        finally:
            self._leave(saved)
            for name, slot, boxed in lib.top_vars:
                v = f[slot]
                if v is None:
                    continue
                scope.vars[name] = v.v if boxed and type(v) is Cell else v
                if name in lib.const_names:
                    scope.consts.add(name)
        if oom is not None:
            raise oom
        return (Unit if r is None else r), f

    def _resolve(self, path: str, file: str, line: int, col: int) -> Path:
        # a leading "/" means "from a module root" (asset-root relative), never the filesystem root
        rooted = path.replace("\\", "/")
        if rooted.startswith("/") and not rooted.startswith("//"):
            rooted = rooted.lstrip("/")
        p = PurePosixPath(rooted)
        if p.is_absolute() or rooted.startswith(("/", "\\")) or (len(rooted) > 1 and rooted[1] == ":"):
            raise RhaiRuntimeError(f"Module path '{path}' is absolute; only paths relative to "
                                   "the module roots are allowed", file, line, col)
        if ".." in p.parts:
            raise RhaiRuntimeError(f"Module path '{path}' escapes the module roots ('..' is "
                                   "not allowed)", file, line, col)
        if not self.module_roots:
            raise RhaiRuntimeError(f"Module not found: {path} (no module roots are configured)",
                                   file, line, col)
        rel = str(p) if p.suffix == ".rhai" else str(p) + ".rhai"
        for root in self.module_roots:
            cand = (root / rel).resolve()
            if not cand.is_relative_to(root):
                raise RhaiRuntimeError(f"Module path '{path}' escapes the module roots",
                                       file, line, col)
            if cand.is_file():
                return cand
        raise RhaiRuntimeError(f"Module not found: {path}", file, line, col)

    def _import(self, path: str, file: str, line: int, col: int) -> Module:
        full = self._resolve(path, file, line, col)
        m = self._modules.get(full)
        if m is not None:
            return m
        if full in self._loading:
            raise RhaiRuntimeError(f"Module '{path}' imports itself (cycle)", file, line, col)
        self._loading.add(full)
        rt = self.rt
        saved_depth = rt.depth
        try:
            try:
                src = read_text_limited(full, "Rhai module")
            except (OSError, UnreadableFile) as exc:
                raise RhaiRuntimeError(f"Module '{path}' cannot be read: {exc}", file, line,
                                       col) from None
            ast = self.compile(src, file=str(full))
            saved_ops = rt.ops
            _, frame = self._exec_top(ast.lib, Scope())
            rt.ops = saved_ops
        finally:
            self._loading.discard(full)
            rt.depth = saved_depth
        m = Module(path)
        for alias, (slot, boxed) in ast.lib.exports.items():
            v = frame[slot]
            v = v.v if boxed and type(v) is Cell else v
            if type(v) is Module:
                m.submodules[alias] = v
            m.vars[alias] = v
        for key, fns in ast.lib.fns.items():
            sf: ScriptFn | None = pick_untyped([f for f in fns if not f.private])
            if sf is not None:
                m.fns[key] = sf
        self._modules[full] = m
        return m
