"""The diagram canvas: a QGraphicsScene of component icons, connectors and wires, and the view's
gestures (move, connect by drag, rubber-band select, zoom, pan). Gestures emit requests; the panel
turns them into ops (it never mutates the text here).

Scene coordinates are the diagram's with y pointing down: ``scene = (x, -y)``. A node's item
transform maps its icon coordinates (y up) to the scene, so primitives are drawn as written.
"""

from __future__ import annotations

import base64
import binascii
import math

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QKeySequence,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QRadialGradient,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsProxyWidget,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from luncosim_core.fsutil import file_problem
from luncosim_core.modelica.syntax.geometry import Placement
from luncosim_core.modelica.syntax.graphics import Primitive
from luncosim_workbench.panels.diagram.browser import CLASS_MIME
from luncosim_workbench.panels.diagram.model import (
    DiagramView,
    Extent,
    Icon,
    IconLayer,
    NodeView,
    PortView,
    WireView,
)
from luncosim_workbench.panels.diagram.route import Router, elbow

GRID = 2.0  # diagram units: moves snap to it
_PATTERN = {"Solid": Qt.PenStyle.SolidLine, "Dash": Qt.PenStyle.DashLine, "Dot": Qt.PenStyle.DotLine,
            "DashDot": Qt.PenStyle.DashDotLine, "DashDotDot": Qt.PenStyle.DashDotDotLine, "None": Qt.PenStyle.NoPen}
_FILL = {"Solid": Qt.BrushStyle.SolidPattern, "Horizontal": Qt.BrushStyle.HorPattern,
         "Vertical": Qt.BrushStyle.VerPattern, "Cross": Qt.BrushStyle.CrossPattern,
         "Forward": Qt.BrushStyle.BDiagPattern, "Backward": Qt.BrushStyle.FDiagPattern,
         "CrossDiag": Qt.BrushStyle.DiagCrossPattern}
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


def _bounds(p: Primitive) -> QRectF:
    """The primitive's own rectangle (its extent, else its points' box), in icon coordinates."""
    if p.extent:
        return _rect(p.extent)
    if p.points:
        xs, ys = [x for x, _ in p.points], [y for _, y in p.points]
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys)))
    return QRectF()


def _brush(p: Primitive) -> QBrush:
    """The fill: a colour with its pattern, or a gradient as Modelica's FillPattern names it
    (HorizontalCylinder: the line colour at the top and bottom edges, the fill colour along the
    middle; VerticalCylinder the same across; Sphere: the fill colour at the centre out to the
    line colour at the rim), as OMEdit draws them."""
    color = _color(p.fill_color)
    if color is None or p.fill_pattern == "None":
        return QBrush(Qt.BrushStyle.NoBrush)
    if p.fill_pattern in _GRADIENTS:
        r = _bounds(p)
        edge = _color(p.line_color) or QColor(0, 0, 0)
        if p.fill_pattern == "Sphere":
            g = QRadialGradient(r.center(), max(r.width(), r.height()) / 2 or 1.0)
            g.setColorAt(0.0, color)
            g.setColorAt(1.0, edge)
        else:
            if p.fill_pattern == "HorizontalCylinder":
                g = QLinearGradient(QPointF(r.center().x(), r.top()), QPointF(r.center().x(), r.bottom()))
            else:
                g = QLinearGradient(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()))
            g.setColorAt(0.0, edge)
            g.setColorAt(0.5, color)
            g.setColorAt(1.0, edge)
        return QBrush(g)
    return QBrush(color, _FILL.get(p.fill_pattern, Qt.BrushStyle.SolidPattern))


_IMAGES: dict[str, QImage] = {}  # Bitmap pictures by file or by their base64 text (read once)
MAX_IMAGE_BYTES = 16 * 1024 * 1024


