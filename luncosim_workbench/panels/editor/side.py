"""The editor's side list: the current file's outline, and the hits of a find references."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTabWidget, QTreeWidget, QTreeWidgetItem

from luncosim_core.language.outline import Symbol
from luncosim_core.language.references import Reference

LOCATION = Qt.ItemDataRole.UserRole + 1  # (path or None for the current file, line, column)


def _label(s: Symbol) -> str:
    if s.kind in ("parameter", "constant", "input", "output"):
        return f"{s.kind} {s.name} : {s.detail}"
    if s.kind == "component":
        return f"{s.name} : {s.detail}"
    if s.kind == "equations":
        return f"{s.name} ({s.detail})"
    if s.kind == "equation":
        return s.name
    if s.kind in ("function", "hook"):
        return f"{'hook ' if s.kind == 'hook' else 'fn '}{s.name}({s.detail})"
    return f"{s.kind} {s.name}"


class SidePanel(QTabWidget):
    """Outline and References tabs; activating an entry asks to go there (``go``)."""

    go = Signal(object, int, int)  # path (None: the current file), line, column

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self.outline = QTreeWidget()
        self.outline.setHeaderHidden(True)
        self.refs = QTreeWidget()
        self.refs.setHeaderHidden(True)
        self.addTab(self.outline, "Outline")
        self.addTab(self.refs, "References")
        for tree in (self.outline, self.refs):
            tree.itemActivated.connect(self._activated)
        self.symbols: list[Symbol] = []
        self._items: list[QTreeWidgetItem] = []  # the outline's entries, in the order of ``symbols``

    def show_outline(self, symbols: list[Symbol]) -> None:
        """Fill the outline (a tree by depth), keeping which branches were collapsed. When only
        labels or lines changed (typing in a line, a new line above) the entries are updated in
        place: a 10,000-entry outline is not rebuilt on every keystroke."""
        if symbols == self.symbols:
            return
        old = self.symbols
        if len(old) == len(symbols) and len(self._items) == len(symbols) and all(
                (a.depth, a.kind) == (b.depth, b.kind) for a, b in zip(old, symbols, strict=True)):
            for item, a, b in zip(self._items, old, symbols, strict=True):
                if a != b:
                    if (a.name, a.detail) != (b.name, b.detail):
                        item.setText(0, _label(b))
                    item.setData(0, LOCATION, (None, b.line, b.column))
                    item.setToolTip(0, f"line {b.line}")
            self.symbols = list(symbols)
            return
        collapsed = {self._key(self.outline.topLevelItem(i)) for i in range(self.outline.topLevelItemCount())
                     if not self.outline.topLevelItem(i).isExpanded()}
        self.symbols = list(symbols)
        self.outline.clear()
        self._items = []
        parents: list[QTreeWidgetItem] = []
        for s in symbols:
            del parents[s.depth:]
            item = QTreeWidgetItem([_label(s)])
            item.setData(0, LOCATION, (None, s.line, s.column))
            item.setToolTip(0, f"line {s.line}")
            (parents[-1].addChild(item) if parents else self.outline.addTopLevelItem(item))
            parents.append(item)
            self._items.append(item)
        self.outline.expandAll()
        for i in range(self.outline.topLevelItemCount()):
            item = self.outline.topLevelItem(i)
            if self._key(item) in collapsed:
                item.setExpanded(False)

    @staticmethod
    def _key(item: QTreeWidgetItem | None) -> str:
        return item.text(0) if item is not None else ""

    def outline_labels(self) -> list[str]:
        """Every entry, depth-first, indented two blanks per level (what a user sees)."""
        out: list[str] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append("  " * depth + item.text(0))
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

        for i in range(self.outline.topLevelItemCount()):
            walk(self.outline.topLevelItem(i), 0)
        return out

    def show_references(self, name: str, refs: list[Reference], root: Path | None) -> None:
        self.refs.clear()
        head = QTreeWidgetItem([f"{len(refs)} reference(s) to {name}"])
        self.refs.addTopLevelItem(head)
        for r in refs:
            shown = r.file.relative_to(root) if root is not None and r.file.is_relative_to(root) else r.file
            item = QTreeWidgetItem([f"{shown}:{r.line}:{r.column}  {r.text}"])
            item.setData(0, LOCATION, (r.file, r.line, r.column))
            item.setToolTip(0, str(r.file))
            head.addChild(item)
        head.setExpanded(True)
        self.setCurrentWidget(self.refs)

    def reference_labels(self) -> list[str]:
        head = self.refs.topLevelItem(0)
        return [head.child(i).text(0) for i in range(head.childCount())] if head is not None else []

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        where = item.data(0, LOCATION)
        if where:
            self.go.emit(*where)
