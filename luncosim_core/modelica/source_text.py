"""Modelica source text helpers: comment blanking, positions, class names (no compiler needed)."""

from __future__ import annotations

import re
from pathlib import Path

_WITHIN = re.compile(r"^\s*within\s+([A-Za-z_][\w.]*)?\s*;", re.M)
CLASS_RE = re.compile(
    r"^\s*(?:(?:partial|encapsulated|final|expandable)\s+)*"
    r"(?:model|block|class|package|connector|record|function)\s+([A-Za-z_]\w*)",
    re.M,
)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"", re.S)


def blank_comments(text: str) -> str:
    """``text`` with comments and string literals blanked (offsets and newlines kept)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def guess_model_name(text: str, path: Path | None) -> str | None:
    """Qualified model name from ``within`` + the first class (or the file stem)."""
    text = blank_comments(text)
    within = _WITHIN.search(text)
    prefix = (within.group(1) or "") if within else ""
    cls = CLASS_RE.search(text)
    name = cls.group(1) if cls else (path.stem if path else None)
    if name is None:
        return None
    return f"{prefix}.{name}" if prefix else name


def class_header(text: str) -> tuple[int | None, int | None]:
    """Line and column of the first class name: where whole-model errors point."""
    cls = CLASS_RE.search(blank_comments(text))
    return line_col(text, cls.start(1)) if cls else (None, None)