def bitmap_image(p: Primitive) -> QImage | None:
    """A Bitmap's picture: its ``imageSource`` (base64) or its resolved ``fileName`` (a regular
    file under the size cap); None when there is none or it does not decode."""
    source = p.extra.get("imageSource") or ""
    path = p.extra.get("path") or ""
    key = ("b64:" + source) if source else ("file:" + path)
    if key in _IMAGES:
        image = _IMAGES[key]
        return None if image.isNull() else image
    image = QImage()
    if source:
        try:
            data = base64.b64decode("".join(source.split()), validate=False)
        except (ValueError, binascii.Error):
            data = b""
        if len(data) <= MAX_IMAGE_BYTES:
            image.loadFromData(data)
    elif path and file_problem(path, "image", MAX_IMAGE_BYTES) is None:
        image.load(path)
    _IMAGES[key] = image
    return None if image.isNull() else image


def _paint_bitmap(painter: QPainter, p: Primitive) -> None:
    rect = _rect(p.extent)
    image = bitmap_image(p)
    if rect.isEmpty():
        return
    if image is None:  # a frame where the picture would be, so the icon still reads
        painter.setPen(QPen(QColor(160, 160, 160), 0, Qt.PenStyle.DashLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        return
    painter.translate(rect.center())
    painter.scale(1.0, -1.0)  # the picture upright on the screen
    painter.drawImage(QRectF(-rect.width() / 2, -rect.height() / 2, rect.width(), rect.height()), image)


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
    elif kind == "Bitmap" and p.extent:
        _paint_bitmap(painter, p)
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
        fixed = view.inherited or bool(view.locked)
        movable = QGraphicsItem.GraphicsItemFlag.ItemIsMovable if not fixed else QGraphicsItem.GraphicsItemFlag(0)
        self.setFlags(movable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        if view.inherited:
            self.setOpacity(0.75)
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
        self.handles: list[HandleItem] = []  # made when the icon is first the only one selected
        self.update_tooltip()

    def show_handles(self, on: bool) -> None:
        if on and not self.handles:
            self.handles = [HandleItem(self, (i, j)) for i in (0, 1) for j in (0, 1)]
        for h in self.handles:
            h.setVisible(on)

    def preview_placement(self, pl: Placement) -> None:
        """Draw the icon at ``pl`` while a handle is dragged (the text is not changed yet)."""
        self.setTransform(_qt(placement_matrix(pl, self.view.icon.coords), True))
        for w in self.wires:
            w.reroute(moving=True)

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
                w.reroute(moving=True)
        return super().itemChange(change, value)

    def update_tooltip(self) -> None:
        v = self.view
        value = self.live.get(v.name)
        self.label.setText(v.name if value is None else f"{v.name} = {value:.4g}")
        self.label.setTransform(QTransform.fromTranslate(-self.label.boundingRect().width() / 2, 2))
        lines = [f"<b>{v.name}</b> : {v.type_name}"]
        if v.description:
            lines.append(v.description)
        if v.inherited:
            lines.append("<i>inherited: edited in its base class</i>")
        if v.locked:
            lines.append(f"<i>{v.locked}</i>")
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
    """A connect: its Line points (diagram coordinates), ends following the connectors. A wire
    with no points is routed around the icons (``route``: scene points, from the scene's router)
    and drawn as a plain elbow while its icons are being dragged."""

    def __init__(self, view: WireView, a: PortItem | None, b: PortItem | None) -> None:
        super().__init__()
        self.view = view
        self.a, self.b = a, b
        self.route: list[QPointF] | None = None
        self.preview: list[QPointF] | None = None  # a bend being dragged
        self.value_label: QGraphicsSimpleTextItem | None = None  # live: its potential variable's value
        pen = QPen(QColor(0, 0, 200), 1.5)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(-1)
        self.setToolTip(f"connect({view.a}, {view.b})<br><i>drag a segment to bend it; double-click to add "
                        "or remove a bend</i>")
        self.reroute()

    def ends(self) -> tuple[QPointF | None, QPointF | None]:
        pts = [QPointF(x, -y) for x, y in self.view.points]
        start = self.a.scene_center() if self.a is not None else (pts[0] if pts else None)
        end = self.b.scene_center() if self.b is not None else (pts[-1] if pts else None)
        return start, end

    def points(self, moving: bool = False) -> list[QPointF]:
        """The drawn polyline in scene coordinates (``moving``: an icon is being dragged)."""
        if self.preview is not None:
            return self.preview
        start, end = self.ends()
        if start is None or end is None:
            return []
        pts = [QPointF(x, -y) for x, y in self.view.points]
        if len(pts) >= 2:
            pts[0], pts[-1] = start, end
            return pts
        if self.route is not None and not moving and self.route[0] == start and self.route[-1] == end:
            return list(self.route)
        return [QPointF(x, -y) for x, y in elbow((start.x(), -start.y()), (end.x(), -end.y()))]

    def reroute(self, moving: bool = False) -> None:
        pts = self.points(moving)
        if not pts:
            self.setPath(QPainterPath())
            return
        path = QPainterPath(pts[0])
        for p in pts[1:]:
            path.lineTo(p)
        self.setPath(path)
        if self.value_label is not None:
            self._place_label(pts)

    def set_value_text(self, text: str | None) -> None:
        """Label the wire (live: ``resistor.p.v = 2.31 V``) at the middle of its longest segment;
        None removes the label."""
        if text is None:
            if self.value_label is not None:
                self.value_label.setVisible(False)
            return
        if self.value_label is None:
            self.value_label = QGraphicsSimpleTextItem(self)  # upright and one size at any zoom
            self.value_label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
            self.value_label.setBrush(QColor(0, 0, 150))
            self.value_label.setZValue(3)
        self.value_label.setVisible(True)
        if self.value_label.text() != text:
            self.value_label.setText(text)
            self._place_label(self.points())

    def _place_label(self, pts: list[QPointF]) -> None:
        if len(pts) < 2:
            return
        a, b = max(zip(pts, pts[1:], strict=False), key=lambda s: math.hypot(s[1].x() - s[0].x(), s[1].y() - s[0].y()))
        self.value_label.setPos((a + b) / 2)
        width = self.value_label.boundingRect().width()
        self.value_label.setTransform(QTransform.fromTranslate(-width / 2, -16 if abs(a.y() - b.y()) < 1e-9 else 2))

    def nearest(self, p: QPointF) -> tuple[int, float]:
        """The segment nearest the scene point ``p`` and its distance (scene units)."""
        pts = self.points()
        best, dist = -1, math.inf
        for i in range(len(pts) - 1):
            d = _segment_distance(p, pts[i], pts[i + 1])
            if d < dist:
                best, dist = i, d
        return best, dist


def _segment_distance(p: QPointF, a: QPointF, b: QPointF) -> float:
    dx, dy = b.x() - a.x(), b.y() - a.y()
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p.x() - a.x()) * dx + (p.y() - a.y()) * dy) / length2))
    return math.hypot(p.x() - a.x() - t * dx, p.y() - a.y() - t * dy)


