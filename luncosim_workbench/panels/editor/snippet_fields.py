"""The fields of an inserted snippet: Tab moves to the next, a field written twice follows the
first (a class name and its ``end``), the last Tab goes where the snippet's ``$0`` was.

Fields are kept as document offsets and moved by every edit the document makes (a keystroke
inside a field grows it, one before it shifts it), so overtyping a selected placeholder keeps
the field. They are drawn with an indicator; the session ends at the last field, on Escape, or
when an edit cuts across a field.
"""

from __future__ import annotations

from luncosim_core.text import Splice

FIELD_INDICATOR = 10
INDIC_ROUNDBOX = 7


class SnippetFields:
    def __init__(self, editor, start: int, fields: list[tuple[int, int, int]], caret: int) -> None:
        self.editor = editor
        # [number, start, end] in document offsets; number 0 is the final caret (empty)
        self.fields = [[n, start + a, start + b] for n, a, b in fields] + [[0, start + caret, start + caret]]
        self.order = sorted({n for n, _a, _b in fields}) + [0]
        self.at = -1
        self.active = True
        editor.doc.changed.connect(self._on_changed)

    # -- edits move the fields ------------------------------------------------------------
    def _on_changed(self, edit, _author) -> None:
        if not self.active:
            return
        for group in edit.groups:
            for s in sorted(group, key=lambda s: s.start, reverse=True):
                if not self._move(s):
                    self.end()
                    return
        self.draw()

    def _move(self, s: Splice) -> bool:
        delta = len(s.text) - (s.end - s.start)
        for f in self.fields:
            _n, a, b = f
            if s.end < a or (s.end == a and s.start < s.end):  # before the field
                f[1], f[2] = a + delta, b + delta
            elif a <= s.start and s.end <= b:  # inside it (or at its edges): it grows or shrinks
                f[2] = b + delta
            elif s.start >= b:  # after it
                continue
            else:
                return False  # across a field's boundary
        return True

    # -- moving between fields ------------------------------------------------------------
    def next(self) -> bool:
        """Go to the next field (writing the current one's text into its twins); False at the end."""
        if not self.active:
            return False
        if self.at >= 0:
            self._mirror(self.order[self.at])
        self.at += 1
        if self.at >= len(self.order):
            self.end()
            return False
        number = self.order[self.at]
        _n, a, b = next(f for f in self.fields if f[0] == number)
        self.editor.select_chars(a, b)
        if number == 0:
            self.end()
        return True

    def _mirror(self, number: int) -> None:
        same = [f for f in self.fields if f[0] == number]
        if len(same) < 2:
            return
        text = self.editor.doc.text[same[0][1]:same[0][2]]
        splices = [Splice(a, b, text) for _n, a, b in same[1:] if self.editor.doc.text[a:b] != text]
        if splices:
            self.editor.doc.apply(splices, author="user", label="snippet")

    def end(self) -> None:
        if self.active:
            self.active = False
            self.editor.doc.changed.disconnect(self._on_changed)
            self._clear()

    # -- drawing ----------------------------------------------------------------------------
    def _clear(self) -> None:
        ed = self.editor
        ed.setIndicatorCurrent(FIELD_INDICATOR)
        ed.indicatorClearRange(0, ed.textLength())

    def draw(self) -> None:
        ed = self.editor
        self._clear()
        ed.setIndicatorCurrent(FIELD_INDICATOR)
        for n, a, b in self.fields:
            if n and b > a:
                lo, hi = ed.byte_of(a), ed.byte_of(b)
                ed.indicatorFillRange(lo, hi - lo)

    def spans(self) -> list[tuple[int, str]]:
        """(number, text) of each field now (for tests)."""
        return [(n, self.editor.doc.text[a:b]) for n, a, b in self.fields if n]
