"""Compile a scenario so its own top-level constants are visible inside its functions.

Rhai functions are pure: a body cannot see script variables. Authors nevertheless write
``const TARGET = 1.2;`` at the top of a scenario and read ``TARGET`` inside ``on_tick``. We
honour that the way a constant-folding compiler would: every bare read of a top-level
constant inside a function (that the function does not shadow) becomes a read of the
script's global constant table (``global::TARGET``), which the top level fills when it runs.
Literal constants are filled before any hook runs, so even the dependency plan sees them.
Source positions are untouched, so diagnostics point at what the author wrote.
"""

from __future__ import annotations

from typing import Any

from luncosim_core.scripting.rhai import AST, Engine
from luncosim_core.scripting.rhai.ast import FnDef, Node
from luncosim_core.scripting.rhai.compiler import Compiler
from luncosim_core.scripting.rhai.errors import RhaiSyntaxError
from luncosim_core.scripting.rhai.parser import parse


def compile_scenario(engine: Engine, source: str, file: str, constants: dict[str, Any] | None = None) -> AST:
    """Parse and compile ``source`` with top-level constants folded into its functions.
    ``constants`` are host-provided constants (e.g. ``params``) visible the same way, in the
    top level and in every function.

    Raises :class:`RhaiSyntaxError` (positioned) like :meth:`Engine.compile`."""
    try:
        script = parse(source, file, engine.limits.max_expr_depth)
    except RecursionError:
        raise RhaiSyntaxError("Expression exceeds maximum complexity", file, 1, 1) from None
    consts = {st.name: st for st in script.stmts if st.k == "let" and getattr(st, "const", False)}
    names = set(consts) | set(constants or {})
    if names:
        for fn in script.fns:
            _rewrite_fn(fn, names)
    try:
        lib = Compiler(engine.rt, script, file).compile()
    except RecursionError:
        raise RhaiSyntaxError("Expression exceeds maximum complexity", file, 1, 1) from None
    for name, value in (constants or {}).items():
        lib.globals[name] = value
    for name, st in consts.items():
        if st.e is not None and st.e.k == "lit":
            lib.globals[name] = st.e.value
    return AST(lib, source, file, engine)


def _declared(node: Any, out: set[str]) -> None:
    """Every name a function body declares anywhere (let, for, closure params, catch)."""
    if isinstance(node, Node):
        k = node.k
        if k == "let":
            out.add(node.name)
        elif k == "for":
            out.update(n for n in (node.name, node.idx) if isinstance(n, str))
        elif k == "closure":
            out.update(p for p in node.params if isinstance(p, str))
        elif k == "try" and isinstance(node.var, str):
            out.add(node.var)
        for value in node.__dict__.values():
            _declared(value, out)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _declared(item, out)
    elif isinstance(node, dict):
        for item in node.values():
            _declared(item, out)


def _rewrite_fn(fn: FnDef, consts: set[str]) -> None:
    shadowed: set[str] = set(fn.params)
    _declared(fn.body, shadowed)
    names = consts - shadowed
    if names:
        fn.body = _rewrite(fn.body, names)


def _rewrite(node: Any, names: set[str]) -> Any:
    if isinstance(node, Node):
        if node.k == "var" and node.name in names:
            return Node("path", node.line, node.col, ns=["global"], name=node.name)
        for key, value in list(node.__dict__.items()):
            new = _rewrite(value, names)
            if new is not value:
                node.__dict__[key] = new
        return node
    if isinstance(node, list):
        for i, item in enumerate(node):
            new = _rewrite(item, names)
            if new is not item:
                node[i] = new
        return node
    if isinstance(node, tuple):
        items = [_rewrite(item, names) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else tuple(items)
    if isinstance(node, dict):
        for key, item in list(node.items()):
            new = _rewrite(item, names)
            if new is not item:
                node[key] = new
        return node
    return node
