"""The command palette (Ctrl+Shift+P): every action of the window, filtered as you type."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget


def action_label(action: QAction) -> str:
    return action.text().replace("&", "")


def palette_entries(actions: list[QAction]) -> list[tuple[str, str, QAction]]:
    """(label, shortcut text, action) for every named action, sorted by label, without duplicates."""
    seen: set[int] = set()
    out = []
    for a in actions:
        label = action_label(a)
        if not label or a.isSeparator() or a.menu() is not None or id(a) in seen:
            continue
        seen.add(id(a))
        out.append((label, a.shortcut().toString(QKeySequence.SequenceFormat.NativeText), a))
    out.sort(key=lambda e: e[0].lower())
    return out


class CommandPalette(QDialog):
    def __init__(self, actions: list[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Command palette")
        self.resize(520, 420)
        self.entries = palette_entries(actions)
        layout = QVBoxLayout(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Type a command…")
        self.list = QListWidget()
        layout.addWidget(self.search)
        layout.addWidget(self.list)
        self.search.textChanged.connect(self._fill)
        self.search.returnPressed.connect(self._run_current)
        self.list.itemActivated.connect(self._run_item)
        self._fill("")

    def _fill(self, text: str) -> None:
        self.list.clear()
        words = text.lower().split()
        for label, shortcut, action in self.entries:
            if all(w in label.lower() for w in words):
                item = QListWidgetItem(f"{label}\t{shortcut}" if shortcut else label)
                item.setData(Qt.ItemDataRole.UserRole, action)
                item.setFlags(item.flags() if action.isEnabled() else item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def visible_labels(self) -> list[str]:
        return [self.list.item(i).text().split("\t")[0] for i in range(self.list.count())]

    def _run_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._run_item(item)

    def _run_item(self, item: QListWidgetItem) -> None:
        action: QAction = item.data(Qt.ItemDataRole.UserRole)
        self.accept()
        if action.isEnabled():
            action.trigger()
