"""The Connections canvas: a node graph of the selected assembly's ports (see ``model``).

Drag from an output port to an input port to wire them (``SetConnection`` through the journal;
incompatible units are refused at the drop with the reason; units come from customData, else the
running simulation, else the ports wired to); select wires and nodes and press Delete to remove
the wires and every wire of the nodes (one undo step). Nodes are dragged freely; their places are
kept in the document's view layer (never journaled) and in a sidecar under the twin's ``.lunco/``
so they come back after a restart. While the simulation runs, each wire shows its value.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from pathlib import Path

from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
)

from luncosim_core.api import ListPorts
from luncosim_core.diagnostics import DiagnosticError
from luncosim_workbench.panels.connections.model import (
    POSITION_ATTR,
    Graph,
    JointEdge,
    Node,
    Wire,
    build_graph,
    connect_op,
    delete_op,
    layout,
    live_units,
    node_height,
    positions_file,
    read_positions,
    write_positions,
)
from luncosim_workbench.plugins import PanelWidget

NODE_W = 190.0
PORT_R = 5.0
WIRE = QColor(120, 170, 240)
BROKEN = QColor(220, 60, 50)
CONVERTED = QColor(230, 170, 40)
JOINT = QColor(150, 150, 150)


def _bold() -> QFont:
    f = QFont()
    f.setBold(True)
    return f


def node_width(node: Node) -> float:
    """Wide enough for the title and, on each row, an input's label beside an output's."""
    plain, bold = QFontMetricsF(QFont()), QFontMetricsF(_bold())
    title = bold.horizontalAdvance(node.title + ("  (body)" if node.body else "")) + 16
    rows = max(len(node.inputs), len(node.outputs))
    pairs = [(plain.horizontalAdvance(node.inputs[i].label) if i < len(node.inputs) else 0.0)
             + (plain.horizontalAdvance(node.outputs[i].label) if i < len(node.outputs) else 0.0)
             for i in range(rows)]
    return max(NODE_W, title, max(pairs, default=0.0) + 36)


class PortItem(QGraphicsEllipseItem):
    def __init__(self, node: NodeItem, name: str, direction: str, y: float) -> None:
        x = node.width if direction == "out" else 0.0
        super().__init__(x - PORT_R, y - PORT_R, 2 * PORT_R, 2 * PORT_R, node)
        self.node, self.name, self.direction = node, name, direction
        self.setBrush(QBrush(QColor(90, 200, 120) if direction == "out" else QColor(90, 150, 230)))
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setToolTip(f"{node.node.path}.{name}")

    @property
    def key(self) -> str:
        return f"{self.node.node.path}.{self.name}"

    def anchor(self) -> QPointF:
        return self.mapToScene(self.rect().center())


class NodeItem(QGraphicsRectItem):
    def __init__(self, node: Node, canvas: ConnectionsCanvas) -> None:
        self.width = node_width(node)
        super().__init__(0, 0, self.width, node_height(node))
        self.node, self.canvas = node, canvas
        self.setBrush(QBrush(QColor(58, 62, 70)))
        self.setPen(QPen(QColor(200, 160, 60) if node.body else QColor(110, 115, 125), 1.5))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        title = QGraphicsSimpleTextItem(node.title + ("  (body)" if node.body else ""), self)
        title.setBrush(QBrush(QColor(235, 235, 235)))
        title.setFont(_bold())
        title.setPos(6, 4)
        self.ports: dict[str, PortItem] = {}
        for ports, direction in ((node.inputs, "in"), (node.outputs, "out")):
            for i, port in enumerate(ports):
                y = 34.0 + 18.0 * i
                self.ports[port.name] = PortItem(self, port.name, direction, y)
                self.ports[port.name].setToolTip(f"{node.path}.{port.name}\n{port.tip}")
                label = QGraphicsSimpleTextItem(port.label, self)
                label.setBrush(QBrush(QColor(210, 210, 210)))
                w = label.boundingRect().width()
                label.setPos(10 if direction == "in" else self.width - 10 - w, y - 8)
        self.setToolTip(node.path)

    def itemChange(self, change, value):  # noqa: N802 - Qt override
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.canvas.node_moved(self)
        return super().itemChange(change, value)


class WireItem(QGraphicsPathItem):
    def __init__(self, wire: Wire | None, joint: JointEdge | None = None) -> None:
        super().__init__()
        self.wire, self.joint = wire, joint
        color = JOINT if joint else BROKEN if wire.broken else CONVERTED if wire.converted else WIRE
        pen = QPen(color, 2.0 if joint is None else 1.5)
        if joint is not None:
            pen.setStyle(Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setZValue(-1)
        if wire is not None:
            self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
            tip = f"{wire.source} -> {wire.sink}"
            tip += f"\nbroken: {wire.broken}" if wire.broken else f"\nunits converted: {wire.converted}" if wire.converted else ""
            self.setToolTip(tip)
        else:
            self.setToolTip(f"joint {joint.path} (read-only)")
        self.value = QGraphicsSimpleTextItem("", self)
        self.value.setBrush(QBrush(QColor(230, 230, 230)))

    def route(self, a: QPointF, b: QPointF) -> None:
        path = QPainterPath(a)
        dx = max(abs(b.x() - a.x()) * 0.5, 40.0)
        path.cubicTo(QPointF(a.x() + dx, a.y()), QPointF(b.x() - dx, b.y()), b)
        self.setPath(path)
        self.value.setPos(path.pointAtPercent(0.5) + QPointF(4, -16))

    def paint(self, painter, option, widget=None) -> None:
        if self.isSelected():
            pen = QPen(self.pen())
            pen.setWidthF(4.0)
            painter.setPen(pen)
            painter.drawPath(self.path())
            return
        super().paint(painter, option, widget)


class GraphView(QGraphicsView):
    """The view: drag from a port draws a rubber wire; Delete removes the selected wires."""

    def __init__(self, canvas: ConnectionsCanvas) -> None:
        super().__init__(canvas.scene)
        self.canvas = canvas
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self._from: PortItem | None = None
        self._rubber: QGraphicsPathItem | None = None

    def port_at(self, pos) -> PortItem | None:
        for item in self.items(pos):
            if isinstance(item, PortItem):
                return item
        return None

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        port = self.port_at(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and port is not None and port.direction == "out":
            self._from = port
            self._rubber = QGraphicsPathItem()
            self._rubber.setPen(QPen(WIRE, 1.5, Qt.PenStyle.DashLine))
            self.scene().addItem(self._rubber)
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._from is not None:
            a, b = self._from.anchor(), self.mapToScene(event.position().toPoint())
            path = QPainterPath(a)
            path.lineTo(b)
            self._rubber.setPath(path)
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._from is not None:
            source, self._from = self._from, None
            self.scene().removeItem(self._rubber)
            self._rubber = None
            target = self.port_at(event.position().toPoint())
            if target is not None and target is not source:
                self.canvas.wire(source.key, target.key)
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.canvas.delete_selected()
            return
        super().keyPressEvent(event)


class ConnectionsCanvas(PanelWidget):
    def __init__(self, ctx, parent=None) -> None:
        super().__init__(ctx, parent)
        self.scene = QGraphicsScene(self)
        self.graph: Graph | None = None
        self.nodes: dict[str, NodeItem] = {}
        self.wires: list[WireItem] = []
        self._building = False
        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(2, 2, 2, 2)
        bar = QHBoxLayout()
        self.title = QLabel("No assembly")
        bar.addWidget(self.title, 1)
        relayout = QToolButton()
        relayout.setText("Auto Layout")
        relayout.setToolTip("Place the nodes in columns by how far down the signal chain they are")
        relayout.clicked.connect(self.auto_layout)
        bar.addWidget(relayout)
        layout_.addLayout(bar)
        self.view = GraphView(self)
        layout_.addWidget(self.view, 1)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        layout_.addWidget(self.status)
        ctx.documents.scene_replaced.connect(lambda _doc: self.rebuild())
        self._doc = None
        self.live: dict[str, str] = {}  # the running simulation's units (/Prim.ns:name -> unit)
        self._live_key: tuple | None = None
        self._live_tick = -1
        self._live_asked = 0.0
        self._live_query: Future | None = None
        self._poll = QTimer(self)
        self._poll.setInterval(30)
        self._poll.timeout.connect(self._take_live_units)
        self._save = QTimer(self)  # node places are written shortly after a drag, not per pixel
        self._save.setSingleShot(True)
        self._save.setInterval(300)
        self._save.timeout.connect(self.save_positions)
        self.rebuild()

    # ------------------------------------------------------------------ building
    @property
    def document(self):
        return self.ctx.documents.scene

    def assembly_root(self) -> str:
        """The selected prim, else the default prim, else the root."""
        doc = self.document
        if doc is None:
            return "/"
        current = self.ctx.selection.current
        if current and doc.stage.GetPrimAtPath(current):
            return current
        default = doc.stage.GetDefaultPrim()
        return str(default.GetPath()) if default else "/"

    def positions_path(self) -> Path | None:
        """The sidecar holding this scene's node places (None without a scene file)."""
        doc = self.document
        if doc is None or getattr(doc, "path", None) is None:
            return None
        twin = self.ctx.workspace.twin
        scene = Path(doc.path)
        return positions_file(twin.root if twin is not None else None, scene,
                              twin.relative(scene) if twin is not None else None)

    def _positions(self) -> dict[str, tuple[float, float]]:
        """Saved places (the sidecar), overridden by this session's (the view layer)."""
        doc = self.document
        path = self.positions_path()
        out = read_positions(path) if path is not None else {}
        for spec in doc.view.rootPrims if doc is not None else ():
            self._collect(spec, out)
        return out

    def save_positions(self) -> None:
        """Write every node place this document knows to the sidecar."""
        path = self.positions_path()
        if path is None:
            return
        try:
            write_positions(path, self._positions())
        except OSError as exc:
            self.status.setText(f"cannot save node places to {path}: {exc}")

    def _collect(self, spec, out) -> None:
        prop = spec.properties.get(POSITION_ATTR)
        if prop is not None and prop.default is not None:
            out[str(spec.path)] = (float(prop.default[0]), float(prop.default[1]))
        for child in spec.nameChildren:
            self._collect(child, out)

    def rebuild(self) -> None:
        doc = self.document
        if doc is not self._doc:
            if self._doc is not None:
                self._doc.changed.disconnect(self._on_changed)
            self._doc = doc
            if doc is not None:
                doc.changed.connect(self._on_changed)
        self._building = True
        try:
            self.scene.clear()
            self.nodes, self.wires = {}, []
            if doc is None:
                self.graph = None
                self.title.setText("No scene")
                return
            root = self.assembly_root()
            self.graph = build_graph(doc.stage, root, self._positions(), self.live)
            self.title.setText(f"{root}: {len(self.graph.nodes)} nodes, {len(self.graph.wires)} wires")
            widest = max((node_width(n) for n in self.graph.nodes.values()), default=NODE_W)
            for path, (x, y) in layout(self.graph, column=widest + 70.0).items():
                item = NodeItem(self.graph.nodes[path], self)
                item.setPos(x, y)
                self.scene.addItem(item)
                self.nodes[path] = item
            for wire in self.graph.wires:
                self._add_edge(WireItem(wire))
            for joint in self.graph.joints:
                self._add_edge(WireItem(None, joint))
            self._route_all()
            self.fit()
        finally:
            self._building = False

    def fit(self) -> None:
        """Show every node (never magnified beyond 1:1)."""
        rect = self.scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
        if rect.isEmpty():
            return
        self.view.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.view.transform().m11() > 1.0:
            self.view.resetTransform()
            self.view.centerOn(rect.center())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit()

    def _add_edge(self, item: WireItem) -> None:
        self.scene.addItem(item)
        self.wires.append(item)

    def _ends(self, item: WireItem) -> tuple[QPointF, QPointF] | None:
        if item.joint is not None:
            a, b = self.nodes.get(item.joint.body0), self.nodes.get(item.joint.body1)
            if a is None or b is None:
                return None
            return a.sceneBoundingRect().center(), b.sceneBoundingRect().center()
        w = item.wire
        sink = self.nodes.get(w.sink_prim)
        if sink is None:
            return None
        b = sink.ports[w.sink.rpartition(".")[2]].anchor()
        src = self.nodes.get(w.source_prim)
        port = src.ports.get(w.source.rpartition(".")[2]) if src is not None else None
        a = port.anchor() if port is not None else b - QPointF(80, 0)  # a source outside the canvas
        return a, b

    def _route_all(self) -> None:
        for item in self.wires:
            ends = self._ends(item)
            if ends is not None:
                item.route(*ends)

    def node_moved(self, item: NodeItem) -> None:
        if self._building:
            return
        self._route_all()
        doc = self.document
        if doc is not None:
            doc.set_view(item.node.path, POSITION_ATTR, (item.pos().x(), item.pos().y()), "float2")
            self._save.start()

    def auto_layout(self) -> None:
        doc = self.document
        if doc is None or self.graph is None:
            return
        doc.clear_views(POSITION_ATTR)
        path = self.positions_path()
        if path is not None and path.exists():
            path.unlink()
        self.rebuild()

    def _on_changed(self, _op) -> None:
        self.rebuild()

    # ------------------------------------------------------------------ gestures
    def _apply(self, op) -> bool:
        try:
            self.ctx.apply(op)
        except DiagnosticError as exc:
            msg = "; ".join(d.message for d in exc.diagnostics)
            self.status.setText(msg)
            self.ctx.notify(msg)
            return False
        self.status.setText("")
        return True

    def wire(self, source: str, sink: str) -> bool:
        """Wire output ``source`` to input ``sink`` (refused with the reason on a bad pair)."""
        doc = self.document
        if doc is None:
            return False
        try:
            op = connect_op(doc.stage, source, sink, self.units())
        except DiagnosticError as exc:
            msg = "; ".join(d.message for d in exc.diagnostics)
            self.status.setText(msg)
            self.ctx.notify(msg)
            return False
        return self._apply(op)

    def units(self) -> dict[str, str]:
        """The canvas's port units (authored, live or carried along wires) by ``/Prim.ns:name``."""
        return self.graph.units if self.graph is not None else {}

    def delete_selected(self) -> bool:
        """Delete the selected wires and every wire of the selected nodes: one undo step."""
        doc = self.document
        if doc is None or self.graph is None:
            return False
        wires = [i.wire for i in self.wires if i.isSelected() and i.wire is not None]
        nodes = [path for path, item in self.nodes.items() if item.isSelected()]
        op = delete_op(doc.stage, self.graph, wires, nodes)
        if op is None:
            self.status.setText("nothing to delete: select wires or nodes" if not nodes else
                                f"{', '.join(nodes)} has no wires")
            return False
        return self._apply(op)

    # ------------------------------------------------------------------ subscriptions
    def on_selection(self, _added, _removed) -> None:
        current = self.ctx.selection.current
        if self.graph is None or current is None or current not in self.graph.nodes:
            self.rebuild()  # another assembly (a node of this one keeps the canvas)
            return
        for path, item in self.nodes.items():
            item.setSelected(path == current)

    def _ask_live_units(self, snapshot) -> None:
        """Ask for the port list when the projection changed, after a step, and every 2 s while
        running (a model that finished compiling brings its units without a new projection)."""
        key = (snapshot.generation, snapshot.port_keys, snapshot.scene)
        now = time.monotonic()
        stale = snapshot.tick != self._live_tick and (snapshot.status != "running" or now - self._live_asked >= 2.0)
        if (key != self._live_key or stale) and self._live_query is None:
            self._live_key, self._live_tick, self._live_asked = key, snapshot.tick, now
            self._live_query = self.ctx.query(ListPorts(None))
            self._poll.start()

    def _take_live_units(self) -> None:
        fut = self._live_query
        if fut is None or not fut.done():
            return
        self._poll.stop()
        self._live_query = None
        result = fut.result()
        units = live_units(list(result.value or [])) if result.ok else {}
        if units != self.live:
            self.live = units
            self.rebuild()

    def on_frame(self, snapshot) -> None:
        self._ask_live_units(snapshot)
        if not self.isVisible():
            return
        for item in self.wires:
            if item.wire is None:
                continue
            src = item.wire.source
            value = snapshot.port(f"{item.wire.source_prim}.{src.rpartition(':')[2]}")
            item.value.setText("" if value is None else f"{value:.4g}")
