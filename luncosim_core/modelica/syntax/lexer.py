"""Modelica tokens with their offsets into the source ``str`` (comments and blanks skipped).

One compiled regular expression scans the whole text; a token is ``(kind, start, end)`` with
kind one of ``ID`` (identifier, quoted ones included), ``NUM``, ``STR`` or the operator text
itself (``(``, ``=``, ``.+``, ...). Offsets count code points, like :mod:`luncosim_core.text.splice`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


class LexError(ValueError):
    """Text that is not Modelica tokens (an unterminated string or comment, a stray character)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Every token of ``text``; a :class:`LexError` at the first character that is none."""
    out: list[Token] = []
    append = out.append
    for m in _TOKEN.finditer(text):
        group = m.lastgroup
        if group == "ws" or group == "comment":
            continue
        s, e = m.span()
        if group == "id":
            append(Token(ID, s, e))
        elif group == "op":
            append(Token(m.group(), s, e))
        elif group == "num":
            append(Token(NUM, s, e))
        elif group == "str":
            append(Token(STR, s, e))
        else:
            what = {"\"": "an unterminated string", "/*": "an unterminated comment"}.get(m.group(), f"the character {m.group()!r}")
            raise LexError(f"{what} is not Modelica", s)
    return out
