"""The diagram canvas: a QGraphicsScene of component icons, connectors and wires, and the view's
gestures (move, connect by drag, rubber-band select, zoom, pan). Gestures emit requests; the panel
turns them into ops (it never mutates the text here).

Scene coordinates are the diagram's with y pointing down: ``scene = (x, -y)``. A node's item
transform maps its icon coordinates (y up) to the scene, so primitives are drawn as written.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QKeySequence,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from luncosim_core.modelica.syntax.geometry import Placement
from luncosim_core.modelica.syntax.graphics import Primitive
from luncosim_workbench.panels.diagram.browser import CLASS_MIME
from luncosim_workbench.panels.diagram.model import (
    DiagramView,
    Extent,
    Icon,
    NodeView,
    PortView,
    WireView,
)

GRID = 2.0  # diagram units: moves snap to it
_PATTERN = {"Solid": Qt.PenStyle.SolidLine, "Dash": Qt.PenStyle.DashLine, "Dot": Qt.PenStyle.DotLine,
            "DashDot": Qt.PenStyle.DashDotLine, "DashDotDot": Qt.PenStyle.DashDotDotLine, "None": Qt.PenStyle.NoPen}
_FILL = {"Solid": Qt.BrushStyle.SolidPattern, "Horizontal": Qt.BrushStyle.HorPattern,
         "Vertical": Qt.BrushStyle.VerPattern, "Cross": Qt.BrushStyle.CrossPattern,
         "Forward": Qt.BrushStyle.BDiagPattern, "Backward": Qt.BrushStyle.FDiagPattern,
         "CrossDiag": Qt.BrushStyle.DiagCrossPattern}
# gradients are drawn as their fill colour (a flat approximation)
_GRADIENTS = frozenset({"HorizontalCylinder", "VerticalCylinder", "Sphere"})


def placement_matrix(pl: Placement, coords: Extent) -> tuple[float, float, float, float, float, float]:
    """(a, b, c, d, tx, ty): icon point (lx, ly) -> (a lx + b ly + tx, c lx + d ly + ty) in the
    parent's coordinates (y up): scale the icon's coordinate system onto the extent (a flip is a
    negative scale), rotate about the extent's centre, translate by the origin."""
    (cx1, cy1), (cx2, cy2) = coords
    (ex1, ey1), (ex2, ey2) = pl.extent
    sx = (ex2 - ex1) / ((cx2 - cx1) or 1.0)
    sy = (ey2 - ey1) / ((cy2 - cy1) or 1.0)
    ccx, ccy = (cx1 + cx2) / 2, (cy1 + cy2) / 2
    th = math.radians(pl.rotation)
    cos, sin = math.cos(th), math.sin(th)
    a, b, c, d = cos * sx, -sin * sy, sin * sx, cos * sy
    tx = pl.origin[0] + (ex1 + ex2) / 2 - a * ccx - b * ccy
    ty = pl.origin[1] + (ey1 + ey2) / 2 - c * ccx - d * ccy
    return a, b, c, d, tx, ty


def _qt(m: tuple[float, float, float, float, float, float], flip: bool) -> QTransform:
    a, b, c, d, tx, ty = m
    if flip:  # into the scene: y down
        return QTransform(a, -c, b, -d, tx, -ty)
    return QTransform(a, c, b, d, tx, ty)


def _color(rgb: tuple[int, int, int] | None) -> QColor | None:
    return QColor(*rgb) if rgb is not None else None


def _pen(p: Primitive) -> QPen:
    color = _color(p.line_color)
    if color is None or p.line_pattern == "None":
        return QPen(Qt.PenStyle.NoPen)
    pen = QPen(color, max(p.thickness, 0.25) * 2.0)
    pen.setCosmetic(p.thickness <= 0.25)  # hairlines stay one pixel at any zoom
    if p.thickness <= 0.25:
        pen.setWidthF(1.0)
    pen.setStyle(_PATTERN.get(p.line_pattern, Qt.PenStyle.SolidLine))
    return pen


