"""A text edit as data: replace ``text[start:end]`` with ``text``, and its exact inverse.

Offsets count code points of the Python ``str`` (not bytes, not UTF-16 units). Every edit to a
text document — typed in the editor, made by the diagram canvas, sent through the API — is a
tuple of non-overlapping splices applied together; :func:`apply_splices` returns the new text and
the splices that undo it, so untouched text stays byte-identical and undo restores it exactly.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


class SpliceError(ValueError):
    """Splices that do not fit the text (out of range, reversed or overlapping)."""


@dataclass(frozen=True)
class Splice:
    start: int
    end: int
    text: str

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise SpliceError(f"splice [{self.start}, {self.end}) is not a range")


def apply_splices(text: str, splices: tuple[Splice, ...] | list[Splice]) -> tuple[str, tuple[Splice, ...]]:
    """Apply non-overlapping ``splices`` (offsets into the ORIGINAL ``text``) at once.

    Returns the new text and the inverse splices (offsets into the NEW text)."""
    ordered = sorted(splices, key=lambda s: (s.start, s.end))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b.start < a.end or (b.start == a.end == a.start == b.end):
            raise SpliceError(f"splices [{a.start}, {a.end}) and [{b.start}, {b.end}) overlap")
    if ordered and ordered[-1].end > len(text):
        raise SpliceError(f"splice end {ordered[-1].end} is past the end of the text ({len(text)})")
    out: list[str] = []
    inverse: list[Splice] = []
    pos = 0
    shift = 0
    for s in ordered:
        out.append(text[pos:s.start])
        out.append(s.text)
        new_start = s.start + shift
        inverse.append(Splice(new_start, new_start + len(s.text), text[s.start:s.end]))
        shift += len(s.text) - (s.end - s.start)
        pos = s.end
    out.append(text[pos:])
    return "".join(out), tuple(inverse)


def diff_splices(old: str, new: str) -> tuple[Splice, ...]:
    """The smallest line-then-character splices turning ``old`` into ``new`` (for a buffer replaced
    wholesale, e.g. an external tool's output): unchanged text is never part of a splice."""
    if old == new:
        return ()
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    a, b = old[prefix:len(old) - suffix], new[prefix:len(new) - suffix]
    if len(a) + len(b) < 4096:
        return (Splice(prefix, prefix + len(a), b),)
    splices = []
    la, lb = a.splitlines(keepends=True), b.splitlines(keepends=True)
    offsets_a = [0]
    for line in la:
        offsets_a.append(offsets_a[-1] + len(line))
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        splices.append(Splice(prefix + offsets_a[i1], prefix + offsets_a[i2], "".join(lb[j1:j2])))
    return tuple(splices)


def compose_groups(text: str, groups) -> tuple[Splice, ...]:
    """One group of non-overlapping splices on ``text`` doing what the sequential ``groups`` do
    (each group's offsets refer to the text before it): what several ops of one gesture become,
    so a view applies only the spans they change. Splices that touch or overlap in between are
    merged; everything no group touches stays outside every splice."""
    composed: list[Splice] = []  # sorted, disjoint, in the coordinates of ``text``
    current = text
    for group in groups:
        for s in sorted(group, key=lambda s: (s.start, s.end), reverse=True):  # later first: offsets hold
            composed = _compose_one(composed, current, s)
            current = current[:s.start] + s.text + current[s.end:]
    return tuple(composed)


def _compose_one(composed: list[Splice], current: str, s: Splice) -> list[Splice]:
    """``composed`` (turning the original into ``current``) followed by ``s`` (on ``current``)."""
    shift = 0  # current offset - original offset, before the splice being looked at
    before: list[Splice] = []
    merged: list[tuple[Splice, int]] = []  # the composed splices ``s`` touches, with their shift
    after: list[Splice] = []
    for c in composed:
        lo = c.start + shift  # where c's new text lies in ``current``
        hi = lo + len(c.text)
        if merged or hi >= s.start:
            if lo <= s.end and not after:
                merged.append((c, shift))
            else:
                after.append(c)
        else:
            before.append(c)
        shift += len(c.text) - (c.end - c.start)
    if not merged:
        head = sum(len(c.text) - (c.end - c.start) for c in before)
        return [*before, Splice(s.start - head, s.end - head, s.text), *after]
    first, first_shift = merged[0]
    last, last_shift = merged[-1]
    lo = min(s.start, first.start + first_shift)
    hi = max(s.end, last.start + last_shift + len(last.text))
    after_shift = last_shift + len(last.text) - (last.end - last.start)
    new_text = current[lo:s.start] + s.text + current[s.end:hi]
    return [*before, Splice(lo - first_shift, hi - after_shift, new_text), *after]
