"""``PortTableModel``: every port of the running scene with its metadata, live value and wires;
``PortFilterProxy`` filters it; ``PrimGroupModel`` groups the filtered rows under their prims (a
collapsible tree). Values are shown in a bounded-width form (:func:`format_port_value`) that a
delegate shortens to its column, never cutting the sign or leading digits; the tooltip holds the
full value (``repr``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QGuiApplication, QPalette

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.mime import PORT_MIME
from luncosim_workbench.widgets.table_model import ColumnTableModel

VALUE_COL = 4
KEY_ROLE = Qt.ItemDataRole.UserRole
VALUE_ROLE = Qt.ItemDataRole.UserRole + 1  # the float value (NaN while pending)


def format_port_value(v: float, digits: int = 5) -> str:
    """A port value in at most ``digits + 6`` characters, the sign and leading digits always
    first: integers as such (below 1e9), 1e-3 <= |v| < 1e6 as ``digits`` significant digits,
    everything else in scientific form with up to ``digits - 1`` decimals (``-3.3681e-19``)."""
    if math.isnan(v):
        return "pending"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    if v == 0:
        return "0"
    a = abs(v)
    if v == int(v) and a < 1e9:
        return str(int(v))
    if 1e-3 <= a < 1e6:
        text = f"{v:.{max(digits, 1)}g}"
        if "e" not in text:
            return text
    mantissa, _, exponent = f"{v:.{max(digits - 1, 0)}e}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent}"


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
        ports = sorted(ports, key=lambda p: (p["prim"], p["name"]))
        keys = [f"{p['prim']}.{p['name']}" for p in ports]
        if keys == self.keys and keys:  # the same ports, newer metadata (a model compiled): no reset
            self.ports, self.wires = ports, wires_by_port(wires)
            self.broken = {str(w.get(end, "")) for w in wires if w.get("broken") for end in ("source", "sink")}
            self.dataChanged.emit(self.index(0, 0), self.index(len(keys) - 1, len(self.COLUMNS) - 1))
            return
        self.beginResetModel()
        self.ports = ports
        self.keys = keys
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
        if role == VALUE_ROLE:
            return float(self._values[row]) if row < len(self._values) else math.nan
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(row, col, role == Qt.ItemDataRole.EditRole)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, col)
        if role == Qt.ItemDataRole.ForegroundRole:
            if key in self.broken:
                return Qt.GlobalColor.red
            if col == VALUE_COL and self.editable(row):
                return QGuiApplication.palette().color(QPalette.ColorRole.Link)  # writable: link-coloured
        if role == Qt.ItemDataRole.TextAlignmentRole and col == VALUE_COL:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _tooltip(self, row: int, col: int) -> str:
        p, key = self.ports[row], self.keys[row]
        lines = [key]
        if col == VALUE_COL:
            v = float(self._values[row]) if row < len(self._values) else math.nan
            lines.append("pending (no sample yet)" if math.isnan(v) else f"value {v!r}" + (f" {p['unit']}" if p.get("unit") else ""))
            if not self.editable(row):
                lines.append(f"read-only (owned by {p.get('authority', '')})")
        lo, hi = p.get("min"), p.get("max")
        if lo is not None or hi is not None:
            lines.append(f"range [{'' if lo is None else f'{lo:g}'}, {'' if hi is None else f'{hi:g}'}]")
            lines += [f"  {w}: {p[f'{w}_from']}" for w in ("min", "max") if p.get(f"{w}_from")]
        return "\n".join(lines + self.wires.get(key, []))

    def _text(self, row: int, col: int, edit: bool):
        p, key = self.ports[row], self.keys[row]
        if col == VALUE_COL:
            v = self._values[row] if row < len(self._values) else math.nan
            if edit:
                return 0.0 if math.isnan(v) else float(v)
            return format_port_value(float(v))
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


class PrimGroupModel(QAbstractItemModel):
    """The rows of a flat port model (``source``: the filter proxy) grouped under their prims:
    one top-level row per prim (in path order, with its port count), its ports as children (in
    the source's order, so sorting the source sorts within each prim). Values, edits, tooltips
    and drags are the source's."""

    def __init__(self, source: QSortFilterProxyModel, parent=None) -> None:
        super().__init__(parent)
        self.source = source
        self.prims: list[str] = []
        self.members: list[list[int]] = []  # source rows of each prim
        self._where: dict[int, tuple[int, int]] = {}  # source row -> (group, child)
        source.modelReset.connect(self._regroup)
        source.layoutChanged.connect(self._regroup)
        source.rowsInserted.connect(self._regroup)
        source.rowsRemoved.connect(self._regroup)
        source.dataChanged.connect(self._source_data_changed)
        self._regroup()

    def _regroup(self, *_args) -> None:
        self.beginResetModel()
        by_prim: dict[str, list[int]] = {}
        for r in range(self.source.rowCount()):
            key = str(self.source.index(r, 0).data(KEY_ROLE))
            by_prim.setdefault(key.rpartition(".")[0], []).append(r)
        self.prims = sorted(by_prim)
        self.members = [by_prim[p] for p in self.prims]
        self._where = {r: (g, c) for g, rows in enumerate(self.members) for c, r in enumerate(rows)}
        self.endResetModel()

    def _source_data_changed(self, top_left, bottom_right, roles=()) -> None:
        spans: dict[int, list[int]] = {}
        for r in range(top_left.row(), bottom_right.row() + 1):
            g, c = self._where.get(r, (-1, -1))
            if g >= 0:
                span = spans.setdefault(g, [c, c])
                span[0], span[1] = min(span[0], c), max(span[1], c)
        for g, (first, last) in spans.items():
            parent = self.index(g, 0)
            self.dataChanged.emit(self.index(first, top_left.column(), parent),
                                  self.index(last, bottom_right.column(), parent), list(roles))

    # ------------------------------------------------------------------ mapping
    def to_source(self, index: QModelIndex) -> QModelIndex:
        """The filter proxy's index of a port row (invalid for a prim row)."""
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        rows = self.members[index.internalId() - 1]
        return self.source.index(rows[index.row()], index.column()) if index.row() < len(rows) else QModelIndex()

    def is_group(self, index: QModelIndex) -> bool:
        return index.isValid() and index.internalId() == 0

    def prim_of(self, index: QModelIndex) -> str:
        if not index.isValid():
            return ""
        return self.prims[index.row() if index.internalId() == 0 else index.internalId() - 1]

    # ------------------------------------------------------------------ Qt
    def index(self, row, column, parent=QModelIndex()):
        if parent.isValid():
            if parent.internalId() != 0 or not (0 <= row < len(self.members[parent.row()])):
                return QModelIndex()
            return self.createIndex(row, column, parent.row() + 1)
        if not 0 <= row < len(self.prims):
            return QModelIndex()
        return self.createIndex(row, column, 0)

    def parent(self, index=QModelIndex()):  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent=QModelIndex()):  # noqa: N802
        if not parent.isValid():
            return len(self.prims)
        if parent.internalId() == 0 and parent.column() == 0:
            return len(self.members[parent.row()])
        return 0

    def columnCount(self, parent=QModelIndex()):  # noqa: N802
        return self.source.columnCount()

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        return self.source.headerData(section, orientation, role)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if index.internalId() == 0:
            if index.column() == 0 and role == Qt.ItemDataRole.DisplayRole:
                n = len(self.members[index.row()])
                return f"{self.prims[index.row()]}  ({n} port{'s' if n != 1 else ''})"
            if index.column() == 0 and role in (Qt.ItemDataRole.ToolTipRole, KEY_ROLE):
                return self.prims[index.row()]
            return None
        if index.column() == 0 and role == Qt.ItemDataRole.DisplayRole:
            return str(self.to_source(index).data(KEY_ROLE)).rpartition(".")[2]  # the prim is the group
        return self.to_source(index).data(role)

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalId() == 0:
            return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return self.source.flags(self.to_source(index))

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole):  # noqa: N802
        return self.source.setData(self.to_source(index), value, role) if not self.is_group(index) else False

    def sort(self, column, order=Qt.SortOrder.AscendingOrder) -> None:
        """Sort the ports within each prim (the prims stay in path order)."""
        self.source.sort(column, order)

    def mimeTypes(self):  # noqa: N802
        return self.source.mimeTypes()

    def mimeData(self, indexes):  # noqa: N802
        return self.source.mimeData([self.to_source(i) for i in indexes if not self.is_group(i)])
