"""``ViewportSurface``: where the 3D view is shown, a plain raster widget.

A ``QOpenGLWidget`` inside a window makes Qt compose the *whole* window through OpenGL on every
repaint of any widget in it. With software GL (llvmpipe: Xvfb, remote desktops, machines
without a GPU driver) that costs ~16 ms for a 1600x1000 window, so each Ports table refresh or
plot scroll stalled the UI as if it were a 3D frame. So the vispy canvas renders in its own
window, never shown on screen (``WA_DontShowOnScreen``); at the end of each of its draws the
frame is read back (``glReadPixels``, ~3 ms at 1000x700 on llvmpipe) and this widget paints it.
Mouse, wheel and key events on the surface are handed to the canvas, whose size follows the
surface's. ``LUNCOSIM_VIEWPORT_DIRECT=1`` embeds the GL widget itself instead (a fast GPU).
"""

from __future__ import annotations

import os

import numpy as np
import shiboken6
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget

FORWARDED = frozenset({
    QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick,
    QEvent.Type.MouseMove, QEvent.Type.Wheel, QEvent.Type.KeyPress, QEvent.Type.KeyRelease,
})


def direct_embedding() -> bool:
    """True when the GL widget is embedded itself (``LUNCOSIM_VIEWPORT_DIRECT=1``)."""
    return os.environ.get("LUNCOSIM_VIEWPORT_DIRECT", "") not in ("", "0")


class ViewportSurface(QWidget):
    """Shows the canvas's newest frame; passes input to the canvas (see the module doc)."""

    def __init__(self, canvas, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = canvas
        self.native = canvas.native
        self.image: QImage | None = None
        self.frames = 0  # frames shown (read back from the canvas)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.setMinimumSize(64, 64)
        native = self.native
        native.setParent(None)
        native.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        native.resize(max(self.width(), 64), max(self.height(), 64))
        native.show()
        canvas.events.draw.connect(self._capture, position="last")
        self.destroyed.connect(lambda *_a, c=canvas, f=self._capture: _release(c, f))

    # ------------------------------------------------------------------ frames
    def _capture(self, _event=None) -> None:
        """End of a canvas draw (its framebuffer is still bound): keep the pixels."""
        from vispy import gloo

        if not shiboken6.isValid(self):
            return
        px = np.ascontiguousarray(gloo.read_pixels(alpha=False))
        h, w = px.shape[:2]
        self.image = QImage(px.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
        self.frames += 1
        self.update()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt naming
        painter = QPainter(self)
        if self.image is None:
            painter.fillRect(self.rect(), QColor("#20242a"))
        elif self.image.size() == self.size():
            painter.drawImage(0, 0, self.image)
        else:  # the canvas is catching up with a resize
            painter.drawImage(self.rect(), self.image)
        painter.end()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        size = event.size()
        self.native.resize(max(size.width(), 1), max(size.height(), 1))

    # ------------------------------------------------------------------ input
    def event(self, event) -> bool:
        if event.type() in FORWARDED:
            QApplication.sendEvent(self.native, event)
            return True
        return super().event(event)



def _release(canvas, capture) -> None:
    """The surface is gone: stop reading frames back and close the canvas's hidden window."""
    try:
        canvas.events.draw.disconnect(capture)
    except (ValueError, RuntimeError):
        pass
    native = canvas.native
    if shiboken6.isValid(native):
        native.hide()
        native.deleteLater()
