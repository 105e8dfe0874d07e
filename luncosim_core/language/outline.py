"""The outline of a source: what a side list shows and jumps to.

Modelica (our syntax layer, :mod:`luncosim_core.modelica.syntax`): classes (nested ones under
their parent), their components (``parameter``/``input``/``output`` or plain, with their type),
and their equation and algorithm sections with one entry per equation or statement. Rhai (our
parser): the script's functions, the runtime's hooks (``on_tick(me)`` ...) marked as such.
A source that does not parse has no outline (``None``): the editor keeps the last one.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from luncosim_core.language.rhai import HOOKS


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # a class kind (model, block, package ...), parameter, input, output, component,
    #            equations, equation, function, hook
    line: int  # 1-based
    column: int  # 1-based
    depth: int  # 0 for top-level entries
    detail: str = ""  # a component's type, a function's parameters


def outline(language: str, text: str) -> list[Symbol] | None:
    if language == "modelica":
        return modelica_outline(text)
    if language == "rhai":
        return rhai_outline(text)
    return []


class _Lines:
    """1-based line and column of offsets into one text (a bisect over its line starts)."""

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.starts = starts

    def __call__(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


def modelica_outline(text: str, sd=None, tokens=None) -> list[Symbol] | None:
    """``sd``/``tokens``: the text already parsed and tokenized (each done once)."""
    from luncosim_core.modelica.syntax.lexer import LexError, tokenize
    from luncosim_core.modelica.syntax.parser import ParseError, parse

    try:
        sd = parse(text) if sd is None else sd
        tokens = tokenize(text) if tokens is None else tokens
    except (ParseError, LexError, RecursionError):
        return None
    out: list[Symbol] = []
    line_col = _Lines(text)

    def walk(cls, depth: int) -> None:
        at = text.find(cls.name, cls.start, cls.body_start if cls.body_start > 0 else cls.end)
        out.append(Symbol(cls.name, cls.kind, *line_col(at if at >= 0 else cls.start), depth))
        for comp in cls.components:
            kind = next((p for p in ("parameter", "constant", "input", "output") if p in comp.prefixes), "component")
            out.append(Symbol(comp.name, kind, *line_col(comp.name_start), depth + 1, comp.type_name))
        for section in cls.sections:
            if "equation" in section.kind or "algorithm" in section.kind:
                statements = _statements(text, tokens, section.start, section.end)
                if statements:
                    out.append(Symbol(section.kind, "equations", *line_col(section.start), depth + 1,
                                      f"{len(statements)}"))
                    out.extend(Symbol(s, "equation", *line_col(at), depth + 2) for at, s in statements)
        for nested in cls.classes:
            walk(nested, depth + 1)

    for cls in sd.classes:
        walk(cls, 0)
    return out


_BLOCKS = frozenset({"if", "for", "when", "while"})
_SECTION_WORDS = frozenset({"initial", "equation", "algorithm"})


def _statements(text: str, tokens, start: int, end: int) -> list[tuple[int, str]]:
    """(offset, summary) of each equation or statement of the section ``start``..``end`` (nested
    if/for/when/while blocks are one entry; the class annotation is none)."""
    out: list[tuple[int, str]] = []
    first = None
    brackets = blocks = 0
    prev = ""
    for tok in tokens:
        if tok.start < start:
            continue
        if tok.start >= end:
            break
        word = text[tok.start:tok.end]
        if first is None:
            if word in _SECTION_WORDS:
                continue
            first = tok.start
        if word in "([{":
            brackets += 1
        elif word in ")]}":
            brackets -= 1
        elif word in _BLOCKS and prev != "end" and (tok.start == first or prev in (";", "then", "else", "loop")):
            blocks += 1
        elif word in _BLOCKS and prev == "end":
            blocks -= 1
        elif word == ";" and brackets == 0 and blocks <= 0:
            body = " ".join(text[first:tok.end].split())
            if not body.startswith("annotation"):
                out.append((first, body if len(body) <= 72 else body[:71] + "…"))
            first, blocks = None, 0
        prev = word
    return out


def rhai_outline(text: str, script=None) -> list[Symbol] | None:
    """``script``: the text already parsed."""
    from luncosim_core.scripting.rhai.errors import RhaiError
    from luncosim_core.scripting.rhai.parser import parse

    try:
        script = parse(text, "outline") if script is None else script
    except (RhaiError, RecursionError):
        return None
    out = []
    for fn in sorted(script.fns, key=lambda f: (f.line, f.col)):
        hook = HOOKS.get(fn.name)
        kind = "hook" if hook is not None and len(fn.params) == len(hook) else "function"
        out.append(Symbol(fn.name, kind, fn.line, fn.col, 0, ", ".join(fn.params)))
    return out
