"""Rhai syntax tree: one :class:`Node` type tagged by ``k`` with named fields.

Expression kinds: lit, istr, var, path (``ns::name``), this, array, map, unary, binary, and, or,
coalesce, range, in, prop, index, call, method, closure, block, if, while, loop, do, for,
switch, try. Statement kinds (also allowed where a value is needed, giving ``()``): let,
assign, break, continue, return, throw, import, export, fn (hoisted definitions), expr.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Node:
    """A syntax-tree node: kind ``k``, 1-based ``line``/``col`` and kind-specific fields."""

    __slots__ = ("k", "line", "col", "__dict__")

    def __init__(self, k: str, line: int, col: int, **fields: Any) -> None:
        self.k = k
        self.line = line
        self.col = col
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{self.k}({inner})"


@dataclass
class FnDef:
    """A script function: ``fn [type.]name(params) { body }``."""

    name: str
    params: list[str]
    body: Node
    line: int
    col: int
    private: bool = False
    this_type: str | None = None  # typed method: `fn int.foo()`
    doc: str = ""
    compiled: Any = field(default=None, repr=False)


@dataclass
class Script:
    """A parsed script: top-level statements plus its function definitions."""

    stmts: list[Node]
    fns: list[FnDef]
    file: str = ""