def _brush(p: Primitive) -> QBrush:
    color = _color(p.fill_color)
    if color is None or p.fill_pattern == "None":
        return QBrush(Qt.BrushStyle.NoBrush)
    if p.fill_pattern in _GRADIENTS:
        return QBrush(color)
    return QBrush(color, _FILL.get(p.fill_pattern, Qt.BrushStyle.SolidPattern))


def _rect(extent) -> QRectF:
    (x1, y1), (x2, y2) = extent
    return QRectF(QPointF(min(x1, x2), min(y1, y2)), QPointF(max(x1, x2), max(y1, y2)))


def substitute(text: str, name: str, class_name: str, modifiers: dict[str, str]) -> str:
    """``%name``, ``%class`` and ``%param`` (a modifier's text) in an icon's Text."""
    if "%" not in text:
        return text
    out = text.replace("%name", name).replace("%class", class_name)
    for k, v in sorted(modifiers.items(), key=lambda kv: -len(kv[0])):
        out = out.replace("%" + k, v)
    return out


def paint_primitive(painter: QPainter, p: Primitive, labels: tuple[str, str, dict[str, str]]) -> None:
    """Draw one primitive in icon coordinates (y up; the painter's transform flips to the screen)."""
    painter.save()
    if p.rotation or p.origin != (0.0, 0.0):
        painter.translate(p.origin[0], p.origin[1])
        painter.rotate(p.rotation)
    painter.setPen(_pen(p))
    painter.setBrush(_brush(p))
    kind = p.kind
    if kind == "Rectangle" and p.extent:
        if p.radius:
            painter.drawRoundedRect(_rect(p.extent), p.radius, p.radius)
        else:
            painter.drawRect(_rect(p.extent))
    elif kind == "Ellipse" and p.extent:
        painter.drawEllipse(_rect(p.extent))
    elif kind == "Polygon" and p.points:
        painter.drawPolygon(QPolygonF([QPointF(x, y) for x, y in p.points]))
    elif kind == "Line" and len(p.points) > 1:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        path = QPainterPath(QPointF(*p.points[0]))
        for x, y in p.points[1:]:
            path.lineTo(x, y)
        painter.drawPath(path)
    elif kind == "Text" and p.extent:
        _paint_text(painter, p, substitute(p.text, *labels))
    painter.restore()


def _paint_text(painter: QPainter, p: Primitive, text: str) -> None:
    rect = _rect(p.extent)
    if not text or rect.height() <= 0:
        return
    painter.translate(rect.center())
    painter.scale(1.0, -1.0)  # text upright on the screen
    font = QFont()
    size = min(p.font_size, rect.height() * 0.8) if p.font_size > 0 else rect.height() * 0.8
    font.setPointSizeF(max(size, 1.0))
    width = QFontMetricsF(font).horizontalAdvance(text)
    if width > rect.width() > 0:
        font.setPointSizeF(max(size * rect.width() / width, 1.0))
    painter.setFont(font)
    painter.setPen(_color(p.line_color) or QColor(0, 0, 0))
    box = QRectF(-rect.width() / 2, -rect.height() / 2, rect.width(), rect.height())
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)


def _paint_icon(painter: QPainter, icon: Icon, labels: tuple[str, str, dict[str, str]], fallback: QColor) -> None:
    if icon.graphics:
        for prim in icon.graphics:
            paint_primitive(painter, prim, labels)
        return
    painter.setPen(QPen(fallback, 0))
    painter.setBrush(QBrush(fallback.lighter(180)))
    painter.drawRect(_rect(icon.coords))


