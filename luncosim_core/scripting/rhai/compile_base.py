"""Compile-time scopes, the compiled-expression record and small helpers shared by the
compiler modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ast import Node
from .errors import (
    RhaiRuntimeError,
)
from .runtime import (
    ScriptFn,
)
from .values import (
    ACTIVE,
    Char,
    RhaiRange,
    Unit,
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


def iterate(src: Any) -> Any:
    """What ``for x in src`` walks over."""
    t = type(src)
    if t is list:
        m = ACTIVE.meter
        if m is not None:  # a snapshot of the elements (the body may change the array)
            m.charge(56 + 8 * len(src))
        return list(src)
    if t is RhaiRange:
        return src.to_range()
    if t is range:
        return src
    if t is str:
        return map(Char, src)  # lazily: a string's characters are not made all at once
    if t is bytearray:
        return bytes(src)  # a snapshot, yielding the bytes as integers
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


PURE_METHODS = frozenset((
    "len", "is_empty", "contains", "index_of", "get", "keys", "values", "to_string",
    "to_debug", "type_of", "map", "filter", "reduce", "reduce_rev", "some", "all", "find",
    "find_map", "extract", "first", "last", "sub_string", "starts_with", "ends_with",
    "to_upper", "to_lower", "chars", "bytes", "abs", "floor", "ceiling", "round", "int_part", "int",
    "fraction", "sqrt", "to_int", "to_float", "is_nan", "is_finite", "is_infinite", "min",
    "max", "to_json", "to_array", "as_string", "call", "curry", "name", "is_anonymous",
    "elapsed", "start", "end", "is_inclusive", "is_exclusive", "is_odd", "is_even", "is_zero",
    "sign", "to_hex", "to_binary", "to_octal", "zip", "equals", "to_blob", "sin", "cos", "tan", "exp", "ln", "log",
))


def _root_var(n: Any) -> str | None:
    while isinstance(n, Node) and n.k in ("prop", "index", "method"):
        n = n.obj
    return n.name if isinstance(n, Node) and n.k == "var" else None


def mutated_params(params: list[str], body: Any) -> set[str]:
    """Parameters the body may change in place (so a caller's array/map must be copied on the
    way in): property/index assignment or compound assignment through the parameter, a method
    call on it that is not known to be pure, or capture by a closure."""
    names = set(params)
    out: set[str] = set()

    def walk(n: Any) -> None:
        if isinstance(n, Node):
            k = n.k
            if k == "assign":
                r = _root_var(n.target)
                if r in names and (n.target.k != "var" or n.op != "="):
                    out.add(r)
            elif k == "method":
                r = _root_var(n.obj)
                if r in names and n.name not in PURE_METHODS:
                    out.add(r)
            elif k == "closure":
                out.update(names & closure_names(n, inside=True))
            for v in n.__dict__.values():
                walk(v)
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    walk(body)
    return out
