"""The journal: the one undo/redo history every client of a document shares.

Every entry names its author: ``user`` (a gesture in the workbench), ``api`` (a client of the
command API) or ``script`` (a scenario or batch script), so a history can say who did what."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from luncosim_core.usd.ops import Op


@dataclass(frozen=True)
class JournalEntry:
    op: Op
    inverse: Op
    label: str
    serial: int = 0  # identity of the edit, kept through undo/redo
    author: str = "user"


class Journal:
    """A linear history of (op, inverse) pairs with a cursor."""

    def __init__(self, limit: int = 1000) -> None:
        self._entries: list[JournalEntry] = []
        self._cursor = 0
        self._serial = 0
        self.limit = limit

    def record(self, op: Op, inverse: Op, author: str = "user") -> JournalEntry:
        del self._entries[self._cursor :]
        self._serial += 1
        entry = JournalEntry(op, inverse, op.label(), self._serial, author)
        self._entries.append(entry)
        if len(self._entries) > self.limit:
            del self._entries[0]
        self._cursor = len(self._entries)
        return entry

    @property
    def can_undo(self) -> bool:
        return self._cursor > 0

    @property
    def can_redo(self) -> bool:
        return self._cursor < len(self._entries)

    @property
    def position(self) -> int:
        return self._cursor

    @property
    def state(self) -> int:
        """The serial of the newest applied edit (0 at the start): equal states, equal documents."""
        return self._entries[self._cursor - 1].serial if self._cursor else 0

    def undo_label(self) -> str:
        return self._entries[self._cursor - 1].label if self.can_undo else ""

    def redo_label(self) -> str:
        return self._entries[self._cursor].label if self.can_redo else ""

    def undo(self, apply: Callable[[Op], Op]) -> JournalEntry | None:
        if not self.can_undo:
            return None
        entry = self._entries[self._cursor - 1]
        redo = apply(entry.inverse)
        self._cursor -= 1
        self._entries[self._cursor] = JournalEntry(redo, entry.inverse, entry.label, entry.serial, entry.author)
        return entry

    def redo(self, apply: Callable[[Op], Op]) -> JournalEntry | None:
        if not self.can_redo:
            return None
        entry = self._entries[self._cursor]
        inverse = apply(entry.op)
        self._entries[self._cursor] = JournalEntry(entry.op, inverse, entry.label, entry.serial, entry.author)
        self._cursor += 1
        return entry

    def clear(self) -> None:
        self._entries.clear()
        self._cursor = 0

    def labels(self) -> list[str]:
        return [e.label for e in self._entries]

    def entries(self) -> tuple[JournalEntry, ...]:
        """The whole history, oldest first (the first ``position`` entries are applied)."""
        return tuple(self._entries)
