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
        """Each branch charges its statements' operations when it runs."""
        c = self.expr(n.cond).fn
        then = self.block_body(n.then.stmts)
        other = self.expr(n.other).fn if n.other is not None else (lambda f: Unit)
        wt, we = self.weigh.branch(n.then), self.weigh.branch(n.other)
        rt = self.rt
        where = (self.file, n.cond.line, n.cond.col)

        def if_(f: list) -> Any:
            x = c(f)
            if x is True:
                rt.ops += wt
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(*where)
                return then(f)
            if x is False:
                rt.ops += we
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(*where)
                return other(f)
            raise RhaiRuntimeError(f"Data type incorrect: {type_of(x)} (expecting bool)", *where)
        return E(if_)

    def _loop_body(self, body: Node) -> tuple[Fn, bool]:
        self.ctx.loops += 1
        fn = self.block_body(body.stmts)
        self.ctx.loops -= 1
        self._stmt_list = getattr(fn, "stmts", (fn,))
        return fn, has_loop_flow(body)

    def x_while(self, n: Node) -> E:
        """Per iteration: the condition and the body's statements (Rhai does not count the
        condition of ``while true``); the final, false condition counts too."""
        w = self.weigh.iteration(n)
        wc = w - self.weigh.head(n.body.stmts)
        c = self.expr(n.cond).fn
        body, flow = self._loop_body(n.body)
        rt = self.rt
        where = (self.file, n.cond.line, n.cond.col)

        def bad(x: Any) -> RhaiRuntimeError:
            return RhaiRuntimeError(f"Data type incorrect: {type_of(x)} "
                                    "(expecting bool)", *where)
        if not flow:
            gen = try_while(n, self.ctx.lookup, rt, self.file, w, wc)
            if gen is not None:
                return E(gen)
            return E(_fast_while(c, self._stmt_list, rt, bad, where, w, wc))
        return E(_while_flow(c, body, rt, bad, where, w, wc))

    def x_loop(self, n: Node) -> E:
        body, _ = self._loop_body(n.body)
        rt = self.rt
        file, line, col = self.file, n.line, n.col
        w = self.weigh.iteration(n)

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
        w = self.weigh.iteration(n)

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
        w = self.weigh.iteration(n)
        budget = _budget_fn(rt, file, line, col)

        def for_(f: list) -> Any:
            try:
                seq = iterate(it(f))
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
                        n = 0
                        lim = budget()
                    if type(x) in _CONTAINERS:
                        x = deep_copy(x)
                    if cell is not None:
                        cell.v = x
                        x = cell
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
                flush(n)
            return Unit
        flush = _flush_fn(rt, file, line, col)
        return E(for_)

    def x_switch(self, n: Node) -> E:
        """The chosen arm (and each guard tried) charges its operations when it runs."""
        subj = self.expr(n.subject).fn
        table: dict[tuple[type, Any], tuple[Fn, int]] = {}
        ordered: list[tuple[Any, tuple[Fn, int] | None, tuple[Fn, int]]] = []
        simple = True
        for pats, guard, body in n.cases:
            arm = self._arm(body)
            g = (self.expr(guard).fn, self.weigh.expr(guard)) if guard is not None else None
            for p in pats:
                val: Any = RhaiRange(p.l.value, p.r.value, p.inclusive) if p.k == "range" \
                    else p.value
                ordered.append((val, g, arm))
                if p.k == "range" or g is not None:
                    simple = False
                else:
                    table.setdefault((type(val), _hashable(val)), arm)
        default = self._arm(n.default) if n.default is not None else None
        where = (self.file, n.line, n.col)
        if simple:
            return E(_switch_table(subj, table, default, self.rt, where))
        return E(_switch_ordered(subj, ordered, default, self.rt, where))

    def _arm(self, body: Node) -> tuple[Fn, int]:
        fn = self.expr(body).fn if body.k != "block" else self.block_body(body.stmts)
        return fn, self.weigh.arm(body)

    def x_try(self, n: Node) -> E:
        body = self.block_body(n.body.stmts)
        ctx = self.ctx
        ctx.scopes.append({})
        v = ctx.declare(n.var) if n.var else None
        catch = self.block_body(n.catch.stmts)
        ctx.scopes.pop()
        rt, wc = self.rt, self.weigh.head(n.catch.stmts)

        def try_(f: list) -> Any:
            try:
                return body(f)
            except RhaiLimitError:
                raise
            except RhaiRuntimeError as e:
                if v is not None:
                    val = e.value if e.thrown else error_map(e)
                    f[v.slot] = Cell(val) if v.boxed else val
                rt.ops += wc
                return catch(f)
        return E(try_)


def _budget_fn(rt: Runtime, file: str, line: int, col: int) -> Callable[[], int]:
    """How many operations a loop may count locally before reporting to the runtime (the
    limit is passed once the runtime's count is over it)."""

    def budget() -> int:
        left = rt.max_ops - rt.ops
        if left < 0:
            raise rt.too_many_ops().locate(file, line, col)
        return left if left < 4096 else 4096
    return budget


