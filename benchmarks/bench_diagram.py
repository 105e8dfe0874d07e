"""The Modelica Diagram canvas on a generated model of 200 components and 300 connections: time to
open (parse, resolve, project, build the scene, first paint) against the baseline of parsing the
file alone, and panning frames per second against an empty canvas of the same size, both under
the software rasteriser; the same model with its 300 wires unrouted (routed around the icons on
open); one gesture (a move) through the shared TextDocument (op, re-parse, one journal entry) and
the re-projection after it. Aims: open under 1 s, pan at 30 fps or more. Run under Xvfb."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "xcb")

import re  # noqa: E402

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
    unrouted = folder / "Unrouted.mo"
    unrouted.write_text(re.sub(r" annotation\(Line\(points = [^;]*\)\);", ";", text).replace("model Big", "model Unrouted")
                        .replace("end Big;", "end Unrouted;"), encoding="utf-8")
    t0 = time.perf_counter()
    edits_u = DiagramEdits(TextDocument(unrouted))
    model_u = edits_u.view("Unrouted")
    t_proj = time.perf_counter()
    build_scene(QGraphicsScene(), model_u, route=False)
    t_plain = time.perf_counter()
    build_scene(QGraphicsScene(), model_u)
    t_routed = time.perf_counter()
    route_time = (t_routed - t_plain) - (t_plain - t_proj)
    print(f"unrouted: open with {len(model_u.wires)} wires routed  {(t_routed - t0 - (t_plain - t_proj)) * 1e3:8.1f} ms"
          f"  (routing alone {route_time * 1e3:.1f} ms, {route_time / len(model_u.wires) * 1e3:.2f} ms a wire)")

    cls = edits.sd.find("Big")
    from luncosim_core.modelica.syntax.geometry import moved

    gestures = []
    for k in range(5):
        op = moved("Big", cls.components[100 + k], 2, 0)
        t0 = time.perf_counter()
        edits.apply([op], "Move")
        t1 = time.perf_counter()
        build_scene(scene, edits.view("Big"))
        t2 = time.perf_counter()
        gestures.append((t1 - t0, t2 - t1))
        cls = edits.sd.find("Big")
    g = min(gestures)
    print(f"gesture (op, re-parse, journal entry)    {g[0] * 1e3:8.1f} ms; re-project and rebuild {g[1] * 1e3:.1f} ms"
          f"  ({len(edits.doc.entries())} journal entries)")
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
