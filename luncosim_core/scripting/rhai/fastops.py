"""Specialised closures for hot node shapes, generated once per (operator, operand shape).

An operand is a local slot (``f[i]``), a constant, or a sub-closure (``L(f)``). Each generated
closure tries the int (and float) fast path inline and falls back to the general operator in
:mod:`.ops`, locating any error at the operator's position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ops
from .errors import RhaiRuntimeError
from .values import Unit

# fast paths, with `a` and `b` bound; each may `return` or fall through to the slow path
_ARITH = """
        if type(a) is int and type(b) is int:
            r = a {op} b
            if -9223372036854775808 <= r <= 9223372036854775807:
                return r
        elif type(a) is float and type(b) is float:
            return a {op} b
"""
_CMP = """
        ta = type(a)
        if ta is type(b):
            if ta is int:
                return a {op} b
            if ta is float:
                return FCMP("{op}", a, b)
"""
_EQ = """
        ta = type(a)
        if ta is type(b):
            if ta is int or ta is str or ta is bool:
                return a {op} b
            if ta is float:
                return FCMP("{op}", a, b)
"""
_ARITH_SET = """
        if type(a) is int and type(b) is int:
            r = a {op} b
            if -9223372036854775808 <= r <= 9223372036854775807:
                f[T] = r
                return U
        elif type(a) is float and type(b) is float:
            f[T] = a {op} b
            return U
"""
_FAST = {
    "+": _ARITH.format(op="+"), "-": _ARITH.format(op="-"), "*": _ARITH.format(op="*"),
    "<": _CMP.format(op="<"), "<=": _CMP.format(op="<="), ">": _CMP.format(op=">"),
    ">=": _CMP.format(op=">="), "==": _EQ.format(op="=="), "!=": _EQ.format(op="!="),
}

_OPERAND = {"slot": "f[{n}]", "const": "{n}", "expr": "{n}(f)"}
_factories: dict[tuple[str, str, str, str], Callable[..., Any]] = {}


def _factory(kind: str, op: str, sa: str, sb: str) -> Callable[..., Any]:
    key = (kind, op, sa, sb)
    fac = _factories.get(key)
    if fac is not None:
        return fac
    a_src = _OPERAND[sa].format(n="A")
    b_src = _OPERAND[sb].format(n="B")
    fast = _FAST.get(op, "")
    if kind == "bin":
        src = f"""
def factory(A, B, slow, file, line, col):
    def _op(f):
        a = {a_src}
        b = {b_src}
{fast}
        try:
            return slow(a, b)
        except RhaiRuntimeError as e:
            raise e.locate(file, line, col) from None
    return _op
"""
    else:  # "set": f[T] = f[T] op b  (compound assignment to a local slot), value ()
        fast_set = _ARITH_SET.format(op=op) if op in ("+", "-", "*") else ""
        src = f"""
def factory(T, B, slow, file, line, col):
    def _op(f):
        a = f[T]
        b = {b_src}
{fast_set}
        try:
            f[T] = slow(a, b)
        except RhaiRuntimeError as e:
            raise e.locate(file, line, col) from None
        return U
    return _op
"""
    ns: dict[str, Any] = {"RhaiRuntimeError": RhaiRuntimeError, "U": Unit,
                          "FCMP": ops.float_cmp}
    exec(compile(src, f"<rhai-fastop {kind} {op} {sa} {sb}>", "exec"), ns)  # noqa: S102
    fac = ns["factory"]
    _factories[key] = fac
    return fac


def binary(op: str, a: tuple[str, Any], b: tuple[str, Any], file: str, line: int,
           col: int, table: dict[str, Callable[[Any, Any], Any]] | None = None
           ) -> Callable[[list], Any]:
    """A closure computing ``a op b``; operands are ``(shape, value)`` pairs; ``table`` holds
    the general operators (default :data:`.ops.BINARY`)."""
    slow = (table or ops.BINARY)[op]
    return _factory("bin", op, a[0], b[0])(a[1], b[1], slow, file, line, col)


def compound_to_slot(op: str, slot: int, b: tuple[str, Any], slow: Callable[[Any, Any], Any],
                     file: str, line: int, col: int) -> Callable[[list], Any]:
    """A closure doing ``f[slot] = f[slot] op b`` (returns ``None``: the caller maps to ())."""
    return _factory("set", op, "slot", b[0])(slot, b[1], slow, file, line, col)
