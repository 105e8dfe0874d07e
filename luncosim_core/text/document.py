"""``TextDocument``: one source file (Modelica ``.mo``, Rhai ``.rhai``) edited only through splices.

The same rules as :class:`~luncosim_core.usd.document.UsdDocument`: every edit is a
:class:`TextEdit` (groups of non-overlapping :class:`~luncosim_core.text.splice.Splice`) recorded
in a journal with its exact inverse and its author (``user``, ``api``, ``script``); undo/redo
restore the text byte for byte; ``dirty`` compares the journal with the saved state; saves are
atomic and refuse to overwrite a file that changed on disk since it was read (unless told).

Consecutive keystrokes of one word coalesce into one journal entry (``coalesce=True``): a
contiguous insertion without a newline joins the previous entry of the same author (a word and
the blanks after it; the next word starts a new entry), as does a run of backspaces, so one undo
takes back the word, not a letter. A save always starts a new entry.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass
from pathlib import Path

from psygnal import Signal

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.fsutil import atomic_write_text, read_text_limited
from luncosim_core.text.splice import Splice, SpliceError, apply_splices, compose_groups

LANGUAGES = {".mo": "modelica", ".rhai": "rhai"}


class TextConflict(DiagnosticError):
    """The file changed on disk while the document has unsaved edits (or would lose them)."""


@dataclass(frozen=True)
class TextEdit:
    """Splice groups applied in order (each group's offsets refer to the text before it)."""

    groups: tuple[tuple[Splice, ...], ...]
    label: str = "edit text"
    ops: tuple = ()  # the typed ops this edit made, when a structural editor (the diagram) made it

    def inverse_of(self, inverses: list[tuple[Splice, ...]]) -> TextEdit:
        return TextEdit(tuple(reversed(inverses)), f"undo {self.label}")


@dataclass(frozen=True)
class TextEntry:
    edit: TextEdit
    inverse: TextEdit
    serial: int
    author: str


def _stamp(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class TextDocument:
    """A text file's buffer, journal, dirty state and atomic save (see the module doc)."""

    changed = Signal(object, str)  # the TextEdit just applied (forward, undo or redo), its author
    saved = Signal(str)
    reloaded = Signal()

    def __init__(self, path: str | Path, text: str | None = None, *, limit: int = 2000) -> None:
        self.path = Path(path).resolve()
        self.language = LANGUAGES.get(self.path.suffix, "text")
        self._text = read_text_limited(self.path, "source file") if text is None else text
        self._disk = _stamp(self.path)
        self.revision = 0
        self._entries: list[TextEntry] = []
        self._cursor = 0
        self._serial = 0
        self._saved_state = 0
        self._limit = limit
        self._line_starts: list[int] | None = None

    # -- reading -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return self._text

    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            find = self._text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        return self._line_starts

    def offset(self, line: int, column: int) -> int:
        """Offset of 1-based ``line``/``column`` (clamped to the text)."""
        starts = self.line_starts()
        line = min(max(line, 1), len(starts))
        end = starts[line] - 1 if line < len(starts) else len(self._text)
        return min(starts[line - 1] + max(column, 1) - 1, end)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset``."""
        starts = self.line_starts()
        i = bisect.bisect_right(starts, offset) - 1
        return i + 1, offset - starts[i] + 1

    # -- journal -------------------------------------------------------------------------------
    @property
    def state(self) -> int:
        return self._entries[self._cursor - 1].serial if self._cursor else 0

    @property
    def dirty(self) -> bool:
        return self.state != self._saved_state

    @property
    def can_undo(self) -> bool:
        return self._cursor > 0

    @property
    def can_redo(self) -> bool:
        return self._cursor < len(self._entries)

    def entries(self) -> tuple[TextEntry, ...]:
        """The whole history, oldest first (the first ``position`` entries are applied)."""
        return tuple(self._entries)

    @property
    def position(self) -> int:
        return self._cursor

    # -- editing -------------------------------------------------------------------------------
    def _apply_groups(self, groups) -> list[tuple[Splice, ...]]:
        text = self._text
        inverses = []
        for group in groups:
            text, inv = apply_splices(text, group)
            inverses.append(inv)
        self._text = text
        self._line_starts = None
        self.revision += 1
        return inverses

    def apply(self, splices, *, author: str = "user", label: str = "edit text",
              coalesce: bool = False) -> TextEdit:
        """Apply one group of splices (offsets into the current text), journal it; the inverse.
        Raises :class:`SpliceError` (nothing changes) when they do not fit."""
        edit = TextEdit((tuple(splices),), label)
        if not edit.groups[0]:
            return edit
        inverses = self._apply_groups(edit.groups)
        inverse = edit.inverse_of(inverses)
        if coalesce and self._coalesces(edit, author):
            last = self._entries[-1]
            merged = TextEdit(last.edit.groups + edit.groups, last.edit.label)
            merged_inv = TextEdit(inverse.groups + last.inverse.groups, last.inverse.label)
            self._entries[-1] = TextEntry(merged, merged_inv, last.serial, author)
        else:
            del self._entries[self._cursor:]
            self._serial += 1
            self._entries.append(TextEntry(edit, inverse, self._serial, author))
            if len(self._entries) > self._limit:
                del self._entries[0]
            self._cursor = len(self._entries)
        self.changed.emit(edit, author)
        return inverse

    def apply_groups(self, groups, *, author: str = "user", label: str = "edit text", ops: tuple = ()) -> TextEdit:
        """Apply splice groups made one after the other (each group's offsets refer to the text
        the previous ones left) as ONE journal entry, never coalesced: a structural gesture of
        several ops is one undo step. The groups are composed into one group on the current text
        (:func:`~luncosim_core.text.splice.compose_groups`), so views apply only the spans that
        change. ``ops`` (the typed ops that made the splices) is kept on the entry's edit. Returns
        the inverse; raises :class:`SpliceError` (nothing changes) when a group does not fit."""
        groups = [tuple(g) for g in groups if g]
        text = self._text
        for group in groups:  # check every group before anything changes
            text, _ = apply_splices(text, group)
        composed = compose_groups(self._text, groups)
        if not composed:
            return TextEdit((), label, tuple(ops))
        exact = apply_splices(self._text, composed)[0] == text
        edit = TextEdit((composed,) if exact else tuple(groups), label, tuple(ops))  # composition is exact
        inverses = self._apply_groups(edit.groups)
        inverse = edit.inverse_of(inverses)
        del self._entries[self._cursor:]
        self._serial += 1
        self._entries.append(TextEntry(edit, inverse, self._serial, author))
        if len(self._entries) > self._limit:
            del self._entries[0]
        self._cursor = len(self._entries)
        self.changed.emit(edit, author)
        return inverse

    def _coalesces(self, edit: TextEdit, author: str) -> bool:
        """A word being typed (or erased) joins the previous entry of the same author."""
        if not self._entries or self._cursor != len(self._entries) or self.state == self._saved_state:
            return False
        last = self._entries[-1]
        if last.author != author or last.edit.label != edit.label:
            return False
        (new,) = edit.groups[0] if len(edit.groups[0]) == 1 else (None,)
        prev = last.edit.groups[-1]
        if new is None or len(prev) != 1:
            return False
        (old,) = prev
        if "\n" in new.text:
            return False
        if new.start == new.end and old.start == old.end:  # typing on: a word and the blanks after it
            starts_word = old.text[-1:].isspace() and not new.text.isspace()
            return new.start == old.start + len(old.text) and bool(new.text) and not starts_word
        if not new.text and not old.text:  # backspacing
            return new.end == old.start
        return False

    def replace_all(self, text: str, *, author: str = "user", label: str = "replace text") -> TextEdit:
        """Replace the buffer with minimal splices (an external tool's output)."""
        from luncosim_core.text.splice import diff_splices

        return self.apply(diff_splices(self._text, text), author=author, label=label)

    def undo(self) -> bool:
        if not self.can_undo:
            return False
        entry = self._entries[self._cursor - 1]
        self._apply_groups(entry.inverse.groups)
        self._cursor -= 1
        self.changed.emit(entry.inverse, entry.author)
        return True

    def redo(self) -> bool:
        if not self.can_redo:
            return False
        entry = self._entries[self._cursor]
        self._apply_groups(entry.edit.groups)
        self._cursor += 1
        self.changed.emit(entry.edit, entry.author)
        return True

    # -- persistence ---------------------------------------------------------------------------
    def external_change(self) -> bool:
        return _stamp(self.path) != self._disk

    def save(self, *, overwrite_external: bool = False) -> bool:
        """Write the text atomically; True when the file was written. Raises :class:`TextConflict`
        when the file changed on disk since it was read (unless ``overwrite_external``)."""
        if self.external_change() and not overwrite_external:
            raise TextConflict(Diagnostic("error", "text-external-change",
                                          f"{self.path} changed on disk since it was opened; reload or save with overwrite",
                                          layer=str(self.path), source="text"))
        wrote = False
        if self.dirty or self._disk is None or overwrite_external:
            atomic_write_text(self.path, self._text)
            self._disk = _stamp(self.path)
            wrote = True
        self._saved_state = self.state
        self.saved.emit(str(self.path))
        return wrote

    def reload(self, *, discard: bool = False) -> None:
        """Read the file again (the journal restarts). A dirty document needs ``discard=True``."""
        if self.dirty and not discard:
            raise TextConflict(Diagnostic("error", "text-unsaved-edits",
                                          f"{self.path} has unsaved edits; reload would lose them",
                                          layer=str(self.path), source="text"))
        text = read_text_limited(self.path, "source file")
        self._disk = _stamp(self.path)
        self._restart(text)

    def _restart(self, text: str) -> None:
        """Take ``text`` as the new clean content: a new revision, the journal restarts."""
        self._text = text
        self._line_starts = None
        self.revision += 1
        self._entries.clear()
        self._cursor = 0
        self._serial += 1
        self._saved_state = 0
        self.reloaded.emit()

    def __repr__(self) -> str:
        return f"TextDocument({self.path}, dirty={self.dirty})"


__all__ = ["LANGUAGES", "SpliceError", "TextConflict", "TextDocument", "TextEdit", "TextEntry"]
