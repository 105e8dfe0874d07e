"""Rendering a class's diagram without a window (``luncosim modelica diagram``): the canvas's
own scene, painted by Qt's offscreen platform into a PNG (``QImage``) or an SVG
(``QSvgGenerator`` of QtSvg, which PySide6-Essentials ships)."""

from __future__ import annotations

import os
from pathlib import Path

SUFFIXES = (".png", ".svg")


class RenderError(ValueError):
    """A file, class or output the renderer refuses (the message says which and why)."""


def _app():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:  # no display needed; the process's environment is left as it was
        app = QApplication(["luncosim", "-platform", "offscreen"])
    return app


def render_diagram(path: Path | str, out: Path | str, cls: str | None = None, width: int = 1200,
                   roots: tuple[Path, ...] | None = None) -> str:
    """Render ``cls`` of the ``.mo`` file at ``path`` to ``out`` (``.png`` or ``.svg``, ``width``
    pixels across); a sentence saying what was drawn. :class:`RenderError` for a file that cannot
    be read or parsed, a class the file does not hold, or an output that is not PNG or SVG."""
    from luncosim_core.modelica.syntax.catalog import palette
    from luncosim_core.modelica.syntax.ops import OpError
    from luncosim_core.modelica.syntax.parser import ParseError
    from luncosim_core.text import TextDocument
    from luncosim_core.twin.roots import default_lunco_root

    path, out = Path(path), Path(out)
    if path.suffix != ".mo":
        raise RenderError(f"{path} is not a Modelica file (.mo)")
    if out.suffix.lower() not in SUFFIXES:
        raise RenderError(f"--out {out}: write a .png or an .svg")
    if not 16 <= width <= 16384:
        raise RenderError(f"--width {width}: between 16 and 16384 pixels")
    try:
        doc = TextDocument(path)  # a regular file under the size cap (a FIFO or a device is refused)
    except (OSError, ValueError) as exc:
        raise RenderError(f"cannot read {path}: {exc}") from None
    if roots is None:
        roots = tuple(palette(None, default_lunco_root() / "models").roots)
    app = _app()
    from luncosim_workbench.panels.diagram.model import DiagramEdits

    try:
        edits = DiagramEdits(doc, roots)
        name = edits.choose_class(cls)
    except ParseError as exc:
        raise RenderError(f"{path.name} does not parse: {exc}") from None
    except OpError as exc:
        raise RenderError(str(exc)) from None
    if name is None:
        raise RenderError(f"{path.name} holds no class with a diagram (a model or block)")
    view = edits.view(name)
    _paint(view, out, width)
    app.processEvents()
    return (f"{name}: {len(view.nodes)} components, {len(view.wires)} connections"
            + (f", {len(view.unplaced)} without a Placement (not drawn)" if view.unplaced else ""))


def _paint(view, out: Path, width: int) -> None:
    from PySide6.QtCore import QRectF, QSize
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QGraphicsScene

    from luncosim_workbench.panels.diagram.canvas import build_scene

    scene = QGraphicsScene()
    build_scene(scene, view)
    rect = scene.itemsBoundingRect()
    if rect.isEmpty():
        rect = QRectF(-100, -100, 200, 200)
    rect = rect.adjusted(-10, -10, 10, 10)
    height = max(16, round(width * rect.height() / rect.width()))
    target = QRectF(0, 0, width, height)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    painter = QPainter()
    if out.suffix.lower() == ".svg":
        try:
            from PySide6.QtSvg import QSvgGenerator
        except ImportError:
            raise RenderError("this PySide6 has no QtSvg module: write a .png instead") from None
        gen = QSvgGenerator()
        gen.setFileName(str(tmp))
        gen.setSize(QSize(width, height))
        gen.setViewBox(target)
        gen.setTitle(view.cls)
        painter.begin(gen)
        painter.fillRect(target, QColor(255, 255, 255))
    else:
        image = QImage(width, height, QImage.Format.Format_ARGB32)
        image.fill(QColor(255, 255, 255))
        painter.begin(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    scene.render(painter, target, rect)
    painter.end()
    if out.suffix.lower() != ".svg" and not image.save(str(tmp), "PNG"):
        raise RenderError(f"cannot write {out}")
    os.replace(tmp, out)  # atomic: a reader never sees half a picture
