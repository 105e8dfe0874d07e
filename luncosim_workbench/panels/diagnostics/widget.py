"""Diagnostics: composition warnings, runtime diagnostics and faults in one table.

Activating a row selects the prim it names, or opens the file at the line.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic
from luncosim_workbench import resources
from luncosim_workbench.context import PanelContext
from luncosim_workbench.events import DiagnosticEvent
from luncosim_workbench.plugins import PanelWidget
from luncosim_workbench.widgets.table_model import ColumnTableModel

SEVERITY_COLOR = {"error": Qt.GlobalColor.red, "warning": Qt.GlobalColor.darkYellow}


def where(d: Diagnostic) -> str:
    parts = []
    if d.path:
        parts.append(str(d.path))
    if d.layer:
        loc = str(d.layer)
        if d.line:
            loc += f":{d.line}" + (f":{d.column}" if d.column else "")
        parts.append(loc)
    return "  ".join(parts)


class DiagnosticModel(ColumnTableModel):
    COLUMNS = ("Severity", "Source", "Code", "Message", "Where")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, Diagnostic]] = []  # (origin, diagnostic)
        self._seen: set[tuple] = set()
        self._icons: dict[str, object] = {}

    def row_items(self) -> list:
        return self.rows

    @staticmethod
    def _key(origin: str, d: Diagnostic) -> tuple:
        return (origin, d.severity, d.code, d.message, d.path, d.layer, d.line)

    def add(self, origin: str, diags) -> int:
        new = [(origin, d) for d in diags if self._key(origin, d) not in self._seen]
        if not new:
            return 0
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(new) - 1)
        for o, d in new:
            self._seen.add(self._key(o, d))
            self.rows.append((o, d))
        self.endInsertRows()
        return len(new)

    def clear(self, origin: str | None = None) -> None:
        self.beginResetModel()
        self.rows = [r for r in self.rows if origin is not None and r[0] != origin]
        self._seen = {self._key(o, d) for o, d in self.rows}
        self.endResetModel()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        origin, d = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (d.severity, f"{d.source or origin}", d.code, d.message, where(d))[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            tb = (d.data or {}).get("traceback") if isinstance(d.data, dict) else None
            return str(d) + (f"\n\n{tb}" if tb else "")
        if role == Qt.ItemDataRole.ForegroundRole and col == 0:
            return SEVERITY_COLOR.get(d.severity)
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            if d.severity not in self._icons:
                self._icons[d.severity] = resources.icon(f"severity.{d.severity}")
            return self._icons[d.severity]
        return None


class _SeverityProxy(QSortFilterProxyModel):
    minimum = ""

    def filterAcceptsRow(self, row, parent):  # noqa: N802
        if not self.minimum:
            return True
        sev = self.sourceModel().rows[row][1].severity
        order = {"info": 0, "warning": 1, "error": 2}
        return order.get(sev, 0) >= order.get(self.minimum, 0)


class DiagnosticsPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.model = DiagnosticModel()
        self.proxy = _SeverityProxy()
        self.proxy.setSourceModel(self.model)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        bar = QHBoxLayout()
        self.severity = QComboBox()
        self.severity.addItems(["all", "warning", "error"])
        self.severity.currentTextChanged.connect(self._on_severity)
        bar.addWidget(QLabel("Show"))
        bar.addWidget(self.severity)
        clear = QPushButton("Clear runtime")
        clear.clicked.connect(self.clear_runtime)
        bar.addWidget(clear)
        bar.addStretch(1)
        self.count = QLabel("")
        bar.addWidget(self.count)
        layout.addLayout(bar)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSortingEnabled(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(20)
        self.view.horizontalHeader().setStretchLastSection(True)
        for col, w in enumerate((60, 80, 170, 420)):
            self.view.setColumnWidth(col, w)
        self.view.activated.connect(self._on_activated)
        self.view.doubleClicked.connect(self._on_activated)
        layout.addWidget(self.view, 1)
        ctx.workspace.diagnostics_changed.connect(self.refresh_composition)
        ctx.workspace.source_diagnostics_changed.connect(self.refresh_sources)
        self.refresh_composition()

    def on_theme_changed(self) -> None:
        self.model._icons.clear()
        self.view.viewport().update()

    def clear_runtime(self) -> None:
        self.model.clear("runtime")
        self._update_count()

    def _on_severity(self, text: str) -> None:
        self.proxy.beginFilterChange()
        self.proxy.minimum = "" if text == "all" else text
        self.proxy.endFilterChange()

    def refresh_composition(self) -> None:
        self.model.clear("composition")
        self.model.clear("lint")
        self.model.clear("runtime")
        self.model.add("composition", self.ctx.workspace.composition_diagnostics())
        self.model.add("lint", self.ctx.workspace.lint_diagnostics())
        self._update_count()

    def refresh_sources(self) -> None:
        """The source editors' live checks (origin ``editor``): replaced on every check."""
        self.model.clear("editor")
        self.model.add("editor", self.ctx.workspace.source_diagnostics())
        self._update_count()

    def on_events(self, events: tuple) -> None:
        """Every tick's diagnostics (faults included) arrive here, not only the drawn frames'."""
        if self.model.add("runtime", [e.diagnostic for e in events if isinstance(e, DiagnosticEvent)]):
            self._update_count()

    def on_frame(self, snap: WorkbenchSnapshot) -> None:
        if self.model.add("runtime", snap.faults):  # the standing fault, if any (deduplicated)
            self._update_count()

    def _update_count(self) -> None:
        errors = sum(1 for _o, d in self.model.rows if d.severity == "error")
        warnings = sum(1 for _o, d in self.model.rows if d.severity == "warning")
        self.count.setText(f"{errors} errors, {warnings} warnings, {len(self.model.rows)} total")

    def _on_activated(self, index) -> None:
        origin, d = self.model.rows[self.proxy.mapToSource(index).row()]
        self.activate(d)

    def activate(self, d: Diagnostic) -> None:
        """Select the prim the diagnostic names, else open its file at its line."""
        if d.path and str(d.path).startswith("/"):
            prim = str(d.path).split(".", 1)[0]
            self.ctx.selection.set([prim])
        elif d.layer:
            self.ctx.open_location(str(d.layer), int(d.line or 0), *((d.column,) if d.column else ()))
