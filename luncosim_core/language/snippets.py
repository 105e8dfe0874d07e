"""Completion snippets: a few lines of text with fields to fill in, per language.

A body marks fields as ``${n:default}`` (``n`` from 1; the same ``n`` twice is one field written
in two places, e.g. a class name and its ``end``) and the final caret as ``$0``.
:func:`expand` indents the body like the line it is inserted in and returns the text, the fields'
spans and where the caret ends up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Snippet:
    trigger: str  # what it completes from ("model")
    label: str  # what the completion list shows ("model…"): one word, no blanks
    body: str
    description: str


MODELICA = (
    Snippet("model", "model…", 'model ${1:Name} "${2:description}"\n  ${3:Real x(start = 0);}\nequation\n  $0\n'
            "end ${1:Name};", "a model with a declaration and an equation section"),
    Snippet("connect", "connect…", "connect(${1:a.port}, ${2:b.port});$0", "a connect equation"),
    Snippet("der", "der…", "der(${1:x}) = ${2:-x};$0", "a differential equation"),
    Snippet("annotation", "annotation(Placement)…",
            "annotation(Placement(transformation(extent = {{${1:-10}, ${2:-10}}, {${3:10}, ${4:10}}})))$0",
            "where a component is drawn in the diagram"),
)
RHAI = (
    Snippet("fn", "fn…", "fn ${1:name}(${2:x}) {\n    $0\n}", "a function"),
    Snippet("on_tick", "on_tick…", "fn on_tick(me) {\n    $0\n}", "the hook the runtime calls every tick"),
    Snippet("if", "if…", "if ${1:condition} {\n    $0\n}", "a conditional"),
    Snippet("for", "for…", "for ${1:item} in ${2:items} {\n    $0\n}", "a loop over an array or range"),
)
_FIELD = re.compile(r"\$\{(\d+):([^}]*)\}|\$0")


def snippets(language: str) -> tuple[Snippet, ...]:
    return MODELICA if language == "modelica" else RHAI if language == "rhai" else ()


def expand(snippet: Snippet, indent: str = "") -> tuple[str, list[tuple[int, int, int]], int]:
    """The text to insert (later lines prefixed with ``indent``), its fields as
    ``(number, start, end)`` offsets into that text in the order met, and the final caret offset
    (the end when the body has no ``$0``)."""
    body = snippet.body.replace("\n", "\n" + indent)
    out: list[str] = []
    fields: list[tuple[int, int, int]] = []
    caret = None
    pos = length = 0
    for m in _FIELD.finditer(body):
        out.append(body[pos:m.start()])
        length += m.start() - pos
        if m.group(0) == "$0":
            caret = length
        else:
            fields.append((int(m.group(1)), length, length + len(m.group(2))))
            out.append(m.group(2))
            length += len(m.group(2))
        pos = m.end()
    out.append(body[pos:])
    text = "".join(out)
    return text, fields, len(text) if caret is None else caret