def bent(points: list[QPointF], segment: int, delta: QPointF) -> list[QPointF]:
    """``points`` with ``segment`` dragged by ``delta`` (scene units): a horizontal segment moves
    up or down, a vertical one sideways, a slanted one both ways; an end segment keeps its
    connector and gains a bend joining it, so the wire stays attached."""
    pts = [QPointF(p) for p in points]
    a, b = pts[segment], pts[segment + 1]
    horizontal = abs(a.y() - b.y()) < 1e-9
    vertical = abs(a.x() - b.x()) < 1e-9
    d = QPointF(0.0, delta.y()) if horizontal and not vertical else (
        QPointF(delta.x(), 0.0) if vertical and not horizontal else QPointF(delta))
    if segment + 1 == len(pts) - 1:  # the last segment: keep the end connector
        pts.insert(len(pts) - 1, QPointF(pts[-1]))
    if segment == 0:  # the first segment: keep the start connector
        pts.insert(0, QPointF(pts[0]))
        segment += 1
    pts[segment] = pts[segment] + d
    pts[segment + 1] = pts[segment + 1] + d
    return pts


def with_bend(points: list[QPointF], at: QPointF, tolerance: float) -> list[QPointF]:
    """``points`` with the bend near ``at`` removed, or one added at ``at`` on the nearest segment."""
    for i in range(1, len(points) - 1):
        if math.hypot(points[i].x() - at.x(), points[i].y() - at.y()) <= tolerance:
            return points[:i] + points[i + 1:]
    best, dist = 0, math.inf
    for i in range(len(points) - 1):
        d = _segment_distance(at, points[i], points[i + 1])
        if d < dist:
            best, dist = i, d
    return points[:best + 1] + [QPointF(at)] + points[best + 1:]


