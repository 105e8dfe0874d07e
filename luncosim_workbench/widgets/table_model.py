"""Item-model bases: fixed column headers, and flat tables over a Python list."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, Qt


class ColumnHeaders:
    """``columnCount`` and horizontal ``headerData`` from the ``COLUMNS`` tuple."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def columnCount(self, parent=QModelIndex()):  # noqa: N802
        return len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None


class ColumnTableModel(ColumnHeaders, QAbstractTableModel):
    """A flat table: one row per item of :meth:`row_items` (override it), ``COLUMNS`` wide."""

    def row_items(self) -> list:
        raise NotImplementedError

    def rowCount(self, parent=QModelIndex()):  # noqa: N802
        return 0 if parent.isValid() else len(self.row_items())


class ColumnTreeModel(ColumnHeaders, QAbstractItemModel):
    """A tree model with fixed column headers (rows and parents are the subclass's)."""
