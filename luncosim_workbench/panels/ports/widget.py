"""The Ports panel: live values of every port (or the selection's), grouped under their prims
(collapsible), writable inputs, wires. Values are right-aligned in a bounded-width form shortened
to fit the column (never cut on the left; the full value is in the tooltip); outputs are
read-only. "Plot" in a port's context menu or a double-click on its name plots it (as a drag onto
Plots does)."""

from __future__ import annotations

import math
import time
from concurrent.futures import Future

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QTreeView,
    QVBoxLayout,
)

from luncosim_core.api import ListConnections, ListPorts, SetPorts
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.context import PanelContext
from luncosim_workbench.panels.ports.model import (
    KEY_ROLE,
    VALUE_COL,
    VALUE_ROLE,
    PortFilterProxy,
    PortTableModel,
    PrimGroupModel,
    format_port_value,
)
from luncosim_workbench.plugins import PanelWidget

#: the widest value text at full precision: the value column is never narrower
WIDEST_VALUE = format_port_value(-8.88888e-188)


class ValueDelegate(QStyledItemDelegate):
    """The value column: right-aligned, as many digits as the column fits (never fewer than two),
    the cut (if any) on the right, never the sign or the leading digits on the left."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt override
        super().initStyleOption(option, index)
        v = index.data(VALUE_ROLE)
        if not isinstance(v, float) or math.isnan(v):
            return
        room = option.rect.width() - 2 * (option.widget.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin)
                                          if option.widget is not None else 3) - 4
        for digits in (6, 5, 4, 3, 2):
            option.text = format_port_value(v, digits)
            if option.fontMetrics.horizontalAdvance(option.text) <= room:
                break
        option.textElideMode = Qt.TextElideMode.ElideRight
        option.displayAlignment = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

    def createEditor(self, parent, _option, _index):  # noqa: N802 - Qt override
        """A text field holding the full value (a spin box would round it to its decimals)."""
        editor = QLineEdit(parent)
        editor.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        editor.setPlaceholderText("a number")
        return editor

    def setEditorData(self, editor, index) -> None:  # noqa: N802 - Qt override
        v = index.data(VALUE_ROLE)
        editor.setText(repr(v) if isinstance(v, float) and math.isfinite(v) else "")
        editor.selectAll()

    def setModelData(self, editor, model, index) -> None:  # noqa: N802 - Qt override
        text = editor.text().strip()
        if text and (not isinstance(index.data(VALUE_ROLE), float) or text != repr(index.data(VALUE_ROLE))):
            model.setData(index, text, Qt.ItemDataRole.EditRole)  # the model refuses what is not a number


class PortsPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.model = PortTableModel(self.write_port)
        self.proxy = PortFilterProxy()
        self.proxy.setSourceModel(self.model)
        # live values change every frame: re-filtering/re-sorting on each change would call back
        # into Python for every row; filters and sorting are re-applied explicitly instead
        self.proxy.setDynamicSortFilter(False)
        self.groups = PrimGroupModel(self.proxy)
        self.collapsed: set[str] = set()  # prims the user folded (kept across refreshes)
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
        self.view = QTreeView()
        self.view.setModel(self.groups)
        self.view.setUniformRowHeights(True)
        self.view.header().setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)  # sorts within each prim (PrimGroupModel.sort)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.setWordWrap(False)
        self.view.setItemDelegateForColumn(VALUE_COL, ValueDelegate(self.view))
        header = self.view.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(24)
        for col, width in enumerate((200, 30, 50, 60, 85, 110, 55)):
            self.view.setColumnWidth(col, width)
        self.view.setColumnWidth(VALUE_COL, self.value_column_width())
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.doubleClicked.connect(self._on_double_click)
        self.view.collapsed.connect(lambda i: self.collapsed.add(self.groups.prim_of(i)))
        self.view.expanded.connect(lambda i: self.collapsed.discard(self.groups.prim_of(i)))
        self.groups.modelReset.connect(self._restore_expansion)
        layout.addWidget(self.view, 1)
        self.status = QLabel("No simulation")
        layout.addWidget(self.status)
        self._index_key: tuple | None = None
        self._index_tick = -1
        self._index_asked = 0.0
        self._pending: list[tuple[str, Future, object]] = []
        self.poll = QTimer(self)
        self.poll.setInterval(30)
        self.poll.timeout.connect(self._poll)
        self._apply_selection()

    def value_column_width(self) -> int:
        """Wide enough for the widest value at full precision (the user may narrow it; the
        delegate then drops digits on the right)."""
        return self.view.fontMetrics().horizontalAdvance(WIDEST_VALUE) + 18

    def _restore_expansion(self) -> None:
        for g, prim in enumerate(self.groups.prims):
            self.view.setFirstColumnSpanned(g, QModelIndex(), True)  # the whole prim path shows
            self.view.setExpanded(self.groups.index(g, 0), prim not in self.collapsed)

    # ------------------------------------------------------------------ plotting
    def keys_at(self, indexes) -> list[str]:
        """Port keys of view rows (a prim row stands for all its ports), in order, once each."""
        keys: list[str] = []
        for index in indexes:
            if self.groups.is_group(index):
                group = index.siblingAtColumn(0)
                keys += [str(self.groups.index(c, 0, group).data(KEY_ROLE)) for c in range(self.groups.rowCount(group))]
            elif index.isValid():
                keys.append(str(index.data(KEY_ROLE)))
        return list(dict.fromkeys(keys))

    def plot(self, keys: list[str]) -> None:
        """Plot ports in the Plots panel (through the context, as a drop on it would)."""
        if keys:
            self.ctx.plot_ports(keys)
            self.status.setText("plotting " + ", ".join(keys) if len(keys) <= 3 else f"plotting {len(keys)} ports")

    def _on_double_click(self, index: QModelIndex) -> None:
        if index.column() == 0 and not self.groups.is_group(index):  # the name: plot it (values edit)
            self.plot(self.keys_at([index]))

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        selected = self.view.selectionModel().selectedRows(0)
        rows = selected if any(i.row() == index.row() and i.parent() == index.parent() for i in selected) else [index]
        keys = self.keys_at(rows)
        menu = self.port_menu(keys, index)
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def port_menu(self, keys: list[str], index: QModelIndex) -> QMenu:
        """The context menu of the rows ``keys`` (clicked at ``index``)."""
        menu = QMenu(self)
        plot = menu.addAction("Plot" if len(keys) == 1 else f"Plot {len(keys)} Ports")
        plot.triggered.connect(lambda: self.plot(keys))
        copy = menu.addAction("Copy Port Path" if len(keys) == 1 else "Copy Port Paths")
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText("\n".join(keys)))
        if not self.groups.is_group(index):
            value = index.siblingAtColumn(VALUE_COL).data(VALUE_ROLE)
            if isinstance(value, float) and not math.isnan(value):
                full = menu.addAction(f"Copy Value ({value!r})")
                full.triggered.connect(lambda: QGuiApplication.clipboard().setText(repr(value)))
        return menu

    # ------------------------------------------------------------------ data
    def on_selection(self, _added: tuple, _removed: tuple) -> None:
        self._apply_selection()

    def _apply_selection(self) -> None:
        sel = self.ctx.selection.paths
        self.proxy.set_filter(prims=sel if (self.selection_only.isChecked() and sel) else None)

    def on_frame(self, snap: WorkbenchSnapshot) -> None:
        key = (snap.generation, snap.port_keys, snap.scene)
        now = time.monotonic()
        # after a step, and every 2 s while running, the metadata is asked again (a model that
        # finished compiling brings its units and bounds without a new projection)
        stale = self.isVisible() and snap.tick != self._index_tick and (
            snap.status != "running" or now - self._index_asked >= 2.0)
        if key != self._index_key or (stale and not self._pending):
            self._index_key, self._index_tick, self._index_asked = key, snap.tick, now
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