class HandleItem(QGraphicsRectItem):
    """A resize handle at one corner of a selected icon (constant size on the screen)."""

    SIZE = 7.0

    def __init__(self, node: NodeItem, corner: tuple[int, int]) -> None:
        super().__init__(-self.SIZE / 2, -self.SIZE / 2, self.SIZE, self.SIZE, node)
        self.node = node
        self.corner = corner  # (i, j): which of the icon's x and y bounds this corner is (0 low, 1 high)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setBrush(QColor(255, 255, 255))
        self.setPen(QPen(QColor(0, 120, 215), 0))
        (cx1, cy1), (cx2, cy2) = node.view.icon.coords
        self.setPos(QPointF((cx1, cx2)[corner[0]], (cy1, cy2)[corner[1]]))
        self.setCursor(Qt.CursorShape.SizeFDiagCursor if corner[0] != corner[1] else Qt.CursorShape.SizeBDiagCursor)
        self.setToolTip("drag to resize")
        self.setZValue(5)


def resized(pl: Placement, coords: Extent, corner: tuple[int, int], to: tuple[float, float]) -> Extent:
    """The extent of ``pl`` with the icon's ``corner`` (see :class:`HandleItem`) dragged to the
    diagram point ``to``: the opposite corner stays, rotation and origin are kept, the extent
    never turns inside out (a flip stays a flip) and never shrinks below one grid step."""
    i, j = corner
    (x1, y1), (x2, y2) = pl.extent
    ex, ey = (x1, x2), (y1, y2)
    m = placement_matrix(pl, coords)
    (cx1, cy1), (cx2, cy2) = coords
    fx, fy = (cx1, cx2)[1 - i], (cy1, cy2)[1 - j]
    fixed = (m[0] * fx + m[1] * fy + m[4], m[2] * fx + m[3] * fy + m[5])
    th = math.radians(pl.rotation)
    cos, sin = math.cos(th), math.sin(th)
    dx, dy = (to[0] - fixed[0]) / 2, (to[1] - fixed[1]) / 2
    hx, hy = cos * dx + sin * dy, -sin * dx + cos * dy  # half the new diagonal, unrotated
    sx, sy = math.copysign(1.0, ex[i] - ex[1 - i]), math.copysign(1.0, ey[j] - ey[1 - j])
    hx = sx * max(abs(hx) if math.copysign(1.0, hx) == sx else 0.0, GRID / 2)
    hy = sy * max(abs(hy) if math.copysign(1.0, hy) == sy else 0.0, GRID / 2)
    # the new centre (relative to the origin) keeps the fixed corner where it is
    cx = fixed[0] - pl.origin[0] + cos * hx - sin * hy
    cy = fixed[1] - pl.origin[1] + sin * hx + cos * hy
    nx, ny = [0.0, 0.0], [0.0, 0.0]
    nx[i], nx[1 - i] = cx + hx, cx - hx
    ny[j], ny[1 - j] = cy + hy, cy - hy
    return ((nx[0], ny[0]), (nx[1], ny[1]))


