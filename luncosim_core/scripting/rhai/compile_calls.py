"""Compiling closures, function calls and method calls."""

from __future__ import annotations

from typing import Any

from .ast import Node
from .compile_base import (
    PURE_METHODS,
    E,
    FnCtx,
    closure_names,
    mutated_params,
)
from .errors import (
    RhaiRuntimeError,
)
from .memory import CLOSURE
from .runtime import (
    UNBOUND,
    Cell,
    Closure,
    ScriptFn,
    WriteBack,
    pick_untyped,
)
from .values import (
    FnPtr,
    Unit,
    deep_copy,
    type_of,
)


class CallsMixin:
    """Closure and call nodes (mixed into :class:`~.compiler.Compiler`)."""

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
        sf = ScriptFn(name, len(n.params), self.file, n.line, n.col, lib=self.lib,
                      ops=self.weigh.body(n.body))
        g = body_e.fn
        sf.body = g if body_e.fresh else (lambda f: deep_copy(g(f)))
        sf.nslots = ctx.nslots
        sf.boxed_params = tuple(v.slot for v in params if v.boxed)
        mutated = mutated_params(n.params, n.body)
        sf.copy_params = tuple(i for i, p in enumerate(n.params) if p in mutated)
        sf.capture_slots = tuple(inner for _, inner in ctx.captures)
        outer_slots = tuple(o for o, _ in ctx.captures)
        meter = self.rt.meter
        if meter is not None:  # a closure value is charged to the memory budget
            size = CLOSURE + 48 * len(outer_slots)
            file, line, col = self.file, n.line, n.col

            def make_m(f: list) -> Any:
                try:
                    meter.charge(size)
                except RhaiRuntimeError as e:
                    raise e.locate(file, line, col) from None
                cells = []
                for s in outer_slots:
                    c = f[s]
                    if type(c) is not Cell:
                        c = Cell(c)
                    c.shared = True
                    cells.append(c)
                return FnPtr(name, (), Closure(sf, tuple(cells)))
            return E(make_m, fresh=True)

        if not outer_slots:
            def make(f: list) -> Any:
                return FnPtr(name, (), Closure(sf, ()))
            return E(make, fresh=True)

        def make_capturing(f: list) -> Any:
            cells = []
            for s in outer_slots:
                c = f[s]
                if type(c) is not Cell:
                    c = Cell(c)
                c.shared = True
                cells.append(c)
            return FnPtr(name, (), Closure(sf, tuple(cells)))
        return E(make_capturing, fresh=True)

    # ── calls ──────────────────────────────────────────────────────────────────────────
    def x_call(self, n: Node) -> E:
        special = self.call_special(n)
        if special is not None:
            return special
        name, nargs = n.name, len(n.args)
        # script callees copy the parameters they may mutate; a native called in function
        # style (not as a method) gets a copy of its first argument, so `push(a, 1)` leaves
        # `a` alone as in Rhai
        args = [self.expr(a).fn for a in n.args]
        if args and name not in PURE_METHODS:
            args[0] = self.value(n.args[0])
        fns = self.lib.fns.get((name, nargs))
        sf = pick_untyped(fns) if fns else None
        if sf is not None:
            return self.call_script(n, sf, args)
        local = self.ctx.lookup(name)
        if local is not None:
            return self.call_ptr(n, local, args)
        return self.call_dyn(n, args)

    def call_special(self, n: Node) -> E | None:
        """Calls the compiler handles itself: ``ns::f()``, ``eval``, ``f!()``, ``is_def_var``."""
        if n.ns:
            return self.call_namespaced(n)
        nargs = len(n.args)
        if n.name == "eval" and nargs == 1 and ("eval", 1) not in self.lib.fns:
            return self.call_eval(n)
        if getattr(n, "bang", False):
            return self.call_in_caller_scope(n)
        if n.name == "is_shared" and nargs == 1:
            return self.is_shared(n.args[0])
        if n.name == "is_def_var" and nargs == 1 and n.args[0].k == "lit":
            vn, rt = n.args[0].value, self.rt
            found = self.ctx.lookup(vn) is not None if type(vn) is str else False
            dyn = self.ctx.dynamic_ok()
            return E(lambda f: found or (dyn and vn in rt.scope), fresh=True)
        return None

    def is_shared(self, arg: Node) -> E:
        """``is_shared(x)`` / ``x.is_shared()``: as in Rhai, a variable is shared once a closure
        has captured it (its cell is marked when the closure is made); any other value is not."""
        v = self.ctx.lookup(arg.name) if arg.k == "var" else None
        if v is not None and v.boxed:
            s = v.slot
            return E(lambda f: getattr(f[s], "shared", False), fresh=True)
        g = self.expr(arg).fn

        def not_shared(f: list) -> Any:
            g(f)
            return False
        return E(not_shared, fresh=True)

    def call_script(self, n: Node, sf: ScriptFn, args: list) -> E:
        """A call to a function of this script, known at compile time."""
        rt = self.rt
        file, line, col = self.file, n.line, n.col
        if len(args) == 1:
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

    def call_ptr(self, n: Node, local: Any, args: list) -> E:
        """``f(x)`` where ``f`` is a variable (a function pointer or closure)."""
        rt, lib, name = self.rt, self.lib, n.name
        file, line, col = self.file, n.line, n.col
        s, boxed = local.slot, local.boxed

        def call_ptr(f: list) -> Any:
            fp = f[s].v if boxed else f[s]
            vals = [a(f) for a in args]
            try:
                if type(fp) is FnPtr:
                    if fp.closure is not None:
                        rt.ops -= 1  # counted with the closure's body, not as a native call
                    return rt.call_fnptr(fp, vals)
                return rt.call_named(name, vals, UNBOUND, lib)[0]
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(call_ptr, fresh=True)

    def call_dyn(self, n: Node, args: list) -> E:
        """A call resolved at run time (a host, package or global-module function), cached
        per engine version."""
        rt, lib, name, nargs = self.rt, self.lib, n.name, len(args)
        file, line, col = self.file, n.line, n.col
        cache: list[Any] = [None, None, None]
        # as in Rhai, a native called in function style on a variable works on the variable
        # itself (`pad(y, 5, 0)` grows `y`, `crop(s, 1)` shortens `s`)
        place = self.place_or_value(n.args[0]) if args and n.args[0].k == "var" else None
        get0, set0 = place if place is not None and place[1] is not None else (None, None)
        rest = args[1:]
        call_native = rt.call_native  # (the metered one when the engine has a memory budget)

        def call_dyn(f: list) -> Any:
            try:
                if cache[0] == rt.version and cache[1] is rt.main_lib:
                    target = cache[2]
                else:
                    found = rt.find_script(name, nargs, lib)
                    target = (pick_untyped(found) if found else None) or \
                        rt.find_native(name, nargs)
                    cache[0], cache[1], cache[2] = rt.version, rt.main_lib, target
                if type(target) is ScriptFn:
                    rt.ops -= 1  # counted with the function's body, not as a native call
                    return rt.invoke(target, [a(f) for a in args])[0]
                if target is not None and set0 is not None:
                    r = call_native(target, name, [get0(f), *[a(f) for a in rest]])
                    if type(r) is WriteBack:
                        set0(f, r.new_this)
                        return r.result
                    return r
                vals = [a(f) for a in args]
                if target is None:
                    raise RhaiRuntimeError(f"Function not found: {name} "
                                           f"({', '.join(type_of(v) for v in vals)})")
                r = call_native(target, name, vals)
                return r.result if type(r) is WriteBack else r  # on a temporary value
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(call_dyn, fresh=True)

    def call_eval(self, n: Node) -> E:
        """``eval(code)``: runs in this frame with the variables visible here."""
        from .evalfn import run_eval

        code = self.expr(n.args[0]).fn
        visible = self._visible()
        rt, where = self.rt, (self.file, n.line, n.col)
        return E(lambda f: run_eval(rt, code(f), f, visible, where), fresh=True)

    def _visible(self) -> dict:
        visible: dict = {}
        for sc in self.ctx.scopes:
            visible.update(sc)
        return visible

    def call_in_caller_scope(self, n: Node) -> E:
        """``foo!(args)``: the script function sees (and may assign) the caller's variables."""
        from .evalfn import with_caller_scope

        name, nargs = n.name, len(n.args)
        args = [self.value(a) for a in n.args]
        rt, lib, visible = self.rt, self.lib, self._visible()
        file, line, col = self.file, n.line, n.col

        def call_bang(f: list) -> Any:
            vals = [a(f) for a in args]
            found = rt.find_script(name, nargs, lib)
            sf = pick_untyped(found) if found else None
            if sf is None:
                raise RhaiRuntimeError(f"Function not found: {name}! "
                                       f"({', '.join(type_of(v) for v in vals)})", file, line, col)
            try:
                return with_caller_scope(rt, f, visible, lambda: rt.invoke(sf, vals)[0],
                                         entry=True)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return E(call_bang, fresh=True)

    def call_namespaced(self, n: Node) -> E:
        name, nargs = n.name, len(n.args)
        args = [self.expr(a).fn for a in n.args]  # callees copy what they may mutate
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
        if n.name == "is_shared" and not n.args:
            return self.is_shared(n.obj)
        getter, setter = self.place_or_value(n.obj)
        name = n.name
        args = [self.expr(a).fn for a in n.args]  # callees copy what they may mutate
        rt, lib = self.rt, self.lib
        file, line, col = self.file, n.line, n.col
        safe = n.safe
        nargs = len(args)
        cache: list[Any] = [None, None, None]  # (version, main lib, native) when no script fn
        call_native = rt.call_native

        def method(f: list) -> Any:
            recv = getter(f)
            if safe and recv is Unit:
                return Unit
            vals = [a(f) for a in args]
            try:
                nf = cache[2]
                if nf is not None and cache[0] == rt.version and cache[1] is rt.main_lib and \
                        (type(recv) is not dict or type(recv.get(name)) is not FnPtr):
                    # a native method with no script function of that name in the way
                    r = call_native(nf, name, [recv, *vals])
                    if type(r) is WriteBack:
                        if setter is not None:
                            setter(f, r.new_this)
                        return r.result
                    return r
                res, new = rt.call_method(name, recv, vals, lib)
                if name != "call" and not rt.find_script(name, nargs, lib):
                    cache[0], cache[1] = rt.version, rt.main_lib
                    cache[2] = rt.find_native(name, nargs + 1)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            if new is not recv and setter is not None:
                setter(f, new)
            return res
        if name == "call" and args and n.obj.k == "var" and n.args[0].k in ("var", "closure"):
            v = self.ctx.lookup(n.obj.name)
            if v is not None and v.boxed:
                return E(_race_checked(method, v.slot, args[0], (file, line, col)), fresh=True)
        return E(method, fresh=True)


def _race_checked(method: Any, slot: int, fp_arg: Any, where: tuple[str, int, int]) -> Any:
    """``x.call(closure, ...)`` where the closure captured ``x`` itself: Rhai locks the shared
    ``x`` as ``this`` for the call, so the closure's own use of it is a data race."""

    def call_checked(f: list) -> Any:
        fp = fp_arg(f)
        if type(fp) is FnPtr and fp.closure is not None:
            cell = f[slot]
            if any(c is cell for c in fp.closure.cells):
                raise RhaiRuntimeError("Data race detected", *where)
        return method(f)
    return call_checked
