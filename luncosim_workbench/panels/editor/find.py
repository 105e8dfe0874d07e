"""Find and replace over a document's text: plain text, or Python regular expressions (``^``/``$``
match at line ends; a replacement may name groups as ``\\1`` or ``\\g<name>``)."""

from __future__ import annotations

import re
from collections.abc import Iterator


class BadPattern(ValueError):
    """A regular expression that does not compile (the message says why)."""


def _compile(needle: str) -> re.Pattern:
    try:
        return re.compile(needle, re.MULTILINE)
    except re.error as exc:
        raise BadPattern(f"bad regular expression: {exc}") from None


def matches(text: str, needle: str, regex: bool = False, start: int = 0) -> Iterator[tuple[int, int, re.Match | None]]:
    """Every non-empty match at or after ``start``: (start, end, the match or None)."""
    if not needle:
        return
    if not regex:
        at = start
        while (at := text.find(needle, at)) >= 0:
            yield at, at + len(needle), None
            at += len(needle)
        return
    for m in _compile(needle).finditer(text, start):
        if m.end() > m.start():
            yield m.start(), m.end(), m


def find_next(text: str, needle: str, start: int, regex: bool = False) -> tuple[int, int, re.Match | None] | None:
    """The first match at or after ``start``, else the first from the top (wrapping); None."""
    return next(matches(text, needle, regex, start), None) or next(matches(text, needle, regex), None)


def replacement(match: re.Match | None, template: str) -> str:
    """What one match is replaced with (a regex match expands its group references)."""
    if match is None:
        return template
    try:
        return match.expand(template)
    except (re.error, IndexError) as exc:
        raise BadPattern(f"bad replacement: {exc}") from None