def _flush_fn(rt: Runtime, file: str, line: int, col: int) -> Callable[[int], None]:
    """Add a loop's local count to the runtime's when it ends; past the limit (functions
    called in the body count straight into the runtime), the loop fails there."""

    def flush(n: int) -> None:
        rt.ops += n
        if rt.ops > rt.max_ops:
            raise rt.too_many_ops().locate(file, line, col)
    return flush


def _while_flow(c: Fn, body: Fn, rt: Runtime, bad: Callable[[Any], Exception],
                where: tuple[str, int, int], w: int, wc: int) -> Fn:
    """A ``while`` with break/continue: counted straight into the runtime."""
    file, line, col = where

    def while_flow(f: list) -> Any:
        while True:
            x = c(f)
            if x is not True:
                rt.ops += wc
                if rt.ops > rt.max_ops:
                    raise rt.too_many_ops().locate(file, line, col)
                if x is False:
                    return Unit
                raise bad(x)
            rt.ops += w
            if rt.ops > rt.max_ops:
                raise rt.too_many_ops().locate(file, line, col)
            try:
                body(f)
            except ContinueSignal:
                pass
            except BreakSignal as b:
                return b.value
    return while_flow


def _charge_fn(rt: Runtime, where: tuple[str, int, int]) -> Callable[[int], None]:
    mx = rt.max_ops

    def charge(w: int) -> None:
        o = rt.ops + w
        rt.ops = o
        if o > mx:
            raise rt.too_many_ops().locate(*where)
    return charge


def _switch_table(subj: Fn, table: dict[tuple[type, Any], tuple[Fn, int]],
                  default: tuple[Fn, int] | None, rt: Runtime, where: tuple[str, int, int]) -> Fn:
    """A switch whose cases are plain values: one dictionary lookup."""
    charge = _charge_fn(rt, where)

    def switch_table(f: list) -> Any:
        x = subj(f)
        arm = table.get((type(x), _hashable(x)), default)
        if arm is None:
            return Unit
        charge(arm[1])
        return arm[0](f)
    return switch_table


def _switch_ordered(subj: Fn, ordered: list[tuple[Any, tuple[Fn, int] | None, tuple[Fn, int]]],
                    default: tuple[Fn, int] | None, rt: Runtime,
                    where: tuple[str, int, int]) -> Fn:
    """A switch with ranges or guards: cases tried in order."""
    charge = _charge_fn(rt, where)

    def switch(f: list) -> Any:
        x = subj(f)
        for val, g, arm in ordered:
            if type(val) is RhaiRange:
                if not _in_case_range(x, val):
                    continue
            elif not ops.eq(x, val):
                continue
            if g is not None:
                charge(g[1])
                gv = g[0](f)
                if type(gv) is not bool:
                    raise RhaiRuntimeError(f"Data type incorrect: {type_of(gv)} (expecting bool)",
                                           *where)
                if not gv:
                    continue
            charge(arm[1])
            return arm[0](f)
        if default is None:
            return Unit
        charge(default[1])
        return default[0](f)
    return switch


def _in_case_range(x: Any, r: RhaiRange) -> bool:
    """A range case matches an integer in it, or (switching on a range) an equal range."""
    if type(x) is RhaiRange:
        return x == r
    return type(x) is int and x in r


def _fast_while(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
                where: tuple[str, int, int], w: int, wc: int) -> Fn:
    """A ``while`` without break/continue: operations are counted in a local and flushed to
    the runtime in chunks (never past the limit), the body's statements are called inline;
    each iteration counts ``w`` operations, the final (false) condition ``wc``."""
    budget = _budget_fn(rt, *where)
    flush = _flush_fn(rt, *where)
    make = _WHILE_BY_LEN.get(len(stmts), _whilen)
    return make(c, stmts, rt, bad, budget, flush, w, wc)


def _while1(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
            budget: Callable[[], int], flush: Callable[[int], None], w: int, wc: int) -> Fn:
    (s0,) = stmts

    def while1(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                x = c(f)
                if x is not True:
                    n += wc
                    if x is False:
                        return Unit
                    raise bad(x)
                n += w
                if n >= lim:
                    rt.ops += n
                    n = 0
                    lim = budget()
                s0(f)
        finally:
            flush(n)
    return while1


def _while2(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
            budget: Callable[[], int], flush: Callable[[int], None], w: int, wc: int) -> Fn:
    s0, s1 = stmts

    def while2(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                x = c(f)
                if x is not True:
                    n += wc
                    if x is False:
                        return Unit
                    raise bad(x)
                n += w
                if n >= lim:
                    rt.ops += n
                    n = 0
                    lim = budget()
                s0(f)
                s1(f)
        finally:
            flush(n)
    return while2


def _whilen(c: Fn, stmts: tuple[Fn, ...], rt: Runtime, bad: Callable[[Any], Exception],
            budget: Callable[[], int], flush: Callable[[int], None], w: int, wc: int) -> Fn:
    def whilen(f: list) -> Any:
        n, lim = 0, budget()
        try:
            while True:
                x = c(f)
                if x is not True:
                    n += wc
                    if x is False:
                        return Unit
                    raise bad(x)
                n += w
                if n >= lim:
                    rt.ops += n
                    n = 0
                    lim = budget()
                for s in stmts:
                    s(f)
        finally:
            flush(n)
    return whilen


_WHILE_BY_LEN = {1: _while1, 2: _while2}