def build_scene(scene: QGraphicsScene, view: DiagramView, route: bool = True) -> dict[str, NodeItem]:
    """Fill ``scene`` with ``view``'s background, nodes and wires (the unrouted ones routed around
    the icons when ``route``); returns the nodes by name."""
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
    wires = []
    for wv in view.wires:
        a, b = find_port(nodes, wv.a), find_port(nodes, wv.b)
        w = WireItem(wv, a, b)
        scene.addItem(w)
        wires.append(w)
        for p in (a, b):
            if p is not None:
                p.node.wires.append(w)
    if route:
        route_wires(nodes, wires)
    return nodes


def find_port(nodes: dict[str, NodeItem], ref: str) -> PortItem | None:
    head, _, rest = ref.partition(".")
    node = nodes.get(head.split("[")[0])
    if node is None:
        return None
    if not rest:
        return node.ports[0] if node.ports and not node.ports[0].port.name else None
    return node.port(rest.split(".")[0].split("[")[0])


def _icon_rect(node: NodeItem) -> tuple[float, float, float, float]:
    r = node.sceneBoundingRect().adjusted(2, 2, -2, -2)  # without the selection margin
    return (r.left(), -r.bottom(), r.right(), -r.top())  # diagram coordinates (y up)


def route_wires(nodes: dict[str, NodeItem], wires: list[WireItem]) -> None:
    """Route every wire without Line points around the icons (A* on a coarse grid)."""
    todo = [w for w in wires if len(w.view.points) < 2 and w.a is not None and w.b is not None]
    if not todo:
        return
    rects = {name: _icon_rect(n) for name, n in nodes.items()}
    router = Router(list(rects.values()))
    for w in todo:
        start, end = w.ends()
        own = [rects.get(w.a.node.view.name), rects.get(w.b.node.view.name)]
        pts = router.route((start.x(), -start.y()), (end.x(), -end.y()), *own)
        w.route = [QPointF(x, -y) for x, y in pts]
        w.reroute()


