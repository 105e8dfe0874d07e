"""The Modelica Diagram canvas on a generated model of 200 components and 300 connections: time to
open (parse, resolve, project, build the scene, first paint) against the baseline of parsing the
file alone, and panning frames per second against an empty canvas of the same size, both under
the software rasteriser. Aims: open under 1 s, pan at 30 fps or more. Run under Xvfb."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "xcb")

from big_modelica import big_model  # noqa: E402
from PySide6.QtWidgets import QApplication, QGraphicsScene  # noqa: E402

from luncosim_core.modelica.syntax.parser import parse  # noqa: E402
from luncosim_core.text import TextDocument  # noqa: E402
from luncosim_workbench.panels.diagram.canvas import DiagramView_, build_scene  # noqa: E402
from luncosim_workbench.panels.diagram.model import DiagramEdits  # noqa: E402


def pan_fps(app: QApplication, view: DiagramView_, frames: int = 120) -> float:
    view.resetTransform()
    view.scale(2.0, 2.0)  # zoomed in so panning scrolls
    app.processEvents()
    t0 = time.perf_counter()
    for k in range(frames):
        view.pan_by(6 if (k // 30) % 2 == 0 else -6, 2 if (k // 30) % 2 == 0 else -2)
        view.viewport().repaint()
    return frames / (time.perf_counter() - t0)


def main() -> None:
    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp())
    path = folder / "Big.mo"
    path.write_text(big_model(200, 300), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    t0 = time.perf_counter()
    parse(text)
    parse_time = time.perf_counter() - t0

    scene = QGraphicsScene()
    view = DiagramView_(scene)
    view.resize(1200, 800)
    view.show()
    app.processEvents()
    t0 = time.perf_counter()
    edits = DiagramEdits(TextDocument(path))
    model = edits.view("Big")
    build_scene(scene, model)
    view.fitInView(scene.itemsBoundingRect())
    view.viewport().repaint()
    open_time = time.perf_counter() - t0
    print(f"model: {len(model.nodes)} components, {len(model.wires)} connections, {text.count(chr(10))} lines")
    print(f"baseline: parse the file                 {parse_time * 1e3:8.1f} ms")
    print(f"open (parse, resolve, project, paint)    {open_time * 1e3:8.1f} ms  ratio {open_time / parse_time:6.1f}x"
          f"  (aim: under 1000 ms)")
    fps = pan_fps(app, view)
    empty_scene = QGraphicsScene()
    empty_scene.setSceneRect(scene.sceneRect())
    empty = DiagramView_(empty_scene)
    empty.resize(1200, 800)
    empty.show()
    base = pan_fps(app, empty)
    print(f"pan, empty canvas (baseline)             {base:8.1f} fps")
    print(f"pan, 200 icons + 300 wires               {fps:8.1f} fps  ratio {fps / base:6.2f}  (aim: 30 fps or more)")


if __name__ == "__main__":
    main()