class PortItem(QGraphicsItem):
    """A connector of a node (or the node itself, for the class's own connectors)."""

    def __init__(self, node: NodeItem, port: PortView) -> None:
        super().__init__(node)
        self.node = node
        self.port = port
        self.ref = f"{node.view.name}.{port.name}" if port.name else node.view.name
        if port.name:
            self.setTransform(_qt(placement_matrix(port.placement, node.view.icon.coords), False))
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.hovered = False
        kind = port.connector.describe() if port.connector else "connector"
        self.setToolTip(kind)

    def boundingRect(self) -> QRectF:
        if self.port.name:
            return _rect(self.port.icon.coords)
        # the class's own connector: its middle starts a connection, its rim moves it
        r = _rect(self.node.view.icon.coords)
        return r.adjusted(r.width() / 4, r.height() / 4, -r.width() / 4, -r.height() / 4)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        if self.port.name:
            icon = self.port.icon
            if icon.graphics:
                for prim in icon.graphics:
                    paint_primitive(painter, prim, (self.port.name, icon.class_name, {}))
            else:
                self._default(painter)
        if self.hovered:
            painter.setPen(QPen(QColor(255, 140, 0), 0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.boundingRect())

    def _default(self, painter: QPainter) -> None:
        c = self.port.connector
        painter.setPen(QPen(QColor(0, 0, 120), 0))
        if c is not None and not c.physical:
            color = QColor(0, 0, 200) if c.causality == "input" else QColor(255, 255, 255)
            painter.setBrush(color)
            painter.drawPolygon(QPolygonF([QPointF(-100, 100), QPointF(100, 0), QPointF(-100, -100)]))
        else:
            painter.setBrush(QColor(90, 90, 90))
            painter.drawRect(QRectF(-100, -100, 200, 200))

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.hovered = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.hovered = False
        self.update()

    def scene_center(self) -> QPointF:
        return self.mapToScene(self.boundingRect().center())


class NodeItem(QGraphicsItem):
    """A placed component: its icon, name label and connectors."""

    def __init__(self, view: NodeView) -> None:
        super().__init__()
        self.view = view
        self.setTransform(_qt(placement_matrix(view.placement, view.icon.coords), True))
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.ports = [PortItem(self, p) for p in view.ports]
        self.live: dict[str, float] = {}
        self.wires: list[WireItem] = []
        self._rect = _rect(view.icon.coords)
        self.label = QGraphicsSimpleTextItem(self)  # upright and one size at any zoom or rotation
        self.label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.label.setPos(self._rect.center().x(), self._rect.top())
        self.label.setBrush(QColor(40, 40, 40))
        self.label.setVisible(not any(g.kind == "Text" and "%name" in g.text for g in view.icon.graphics))
        self.update_tooltip()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        v = self.view
        if v.own_connector is None or v.icon.graphics:
            _paint_icon(painter, v.icon, (v.name, v.type_name.rsplit(".", 1)[-1], v.modifiers), QColor(120, 120, 120))
        if v.own_connector is not None and not v.icon.graphics and self.ports:
            self.ports[0]._default(painter)
        if self.isSelected():
            painter.setPen(QPen(QColor(0, 120, 215), 0, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self._rect)

    def itemChange(self, change, value):  # noqa: N802 - Qt's name
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            for w in self.wires:
                w.reroute()
        return super().itemChange(change, value)

    def update_tooltip(self) -> None:
        v = self.view
        value = self.live.get(v.name)
        self.label.setText(v.name if value is None else f"{v.name} = {value:.4g}")
        self.label.setTransform(QTransform.fromTranslate(-self.label.boundingRect().width() / 2, 2))
        lines = [f"<b>{v.name}</b> : {v.type_name}"]
        if v.description:
            lines.append(v.description)
        lines += [f"{k} = {val}" for k, val in v.modifiers.items()]
        if not v.icon.found and v.own_connector is None:
            lines.append(f"<i>class {v.type_name} not found: drawn as a box</i>")
        if self.live:
            lines.append("<b>live</b>")
            lines += [f"{k} = {val:.6g}" for k, val in sorted(self.live.items())]
        self.setToolTip("<br>".join(lines))

    def port(self, name: str) -> PortItem | None:
        for p in self.ports:
            if p.port.name == name:
                return p
        return None


class WireItem(QGraphicsPathItem):
    """A connect: its Line points (diagram coordinates), ends following the connectors."""

    def __init__(self, view: WireView, a: PortItem | None, b: PortItem | None) -> None:
        super().__init__()
        self.view = view
        self.a, self.b = a, b
        pen = QPen(QColor(0, 0, 200), 1.5)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(-1)
        self.setToolTip(f"connect({view.a}, {view.b})")
        self.reroute()

    def reroute(self) -> None:
        pts = [QPointF(x, -y) for x, y in self.view.points]
        start = self.a.scene_center() if self.a is not None else (pts[0] if pts else None)
        end = self.b.scene_center() if self.b is not None else (pts[-1] if pts else None)
        if start is None or end is None:
            self.setPath(QPainterPath())
            return
        if len(pts) >= 2:
            pts[0], pts[-1] = start, end
        else:
            mid = (start.x() + end.x()) / 2
            pts = [start, QPointF(mid, start.y()), QPointF(mid, end.y()), end]
        path = QPainterPath(pts[0])
        for p in pts[1:]:
            path.lineTo(p)
        self.setPath(path)


def build_scene(scene: QGraphicsScene, view: DiagramView) -> dict[str, NodeItem]:
    """Fill ``scene`` with ``view``'s background, nodes and wires; returns the nodes by name."""
    scene.clear()
    (x1, y1), (x2, y2) = view.coords  # the class's diagram area, faintly, as OMEdit frames it
    frame = scene.addRect(_rect(((x1, -y1), (x2, -y2))), QPen(QColor(200, 200, 200), 0, Qt.PenStyle.DotLine))
    frame.setZValue(-3)
    for prim in view.background:
        scene.addItem(_Background(prim))
    nodes: dict[str, NodeItem] = {}
    for nv in view.nodes:
        item = NodeItem(nv)
        scene.addItem(item)
        nodes[nv.name] = item
    for wv in view.wires:
        a, b = find_port(nodes, wv.a), find_port(nodes, wv.b)
        w = WireItem(wv, a, b)
        scene.addItem(w)
        for p in (a, b):
            if p is not None:
                p.node.wires.append(w)
    return nodes


def find_port(nodes: dict[str, NodeItem], ref: str) -> PortItem | None:
    head, _, rest = ref.partition(".")
    node = nodes.get(head.split("[")[0])
    if node is None:
        return None
    if not rest:
        return node.ports[0] if node.ports and not node.ports[0].port.name else None
    return node.port(rest.split(".")[0].split("[")[0])


class _Background(QGraphicsItem):
    def __init__(self, prim: Primitive) -> None:
        super().__init__()
        self.prim = prim
        self.setTransform(QTransform(1, 0, 0, -1, 0, 0))
        self.setZValue(-2)
        pts = list(prim.points) + (list(prim.extent) if prim.extent else [])
        xs, ys = [p[0] for p in pts] or [0], [p[1] for p in pts] or [0]
        self._rect = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-2, -2, 2, 2)

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        paint_primitive(painter, self.prim, ("", "", {}))


class DiagramView_(QGraphicsView):  # noqa: N801 - distinct from the model's DiagramView
    """The view: wheel zoom, middle-button pan, rubber-band selection; drags of selected icons
    become one ``moved`` request, drags from a connector to another one a ``connect`` request."""

    moved = Signal(dict)  # {component: (dx, dy)} in diagram units, snapped to the grid
    connect_requested = Signal(str, str, QPointF)  # a, b, where the mouse was released (view coordinates)
    key_command = Signal(str)  # undo, redo, save, delete, rotate, flip_h, flip_v, fit
    parameters_requested = Signal(str)  # a component was double-clicked
    class_dropped = Signal(str, QPointF)  # a library class dropped here: its full name, the diagram point

    _KEYS = {
        QKeySequence.StandardKey.Undo: "undo", QKeySequence.StandardKey.Redo: "redo",
        QKeySequence.StandardKey.Delete: "delete", QKeySequence.StandardKey.Save: "save",
    }
    _PLAIN = {Qt.Key.Key_R: "rotate", Qt.Key.Key_H: "flip_h", Qt.Key.Key_V: "flip_v", Qt.Key.Key_F: "fit",
              Qt.Key.Key_Backspace: "delete"}

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self._press: dict[str, QPointF] = {}
        self._wire: QGraphicsLineItem | None = None
        self._from: PortItem | None = None
        self._pan: QPointF | None = None

    # -- keys: the canvas's own, even where the window binds the same key (Ctrl+Z) ----------------
    def _command(self, event) -> str | None:
        for std, name in self._KEYS.items():
            if event.matches(std):
                return name
        if event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
            return self._PLAIN.get(Qt.Key(event.key()))
        return None

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and self._command(event) is not None:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        cmd = self._command(event)
        if cmd is not None:
            self.key_command.emit(cmd)
            event.accept()
            return
        super().keyPressEvent(event)

    # -- drops from the library browser ------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasFormat(CLASS_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasFormat(CLASS_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if not event.mimeData().hasFormat(CLASS_MIME):
            event.ignore()
            return
        name = bytes(event.mimeData().data(CLASS_MIME)).decode()
        p = self.mapToScene(event.position().toPoint())
        event.acceptProposedAction()
        self.class_dropped.emit(name, QPointF(p.x(), -p.y()))

    # -- zoom and pan ----------------------------------------------------------------------------
    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt's name
        factor = 1.0015 ** event.angleDelta().y()
        self.scale(factor, factor)

    def pan_by(self, dx: float, dy: float) -> None:
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(int(h.value() + dx))
        v.setValue(int(v.value() + dy))

    # -- gestures --------------------------------------------------------------------------------
    def _port_at(self, pos) -> PortItem | None:
        for item in self.items(pos):
            if isinstance(item, PortItem):
                return item
        return None

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan = event.position()
            return
        port = self._port_at(event.position().toPoint()) if event.button() == Qt.MouseButton.LeftButton else None
        if port is not None:
            self._from = port
            c = port.scene_center()
            self._wire = self.scene().addLine(c.x(), c.y(), c.x(), c.y(), QPen(QColor(255, 140, 0), 0, Qt.PenStyle.DashLine))
            return
        super().mousePressEvent(event)
        self._press = {i.view.name: i.pos() for i in self.scene().selectedItems() if isinstance(i, NodeItem)}

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt's name
        for item in self.items(event.position().toPoint()):
            node = item if isinstance(item, NodeItem) else (item.node if isinstance(item, PortItem) else None)
            if node is not None and node.view.own_connector is None:
                self.parameters_requested.emit(node.view.name)
                return
        super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._pan is not None:
            d = event.position() - self._pan
            self._pan = event.position()
            self.pan_by(-d.x(), -d.y())
            return
        if self._wire is not None:
            line = self._wire.line()
            p = self.mapToScene(event.position().toPoint())
            self._wire.setLine(line.x1(), line.y1(), p.x(), p.y())
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._pan is not None:
            self._pan = None
            return
        if self._wire is not None:
            self.scene().removeItem(self._wire)
            self._wire = None
            target = self._port_at(event.position().toPoint())
            source, self._from = self._from, None
            if target is not None and source is not None and target is not source:
                self.connect_requested.emit(source.ref, target.ref, event.position())
            return
        super().mouseReleaseEvent(event)
        self._finish_move()

    def _finish_move(self) -> None:
        deltas = {}
        for item in self.scene().selectedItems():
            if not isinstance(item, NodeItem) or item.view.name not in self._press:
                continue
            d = item.pos() - self._press[item.view.name]
            dx, dy = round(d.x() / GRID) * GRID, round(-d.y() / GRID) * GRID
            if dx or dy:
                deltas[item.view.name] = (dx, dy)
        self._press = {}
        if deltas:
            self.moved.emit(deltas)
