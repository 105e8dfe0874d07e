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
from .errors import (
    CONTINUE,
    BreakSignal,
    ContinueSignal,
    ReturnSignal,
    RhaiLimitError,
    RhaiRuntimeError,
    RhaiSyntaxError,
)
from .fastops import binary as fast_binary
from .fastops import compound_to_slot
from .loopgen import try_while
from .runtime import (
    UNBOUND,
    Cell,
    Closure,
    Module,
    Runtime,
    ScriptFn,
    WriteBack,
    pick_untyped,
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

Fn = Callable[[list], Any]


class CompiledLib:
    """The compiled form of one script: functions, top-level body, constants, exports."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.fns: dict[tuple[str, int], list[ScriptFn]] = {}
        self.globals: dict[str, Any] = {}
        self.top: ScriptFn | None = None
        self.top_vars: list[tuple[str, int, bool]] = []  # (name, slot, boxed) outermost lets
        self.exports: dict[str, tuple[int, bool]] = {}  # export alias -> (slot, boxed)
        self.const_names: set[str] = set()


class VarInfo:
    __slots__ = ("slot", "boxed", "const", "name")

    def __init__(self, name: str, slot: int, boxed: bool, const: bool) -> None:
        self.name, self.slot, self.boxed, self.const = name, slot, boxed, const


class FnCtx:
    """Compile-time scope chain of one frame (function, closure or top level)."""

    def __init__(self, kind: str, parent: FnCtx | None, boxed: set[str]) -> None:
        self.kind = kind
        self.parent = parent
        self.boxed = boxed
        self.scopes: list[dict[str, VarInfo]] = [{}]
        self.nslots = 1
        self.captures: list[tuple[int, int]] = []  # (outer slot, inner slot)
        self.loops = 0

    def declare(self, name: str, const: bool = False) -> VarInfo:
        v = VarInfo(name, self.nslots, name in self.boxed, const)
        self.nslots += 1
        self.scopes[-1][name] = v
        return v

    def lookup(self, name: str) -> VarInfo | None:
        for sc in reversed(self.scopes):
            v = sc.get(name)
            if v is not None:
                return v
        if self.kind == "closure" and self.parent is not None:
            outer = self.parent.lookup(name)
            if outer is None:
                return None
            v = VarInfo(name, self.nslots, True, outer.const)
            self.nslots += 1
            self.scopes[0][name] = v
            self.captures.append((outer.slot, v.slot))
            return v
        return None

    def dynamic_ok(self) -> bool:
        """Unresolved names fall back to the host scope only at (or in closures of) top level."""
        c: FnCtx | None = self
        while c is not None and c.kind == "closure":
            c = c.parent
        return c is not None and c.kind == "top"


class E:
    """A compiled expression: closure ``fn``, operand ``shape``/``val`` for fast paths and
    whether its value is ``fresh`` (not aliased by any place, so storing it needs no copy)."""

    __slots__ = ("fn", "shape", "val", "fresh")

    def __init__(self, fn: Fn, shape: str = "expr", val: Any = None, fresh: bool = False):
        self.fn, self.shape, self.val, self.fresh = fn, shape, val, fresh

    def operand(self) -> tuple[str, Any]:
        if self.shape == "slot" or self.shape == "const":
            return (self.shape, self.val)
        return ("expr", self.fn)


def closure_names(node: Any, inside: bool = False, out: set[str] | None = None) -> set[str]:
    """Names referenced inside any closure within ``node`` (those variables get boxed)."""
    if out is None:
        out = set()
    if isinstance(node, Node):
        if node.k == "closure":
            inside = True
        if inside and node.k == "var":
            out.add(node.name)
        for v in node.__dict__.values():
            closure_names(v, inside, out)
    elif isinstance(node, (list, tuple)):
        for x in node:
            closure_names(x, inside, out)
    return out


def has_loop_flow(node: Any) -> bool:
    """Does ``node`` contain break/continue for the loop it is the body of?"""
    if isinstance(node, Node):
        if node.k in ("break", "continue"):
            return True
        if node.k in ("while", "loop", "do", "for", "closure"):
            # the nested loop's own iterable/condition cannot break the outer loop
            return False
        return any(has_loop_flow(v) for v in node.__dict__.values())
    if isinstance(node, (list, tuple)):
        return any(has_loop_flow(x) for x in node)
    return False


class Compiler:
    """Compiles one :class:`Script` against a :class:`Runtime`."""

    def __init__(self, rt: Runtime, script: Script, file: str) -> None:
        self.rt = rt
        self.script = script
        self.file = file
        self.lib = CompiledLib(file)
        self.ctx: FnCtx = FnCtx("top", None, set())
        self.closure_count = 0

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
        top_ctx = FnCtx("top", None, closure_names(self.script.stmts))
        self.ctx = top_ctx
        body = self.block_body(self.script.stmts, new_scope=False, top=True)
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
        sf.body = self.block_body(fd.body.stmts, new_scope=True, ret_copy=True)
        sf.nslots = ctx.nslots
        self.ctx = saved

    # ── blocks and statements ──────────────────────────────────────────────────────────
    def block_body(self, stmts: list[Node], new_scope: bool = True, top: bool = False,
                   ret_copy: bool = False) -> Fn:
        ctx = self.ctx
        if new_scope:
            ctx.scopes.append({})
        fns: list[Fn] = []
        for i, st in enumerate(stmts):
            last = i == len(stmts) - 1
            fns.append(self.stmt(st, top=top, ret_copy=ret_copy and last))
        if new_scope:
            ctx.scopes.pop()
        return _seq(fns)

    def stmt(self, st: Node, top: bool = False, ret_copy: bool = False) -> Fn:
        k = st.k
        if k == "expr":
            e = self.expr(st.e)
            if ret_copy and not e.fresh:
                g = e.fn
                return lambda f: deep_copy(g(f))
            return e.fn
        if k == "let":
            return self.stmt_let(st, top)
        if k == "assign":
            return self.stmt_assign(st)
        if k == "return":
            return self.stmt_return(st)
        if k == "break":
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
        if k == "continue":
            if not self.ctx.loops:
                raise self.err("'continue' can only be used inside a loop", st)

            def cont(f: list) -> Any:
                raise CONTINUE
            return cont
        if k == "throw":
            val = self.value(st.e) if st.e is not None else (lambda f: Unit)
            file, line, col = self.file, st.line, st.col

            def throw(f: list) -> Any:
                v = val(f)
                text = "Runtime error" if v is Unit else f"Runtime error: {to_display(v)}"
                raise RhaiRuntimeError(text, file, line, col, value=v)
            return throw
        if k == "import":
            return self.stmt_import(st)
        if k == "export":
            for name, alias in st.names:
                v = self.ctx.lookup(name)
                if v is None:
                    raise self.err(f"Variable not found: {name}", st)
                self.lib.exports[alias] = (v.slot, v.boxed)
            return lambda f: Unit
        raise self.err(f"Unsupported statement: {k}", st)

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
        if rt.limits.max_string_size or rt.limits.max_array_size or rt.limits.max_map_size:
            chk = rt.check_size

            def let_checked(f: list) -> Any:
                f[s] = chk(init(f))
                return Unit
            return let_checked

        def let_(f: list) -> Any:
            f[s] = init(f)
            return Unit
        return let_

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
        op = st.op
        t = st.target
        file, line, col = self.file, st.line, st.col
        if t.k == "var":
            v = self.ctx.lookup(t.name)
            if v is not None and v.const:
                raise self.err(f"Cannot modify constant {t.name}", t)
            if v is None and t.name in self.lib.const_names:
                raise self.err(f"Cannot modify constant {t.name}", t)
            if v is not None and not v.boxed and op not in ("=", "??=", "+="):
                rhs = self.expr(st.value)
                return compound_to_slot(op[:-1], v.slot, rhs.operand(), ops.BINARY[op[:-1]],
                                        file, line, col)
            if v is not None and not v.boxed and op == "=":
                val = self.value(st.value)
                s = v.slot

                def set_slot(f: list) -> Any:
                    f[s] = val(f)
                    return Unit
                return set_slot
            if v is not None and not v.boxed and op == "+=":
                rhs = self.expr(st.value)
                if rhs.shape == "const" and type(rhs.val) in (int, float):
                    return compound_to_slot("+", v.slot, rhs.operand(), ops.add_assign,
                                            file, line, col)
        getter, setter = self.lvalue(t)
        rt = self.rt
        if op == "=":
            val = self.value(st.value)
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
        val = self.value(st.value)
        if op == "??=":
            def assign_coalesce(f: list) -> Any:
                try:
                    if getter(f) is Unit:
                        setter(f, val(f))
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
                return Unit
            return assign_coalesce
        opfn = ops.add_assign if op == "+=" else ops.BINARY[op[:-1]]
        chk = rt.check_size

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
        k = t.k
        file, line, col = self.file, t.line, t.col
        if k == "var":
            v = self.ctx.lookup(t.name)
            if v is None:
                if not self.ctx.dynamic_ok():
                    return self.fn_free_name(t.name, file, line, col)
                rt, name = self.rt, t.name

                def dget(f: list) -> Any:
                    try:
                        return rt.scope[name]
                    except KeyError:
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
        if k == "this":
            def tget(f: list) -> Any:
                t = f[0]
                if t is UNBOUND:
                    raise RhaiRuntimeError("'this' not bound", file, line, col)
                return t

            def tset(f: list, val: Any) -> None:
                f[0] = val
            return tget, tset
        if k == "prop":
            og, os_ = self.place_or_value(t.obj)
            name = t.name

            def pget(f: list) -> Any:
                return get_prop(og(f), name)

            if self.rt.limits.max_map_size:
                chk = self.rt.check_map

                def pset_chk(f: list, val: Any) -> None:
                    o = og(f)
                    set_prop(o, name, val)
                    chk(o)
                return pget, pset_chk

            def pset(f: list, val: Any) -> None:
                set_prop(og(f), name, val)
            return pget, pset
        if k == "index":
            og, os_ = self.place_or_value(t.obj)
            idx = self.value(t.idx)
            rt = self.rt
            lim_map = bool(rt.limits.max_map_size)

            def iget(f: list) -> Any:
                return get_index(og(f), idx(f))

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
        raise self.err("Cannot assign to this expression", t)

    def fn_free_name(self, name: str, file: str, line: int,
                     col: int) -> tuple[Fn, Callable[[list, Any], None]]:
        """A name a function body does not declare: the script's top-level constants, the
        host scope's constants, and (for the function the host calls through ``call_fn``) the
        host scope's variables; never the script's variables."""
        g, rt = self.lib.globals, self.rt

        def fget(f: list) -> Any:
            if name in g:
                return g[name]
            sc = rt.scope
            if name in sc and (name in rt.scope_consts or rt.depth == rt.entry_depth):
                return sc[name]
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
        if n.k == "var":
            v = self.ctx.lookup(n.name)
            if v is not None and v.const:
                g = self.expr(n).fn
                return (lambda f: deep_copy(g(f))), None  # a constant is never modified
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
        if self.rt.limits.max_array_size:
            return E(lambda f: chk([i(f) for i in items]), fresh=True)
        return E(lambda f: [i(f) for i in items], fresh=True)

    def x_map(self, n: Node) -> E:
        pairs = [(k, self.value(v)) for k, v in n.pairs]
        chk = self.rt.check_map
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
        fn = fast_binary(n.op, a.operand(), b.operand(), self.file, n.line, n.col)
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

        def and_(f: list) -> Any:
            x = a(f)
            if x is False:
                return False
            if x is True:
                y = b(f)
                if type(y) is bool:
                    return y
                x = y
            raise RhaiRuntimeError(f"Data type incorrect: {type_of(x)} (expecting bool)", file,
                                   line, col)
        return E(and_, fresh=True)

    def x_or(self, n: Node) -> E:
        a, b, file, line, col = self._bool_operands(n)

        def or_(f: list) -> Any:
            x = a(f)
            if x is True:
                return True
            if x is False:
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

        def coalesce(f: list) -> Any:
            x = a(f)
            return b(f) if x is Unit else x
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

    def x_block(self, n: Node) -> E:
        return E(self.block_body(n.stmts))

    def x_if(self, n: Node) -> E:
        c = self.expr(n.cond).fn
        then = self.block_body(n.then.stmts)
        other = None
        if n.other is not None:
            other = self.expr(n.other).fn
        file, line, col = self.file, n.cond.line, n.cond.col

        def if_(f: list) -> Any:
            x = c(f)
            if x is True:
                return then(f)
            if x is False:
                return other(f) if other is not None else Unit
            raise RhaiRuntimeError(f"Data type incorrect: {type_of(x)} "
                                   "(expecting bool)", file, line, col)
        return E(if_)

    def _loop_body(self, body: Node) -> tuple[Fn, bool]:
        self.ctx.loops += 1
        fn = self.block_body(body.stmts)
        self.ctx.loops -= 1
        self._stmt_list = getattr(fn, "stmts", (fn,))
        return fn, has_loop_flow(body)

    def x_while(self, n: Node) -> E:
        c = self.expr(n.cond).fn
        body, flow = self._loop_body(n.body)
        rt = self.rt
        file, line, col = self.file, n.cond.line, n.cond.col

        def bad(x: Any) -> RhaiRuntimeError:
            return RhaiRuntimeError(f"Data type incorrect: {type_of(x)} "
                                    "(expecting bool)", file, line, col)
        if not flow:
            gen = try_while(n, self.ctx.lookup, rt, self.file)
            if gen is not None:
                return E(gen)
            return E(_fast_while(c, self._stmt_list, rt, bad, file, line, col))

        def while_flow(f: list) -> Any:
            while True:
                rt.ops += 1
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(file, line, col)
                x = c(f)
                if x is not True:
                    if x is False:
                        return Unit
                    raise bad(x)
                try:
                    body(f)
                except ContinueSignal:
                    pass
                except BreakSignal as b:
                    return b.value
        return E(while_flow)

    def x_loop(self, n: Node) -> E:
        body, _ = self._loop_body(n.body)
        rt = self.rt
        file, line, col = self.file, n.line, n.col

        def loop(f: list) -> Any:
            while True:
                rt.ops += 1
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(file, line, col)
                try:
                    body(f)
                except ContinueSignal:
                    pass
                except BreakSignal as b:
                    return b.value
        return E(loop)

    def x_do(self, n: Node) -> E:
        body, _ = self._loop_body(n.body)
        c = self.expr(n.cond).fn
        until = n.until
        rt = self.rt
        file, line, col = self.file, n.cond.line, n.cond.col

        def do(f: list) -> Any:
            while True:
                rt.ops += 1
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(file, line, col)
                try:
                    body(f)
                except ContinueSignal:
                    pass
                except BreakSignal as b:
                    return b.value
                x = c(f)
                if type(x) is not bool:
                    raise RhaiRuntimeError(f"Data type incorrect: {type_of(x)} "
                                           "(expecting bool)", file, line, col)
                if x is until:
                    return Unit
        return E(do)

    def x_for(self, n: Node) -> E:
        it = self.expr(n.iter).fn
        ctx = self.ctx
        ctx.scopes.append({})
        var = ctx.declare(n.name)
        idx = ctx.declare(n.idx) if n.idx else None
        body, _ = self._loop_body(n.body)
        ctx.scopes.pop()
        rt = self.rt
        file, line, col = self.file, n.line, n.col
        s, boxed = var.slot, var.boxed
        si = idx.slot if idx else None
        iboxed = idx.boxed if idx else False

        def for_(f: list) -> Any:
            src = it(f)
            try:
                seq = iterate(src)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            i = 0
            for x in seq:
                rt.ops += 1
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(file, line, col)
                if type(x) in _CONTAINERS:
                    x = deep_copy(x)
                f[s] = Cell(x) if boxed else x
                if si is not None:
                    f[si] = Cell(i) if iboxed else i
                i += 1
                try:
                    body(f)
                except ContinueSignal:
                    pass
                except BreakSignal as b:
                    return b.value
            return Unit
        return E(for_)

    def x_switch(self, n: Node) -> E:
        subj = self.expr(n.subject).fn
        table: dict[tuple[type, Any], Fn] = {}
        ordered: list[tuple[Any, Fn | None, Fn]] = []  # (matcher value or range, guard, body)
        simple = True
        for pats, guard, body in n.cases:
            bfn = self.expr(body).fn if body.k != "block" else self.block_body(body.stmts)
            gfn = self.expr(guard).fn if guard is not None else None
            for p in pats:
                if p.k == "range":
                    val: Any = RhaiRange(p.l.value, p.r.value, p.inclusive)
                    simple = False
                else:
                    val = p.value
                if gfn is not None:
                    simple = False
                ordered.append((val, gfn, bfn))
                if p.k != "range" and gfn is None:
                    table.setdefault((type(val), _hashable(val)), bfn)
        default = None
        if n.default is not None:
            d = n.default
            default = self.expr(d).fn if d.k != "block" else self.block_body(d.stmts)
        file, line, col = self.file, n.line, n.col

        if simple:
            def switch_table(f: list) -> Any:
                x = subj(f)
                b = table.get((type(x), _hashable(x)))
                if b is not None:
                    return b(f)
                return default(f) if default is not None else Unit
            return E(switch_table)

        def switch(f: list) -> Any:
            x = subj(f)
            for val, g, b in ordered:
                if type(val) is RhaiRange:
                    if not (type(x) is int and x in val):
                        continue
                elif not ops.eq(x, val):
                    continue
                if g is not None:
                    gv = g(f)
                    if type(gv) is not bool:
                        raise RhaiRuntimeError(f"Data type incorrect: {type_of(gv)} (expecting bool)",
                                               file, line, col)
                    if not gv:
                        continue
                return b(f)
            return default(f) if default is not None else Unit
        return E(switch)

    def x_try(self, n: Node) -> E:
        body = self.block_body(n.body.stmts)
        ctx = self.ctx
        ctx.scopes.append({})
        v = ctx.declare(n.var) if n.var else None
        catch = self.block_body(n.catch.stmts)
        ctx.scopes.pop()

        def try_(f: list) -> Any:
            try:
                return body(f)
            except RhaiLimitError:
                raise
            except RhaiRuntimeError as e:
                if v is not None:
                    val = e.value if e.thrown else error_map(e)
                    f[v.slot] = Cell(val) if v.boxed else val
                return catch(f)
        return E(try_)

    def x_closure(self, n: Node) -> E:
        self.closure_count += 1
        name = f"anon${n.line}:{n.col}"
        outer = self.ctx
        ctx = FnCtx("closure", outer, outer.boxed | closure_names(n.body))
        self.ctx = ctx
        params = [ctx.declare(p) for p in n.params]
        ctx.scopes.append({})
        body_e = self.expr(n.body)
        ctx.scopes.pop()
        self.ctx = outer
        sf = ScriptFn(name, len(n.params), self.file, n.line, n.col, lib=self.lib)
        g = body_e.fn
        sf.body = g if body_e.fresh else (lambda f: deep_copy(g(f)))
        sf.nslots = ctx.nslots
        sf.boxed_params = tuple(v.slot for v in params if v.boxed)
        sf.capture_slots = tuple(inner for _, inner in ctx.captures)
        outer_slots = tuple(o for o, _ in ctx.captures)

        if not outer_slots:
            def make(f: list) -> Any:
                return FnPtr(name, (), Closure(sf, ()))
            return E(make, fresh=True)

        def make_capturing(f: list) -> Any:
            cells = []
            for s in outer_slots:
                c = f[s]
                cells.append(c if type(c) is Cell else Cell(c))
            return FnPtr(name, (), Closure(sf, tuple(cells)))
        return E(make_capturing, fresh=True)

    # ── calls ──────────────────────────────────────────────────────────────────────────
    def x_call(self, n: Node) -> E:
        name, nargs = n.name, len(n.args)
        rt, lib = self.rt, self.lib
        file, line, col = self.file, n.line, n.col
        if n.ns:
            return self.call_namespaced(n)
        if name == "is_def_var" and nargs == 1 and n.args[0].k == "lit":
            vn = n.args[0].value
            found = self.ctx.lookup(vn) is not None if type(vn) is str else False
            dyn = self.ctx.dynamic_ok()
            return E(lambda f: found or (dyn and vn in rt.scope), fresh=True)
        args = [self.value(a) for a in n.args]
        local = self.ctx.lookup(name)
        fns = lib.fns.get((name, nargs))
        sf = pick_untyped(fns) if fns else None
        if sf is not None:
            if nargs == 1:
                a0 = args[0]

                def call1(f: list) -> Any:
                    try:
                        return rt.invoke(sf, [a0(f)])[0]
                    except RhaiRuntimeError as e:
                        raise e.locate(file, line, col) from None
                return E(call1, fresh=True)

            def call_script(f: list) -> Any:
                try:
                    return rt.invoke(sf, [a(f) for a in args])[0]
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return E(call_script, fresh=True)
        if local is not None:
            s, boxed = local.slot, local.boxed

            def call_ptr(f: list) -> Any:
                fp = f[s].v if boxed else f[s]
                vals = [a(f) for a in args]
                try:
                    if type(fp) is FnPtr:
                        return rt.call_fnptr(fp, vals)
                    return rt.call_named(name, vals, UNBOUND, lib)[0]
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return E(call_ptr, fresh=True)
        cache: list[Any] = [None, None, None]

        def call_dyn(f: list) -> Any:
            vals = [a(f) for a in args]
            try:
                if cache[0] == rt.version and cache[1] is rt.main_lib:
                    target = cache[2]
                else:
                    found = rt.find_script(name, nargs, lib)
                    target = (pick_untyped(found) if found else None) or \
                        rt.find_native(name, nargs)
                    cache[0], cache[1], cache[2] = rt.version, rt.main_lib, target
                if type(target) is ScriptFn:
                    return rt.invoke(target, vals)[0]
                if target is None:
                    raise RhaiRuntimeError(f"Function not found: {name} "
                                           f"({', '.join(type_of(v) for v in vals)})")
                return _native(target, name, vals)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(call_dyn, fresh=True)

    def call_namespaced(self, n: Node) -> E:
        name, nargs = n.name, len(n.args)
        args = [self.value(a) for a in n.args]
        rt, lib = self.rt, self.lib
        file, line, col = self.file, n.line, n.col
        if n.ns == ["global"]:
            def gcall(f: list) -> Any:
                vals = [a(f) for a in args]
                try:
                    fns = lib.fns.get((name, nargs)) or rt.global_fns.get((name, nargs))
                    if fns:
                        return rt.invoke(fns[0], vals)[0]
                    return rt.call_named(name, vals)[0]
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
            return E(gcall, fresh=True)
        modget = self.module_getter(n.ns, n)
        qual = "::".join(n.ns)

        def mcall(f: list) -> Any:
            m = modget(f)
            vals = [a(f) for a in args]
            sf = m.fns.get((name, nargs))
            try:
                if sf is None:
                    raise RhaiRuntimeError(f"Function not found: {qual}::{name} "
                                           f"({', '.join(type_of(v) for v in vals)})")
                return rt.invoke(sf, vals)[0]
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(mcall, fresh=True)

    def x_method(self, n: Node) -> E:
        getter, setter = self.place_or_value(n.obj)
        name = n.name
        args = [self.value(a) for a in n.args]
        rt, lib = self.rt, self.lib
        file, line, col = self.file, n.line, n.col
        safe = n.safe
        nargs = len(args)
        native_cache: list[Any] = [None, None]

        def method(f: list) -> Any:
            recv = getter(f)
            if safe and recv is Unit:
                return Unit
            vals = [a(f) for a in args]
            try:
                # fast path: a native method with no script override
                if native_cache[0] == rt.version and type(recv) is not dict \
                        and native_cache[1] is not None and lib.fns.get((name, nargs)) is None \
                        and (rt.main_lib is None or not rt.main_lib.fns.get((name, nargs))):
                    r = _native(native_cache[1], name, [recv, *vals])
                    if type(r) is WriteBack:
                        if setter is None:
                            return r.result
                        setter(f, r.new_this)
                        return r.result
                    return r
                res, new = rt.call_method(name, recv, vals, lib)
                if not rt.find_script(name, nargs, lib):
                    native_cache[0] = rt.version
                    native_cache[1] = rt.find_native(name, nargs + 1)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            if new is not recv and setter is not None:
                setter(f, new)
            return res
        return E(method, fresh=True)


_CONTAINERS = (list, dict, bytearray)


def error_map(e: RhaiRuntimeError) -> dict[str, Any]:
    """What ``catch (err)`` binds for an error that was not thrown by ``throw``."""
    m: dict[str, Any] = {"message": e.message}
    if e.file:
        m["source"] = e.file
    if e.line:
        m["line"] = e.line
        m["position"] = e.col
    return m


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return id(v)


def _native(nf: Callable[..., Any], name: str, vals: list[Any]) -> Any:
    from .runtime import call_native
    return call_native(nf, name, vals)


def iterate(src: Any) -> Any:
    """What ``for x in src`` walks over."""
    t = type(src)
    if t is list:
        return list(src)
    if t is RhaiRange:
        return src.to_range()
    if t is range:
        return src
    if t is str:
        return [Char(c) for c in src]
    if t is bytearray:
        return list(src)
    if hasattr(src, "__rhai_iter__"):
        return src.__rhai_iter__()
    raise RhaiRuntimeError(f"For loop expects iterable type: {type_of(src)} is not "
                           "(an array, range, string or blob is)")


def _seq(fns: list[Fn]) -> Fn:
    """Run statements in order; the last one's value is the block's value."""
    n = len(fns)
    if n == 0:
        return lambda f: Unit
    if n == 1:
        return fns[0]
    if n == 2:
        a, b = fns

        def seq2(f: list) -> Any:
            a(f)
            return b(f)
        seq2.stmts = (a, b)  # type: ignore[attr-defined]
        return seq2
    if n == 3:
        a, b, c = fns

        def seq3(f: list) -> Any:
            a(f)
            b(f)
            return c(f)
        seq3.stmts = (a, b, c)  # type: ignore[attr-defined]
        return seq3
    head, last = tuple(fns[:-1]), fns[-1]

    def seqn(f: list) -> Any:
        for s in head:
            s(f)
        return last(f)
    return seqn


def _fast_while(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
                file: str, line: int, col: int) -> Fn:
    """A ``while`` without break/continue: operations are counted in a local and flushed to
    the runtime in chunks (never past the limit), the body's statements are called inline."""

    def budget() -> int:
        left = rt.max_ops - rt.ops
        if left <= 0:
            raise rt.too_many_ops().locate(file, line, col)
        return left if left < 4096 else 4096

    if len(stmts) == 1:
        (s0,) = stmts

        def while1(f: list) -> Any:
            n, lim = 0, budget()
            try:
                while True:
                    n += 1
                    if n >= lim:
                        rt.ops += n
                        n, lim = 0, budget()
                    x = c(f)
                    if x is not True:
                        if x is False:
                            return Unit
                        raise bad(x)
                    s0(f)
            finally:
                rt.ops += n
        return while1
    if len(stmts) == 2:
        s0, s1 = stmts

        def while2(f: list) -> Any:
            n, lim = 0, budget()
            try:
                while True:
                    n += 1
                    if n >= lim:
                        rt.ops += n
                        n, lim = 0, budget()
                    x = c(f)
                    if x is not True:
                        if x is False:
                            return Unit
                        raise bad(x)
                    s0(f)
                    s1(f)
            finally:
                rt.ops += n
        return while2

    def whilen(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                n += 1
                if n >= lim:
                    rt.ops += n
                    n, lim = 0, budget()
                x = c(f)
                if x is not True:
                    if x is False:
                        return Unit
                    raise bad(x)
                for s in stmts:
                    s(f)
        finally:
            rt.ops += n
    return whilen
