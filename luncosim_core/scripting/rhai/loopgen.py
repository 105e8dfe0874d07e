"""Whole-loop specialisation: a ``while`` whose condition compares local variables/constants
and whose body only updates local variables with ``+ - *`` arithmetic is generated as one Python
function (no closure call per node). Semantics are the general evaluator's: checked i64
arithmetic, int/float mixing and every other case go through :mod:`.ops`; operations are
counted per iteration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ops
from .ast import Node
from .errors import RhaiRuntimeError
from .values import Unit

_CMP = ("<", "<=", ">", ">=", "==", "!=")
_ARITH = ("+", "-", "*")


class _Gen:
    def __init__(self, lookup: Callable[[str], Any], rt: Any) -> None:
        self.lookup = lookup
        self.rt = rt  # its operators: metered ones when the engine has a memory budget
        self.ns: dict[str, Any] = {"Unit": Unit, "RhaiRuntimeError": RhaiRuntimeError}
        self.k = 0

    def const(self, v: Any) -> str:
        self.k += 1
        name = f"K{self.k}"
        self.ns[name] = v
        return name

    def operand(self, n: Node) -> tuple[str, str] | None:
        """(code, static type or '') for a local unboxed variable or a number literal."""
        if n.k == "lit" and type(n.value) in (int, float):
            return self.const(n.value), type(n.value).__name__
        if n.k == "var":
            v = self.lookup(n.name)
            if v is not None and not v.boxed:
                return f"f[{v.slot}]", ""
        return None

    def slow(self, fn: Callable[[Any, Any], Any], n: Node, file: str) -> str:
        line, col = n.line, n.col

        def located(a: Any, b: Any) -> Any:
            try:
                return fn(a, b)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        return self.const(located)

    def arith(self, op: str, a: tuple[str, str], b: tuple[str, str], slow: str,
              ind: str) -> list[str]:
        """Lines computing ``r = a op b``."""
        ints = " and ".join(f"type({x}) is int" for x, t in ((("a", a[1]), ("b", b[1])))
                            if t != "int") or "True"
        flts = " and ".join(f"type({x}) is float" for x, t in ((("a", a[1]), ("b", b[1])))
                            if t != "float") or "True"
        lines = [f"{ind}a = {a[0]}", f"{ind}b = {b[0]}"]
        if a[1] == "float" or b[1] == "float":
            lines += [f"{ind}if {flts}:", f"{ind}    r = a {op} b",
                      f"{ind}else:", f"{ind}    r = {slow}(a, b)"]
        else:
            lines += [f"{ind}if {ints}:", f"{ind}    r = a {op} b",
                      f"{ind}    if r > 9223372036854775807 or r < -9223372036854775808:",
                      f"{ind}        r = {slow}(a, b)",
                      f"{ind}elif {flts}:", f"{ind}    r = a {op} b",
                      f"{ind}else:", f"{ind}    r = {slow}(a, b)"]
        return lines

    def stmt(self, st: Node, file: str, ind: str) -> list[str] | None:
        if st.k != "assign" or st.target.k != "var":
            return None
        v = self.lookup(st.target.name)
        if v is None or v.boxed or v.const:
            return None
        tgt = (f"f[{v.slot}]", "")
        val = st.value
        if st.op in ("+=", "-=", "*="):
            op = st.op[0]
            b = self.operand(val)
            if b is None:
                return None
            slow = self.slow(self.rt.add_assign if op == "+" else self.rt.binary[op], st, file)
            return self.arith(op, tgt, b, slow, ind) + [f"{ind}{tgt[0]} = r"]
        if st.op == "=":
            b = self.operand(val)
            if b is not None:
                return [f"{ind}{tgt[0]} = {b[0]}"]
            if val.k == "binary" and val.op in _ARITH:
                x, y = self.operand(val.l), self.operand(val.r)
                if x is None or y is None:
                    return None
                slow = self.slow(self.rt.binary[val.op], val, file)
                return self.arith(val.op, x, y, slow, ind) + [f"{ind}{tgt[0]} = r"]
        return None

    def cond(self, c: Node, file: str, ind: str) -> list[str] | None:
        if c.k != "binary" or c.op not in _CMP:
            return None
        a, b = self.operand(c.l), self.operand(c.r)
        if a is None or b is None:
            return None
        slow = self.slow(ops.BINARY[c.op], c, file)
        return [f"{ind}a = {a[0]}", f"{ind}b = {b[0]}",
                f"{ind}if type(a) is int and type(b) is int:",
                f"{ind}    x = a {c.op} b",
                f"{ind}else:", f"{ind}    x = {slow}(a, b)",
                f"{ind}if not x:", f"{ind}    n += WC", f"{ind}    return Unit"]


def try_while(n: Node, lookup: Callable[[str], Any], rt: Any, file: str, w: int,
              wc: int) -> Callable | None:
    """A single generated function for simple ``while`` loops, or ``None``. Each iteration
    counts ``w`` operations, the final (false) condition ``wc``."""
    if rt.limits.max_string_size or rt.limits.max_array_size:
        return None  # the general path checks sizes after every `+=`
    g = _Gen(lookup, rt)
    ind = " " * 16
    cond = g.cond(n.cond, file, ind)
    if cond is None:
        return None
    body: list[str] = []
    for st in n.body.stmts:
        lines = g.stmt(st, file, ind)
        if lines is None:
            return None
        body += lines
    g.ns["rt"] = rt
    g.ns["W"], g.ns["WC"] = w, wc
    g.ns["LOC"] = (file, n.cond.line, n.cond.col)
    src = "\n".join([
        "def _while(f):",
        "    n = 0",
        "    lim = _budget()",
        "    try:",
        "        while True:",
        *[ln[4:] for ln in cond],
        "            n += W",
        "            if n >= lim:",
        "                rt.ops += n",
        "                n = 0",
        "                lim = _budget()",
        *[ln[4:] for ln in body],
        "    finally:",
        "        rt.ops += n",
        "        if rt.ops > rt.max_ops:",
        "            raise rt.too_many_ops().locate(*LOC)",
        "",
        _BUDGET,
    ])
    exec(compile(src, f"<rhai-while {file}:{n.line}>", "exec"), g.ns)  # noqa: S102
    generic = g.ns["_while"]
    return _IntLoop(lookup, rt, file).build(n, generic, w, wc) or generic


_BUDGET = """def _budget():
    left = rt.max_ops - rt.ops
    if left < 0:
        raise rt.too_many_ops().locate(*LOC)
    return left if left < 4096 else 4096"""


_I64 = "r > 9223372036854775807 or r < -9223372036854775808"


class _IntLoop:
    """The same loop specialised for integers: when every variable it touches holds an
    ``int`` on entry, they stay ints (each ``+ - *`` is checked and overflow is an error), so
    the loop keeps them in Python locals with no type tests; otherwise the generic loop runs."""

    def __init__(self, lookup: Callable[[str], Any], rt: Any, file: str) -> None:
        self.lookup, self.rt, self.file = lookup, rt, file
        self.ns: dict[str, Any] = {"Unit": Unit, "rt": rt}
        self.slots: dict[int, str] = {}
        self.k = 0

    def operand(self, n: Node) -> str | None:
        if n.k == "lit" and type(n.value) is int:
            self.k += 1
            self.ns[f"K{self.k}"] = n.value
            return f"K{self.k}"
        if n.k == "var":
            v = self.lookup(n.name)
            if v is not None and not v.boxed:
                return self.slots.setdefault(v.slot, f"v{v.slot}")
        return None

    def slow(self, op: str, n: Node) -> str:
        fn, line, col, file = ops.BINARY[op], n.line, n.col, self.file

        def overflow(a: Any, b: Any) -> Any:
            try:
                return fn(a, b)
            except RhaiRuntimeError as e:
                raise e.locate(file, line, col) from None
        self.k += 1
        self.ns[f"S{self.k}"] = overflow
        return f"S{self.k}"

    def arith(self, op: str, a: str, b: str, at: Node, tgt: str) -> list[str]:
        return [f"r = {a} {op} {b}", f"if {_I64}:", f"    r = {self.slow(op, at)}({a}, {b})",
                f"{tgt} = r"]

    def stmt(self, st: Node) -> list[str] | None:
        if st.k != "assign" or st.target.k != "var":
            return None
        v = self.lookup(st.target.name)
        if v is None or v.boxed or v.const:
            return None
        tgt = self.slots.setdefault(v.slot, f"v{v.slot}")
        val = st.value
        if st.op in ("+=", "-=", "*="):
            b = self.operand(val)
            return None if b is None else self.arith(st.op[0], tgt, b, st, tgt)
        if st.op != "=":
            return None
        b = self.operand(val)
        if b is not None:
            return [f"{tgt} = {b}"]
        if val.k == "binary" and val.op in _ARITH:
            x, y = self.operand(val.l), self.operand(val.r)
            if x is not None and y is not None:
                return self.arith(val.op, x, y, val, tgt)
        return None

    def build(self, n: Node, generic: Callable, w: int, wc: int) -> Callable | None:
        c = n.cond
        if c.k != "binary" or c.op not in _CMP:
            return None
        a, b = self.operand(c.l), self.operand(c.r)
        body: list[str] = []
        for st in n.body.stmts:
            lines = self.stmt(st)
            if lines is None or a is None or b is None:
                return None
            body += lines
        names = list(self.slots.items())
        guard = " and ".join(f"type(f[{s}]) is int" for s, _ in names) or "True"
        self.ns["_generic"] = generic
        self.ns["W"], self.ns["WC"] = w, wc
        self.ns["LOC"] = (self.file, c.line, c.col)
        src = "\n".join([
            "def _while_int(f):",
            f"    if not ({guard}):",
            "        return _generic(f)",
            *[f"    {v} = f[{s}]" for s, v in names],
            "    n = 0",
            "    lim = _budget()",
            "    try:",
            "        while True:",
            f"            if not ({a} {c.op} {b}):",
            "                n += WC",
            "                return Unit",
            "            n += W",
            "            if n >= lim:",
            "                rt.ops += n",
            "                n = 0",
            "                lim = _budget()",
            *[f"            {ln}" for ln in body],
            "    finally:",
            *[f"        f[{s}] = {v}" for s, v in names],
            "        rt.ops += n",
            "        if rt.ops > rt.max_ops:",
            "            raise rt.too_many_ops().locate(*LOC)",
            "",
            _BUDGET,
        ])
        exec(compile(src, f"<rhai-int-while {self.file}:{n.line}>", "exec"), self.ns)  # noqa: S102
        return self.ns["_while_int"]
