"""Compiling control flow: blocks, if, loops, switch and try."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ops
from .ast import Node
from .compile_base import (
    _CONTAINERS,
    E,
    Fn,
    _hashable,
    error_map,
    has_loop_flow,
    iterate,
    loop_weight,
)
from .errors import (
    BreakSignal,
    ContinueSignal,
    RhaiLimitError,
    RhaiRuntimeError,
)
from .loopgen import try_while
from .runtime import (
    Cell,
    Runtime,
)
from .values import (
    RhaiRange,
    Unit,
    deep_copy,
    type_of,
)


class FlowMixin:
    """Control-flow nodes (mixed into :class:`~.compiler.Compiler`)."""

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
        w = loop_weight(n.cond, n.body)
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
            return E(_fast_while(c, self._stmt_list, rt, bad, (file, line, col), w))

        def while_flow(f: list) -> Any:
            while True:
                rt.ops += w
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
        w = loop_weight(n.body)

        def loop(f: list) -> Any:
            while True:
                rt.ops += w
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
        w = loop_weight(n.body, n.cond)

        def do(f: list) -> Any:
            while True:
                rt.ops += w
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
        w = loop_weight(n.body)

        def for_(f: list) -> Any:
            src = it(f)
            try:
                seq = iterate(src)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
            i = 0
            n, lim = 0, budget()
            # as in Rhai, the loop variables are one variable across the iterations: closures
            # made in the body share it (and see its last value)
            cell = Cell(Unit) if boxed else None
            icell = Cell(0) if iboxed else None
            try:
                for x in seq:
                    n += w
                    if n >= lim:
                        rt.ops += n
                        n, lim = 0, budget()
                    if type(x) in _CONTAINERS:
                        x = deep_copy(x)
                    if cell is not None:
                        cell.v = x
                        f[s] = cell
                    else:
                        f[s] = x
                    if icell is not None:
                        icell.v = i
                        f[si] = icell
                    elif si is not None:
                        f[si] = i
                    i += 1
                    try:
                        body(f)
                    except ContinueSignal:
                        pass
                    except BreakSignal as b:
                        return b.value
            finally:
                rt.ops += n
            return Unit
        budget = _budget_fn(rt, file, line, col)
        return E(for_)

    def x_switch(self, n: Node) -> E:
        subj = self.expr(n.subject).fn
        table: dict[tuple[type, Any], Fn] = {}
        ordered: list[tuple[Any, Fn | None, Fn]] = []  # (matcher value or range, guard, body)
        simple = True
        for pats, guard, body in n.cases:
            bfn = self._arm(body)
            gfn = self.expr(guard).fn if guard is not None else None
            for p in pats:
                val: Any = RhaiRange(p.l.value, p.r.value, p.inclusive) if p.k == "range" \
                    else p.value
                ordered.append((val, gfn, bfn))
                if p.k == "range" or gfn is not None:
                    simple = False
                else:
                    table.setdefault((type(val), _hashable(val)), bfn)
        default = self._arm(n.default) if n.default is not None else None
        if simple:
            return E(_switch_table(subj, table, default))
        return E(_switch_ordered(subj, ordered, default, (self.file, n.line, n.col)))

    def _arm(self, body: Node) -> Fn:
        return self.expr(body).fn if body.k != "block" else self.block_body(body.stmts)

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


def _budget_fn(rt: Runtime, file: str, line: int, col: int) -> Callable[[], int]:
    """How many iterations a loop may count locally before reporting to the runtime."""

    def budget() -> int:
        left = rt.max_ops - rt.ops
        if left <= 0:
            raise rt.too_many_ops().locate(file, line, col)
        return left if left < 4096 else 4096
    return budget


def _switch_table(subj: Fn, table: dict[tuple[type, Any], Fn], default: Fn | None) -> Fn:
    """A switch whose cases are plain values: one dictionary lookup."""

    def switch_table(f: list) -> Any:
        x = subj(f)
        b = table.get((type(x), _hashable(x)))
        if b is not None:
            return b(f)
        return default(f) if default is not None else Unit
    return switch_table


def _switch_ordered(subj: Fn, ordered: list[tuple[Any, Fn | None, Fn]], default: Fn | None,
                    where: tuple[str, int, int]) -> Fn:
    """A switch with ranges or guards: cases tried in order."""
    file, line, col = where

    def switch(f: list) -> Any:
        x = subj(f)
        for val, g, b in ordered:
            if type(val) is RhaiRange:
                if not _in_case_range(x, val):
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
    return switch


def _in_case_range(x: Any, r: RhaiRange) -> bool:
    """A range case matches an integer in it, or (switching on a range) an equal range."""
    if type(x) is RhaiRange:
        return x == r
    return type(x) is int and x in r


def _fast_while(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
                where: tuple[str, int, int], w: int) -> Fn:
    """A ``while`` without break/continue: operations are counted in a local and flushed to
    the runtime in chunks (never past the limit), the body's statements are called inline;
    each iteration counts ``w`` operations."""
    budget = _budget_fn(rt, *where)
    make = _WHILE_BY_LEN.get(len(stmts), _whilen)
    return make(c, stmts, rt, bad, budget, w)


def _while1(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
            budget: Callable[[], int], w: int) -> Fn:
    (s0,) = stmts

    def while1(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                n += w
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


def _while2(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
            budget: Callable[[], int], w: int) -> Fn:
    s0, s1 = stmts

    def while2(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                n += w
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


def _whilen(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
            budget: Callable[[], int], w: int) -> Fn:
    def whilen(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                n += w
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


_WHILE_BY_LEN = {1: _while1, 2: _while2}
