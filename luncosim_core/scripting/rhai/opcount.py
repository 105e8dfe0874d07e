"""Operations as Rhai counts them, weighed at compile time.

Rhai's evaluator counts one operation for every statement and every expression it evaluates,
one for every native function call and one for every script function call (with
optimization off, ``OptimizationLevel::None``; Rhai's default optimizer folds constants first,
so it counts fewer). Here each node's weight is what one evaluation of it counts
unconditionally; the parts that run conditionally or repeatedly (an ``if``'s branches, a
``switch``'s arms, the right side of ``&&``/``||``/``??``, a loop's iterations, a ``catch``
block, a function's body) are charged at run time when they run, each with its own weight.
A block's statements are charged together up front, split after any statement that may leave
the block early (``return``, ``break``, ``continue``, ``throw``), so straight-line code costs
one addition per block and the totals are Rhai's.

The shapes follow Rhai's evaluator: ``f(a, b)`` is 1 for the call expression, the arguments,
and 1 for the call itself (a script function's 1 is charged with its body); ``a.b.c(x)`` is 1
for the expression, 1 per step for the argument pass (none for a single property, literal
index or argument-less method), the root, 1 per step and the arguments; ``x = v`` is 1 for
the statement, the value and 1 for the target; an ``if`` statement is 1 plus its condition
(an ``if`` used as a value adds 1 for the expression); a loop counts, per iteration, its
condition and its body's statements (1 when the body is empty).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .ast import Node

CONTROL = frozenset(("if", "while", "loop", "do", "for", "switch", "try"))
_CHAIN = frozenset(("prop", "index", "method"))
_EXITS = frozenset(("return", "break", "continue", "throw"))
# calls Rhai's evaluator answers itself (no native call counted; `call`'s script function
# counts its own 1 with its body)
_SYNTACTIC = frozenset(("call", "Fn", "curry", "eval", "is_shared", "is_def_var"))


class Weigher:
    """Weights of one script's nodes; ``is_script(name, nargs)`` tells a call to one of its
    own functions (whose 1 is charged with the body) from any other call."""

    def __init__(self, is_script: Callable[[str, int], bool]) -> None:
        self.is_script = is_script

    # ── expressions ────────────────────────────────────────────────────────────────────
    def expr(self, n: Node) -> int:
        """Operations one evaluation of expression ``n`` counts unconditionally."""
        k = n.k
        if k in _CHAIN:
            return self.chain(n)
        f = _EXPR.get(k)
        if f is not None:
            return f(self, n)
        if k in _STMT:  # a statement where a value is expected
            return self.stmt(n)
        return 1

    def exprs(self, ns: Iterable[Node]) -> int:
        return sum(self.expr(x) for x in ns)

    def chain(self, n: Node) -> int:
        """``root.a[i].m(x)``: counted as Rhai's dot/index chain evaluation counts it."""
        steps = []
        while n.k in _CHAIN:
            steps.append(n)
            n = n.obj
        k = len(steps)
        root = 1 if n.k in ("var", "this") else self.expr(n)
        total = 1 + root + k
        if k == 1 and _short_step(steps[0]):
            return total  # no argument pass: a property, a literal index, `x.m()`
        total += k
        for st in steps:
            if st.k == "method":
                total += self.exprs(st.args)
            elif st.k == "index":
                total += self.expr(st.idx)
        return total

    def call(self, n: Node) -> int:
        args = self.exprs(n.args)
        if n.ns or getattr(n, "bang", False) or self.is_script(n.name, len(n.args)):
            return 1 + args  # a script function: its own 1 is charged with its body
        if n.name in _SYNTACTIC and n.args:
            return 1 + args  # answered by the evaluator itself, not a function call
        return 2 + args

    # ── statements and blocks ──────────────────────────────────────────────────────────
    def stmt(self, st: Node) -> int:
        f = _STMT.get(st.k)
        return f(self, st) if f is not None else 1

    def segments(self, stmts: list[Node]) -> list[tuple[int, int]]:
        """``(first statement, weight)`` of each run of statements charged together: a run
        ends after a statement that may leave the block."""
        out: list[tuple[int, int]] = []
        start, w = 0, 0
        for i, st in enumerate(stmts):
            w += self.stmt(st)
            if may_exit(st) and i + 1 < len(stmts):
                out.append((start, w))
                start, w = i + 1, 0
        out.append((start, w))
        return out

    def head(self, stmts: list[Node]) -> int:
        """What entering a block charges: its first run of statements."""
        return self.segments(stmts)[0][1] if stmts else 0

    def body(self, n: Node) -> int:
        """A function or closure body (a block, or a closure's single expression) as Rhai
        runs it: its statements, plus 1 for the call of the script function."""
        if n.k == "block":
            return 1 + self.head(n.stmts)
        return 1 + self.stmt(Node("expr", n.line, n.col, e=n))

    def iteration(self, n: Node) -> int:
        """Operations one loop iteration counts before its body's later runs."""
        body = self.head(n.body.stmts)
        k = n.k
        if k == "do":
            return body + self.expr(n.cond)
        if k == "while" and not (n.cond.k == "lit" and n.cond.value is True):
            return self.expr(n.cond) + body
        return body if n.body.stmts else 1  # loop, while true, for: an empty body counts 1

    def arm(self, body: Node) -> int:
        """A switch arm or if branch when it runs."""
        if body.k == "block":
            return 1 + self.head(body.stmts)
        return self.expr(body)

    def branch(self, n: Node | None) -> int:
        """An if's then/else part when it runs: the block's statements, or a nested
        ``else if`` statement."""
        if n is None:
            return 0
        if n.k == "block":
            return self.head(n.stmts)
        return self.expr(n) - 1  # `else if`: an if statement