class GraphicItem(QGraphicsItem):
    """One primitive of the Icon view: the class's own (``index``: its place in the graphics
    array; selectable, movable) or an inherited one (drawn paler, fixed)."""

    def __init__(self, index: int | None, prim: Primitive, labels: tuple[str, str, dict[str, str]]) -> None:
        super().__init__()
        self.index = index
        self.prim = prim
        self.labels = labels
        self.setTransform(QTransform(1, 0, 0, -1, 0, 0))
        local = QTransform()
        local.translate(prim.origin[0], prim.origin[1])
        local.rotate(prim.rotation)
        self._rect = local.mapRect(_bounds(prim)).adjusted(-1, -1, 1, 1)
        if index is None:
            self.setOpacity(0.45)
            self.setZValue(-1)
            self.setToolTip(f"{prim.kind} (inherited: edited in its base class)")
        else:
            self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
            self.setToolTip(f"{prim.kind} #{index}: drag to move, R rotates, Delete removes")

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        paint_primitive(painter, self.prim, self.labels)
        if self.isSelected():
            painter.setPen(QPen(QColor(0, 120, 215), 0, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self._rect)


def build_icon_scene(scene: QGraphicsScene, layer: IconLayer) -> tuple[dict[int, GraphicItem], dict[str, NodeItem]]:
    """Fill ``scene`` with the Icon view of a class: its coordinate system, inherited graphics,
    its own graphics by index, its connectors at their iconTransformation."""
    scene.clear()
    (x1, y1), (x2, y2) = layer.coords
    frame = scene.addRect(_rect(((x1, -y1), (x2, -y2))), QPen(QColor(170, 170, 170), 0, Qt.PenStyle.DashLine))
    frame.setZValue(-3)
    short = layer.cls.rsplit(".", 1)[-1]
    labels = (short, short, {})
    for prim in layer.inherited:
        scene.addItem(GraphicItem(None, prim, labels))
    items: dict[int, GraphicItem] = {}
    for index, prim in layer.own:
        item = GraphicItem(index, prim, labels)
        scene.addItem(item)
        items[index] = item
    nodes: dict[str, NodeItem] = {}
    for nv in layer.connectors:
        node = NodeItem(nv)
        scene.addItem(node)
        nodes[nv.name] = node
    return items, nodes


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
    """The view: wheel zoom, middle-button pan, rubber-band selection. Gestures become requests
    (the panel turns them into ops): drags of selected icons one ``moved``, a drag from a
    connector to another a ``connect``, a dragged wire segment or a double-click on a wire
    ``wire_edited`` (its new points), a dragged corner handle ``resized``, a double-click on an
    icon ``open_class_requested``, a right-click ``menu_requested``."""

    moved = Signal(dict)  # {component: (dx, dy)} in diagram units, snapped to the grid
    connect_requested = Signal(str, str, QPointF)  # a, b, where the mouse was released (view coordinates)
    key_command = Signal(str)  # undo, redo, save, delete, rotate, flip_h, flip_v, fit, copy, paste, duplicate, parameters
    parameters_requested = Signal(str)  # Enter on a component (or its menu's Parameters…)
    open_class_requested = Signal(str)  # a component was double-clicked: show its class's diagram
    class_dropped = Signal(str, QPointF)  # a library class dropped here: its full name, the diagram point
    wire_edited = Signal(str, str, list)  # a, b, the wire's new points (diagram coordinates, snapped)
    resized = Signal(str, object)  # component, its new extent
    menu_requested = Signal(object, QPointF)  # the NodeItem or WireItem under a right-click (or None), view point
    graphics_moved = Signal(object)  # Icon view (a dict of int keys: not a QVariantMap): {graphic index: (dx, dy)} in icon units, snapped
    graphic_drawn = Signal(str, tuple, tuple)  # Icon view: the tool, the corners dragged (icon coordinates)
    hovered = Signal(str)  # the node under the cursor (a component or one of the class's connectors), "" none

    _KEYS = {
        QKeySequence.StandardKey.Undo: "undo", QKeySequence.StandardKey.Redo: "redo",
        QKeySequence.StandardKey.Delete: "delete", QKeySequence.StandardKey.Save: "save",
        QKeySequence.StandardKey.Copy: "copy", QKeySequence.StandardKey.Paste: "paste",
    }
    _PLAIN = {Qt.Key.Key_R: "rotate", Qt.Key.Key_H: "flip_h", Qt.Key.Key_V: "flip_v", Qt.Key.Key_F: "fit",
              Qt.Key.Key_Backspace: "delete", Qt.Key.Key_Return: "parameters", Qt.Key.Key_Enter: "parameters"}
    TOLERANCE = 5.0  # pixels: how near a wire a press must be to grab it

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self.read_only = False  # a library class: no handles, no bends
        self._press: dict[str, QPointF] = {}
        self._wire: QGraphicsLineItem | None = None
        self._from: PortItem | None = None
        self._pan: QPointF | None = None
        self._bend: tuple[WireItem, int, QPointF, list[QPointF]] | None = None  # wire, segment, press, points
        self._resize: tuple[HandleItem, Extent | None] | None = None
        self.icon_layer = False  # the Icon view: no connecting, no bends; a tool draws primitives
        self.tool: str | None = None  # Rectangle, Ellipse, Line, Polygon, Text
        self._draw: tuple[QPointF, QGraphicsItem] | None = None
        self._hover = ""
        scene.selectionChanged.connect(self.update_handles)

    def update_handles(self) -> None:
        """Corner handles on the selected icon when exactly one is selected."""
        try:
            chosen = [i for i in self.scene().selectedItems() if isinstance(i, NodeItem)]
        except RuntimeError:  # the scene is going away
            return
        for item in self.scene().items():
            if isinstance(item, NodeItem):
                item.show_handles(not self.read_only and len(chosen) == 1 and item is chosen[0]
                                  and not item.view.inherited and not item.view.locked)

    # -- keys: the canvas's own, even where the window binds the same key (Ctrl+Z) ----------------
    def _command(self, event) -> str | None:
        if event.key() == Qt.Key.Key_D and event.modifiers() == Qt.KeyboardModifier.ControlModifier:
            return "duplicate"  # before the standard keys: on X11 Ctrl+D is also Delete
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

    def _handle_at(self, pos) -> HandleItem | None:
        for item in self.items(pos):
            if isinstance(item, HandleItem) and item.isVisible():
                return item
        return None

    def _widget_at(self, pos) -> bool:
        """Whether a widget in the scene (a live input's slider) is under the view point ``pos``."""
        return any(isinstance(item, QGraphicsProxyWidget) for item in self.items(pos))

    def _track_hover(self, pos) -> None:
        node = self._node_at(pos) if not self._widget_at(pos) else None
        name = node.view.name if node is not None else ""
        if name != self._hover:
            self._hover = name
            self.hovered.emit(name)

    def leaveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().leaveEvent(event)
        if self._hover:
            self._hover = ""
            self.hovered.emit("")

    def _node_at(self, pos) -> NodeItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                return item
            if isinstance(item, PortItem | HandleItem):
                return item.node
        return None

    def wire_at(self, pos) -> tuple[WireItem, int] | None:
        """The wire (and its segment) within a few pixels of the view point ``pos``."""
        t = self.TOLERANCE
        box = QRectF(pos.x() - t, pos.y() - t, 2 * t, 2 * t).toRect()
        p = self.mapToScene(pos)
        scale = max(abs(self.transform().m11()), 1e-9)
        best = None
        for item in self.items(box, Qt.ItemSelectionMode.IntersectsItemBoundingRect):
            if isinstance(item, WireItem):
                seg, d = item.nearest(p)
                if seg >= 0 and d * scale <= t and (best is None or d < best[2]):
                    best = (item, seg, d)
        return (best[0], best[1]) if best else None

    def _snap_scene(self, p: QPointF) -> QPointF:
        return QPointF(round(p.x() / GRID) * GRID, round(p.y() / GRID) * GRID)

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan = event.position()
            return
        pos = event.position().toPoint()
        left = event.button() == Qt.MouseButton.LeftButton
        if self._widget_at(pos):  # a live input's slider takes its own presses
            super().mousePressEvent(event)
            return
        if self.icon_layer:
            if left and self.tool and not self.read_only:
                start = self._snap_scene(self.mapToScene(pos))
                pen = QPen(QColor(255, 140, 0), 0, Qt.PenStyle.DashLine)
                shape = (self.scene().addLine(start.x(), start.y(), start.x(), start.y(), pen) if self.tool == "Line"
                         else self.scene().addRect(QRectF(start, start), pen))
                self._draw = (start, shape)
                return
            super().mousePressEvent(event)
            self._press = {f"#{i.index}": i.pos() for i in self.scene().selectedItems()
                           if isinstance(i, GraphicItem) and i.index is not None}
            return
        if left and not self.read_only and (handle := self._handle_at(pos)) is not None:
            self._resize = (handle, None)
            return
        port = self._port_at(pos) if left else None
        if port is not None:
            self._from = port
            c = port.scene_center()
            self._wire = self.scene().addLine(c.x(), c.y(), c.x(), c.y(), QPen(QColor(255, 140, 0), 0, Qt.PenStyle.DashLine))
            return
        if left and not self.read_only and self._node_at(pos) is None and (hit := self.wire_at(pos)) is not None:
            wire, seg = hit
            self._bend = (wire, seg, self.mapToScene(pos), wire.points())
            return
        super().mousePressEvent(event)
        self._press = {i.view.name: i.pos() for i in self.scene().selectedItems() if isinstance(i, NodeItem)}

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.icon_layer:
            super().mouseDoubleClickEvent(event)
            return
        pos = event.position().toPoint()
        node = self._node_at(pos)
        if node is not None:
            if node.view.own_connector is None:
                self.open_class_requested.emit(node.view.name)
            return
        hit = self.wire_at(pos) if not self.read_only else None
        if hit is not None:
            wire = hit[0]
            tolerance = self.TOLERANCE / max(abs(self.transform().m11()), 1e-9)
            pts = with_bend(wire.points(), self._snap_scene(self.mapToScene(pos)), tolerance * 2)
            self.wire_edited.emit(wire.view.a, wire.view.b, [(p.x(), -p.y()) for p in pts])
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.icon_layer:  # the Icon view has its keys, not a menu
            super().contextMenuEvent(event)
            return
        pos = event.pos()
        target = self._node_at(pos)
        if target is not None and not target.isSelected():
            self.scene().clearSelection()
            target.setSelected(True)
        if target is None and (hit := self.wire_at(pos)) is not None:
            target = hit[0]
        self.menu_requested.emit(target, QPointF(pos))

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.buttons() == Qt.MouseButton.NoButton and not self.icon_layer:
            self._track_hover(event.position().toPoint())
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
        if self._draw is not None:
            start, shape = self._draw
            p = self._snap_scene(self.mapToScene(event.position().toPoint()))
            if isinstance(shape, QGraphicsLineItem):
                shape.setLine(start.x(), start.y(), p.x(), p.y())
            else:
                shape.setRect(QRectF(start, p).normalized())
            return
        if self._bend is not None:
            wire, seg, press, pts = self._bend
            d = self._snap_scene(self.mapToScene(event.position().toPoint()) - press)
            wire.preview = bent(pts, seg, d) if (d.x() or d.y()) else None
            wire.reroute()
            return
        if self._resize is not None:
            handle, _ = self._resize
            node = handle.node
            p = self._snap_scene(self.mapToScene(event.position().toPoint()))
            extent = resized(node.view.placement, node.view.icon.coords, handle.corner, (p.x(), -p.y()))
            self._resize = (handle, extent)
            pl = node.view.placement
            node.preview_placement(Placement(extent, pl.origin, pl.rotation, pl.has_origin))
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
        if self._draw is not None:
            start, shape = self._draw
            self._draw = None
            self.scene().removeItem(shape)
            end = self._snap_scene(self.mapToScene(event.position().toPoint()))
            if abs(end.x() - start.x()) >= GRID or abs(end.y() - start.y()) >= GRID:
                self.graphic_drawn.emit(self.tool, (start.x(), -start.y()), (end.x(), -end.y()))
            return
        if self._bend is not None:
            wire, _seg, _press, _pts = self._bend
            self._bend = None
            pts, wire.preview = wire.preview, None
            if pts is not None:
                self.wire_edited.emit(wire.view.a, wire.view.b, [(p.x(), -p.y()) for p in pts])
            else:
                wire.reroute()
            return
        if self._resize is not None:
            handle, extent = self._resize
            self._resize = None
            if extent is not None and extent != handle.node.view.placement.extent:
                self.resized.emit(handle.node.view.name, extent)
            return
        super().mouseReleaseEvent(event)
        self._finish_move()

    def _finish_move(self) -> None:
        if self.icon_layer:
            moved: dict[int, tuple[float, float]] = {}
            for item in self.scene().selectedItems():
                key = f"#{item.index}" if isinstance(item, GraphicItem) else None
                if key is None or key not in self._press:
                    continue
                d = item.pos() - self._press[key]
                dx, dy = round(d.x() / GRID) * GRID, round(-d.y() / GRID) * GRID
                if dx or dy:
                    moved[item.index] = (dx, dy)
            self._press = {}
            if moved:
                self.graphics_moved.emit(moved)
            return
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
