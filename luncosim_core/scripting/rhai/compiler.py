"""Compile a Rhai syntax tree to Python closures over a frame (a list of variable slots).

Every function body (and the script's top level, and each closure) gets a frame: slot 0 holds
``this``, then parameters, then one slot per ``let`` (slots are resolved at compile time).
Variables captured by a closure live in :class:`~.runtime.Cell` boxes so that the closure and
its definer share them. Top-level names not declared in the script are looked up in the
host's :class:`Scope` at run time. Arrays and maps have value semantics: a value read from a
place (variable, property, index) is deep-copied when it is stored somewhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ops
from .access import get_index, get_prop, set_index, set_prop
from .ast import FnDef, Node, Script
from .compile_base import (
    CompiledLib,
    E,
    Fn,
    FnCtx,
    VarInfo,
    _seq,
    closure_names,
    error_map,
    iterate,
    mutated_params,
)
from .compile_calls import CallsMixin
from .compile_flow import FlowMixin
from .errors import (
    CONTINUE,
    BreakSignal,
    ReturnSignal,
    RhaiRuntimeError,
    RhaiSyntaxError,
)
from .fastops import binary as fast_binary
from .fastops import compound_to_slot
from .memory import ELEM as MEM_ELEM
from .memory import ENTRY, LIST, MAP, STR
from .opcount import Weigher
from .runtime import (
    UNBOUND,
    Cell,
    Module,
    Runtime,
    ScriptFn,
)
from .values import (
    Char,
    FnPtr,
    RhaiRange,
    Unit,
    deep_copy,
    to_display,
    type_of,
)

__all__ = ["CompiledLib", "Compiler", "FnCtx", "VarInfo", "closure_names", "error_map", "iterate"]


class Compiler(FlowMixin, CallsMixin):
    """Compiles one :class:`Script` against a :class:`Runtime`."""

    def __init__(self, rt: Runtime, script: Script, file: str) -> None:
        self.rt = rt
        self.script = script
        self.file = file
        self.lib = CompiledLib(file)
        self.ctx: FnCtx = FnCtx("top", None, set())
        self.closure_count = 0
        fns = self.lib.fns
        self.weigh = Weigher(lambda name, nargs: (name, nargs) in fns)

    def err(self, msg: str, n: Node) -> RhaiSyntaxError:
        return RhaiSyntaxError(msg, self.file, n.line, n.col)

    # ── entry ──────────────────────────────────────────────────────────────────────────
    def compile(self) -> CompiledLib:
        lib = self.lib
        fdefs: list[tuple[FnDef, ScriptFn]] = []
        for fd in self.script.fns:
            sf = ScriptFn(fd.name, len(fd.params), self.file, fd.line, fd.col,
                          this_type=fd.this_type, private=fd.private, lib=lib)
            lib.fns.setdefault((fd.name, len(fd.params)), []).append(sf)
            fdefs.append((fd, sf))
        for fd, sf in fdefs:
            self.compile_fn(fd, sf)
            sf.ops = self.weigh.body(fd.body)
        top_ctx = FnCtx("top", None, closure_names(self.script.stmts))
        self.ctx = top_ctx
        body = self.block_body(self.script.stmts, new_scope=False, top=True, charge_first=True)
        top = ScriptFn("<top>", 0, self.file, 1, 1, lib=lib)
        top.body = body
        top.nslots = top_ctx.nslots
        lib.top = top
        return lib

    def compile_fn(self, fd: FnDef, sf: ScriptFn) -> None:
        ctx = FnCtx("fn", None, closure_names(fd.body))
        saved = self.ctx
        self.ctx = ctx
        params = [ctx.declare(p) for p in fd.params]
        sf.boxed_params = tuple(v.slot for v in params if v.boxed)
        mutated = mutated_params(fd.params, fd.body)
        sf.copy_params = tuple(i for i, p in enumerate(fd.params) if p in mutated)
        sf.body = self.block_body(fd.body.stmts, new_scope=True, ret_copy=True)
        sf.nslots = ctx.nslots
        self.ctx = saved

    # ── blocks and statements ──────────────────────────────────────────────────────────
    def block_body(self, stmts: list[Node], new_scope: bool = True, top: bool = False,
                   ret_copy: bool = False, charge_first: bool = False) -> Fn:
        """A block's statements. Their operations are charged by runs (see :mod:`.opcount`):
        the first run by whoever enters the block (a call, a loop iteration, a branch), or
        here with ``charge_first``; each later run by a charge placed before it."""
        ctx = self.ctx
        if new_scope:
            ctx.scopes.append({})
        segs = self.weigh.segments(stmts) if stmts else []
        starts = dict(segs if charge_first else segs[1:])
        fns: list[Fn] = []
        for i, st in enumerate(stmts):
            if starts.get(i):
                fns.append(self.charge(starts[i], st))
            last = i == len(stmts) - 1
            fns.append(self.stmt(st, top=top, ret_copy=ret_copy and last))
        if new_scope:
            ctx.scopes.pop()
        return _seq(fns)

    def charge(self, w: int, st: Node) -> Fn:
        """A statement-list entry counting ``w`` operations (the run of statements it
        precedes), failing past the limit."""
        rt, mx = self.rt, self.rt.max_ops
        where = (self.file, st.line, st.col)

        def charge(f: list) -> Any:
            o = rt.ops + w
            rt.ops = o
            if o > mx:
                raise rt.too_many_ops().locate(*where)
            return Unit
        return charge

    def stmt(self, st: Node, top: bool = False, ret_copy: bool = False) -> Fn:
        k = st.k
        if k == "expr":
            return self.stmt_expr(st, ret_copy)
        if k == "let":
            return self.stmt_let(st, top)
        m = getattr(self, "stmt_" + k, None)
        if m is None:
            raise self.err(f"Unsupported statement: {k}", st)
        return m(st)

    def stmt_expr(self, st: Node, ret_copy: bool) -> Fn:
        e = self.expr(st.e)
        if ret_copy and not e.fresh:
            g = e.fn
            return lambda f: deep_copy(g(f))
        return e.fn

    def stmt_break(self, st: Node) -> Fn:
        if not self.ctx.loops:
            raise self.err("'break' can only be used inside a loop", st)
        if st.e is None:
            def brk(f: list) -> Any:
                raise BreakSignal(Unit)
            return brk
        val = self.value(st.e)

        def brk_v(f: list) -> Any:
            raise BreakSignal(val(f))
        return brk_v

    def stmt_continue(self, st: Node) -> Fn:
        if not self.ctx.loops:
            raise self.err("'continue' can only be used inside a loop", st)

        def cont(f: list) -> Any:
            raise CONTINUE
        return cont

    def stmt_throw(self, st: Node) -> Fn:
        val = self.value(st.e) if st.e is not None else (lambda f: Unit)
        file, line, col = self.file, st.line, st.col

        def throw(f: list) -> Any:
            v = val(f)
            text = "Runtime error" if v is Unit else f"Runtime error: {to_display(v)}"
            raise RhaiRuntimeError(text, file, line, col, value=v)
        return throw

    def stmt_export(self, st: Node) -> Fn:
        for name, alias in st.names:
            v = self.ctx.lookup(name)
            if v is None:
                raise self.err(f"Variable not found: {name}", st)
            self.lib.exports[alias] = (v.slot, v.boxed)
        return lambda f: Unit

    def stmt_let(self, st: Node, top: bool) -> Fn:
        ctx = self.ctx
        init = self.value(st.e) if st.e is not None else (lambda f: Unit)
        v = ctx.declare(st.name, st.const)
        s = v.slot
        outermost = top and len(ctx.scopes) == 1
        if outermost:
            self.lib.top_vars.append((st.name, s, v.boxed))
            if st.export:
                self.lib.exports[st.name] = (s, v.boxed)
        rt = self.rt
        if st.const and outermost:
            g = self.lib.globals
            self.lib.const_names.add(st.name)
            name, boxed = st.name, v.boxed

            def let_const(f: list) -> Any:
                val = init(f)
                g[name] = val
                f[s] = Cell(val) if boxed else val
                return Unit
            return let_const
        if v.boxed:
            def let_boxed(f: list) -> Any:
                f[s] = Cell(init(f))
                return Unit
            return let_boxed
        sized = rt.limits.max_string_size or rt.limits.max_array_size or rt.limits.max_map_size
        if rt.meter is not None:  # a memory-budget error names the statement's position
            return self._let_located(st, s, init, rt.check_size if sized else None)
        if sized:
            chk = rt.check_size

            def let_checked(f: list) -> Any:
                f[s] = chk(init(f))
                return Unit
            return let_checked

        def let_(f: list) -> Any:
            f[s] = init(f)
            return Unit
        return let_

    def _let_located(self, st: Node, s: int, init: Fn, chk: Callable[[Any], Any] | None) -> Fn:
        """``let`` whose errors (a memory-budget refusal in the initial value) name its
        position."""
        file, line, col = self.file, st.line, st.col
        if chk is not None:
            def let_checked_m(f: list) -> Any:
                try:
                    f[s] = chk(init(f))
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
                return Unit
            return let_checked_m

        def let_m(f: list) -> Any:
            try:
                f[s] = init(f)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            return Unit
        return let_m

    def stmt_return(self, st: Node) -> Fn:
        if st.e is None:
            def ret(f: list) -> Any:
                raise ReturnSignal(Unit)
            return ret
        val = self.value(st.e)

        def ret_v(f: list) -> Any:
            raise ReturnSignal(val(f))
        return ret_v

    def stmt_import(self, st: Node) -> Fn:
        path = self.value(st.path)
        alias = st.alias
        v = self.ctx.declare(alias) if alias else None
        rt, file, line, col = self.rt, self.file, st.line, st.col

        def imp(f: list) -> Any:
            p = path(f)
            if type(p) is not str:
                raise RhaiRuntimeError(f"Module path must be a string, not {type_of(p)}",
                                       file, line, col)
            if rt.import_module is None:
                raise RhaiRuntimeError("Module not found: no module resolver is configured",
                                       file, line, col)
            m = rt.import_module(p, file, line, col)
            if v is not None:
                f[v.slot] = Cell(m) if v.boxed else m
            return Unit
        return imp

    # ── assignment ─────────────────────────────────────────────────────────────────────
    def stmt_assign(self, st: Node) -> Fn:
        """Assignment; ``x?[2] = v`` / ``x?.a = v`` do nothing when ``x`` is ``()``, and an
        element of a constant cannot be assigned (a compile-time error, as in Rhai)."""
        root, guard = st.target, None
        while root.k in ("prop", "index"):
            if root.safe and guard is None:
                guard = root.obj
            root = root.obj
        if root.k == "var" and root is not st.target:
            v = self.ctx.lookup(root.name)
            if (v is not None and v.const) or (v is None and root.name in self.lib.const_names):
                raise self.err(f"Cannot modify constant {root.name}", root)
        inner = self._assign(st)
        if guard is None:
            return inner
        g = self.expr(guard).fn

        def safe_assign(f: list) -> Any:
            return Unit if g(f) is Unit else inner(f)
        return safe_assign

    def _assign(self, st: Node) -> Fn:
        t = st.target
        if t.k == "var":
            v = self.ctx.lookup(t.name)
            if (v is not None and v.const) or (v is None and t.name in self.lib.const_names):
                raise self.err(f"Cannot modify constant {t.name}", t)
            if v is not None and not v.boxed:
                fast = self._assign_slot(st, v.slot)
                if fast is not None:
                    return fast
        getter, setter = self.lvalue(t)
        if st.op == "=":
            return self._assign_place(st, setter)
        if st.op == "??=":
            return self._assign_coalesce(st, getter, setter)
        return self._assign_op(st, getter, setter)

    def _assign_slot(self, st: Node, s: int) -> Fn | None:
        """Fast paths for a local (unboxed) variable: ``x = v``, ``x op= v``."""
        op = st.op
        file, line, col = self.file, st.line, st.col
        if op == "=":
            val = self.value(st.value)
            if self.rt.meter is not None:  # a memory-budget error names the position
                def set_slot_m(f: list) -> Any:
                    try:
                        f[s] = val(f)
                    except RhaiRuntimeError as e:
                        raise e.locate(file, line, col) from None
                    return Unit
                return set_slot_m

            def set_slot(f: list) -> Any:
                f[s] = val(f)
                return Unit
            return set_slot
        if op == "??=":
            return None
        rhs = self.expr(st.value)
        if op != "+=":
            return compound_to_slot(op[:-1], s, rhs.operand(), self.rt.binary[op[:-1]],
                                    file, line, col)
        if rhs.shape == "const" and type(rhs.val) in (int, float):
            return compound_to_slot("+", s, rhs.operand(), self.rt.add_assign, file, line, col)
        return None

    def _assign_place(self, st: Node, setter: Callable[[list, Any], None]) -> Fn:
        val = self.value(st.value)
        rt = self.rt
        file, line, col = self.file, st.line, st.col
        if rt.limits.max_string_size or rt.limits.max_array_size or rt.limits.max_map_size:
            chk = rt.check_size

            def assign_chk(f: list) -> Any:
                try:
                    setter(f, chk(val(f)))
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
                return Unit
            return assign_chk

        def assign(f: list) -> Any:
            try:
                setter(f, val(f))
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            return Unit
        return assign

    def _assign_coalesce(self, st: Node, getter: Fn, setter: Callable[[list, Any], None]) -> Fn:
        val = self.value(st.value)
        file, line, col = self.file, st.line, st.col

        def assign_coalesce(f: list) -> Any:
            try:
                if getter(f) is Unit:
                    setter(f, val(f))
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            return Unit
        return assign_coalesce

    def _assign_op(self, st: Node, getter: Fn, setter: Callable[[list, Any], None]) -> Fn:
        val = self.value(st.value)
        op = st.op
        opfn = self.rt.add_assign if op == "+=" else self.rt.binary[op[:-1]]
        chk = self.rt.check_size
        file, line, col = self.file, st.line, st.col

        def assign_op(f: list) -> Any:
            try:
                cur = getter(f)
                new = chk(opfn(cur, val(f)))
                if new is not cur or type(new) not in (list, dict, bytearray):
                    setter(f, new)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            return Unit
        return assign_op

    def lvalue(self, t: Node) -> tuple[Fn, Callable[[list, Any], None]]:
        """Getter (by reference) and setter of an assignable place."""
        m = _LVALUES.get(t.k)
        if m is None:
            raise self.err("Cannot assign to this expression", t)
        return m(self, t)

    def _lv_var(self, t: Node) -> tuple[Fn, Callable[[list, Any], None]]:
        v = self.ctx.lookup(t.name)
        if v is None:
            if not self.ctx.dynamic_ok():
                return self.fn_free_name(t.name, self.file, t.line, t.col)
            return self._lv_scope(t)
        s = v.slot
        if v.boxed:
            def bget(f: list) -> Any:
                return f[s].v

            def bset(f: list, val: Any) -> None:
                f[s].v = val
            return bget, bset

        def sget(f: list) -> Any:
            return f[s]

        def sset(f: list, val: Any) -> None:
            f[s] = val
        return sget, sset

    def _lv_scope(self, t: Node) -> tuple[Fn, Callable[[list, Any], None]]:
        """A top-level name the script does not declare: the host scope's variable (or, when
        there is none, a function of that name as a pointer)."""
        rt, lib, name = self.rt, self.lib, t.name
        file, line, col = self.file, t.line, t.col

        def dget(f: list) -> Any:
            try:
                return rt.scope[name]
            except KeyError:
                if fn_named(rt, lib, name):
                    return FnPtr(name)  # a bare function name is a function pointer
                raise RhaiRuntimeError(f"Variable not found: {name}", file, line,
                                       col) from None

        def dset(f: list, val: Any) -> None:
            if name not in rt.scope:
                raise RhaiRuntimeError(f"Variable not found: {name}", file, line, col)
            if name in rt.scope_consts:
                raise RhaiRuntimeError(f"Cannot modify constant {name}", file, line,
                                       col)
            rt.scope[name] = val
        return dget, dset

    def _lv_this(self, t: Node) -> tuple[Fn, Callable[[list, Any], None]]:
        file, line, col = self.file, t.line, t.col

        def tget(f: list) -> Any:
            t = f[0]
            if t is UNBOUND:
                raise RhaiRuntimeError("'this' not bound", file, line, col)
            return t

        def tset(f: list, val: Any) -> None:
            f[0] = val
        return tget, tset

    def _lv_prop(self, t: Node) -> tuple[Fn, Callable[[list, Any], None]]:
        og, _ = self.place_or_value(t.obj)
        name = t.name
        file, line, col = self.file, t.line, t.col

        def pget(f: list) -> Any:
            return get_prop(og(f), name)

        chk = self.rt.check_map if self.rt.limits.max_map_size else None
        meter = self.rt.meter
        if meter is not None:
            entry = ENTRY + len(name)

            def pset_m(f: list, val: Any) -> None:
                o = og(f)
                if type(o) is dict:
                    if name not in o:
                        meter.charge(entry)
                    o[name] = val
                    if chk is not None:
                        chk(o)
                    return
                try:
                    set_prop(o, name, val)
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return pget, pset_m

        def pset(f: list, val: Any) -> None:
            o = og(f)
            if type(o) is dict:
                o[name] = val
                if chk is not None:
                    chk(o)
                return
            try:
                set_prop(o, name, val)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return pget, pset

    def _lv_index(self, t: Node) -> tuple[Fn, Callable[[list, Any], None]]:
        og, os_ = self.place_or_value(t.obj)
        idx = self.value(t.idx)
        rt = self.rt
        lim_map = bool(rt.limits.max_map_size)
        file, line, col = self.file, t.line, t.col

        def iget(f: list) -> Any:
            return get_index(og(f), idx(f))

        meter = rt.meter
        if meter is not None:
            def iset_m(f: list, val: Any) -> None:
                o = og(f)
                i = idx(f)
                if type(o) is dict and (type(i) is str or type(i) is Char) and str(i) not in o:
                    meter.charge(ENTRY + len(i))
                n = set_index(o, i, val)
                if n is not o:
                    if type(n) is str:  # a string with one character replaced: a new one
                        meter.note(n, STR + len(n))
                    if os_ is None:
                        raise RhaiRuntimeError("Cannot assign into a temporary value", file,
                                               line, col)
                    os_(f, n)
                elif type(n) is dict and lim_map:
                    rt.check_map(n)
            return iget, iset_m

        def iset(f: list, val: Any) -> None:
            o = og(f)
            n = set_index(o, idx(f), val)
            if type(n) is dict and lim_map:
                rt.check_map(n)
            if n is not o:
                if os_ is None:
                    raise RhaiRuntimeError("Cannot assign into a temporary value", file,
                                           line, col)
                os_(f, n)
        return iget, iset

    def fn_free_name(self, name: str, file: str, line: int,
                     col: int) -> tuple[Fn, Callable[[list, Any], None]]:
        """A name a function body does not declare: the script's top-level constants, the
        host scope's constants, and (for the function the host calls through ``call_fn``) the
        host scope's variables; never the script's variables."""
        g, rt, lib = self.lib.globals, self.rt, self.lib

        def fget(f: list) -> Any:
            if name in g:
                return g[name]
            sc = rt.scope
            if name in sc and (name in rt.scope_consts or rt.depth == rt.entry_depth):
                return sc[name]
            if fn_named(rt, lib, name):
                return FnPtr(name)  # a bare function name is a function pointer
            raise RhaiRuntimeError(f"Variable not found: {name}", file, line, col)

        def fset(f: list, val: Any) -> None:
            if name in g or name in rt.scope_consts:
                raise RhaiRuntimeError(f"Cannot modify constant {name}", file, line, col)
            if name in rt.scope and rt.depth == rt.entry_depth:
                rt.scope[name] = val
                return
            raise RhaiRuntimeError(f"Variable not found: {name}", file, line, col)
        return fget, fset

    def place_or_value(self, n: Node) -> tuple[Fn, Callable[[list, Any], None] | None]:
        if n.k == "path":
            g = self.expr(n).fn
            return (lambda f: deep_copy(g(f))), None  # module variables are constants
        if n.k == "var":
            v = self.ctx.lookup(n.name)
            if v is not None and v.const:
                g = self.expr(n).fn
                return (lambda f: deep_copy(g(f))), None  # a constant is never modified
            if v is None and not self.ctx.dynamic_ok():
                fget, fset = self.fn_free_name(n.name, self.file, n.line, n.col)
                consts, rt, name = self.lib.globals, self.rt, n.name

                def free_receiver(f: list) -> Any:
                    val = fget(f)
                    return deep_copy(val) if name in consts or name in rt.scope_consts else val
                return free_receiver, fset
        if n.k in ("var", "this", "prop", "index"):
            return self.lvalue(n)
        return self.expr(n).fn, None

    # ── expressions ────────────────────────────────────────────────────────────────────
    def value(self, n: Node) -> Fn:
        """An expression whose value will be stored: copied if it may alias a place."""
        e = self.expr(n)
        if e.fresh:
            return e.fn
        g = e.fn
        return lambda f: deep_copy(g(f))

    def expr(self, n: Node) -> E:
        m = getattr(self, "x_" + n.k, None)
        if m is None:
            if n.k in ("let", "assign", "return", "break", "continue", "throw", "import",
                       "export", "expr"):
                return E(self.stmt(n))
            raise self.err(f"Unsupported expression: {n.k}", n)
        return m(n)

    def x_lit(self, n: Node) -> E:
        v = n.value
        return E(lambda f: v, "const", v, True)

    def x_istr(self, n: Node) -> E:
        parts: list[Any] = []
        for p in n.parts:
            if isinstance(p, str):
                parts.append(p)
            else:
                self.ctx.scopes.append({})
                parts.append(self.block_body(p.stmts, new_scope=False))
                self.ctx.scopes.pop()
        chk = self.rt.check_string
        file, line, col = self.file, n.line, n.col
        meter = self.rt.meter
        if meter is not None:
            def istr_m(f: list) -> Any:
                out = []
                for p in parts:
                    if type(p) is str:
                        out.append(p)
                    else:
                        out.append(to_display(p(f)))
                try:
                    r = chk("".join(out))
                    meter.note(r, STR + len(r))
                    return r
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return E(istr_m, fresh=True)

        def istr(f: list) -> Any:
            out = []
            for p in parts:
                if type(p) is str:
                    out.append(p)
                else:
                    out.append(to_display(p(f)))
            try:
                return chk("".join(out))
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(istr, fresh=True)

    def x_var(self, n: Node) -> E:
        v = self.ctx.lookup(n.name)
        if v is None:
            g, _ = self.lvalue(n)
            return E(g)
        s = v.slot
        if v.boxed:
            return E(lambda f: f[s].v)
        return E(lambda f: f[s], "slot", s)

    def x_this(self, n: Node) -> E:
        file, line, col = self.file, n.line, n.col

        def this(f: list) -> Any:
            t = f[0]
            if t is UNBOUND:
                raise RhaiRuntimeError("'this' not bound", file, line, col)
            return t
        return E(this)

    def x_path(self, n: Node) -> E:
        ns, name = n.ns, n.name
        file, line, col = self.file, n.line, n.col
        rt = self.rt
        if ns == ["global"]:
            g = self.lib.globals

            def gread(f: list) -> Any:
                if name in g:
                    return g[name]
                if name in rt.scope_consts:
                    return rt.scope[name]
                raise RhaiRuntimeError(f"Variable not found: global::{name}", file, line, col)
            return E(gread)
        modget = self.module_getter(ns, n)

        def mread(f: list) -> Any:
            m = modget(f)
            if name in m.vars:
                return m.vars[name]
            raise RhaiRuntimeError(f"Variable not found: {'::'.join(ns)}::{name}", file, line,
                                   col)
        return E(mread)

    def module_getter(self, ns: list[str], n: Node) -> Fn:
        file, line, col = self.file, n.line, n.col
        v = self.ctx.lookup(ns[0])
        rest = ns[1:]
        rt = self.rt
        if v is None:
            def from_scope(f: list) -> Any:
                m = rt.scope.get(ns[0])
                if type(m) is not Module:
                    raise RhaiRuntimeError(f"Module not found: {ns[0]}", file, line, col)
                return m
            base = from_scope
        else:
            s, boxed = v.slot, v.boxed

            def from_slot(f: list) -> Any:
                m = f[s].v if boxed else f[s]
                if type(m) is not Module:
                    raise RhaiRuntimeError(f"Module not found: {ns[0]}", file, line, col)
                return m
            base = from_slot
        if not rest:
            return base

        def nested(f: list) -> Any:
            m = base(f)
            for part in rest:
                sub = m.submodules.get(part) or m.vars.get(part)
                if type(sub) is not Module:
                    raise RhaiRuntimeError(f"Module not found: {part}", file, line, col)
                m = sub
            return m
        return nested

    def x_array(self, n: Node) -> E:
        items = [self.value(i) for i in n.items]
        chk = self.rt.check_array
        meter = self.rt.meter
        if meter is not None:
            size = LIST + MEM_ELEM * len(items)
            chk_m = chk if self.rt.limits.max_array_size else None
            file, line, col = self.file, n.line, n.col

            def array_m(f: list) -> Any:
                try:
                    meter.charge(size)
                    a = []  # a local (not a comprehension): the measure sees it being built
                    for i in items:
                        a.append(i(f))
                    return a if chk_m is None else chk_m(a)
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return E(array_m, fresh=True)
        if self.rt.limits.max_array_size:
            return E(lambda f: chk([i(f) for i in items]), fresh=True)
        return E(lambda f: [i(f) for i in items], fresh=True)

    def x_map(self, n: Node) -> E:
        pairs = [(k, self.value(v)) for k, v in n.pairs]
        chk = self.rt.check_map
        meter = self.rt.meter
        if meter is not None:
            size = MAP + sum(ENTRY + len(k) for k, _ in pairs)
            chk_m = chk if self.rt.limits.max_map_size else None
            file, line, col = self.file, n.line, n.col

            def map_m(f: list) -> Any:
                try:
                    meter.charge(size)
                    d = {}  # a local: the measure sees it being built
                    for k, v in pairs:
                        d[k] = v(f)
                    return d if chk_m is None else chk_m(d)
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return E(map_m, fresh=True)
        if self.rt.limits.max_map_size:
            return E(lambda f: chk({k: v(f) for k, v in pairs}), fresh=True)
        return E(lambda f: {k: v(f) for k, v in pairs}, fresh=True)

    def x_unary(self, n: Node) -> E:
        e = self.expr(n.e).fn
        opf = ops.UNARY[n.op]
        file, line, col = self.file, n.line, n.col
        if n.op == "!":
            def not_(f: list) -> Any:
                v = e(f)
                if v is True:
                    return False
                if v is False:
                    return True
                raise RhaiRuntimeError(f"Function not found: ! ({type_of(v)})", file, line, col)
            return E(not_, fresh=True)

        def un(f: list) -> Any:
            try:
                return opf(e(f))
            except RhaiRuntimeError as ex:
                raise ex.locate(file, line, col) from None
        return E(un, fresh=True)

    def x_binary(self, n: Node) -> E:
        a = self.expr(n.l)
        b = self.expr(n.r)
        fn = fast_binary(n.op, a.operand(), b.operand(), self.file, n.line, n.col, self.rt.binary)
        if n.op == "+" and self.rt.limits.max_string_size:
            chk = self.rt.check_size
            file, line, col = self.file, n.line, n.col
            inner = fn

            def add_chk(f: list) -> Any:
                try:
                    return chk(inner(f))
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            fn = add_chk
        return E(fn, fresh=True)

    def _bool_operands(self, n: Node) -> tuple[Fn, Fn, str, int, int]:
        return self.expr(n.l).fn, self.expr(n.r).fn, self.file, n.line, n.col

    def x_and(self, n: Node) -> E:
        a, b, file, line, col = self._bool_operands(n)
        rt, wr = self.rt, self.weigh.expr(n.r)

        def and_(f: list) -> Any:
            x = a(f)
            if x is False:
                return False
            if x is True:
                rt.ops += wr
                y = b(f)
                if type(y) is bool:
                    return y
                x = y
            raise RhaiRuntimeError(f"Data type incorrect: {type_of(x)} (expecting bool)", file,
                                   line, col)
        return E(and_, fresh=True)

    def x_or(self, n: Node) -> E:
        a, b, file, line, col = self._bool_operands(n)
        rt, wr = self.rt, self.weigh.expr(n.r)

        def or_(f: list) -> Any:
            x = a(f)
            if x is True:
                return True
            if x is False:
                rt.ops += wr
                y = b(f)
                if type(y) is bool:
                    return y
                x = y
            raise RhaiRuntimeError(f"Data type incorrect: {type_of(x)} (expecting bool)", file,
                                   line, col)
        return E(or_, fresh=True)

    def x_coalesce(self, n: Node) -> E:
        a = self.expr(n.l).fn
        b = self.expr(n.r).fn
        rt, wr = self.rt, self.weigh.expr(n.r)

        def coalesce(f: list) -> Any:
            x = a(f)
            if x is not Unit:
                return x
            rt.ops += wr
            return b(f)
        return E(coalesce)

    def x_range(self, n: Node) -> E:
        a = self.expr(n.l).fn
        b = self.expr(n.r).fn
        inc = n.inclusive
        file, line, col = self.file, n.line, n.col

        def rng(f: list) -> Any:
            x, y = a(f), b(f)
            if type(x) is not int or type(y) is not int:
                raise RhaiRuntimeError(f"Function not found: {'..=' if inc else '..'} "
                                       f"({type_of(x)}, {type_of(y)})", file, line, col)
            return RhaiRange(x, y, inc)
        return E(rng, fresh=True)

    def x_in(self, n: Node) -> E:
        a = self.expr(n.l).fn
        b = self.expr(n.r).fn
        neg = n.negate
        file, line, col = self.file, n.line, n.col

        def in_(f: list) -> Any:
            x, c = a(f), b(f)
            try:
                r = ops.contains(c, x)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            return (not r) if neg else r
        return E(in_, fresh=True)

    def x_prop(self, n: Node) -> E:
        o = self.expr(n.obj).fn
        name, safe = n.name, n.safe
        file, line, col = self.file, n.line, n.col

        def prop(f: list) -> Any:
            x = o(f)
            if type(x) is dict:
                return x.get(name, Unit)
            if safe and x is Unit:
                return Unit
            try:
                return get_prop(x, name)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(prop)

    def x_index(self, n: Node) -> E:
        o = self.expr(n.obj).fn
        i = self.expr(n.idx).fn
        safe = n.safe
        file, line, col = self.file, n.line, n.col

        def index(f: list) -> Any:
            x = o(f)
            if safe and x is Unit:
                return Unit
            try:
                return get_index(x, i(f))
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(index)


_LVALUES = {"var": Compiler._lv_var, "this": Compiler._lv_this, "prop": Compiler._lv_prop,
            "index": Compiler._lv_index}


def fn_named(rt: Any, lib: Any, name: str) -> bool:
    """Whether a script function of that name (any arity) is visible."""
    return any(k[0] == name for k in lib.fns) or any(k[0] == name for k in rt.global_fns) or \
        (rt.main_lib is not None and any(k[0] == name for k in rt.main_lib.fns))
