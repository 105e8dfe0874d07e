"""Viewport frame rate with N moving rigid bodies under software OpenGL.

Each frame: new poses for every body (numpy), ``set_body_poses`` (vertex transform in the scene
model + buffer upload) and a full draw finished with glFinish. A baseline in the same run draws an
empty scene (ground grid and gizmo only) the same way, so the printed ratios do not depend on the
machine; each body count alternates baseline rounds (same canvas, meshes hidden) with loaded
rounds and prints medians, so a busy machine slows both alike. ``--readback`` also times
``render()`` (draw + pixel readback, what headless PNGs cost).

Run: .venv/bin/python benchmarks/bench_viewport.py [--frames 60] [--size 1280x800] [--bodies 200,500,2000]
     xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/bench_viewport.py --widget
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from luncosim_workbench.viewport import headless


def build_stage(n_bodies: int, folder: Path) -> Usd.Stage:
    stage = Usd.Stage.CreateNew(str(folder / f"bodies_{n_bodies}.usda"))
    UsdGeom.SetStageUpAxis(stage, "Z")
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    side = int(np.ceil(np.sqrt(n_bodies)))
    ground = UsdGeom.Cube.Define(stage, "/World/Ground")
    api = UsdGeom.XformCommonAPI(ground)
    api.SetTranslate(Gf.Vec3d(side, side, -0.05))
    api.SetScale(Gf.Vec3f(2.0 * side + 4, 2.0 * side + 4, 0.1))
    ground.CreateDisplayColorAttr([(0.45, 0.45, 0.43)])
    rng = np.random.default_rng(7)
    for i in range(n_bodies):
        body = UsdGeom.Xform.Define(stage, f"/World/B{i:05d}")
        UsdPhysics.RigidBodyAPI.Apply(body.GetPrim())
        UsdGeom.XformCommonAPI(body).SetTranslate(
            Gf.Vec3d(2.0 * (i % side), 2.0 * (i // side), 0.5)
        )
        box = UsdGeom.Cube.Define(stage, f"/World/B{i:05d}/Box")
        box.GetSizeAttr().Set(0.8)
        box.CreateDisplayColorAttr([tuple(float(c) for c in rng.uniform(0.2, 0.9, 3))])
    return stage


def _finish(vc) -> None:
    from vispy import gloo

    vc.canvas.context.flush_commands()
    gloo.gl.glFinish()


def _qt_draw(vc) -> None:
    """One synchronous on-screen repaint of the Qt widget, finished on the GPU."""
    from PySide6.QtWidgets import QApplication

    vc.canvas.native.repaint()
    QApplication.processEvents()
    vc.canvas.set_current()
    _finish(vc)


def time_frames(
    vc, frames: int, poses=None, readback: bool = False, draw=None
) -> tuple[float, float]:
    """Mean seconds per frame and mean seconds in set_body_poses."""
    t_pose = 0.0
    vc.canvas.set_current()
    vc.render()  # warm-up: shaders compiled, buffers allocated
    if draw is not None:
        draw(vc)
    t0 = time.perf_counter()
    for f in range(frames):
        if poses is not None:
            paths, base = poses
            phase = 0.05 * f
            pos = base + np.c_[np.zeros((len(base), 2)), 0.5 * np.sin(phase + base[:, 0])]
            half = 0.5 * (phase + base[:, 1] * 0.1)
            quat = np.c_[np.cos(half), np.zeros(len(base)), np.zeros(len(base)), np.sin(half)]
            ts = time.perf_counter()
            vc.set_body_poses(paths, pos, quat)
            t_pose += time.perf_counter() - ts
        if readback:
            vc.render()
        elif draw is not None:
            draw(vc)
        else:
            vc.canvas.set_current()
            vc.canvas.events.draw(region=None)
            _finish(vc)
    return (time.perf_counter() - t0) / frames, t_pose / max(frames, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--size", default="1280x800")
    ap.add_argument("--bodies", default="200,500,2000")
    ap.add_argument("--rounds", type=int, default=3, help="alternating baseline/loaded rounds")
    ap.add_argument(
        "--readback", action="store_true", help="also time render() with pixel readback"
    )
    ap.add_argument(
        "--widget",
        action="store_true",
        help="draw through the Qt ViewportWidget on screen (needs X, e.g. xvfb-run)",
    )
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    counts = [int(c) for c in args.bodies.split(",")]

    draw = None
    if args.widget:
        from PySide6.QtWidgets import QApplication

        from luncosim_workbench.viewport import ViewportWidget

        qapp = QApplication.instance() or QApplication([])
        widget = ViewportWidget(size=(w, h))
        widget.resize(w, h)
        widget.show()
        qapp.processEvents()
        vc, backend, draw = widget.viewport, "pyside6 widget", _qt_draw
    else:
        vc, backend = headless._new_canvas(w, h)
    print(f"backend={backend} size={w}x{h} frames={args.frames}")
    from vispy import gloo

    print("GL:", gloo.gl.glGetParameter(gloo.gl.GL_RENDERER))
    base_frame, _ = time_frames(vc, args.frames, draw=draw)
    print(f"baseline empty scene: {1.0 / base_frame:7.1f} fps ({base_frame * 1e3:6.2f} ms/frame)")
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            stage = build_stage(n, Path(tmp))
            t = time.perf_counter()
            vc.set_stage(stage)
            load = time.perf_counter() - t
            paths = vc.model.body_paths
            base = np.array([vc.model.body_position(p) for p in paths])
            # alternate baseline (meshes hidden, nothing moving) and loaded rounds so that a
            # busy machine slows both alike; report medians
            frames, poses, bases = [], [], []
            for _ in range(args.rounds):
                vc.set_purpose_visible("default", False)
                bases.append(time_frames(vc, args.frames, draw=draw)[0])
                vc.set_purpose_visible("default", True)
                f, p = time_frames(vc, args.frames, (paths, base), draw=draw)
                frames.append(f)
                poses.append(p)
            frame, pose, b = (float(np.median(x)) for x in (frames, poses, bases))
            tris = sum(bk.n_faces for bk in vc.model.buckets.values())
            line = (
                f"{n:5d} bodies ({tris:6d} tris, {vc.n_mesh_visuals} mesh visuals): "
                f"{1.0 / frame:7.1f} fps ({frame * 1e3:6.2f} ms/frame; baseline {1.0 / b:6.1f} fps, "
                f"ratio {frame / b:5.2f}x; set_body_poses {pose * 1e3:5.2f} ms; load {load:5.2f} s)"
            )
            if args.readback:
                rb, _ = time_frames(vc, max(5, args.frames // 4), (paths, base), readback=True)
                line += f"; with readback {1.0 / rb:6.1f} fps"
            print(line)
    if args.widget:
        widget.close()
    else:
        headless.close_canvas(vc, backend)


if __name__ == "__main__":
    main()
