"""``PlotGrid``: the strip chart's grid lines, drawn straight from the axes' tick values.

pyqtgraph's own grid (``showGrid``) has each axis replay a QPicture of lines spanning the whole
view; with the raster engine that costs ~10 ms per axis per repaint, and the strip chart scrolls
(repaints) every frame. This item draws the same lines, major ticks stronger than minor ones,
with one ``drawLines`` call in well under a millisecond.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QColor, QPen

MAJOR_ALPHA = 0.3
MINOR_ALPHA = 0.12


class PlotGrid(pg.GraphicsObject):
    """Grid lines at the tick values of a PlotItem's bottom and left axes, behind its curves."""

    def __init__(self, plot: pg.PlotItem, color: str = "#888888") -> None:
        super().__init__()
        self.plot = plot
        self.setZValue(-1000)
        self._pens: tuple[QPen, QPen] = (QPen(), QPen())
        self.set_color(color)
        plot.addItem(self, ignoreBounds=True)
        plot.vb.sigRangeChanged.connect(self._on_range)
        plot.vb.sigResized.connect(self._on_range)

    def set_color(self, color: str) -> None:
        pens = []
        for alpha in (MAJOR_ALPHA, MINOR_ALPHA):
            c = QColor(color)
            c.setAlphaF(alpha)
            pen = QPen(c)
            pen.setCosmetic(True)
            pen.setWidth(0)
            pens.append(pen)
        self._pens = (pens[0], pens[1])
        self.update()

    def _on_range(self, *_args) -> None:
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802
        vb = self.plot.vb
        return vb.viewRect() if vb is not None else QRectF()

    def lines(self) -> list[list[QLineF]]:
        """The lines per tick level (major first), in view coordinates."""
        vb = self.plot.vb
        r = vb.viewRect()
        x0, x1 = sorted((r.left(), r.right()))
        y0, y1 = sorted((r.top(), r.bottom()))
        levels: list[list[QLineF]] = []
        for axis, lo, hi, size, vertical in (("bottom", x0, x1, vb.width(), True),
                                             ("left", y0, y1, vb.height(), False)):
            if size <= 0 or not hi > lo:
                continue
            for depth, (_spacing, values) in enumerate(self.plot.getAxis(axis).tickValues(lo, hi, size)):
                while len(levels) <= depth:
                    levels.append([])
                if vertical:
                    levels[depth] += [QLineF(v, y0, v, y1) for v in values]
                else:
                    levels[depth] += [QLineF(x0, v, x1, v) for v in values]
        return levels

    def paint(self, painter, *_args) -> None:
        for depth, lines in enumerate(self.lines()):
            if lines:
                painter.setPen(self._pens[min(depth, 1)])
                painter.drawLines(lines)
