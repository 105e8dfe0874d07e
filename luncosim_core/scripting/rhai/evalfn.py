"""``eval(code)`` with a string computed at run time, and ``foo!(args)`` (a script function
run with the caller's variables in reach) (a literal ``eval("...")`` statement is
parsed in place by the parser). The code runs inside the same engine, sandbox and limits: the
operation budget keeps counting, the call counts one level of depth, and it sees and may
assign the caller's variables; its own ``let``s end with it."""

from __future__ import annotations

from typing import Any

from .errors import ReturnSignal, RhaiLimitError, RhaiRuntimeError, RhaiSyntaxError
from .runtime import Cell
from .values import Unit, type_of


def _caller_vars(rt: Any, f: list, visible: dict) -> tuple[dict, set]:
    names = dict(rt.scope)
    consts = set(rt.scope_consts)
    for name, v in visible.items():
        val = f[v.slot]
        if v.boxed and type(val) is Cell:
            val = val.v
        if val is None:
            continue
        names[name] = val
        if v.const:
            consts.add(name)
    return names, consts


def _write_back(f: list, visible: dict, names: dict) -> None:
    for name, v in visible.items():
        if v.const or name not in names:
            continue
        if v.boxed and type(f[v.slot]) is Cell:
            f[v.slot].v = names[name]
        else:
            f[v.slot] = names[name]


def run_eval(rt: Any, code: Any, f: list, visible: dict, where: tuple[str, int, int]) -> Any:
    """Compile and run ``code`` in the caller's frame ``f`` (``visible``: its variables)."""
    from .compiler import Compiler
    from .parser import parse

    file, line, col = where
    if type(code) is not str:
        raise RhaiRuntimeError(f"Data type incorrect: {type_of(code)} (expecting string)",
                               file, line, col)
    try:
        lib = Compiler(rt, parse(code, "eval", rt.limits.max_expr_depth), "eval").compile()
    except RhaiSyntaxError as e:
        raise RhaiRuntimeError(f"Syntax error in eval: {e.message} (eval:{e.line}:{e.col})",
                               file, line, col) from None
    frame: list[Any] = [None] * lib.top.nslots
    frame[0] = f[0]

    def body() -> Any:
        rt.depth += 1
        try:
            if rt.depth > rt.max_depth:
                raise RhaiLimitError(f"Stack overflow: call depth exceeds {rt.max_depth} in "
                                     f"eval", file, line, col)
            try:
                return lib.top.body(frame)
            except ReturnSignal as ret:
                return ret.value
        finally:
            rt.depth -= 1
    r = with_caller_scope(rt, f, visible, body)
    return Unit if r is None else r


def with_caller_scope(rt: Any, f: list, visible: dict, thunk: Any, entry: bool = False) -> Any:
    """Run ``thunk`` with the caller's variables as the dynamic scope (``entry``: as the
    scope of the function called next, as ``foo!()`` does) and write back what it assigned."""
    names, consts = _caller_vars(rt, f, visible)
    saved = rt.scope, rt.scope_consts, rt.entry_depth
    rt.scope, rt.scope_consts = names, consts
    if entry:
        rt.entry_depth = rt.depth + 1
    try:
        r = thunk()
    finally:
        rt.scope, rt.scope_consts, rt.entry_depth = saved
    for name in rt.scope:  # the host scope's variables the code assigned
        if name in names and name not in rt.scope_consts and name not in visible:
            rt.scope[name] = names[name]
    _write_back(f, visible, names)
    return r
