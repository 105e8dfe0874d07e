"""``PortTableModel``: every port of the running scene with its metadata, live value and wires."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QMimeData, QSortFilterProxyModel, Qt
from PySide6.QtGui import QGuiApplication, QPalette

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.mime import PORT_MIME
from luncosim_workbench.widgets.table_model import ColumnTableModel

VALUE_COL = 4
KEY_ROLE = Qt.ItemDataRole.UserRole


def wires_by_port(wires: list[dict]) -> dict[str, list[str]]:
    """``/Prim.port`` -> readable wire ends (``-> sink``, ``<- source``, broken ones marked)."""
    out: dict[str, list[str]] = {}
    for w in wires:
        mark = " [broken]" if w.get("broken") else ""
        src, sink = str(w.get("source", "")), str(w.get("sink", ""))
        out.setdefault(src, []).append(f"-> {sink}{mark}")
        out.setdefault(sink, []).append(f"<- {src}{mark}")
    return out


class PortTableModel(ColumnTableModel):
    COLUMNS = ("Port", "Dir", "Type", "Unit", "Value", "Owner / source", "Writable", "Wires")

    def __init__(self, write: Callable[[str, str, float], None] = lambda *_a: None, parent=None) -> None:
        super().__init__(parent)
        self.write = write  # (prim, name, value): send SetPorts
        self.ports: list[dict] = []
        self.keys: list[str] = []
        self.wires: dict[str, list[str]] = {}
        self.broken: set[str] = set()
        self._values = np.zeros(0)
        self._column_of: list[int] = []

    def set_ports(self, ports: list[dict], wires: list[dict]) -> None:
        self.beginResetModel()
        self.ports = sorted(ports, key=lambda p: (p["prim"], p["name"]))
        self.keys = [f"{p['prim']}.{p['name']}" for p in self.ports]
        self.wires = wires_by_port(wires)
        self.broken = {str(w.get(end, "")) for w in wires if w.get("broken") for end in ("source", "sink")}
        self._values = np.full(len(self.ports), np.nan)
        self._column_of = []
        self._snapshot_keys: tuple[str, ...] = ()
        self.endResetModel()

    def update_values(self, snap: WorkbenchSnapshot) -> None:
        if snap.port_keys != getattr(self, "_snapshot_keys", None):
            index = {k: i for i, k in enumerate(snap.port_keys)}
            self._column_of = [index.get(k, -1) for k in self.keys]
            self._snapshot_keys = snap.port_keys
        if not self.keys:
            return
        cols = np.asarray(self._column_of, dtype=np.int64)
        vals = np.full(len(cols), np.nan)
        ok = cols >= 0
        vals[ok] = snap.port_values[cols[ok]]
        changed = ~((vals == self._values) | (np.isnan(vals) & np.isnan(self._values)))
        self._values = vals
        if changed.any():
            rows = np.flatnonzero(changed)
            self.dataChanged.emit(self.index(int(rows[0]), VALUE_COL), self.index(int(rows[-1]), VALUE_COL),
                                  [Qt.ItemDataRole.DisplayRole])

    def value(self, key: str) -> float | None:
        try:
            v = float(self._values[self.keys.index(key)])
        except ValueError:
            return None
        return None if math.isnan(v) else v

    # ------------------------------------------------------------------ Qt
    def row_items(self) -> list:
        return self.ports

    def editable(self, row: int) -> bool:
        p = self.ports[row]
        return bool(p.get("writable")) and p.get("direction") == "in"

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        key = self.keys[row]
        if role == KEY_ROLE:
            return key
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(row, col, role == Qt.ItemDataRole.EditRole)
        if role == Qt.ItemDataRole.ToolTipRole:
            p = self.ports[row]
            lo, hi = p.get("min"), p.get("max")
            rng = f"\nrange [{lo}, {hi}]" if lo is not None or hi is not None else ""
            return f"{key}{rng}\n" + "\n".join(self.wires.get(key, []))
        if role == Qt.ItemDataRole.ForegroundRole:
            if key in self.broken:
                return Qt.GlobalColor.red
            if col == VALUE_COL and self.editable(row):
                return QGuiApplication.palette().color(QPalette.ColorRole.Link)  # writable: link-coloured
        if role == Qt.ItemDataRole.TextAlignmentRole and col == VALUE_COL:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, row: int, col: int, edit: bool):
        p, key = self.ports[row], self.keys[row]
        if col == VALUE_COL:
            v = self._values[row] if row < len(self._values) else math.nan
            if edit:
                return 0.0 if math.isnan(v) else float(v)
            return "pending" if math.isnan(v) else f"{v:.6g}"
        return (key, p.get("direction", ""), p.get("type", ""), p.get("unit", ""), None,
                f"{p.get('authority', '')} / {p.get('source', '')}", "yes" if p.get("writable") else "",
                "  ".join(self.wires.get(key, [])))[col]

    def flags(self, index):
        f = super().flags(index) | Qt.ItemFlag.ItemIsDragEnabled
        if index.isValid() and index.column() == VALUE_COL and self.editable(index.row()):
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole):  # noqa: N802
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or not self.editable(index.row()):
            return False
        try:
            number = float(value)
        except (TypeError, ValueError):
            return False
        p = self.ports[index.row()]
        self.write(p["prim"], p["name"], number)
        return True

    def mimeTypes(self):  # noqa: N802
        return [PORT_MIME]

    def mimeData(self, indexes):  # noqa: N802
        keys = sorted({self.keys[i.row()] for i in indexes if i.isValid()})
        data = QMimeData()
        data.setData(PORT_MIME, "\n".join(keys).encode("utf-8"))
        data.setText("\n".join(keys))
        return data


class PortFilterProxy(QSortFilterProxyModel):
    """Text (port key or owner), direction, source and an optional set of prims (the selection)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.text = ""
        self.direction = ""
        self.source = ""
        self.prims: tuple[str, ...] | None = None

    def set_filter(self, *, text: str | None = None, direction: str | None = None, source: str | None = None,
                   prims: tuple[str, ...] | None | bool = False) -> None:
        self.beginFilterChange()
        if text is not None:
            self.text = text.lower()
        if direction is not None:
            self.direction = direction
        if source is not None:
            self.source = source
        if prims is not False:
            self.prims = prims
        self.endFilterChange()

    def filterAcceptsRow(self, row, parent):  # noqa: N802
        model: PortTableModel = self.sourceModel()
        p = model.ports[row]
        if self.direction and p.get("direction") != self.direction:
            return False
        if self.source and self.source not in (p.get("source"), p.get("authority")):
            return False
        if self.prims is not None and not any(p["prim"] == s or p["prim"].startswith(s.rstrip("/") + "/") for s in self.prims):
            return False
        if self.text:
            hay = f"{model.keys[row]} {p.get('authority', '')} {p.get('source', '')}".lower()
            if self.text not in hay:
                return False
        return True
