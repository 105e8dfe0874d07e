"""The Ports panel: live values of every port (or the selection's), writable inputs, wires."""

from __future__ import annotations

from concurrent.futures import Future

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
)

from luncosim_core.api import ListConnections, ListPorts, SetPorts
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.context import PanelContext
from luncosim_workbench.panels.ports.model import PortFilterProxy, PortTableModel
from luncosim_workbench.plugins import PanelWidget


class PortsPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.model = PortTableModel(self.write_port)
        self.proxy = PortFilterProxy()
        self.proxy.setSourceModel(self.model)
        # live values change every frame: re-filtering/re-sorting on each change would call back
        # into Python for every row; filters and sorting are re-applied explicitly instead
        self.proxy.setDynamicSortFilter(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        bar = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter ports (path, owner)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda t: self.proxy.set_filter(text=t))
        bar.addWidget(self.filter, 1)
        self.direction = QComboBox()
        self.direction.addItems(["any dir", "in", "out"])
        self.direction.currentTextChanged.connect(
            lambda t: self.proxy.set_filter(direction="" if t == "any dir" else t))
        bar.addWidget(self.direction)
        self.owner = QComboBox()
        self.owner.addItems(["any owner", "user", "physics", "usd", "imperative", "modelica", "rhai"])
        self.owner.currentTextChanged.connect(lambda t: self.proxy.set_filter(source="" if t == "any owner" else t))
        bar.addWidget(self.owner)
        self.selection_only = QCheckBox("Selection")
        self.selection_only.setToolTip("Only ports of the selected prims (and their children)")
        self.selection_only.setChecked(True)
        self.selection_only.toggled.connect(lambda _v: self._apply_selection())
        bar.addWidget(self.selection_only)
        layout.addLayout(bar)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setTextElideMode(Qt.TextElideMode.ElideLeft)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(20)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        for col, width in enumerate((215, 30, 50, 42, 85, 110, 55)):
            self.view.setColumnWidth(col, width)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        layout.addWidget(self.view, 1)
        self.status = QLabel("No simulation")
        layout.addWidget(self.status)
        self._index_key: tuple | None = None
        self._pending: list[tuple[str, Future, object]] = []
        self.poll = QTimer(self)
        self.poll.setInterval(30)
        self.poll.timeout.connect(self._poll)
        self._apply_selection()

    # ------------------------------------------------------------------ data
    def on_selection(self, _added: tuple, _removed: tuple) -> None:
        self._apply_selection()

    def _apply_selection(self) -> None:
        sel = self.ctx.selection.paths
        self.proxy.set_filter(prims=sel if (self.selection_only.isChecked() and sel) else None)

    def on_frame(self, snap: WorkbenchSnapshot) -> None:
        key = (snap.generation, snap.port_keys, snap.scene)
        if key != self._index_key:
            self._index_key = key
            self.refresh_ports()
        if self.isVisible() or not self.model.keys:
            self.model.update_values(snap)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        snap = self.ctx.latest
        if snap is not None:
            self.model.update_values(snap)

    def refresh_ports(self) -> None:
        """Ask the simulation for the port list and wires (answered between ticks)."""
        self._pending.append(("index", self.ctx.query(ListPorts(None)), self.ctx.query(ListConnections(None))))
        self.poll.start()

    def write_port(self, prim: str, name: str, value: float) -> Future:
        """Send ``SetPorts``; the result (admission tick, or the refusal) shows below the table."""
        fut = self.ctx.send(SetPorts(target=prim, writes={name: value}, correlation_id=f"ports-panel:{prim}.{name}"))
        self.status.setText(f"{prim}.{name} <- {value:g}: queued for the next tick")
        self._pending.append(("write", fut, f"{prim}.{name}"))
        self.poll.start()
        return fut

    def _poll(self) -> None:
        still = []
        for kind, fut, extra in self._pending:
            if kind == "index" and fut.done() and extra.done():
                self._show_index(fut.result(), extra.result())
            elif kind == "write" and fut.done():
                self._show_write(fut.result(), extra)
            else:
                still.append((kind, fut, extra))
        self._pending = still
        if not still:
            self.poll.stop()

    def _show_index(self, ports, wires) -> None:
        self.model.set_ports(list(ports.value or []) if ports.ok else [], list(wires.value or []) if wires.ok else [])
        snap = self.ctx.latest
        if snap is not None:
            self.model.update_values(snap)
        if not ports.ok:
            self.status.setText("; ".join(d.message for d in ports.diagnostics))
            return
        self.status.setText(f"{len(self.model.ports)} ports, {sum(len(v) for v in self.model.wires.values()) // 2} wires")

    def _show_write(self, res, what: str) -> None:
        if res.ok:
            self.status.setText(f"{what} admitted at tick {res.tick} (sequence {res.sequence}); see CausalTrace")
            return
        msg = "; ".join(d.message for d in res.diagnostics)
        self.status.setText(f"{what} refused: {msg}")
        self.ctx.notify(f"SetPorts refused: {msg}")
