"""Modelica tokens with their offsets into the source ``str`` (comments and blanks skipped).

One compiled regular expression scans the whole text; a token is ``(kind, start, end)`` with
kind one of ``ID`` (identifier, quoted ones included), ``NUM``, ``STR`` or the operator text
itself (``(``, ``=``, ``.+``, ...). Offsets count code points, like :mod:`luncosim_core.text.splice`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

ID, NUM, STR = "ID", "NUM", "STR"

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\])*")
  | (?P<id>[A-Za-z_]\w*|'(?:\\.|[^'\\])+')
  | (?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<op>\.\+|\.-|\.\*|\./|\.\^|==|<>|<=|>=|:=|[-+*/^(){}\[\],;=:<>.])
  | (?P<bad>"|/\*|.)
""", re.X | re.S)


_KINDS = (None, None, None, STR, ID, NUM, None)  # by group number; operators are their own kind


class LexError(ValueError):
    """Text that is not Modelica tokens (an unterminated string or comment, a stray character)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class Token(NamedTuple):
    kind: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Every token of ``text``; a :class:`LexError` at the first character that is none."""
    out: list[Token] = []
    append = out.append
    make = Token._make
    for m in _TOKEN.finditer(text):
        group = m.lastindex
        if group <= 2:  # blanks, comments
            continue
        s, e = m.span()
        if group < 7:
            append(make((_KINDS[group] or m.group(), s, e)))
        else:
            what = {"\"": "an unterminated string", "/*": "an unterminated comment"}.get(m.group(), f"the character {m.group()!r}")
            raise LexError(f"{what} is not Modelica", s)
    return out