def _short_step(st: Node) -> bool:
    if st.k == "prop":
        return True
    if st.k == "index":
        return st.idx.k == "lit"
    return not st.args


def may_exit(n: Any) -> bool:
    """Does ``n`` hold a statement that may leave its block early (not inside a closure)?"""
    if isinstance(n, Node):
        if n.k in _EXITS:
            return True
        if n.k == "closure":
            return False
        return any(may_exit(v) for v in n.__dict__.values())
    if isinstance(n, list | tuple):
        return any(may_exit(x) for x in n)
    return False


def _w_unary(w: Weigher, n: Node) -> int:
    # `!x` takes the fast operator path; `-x` is a call of the `-` function
    return (1 if n.op == "!" else 2) + w.expr(n.e)


def _w_block(w: Weigher, n: Node) -> int:
    return 1 + w.head(n.stmts)


def _w_istr(w: Weigher, n: Node) -> int:
    return 1 + sum(1 if isinstance(p, str) else _w_block(w, p) for p in n.parts)


def _w_for(w: Weigher, n: Node) -> int:
    return 2 + w.expr(n.iter)


def _w_try(w: Weigher, n: Node) -> int:
    return 2 + w.head(n.body.stmts)


_EXPR: dict[str, Callable[[Weigher, Node], int]] = {
    "array": lambda w, n: 1 + w.exprs(n.items),
    "map": lambda w, n: 1 + w.exprs(v for _, v in n.pairs),
    "istr": _w_istr,
    "unary": _w_unary,
    "binary": lambda w, n: 1 + w.expr(n.l) + w.expr(n.r),
    "range": lambda w, n: 1 + w.expr(n.l) + w.expr(n.r),
    "in": lambda w, n: 1 + w.expr(n.l) + w.expr(n.r),
    "and": lambda w, n: 1 + w.expr(n.l),  # the right side is charged when it runs
    "or": lambda w, n: 1 + w.expr(n.l),
    "coalesce": lambda w, n: 1 + w.expr(n.l),
    "call": Weigher.call,
    "block": _w_block,
    # control flow used as a value: 1 for the expression, 1 for the statement inside
    "if": lambda w, n: 2 + w.expr(n.cond),
    "switch": lambda w, n: 2 + w.expr(n.subject),
    "while": lambda w, n: 2,
    "loop": lambda w, n: 2,
    "do": lambda w, n: 2,
    "for": _w_for,
    "try": _w_try,
}


def _s_expr(w: Weigher, st: Node) -> int:
    e = st.e
    if e.k in CONTROL:
        return w.expr(e) - 1  # a control-flow statement is not also an expression
    if e.k == "block":
        return w.expr(e)
    return 1 + w.expr(e)


def _s_assign(w: Weigher, st: Node) -> int:
    t = st.target
    if t.k in _CHAIN:
        return w.expr(st.value) + w.chain(t)  # the chain without its expression's 1
    return 2 + w.expr(st.value)


def _s_valued(w: Weigher, st: Node) -> int:
    return 1 + (w.expr(st.e) if st.e is not None else 0)


_STMT: dict[str, Callable[[Weigher, Node], int]] = {
    "expr": _s_expr,
    "let": _s_valued,
    "assign": _s_assign,
    "return": _s_valued,
    "break": _s_valued,
    "throw": _s_valued,
    "continue": lambda w, st: 1,
    "import": lambda w, st: 1 + w.expr(st.path),
    "export": lambda w, st: 1,
}
