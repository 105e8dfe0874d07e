"""``luncosim render``, ``luncosim screenshot`` and ``luncosim modelica diagram``: the verbs that
need vispy or Qt.

They join the ``luncosim`` command through the ``luncosim.cli`` entry point
(``workbench = "luncosim_workbench.cli_verbs:add_workbench_verbs"``); importing this module loads
no GUI toolkit (each verb imports what it needs when it runs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from luncosim_core import cli_args
from luncosim_core.cli import parse_sets


def parse_camera(text: str | None):
    """``iso``/``front``/``top``/... or ``EX,EY,EZ:CX,CY,CZ`` (eye and centre, stage units)."""
    if not text:
        return None
    if ":" not in text:
        return text
    eye, _, center = text.partition(":")
    try:
        e = [float(v) for v in eye.split(",")]
        c = [float(v) for v in center.split(",")]
    except ValueError:
        raise SystemExit(f"luncosim: --camera {text!r}: expected a view name or EX,EY,EZ:CX,CY,CZ") from None
    if len(e) != 3 or len(c) != 3:
        raise SystemExit(f"luncosim: --camera {text!r}: eye and centre need three numbers each")
    return {"eye": e, "center": c}


def cmd_render(args: argparse.Namespace) -> int:
    """Render a scene to PNG without a window, after N ticks, with optional debug overlays."""
    from luncosim_core.api import PhysicsDebugInfo, SetPorts
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.sim.simulation import SimulationConfig, open_simulation

    try:
        from luncosim_workbench.viewport import render_stage_to_png
    except ImportError as exc:
        print(f"luncosim render: the viewport is not available: {exc}", file=sys.stderr)
        return 1
    try:
        sim = open_simulation(args.scene, lunco_root=args.lunco_root, config=SimulationConfig(tick_hz=args.tick_hz))
    except (DiagnosticError, FileNotFoundError) as exc:
        print(f"luncosim render: {exc}", file=sys.stderr)
        return 1
    for prim, writes in parse_sets(args.set or []).items():
        sim.submit(SetPorts(target=prim, writes=writes))
    if args.ticks:
        sim.run(args.ticks)
    drawing = None
    if args.mission is not None:
        drawing = _run_mission(sim, args)
        if isinstance(drawing, int):
            sim.close()
            return drawing
    overlays = [o for o in (args.overlays or "").split(",") if o]
    snap = sim.snapshot()
    try:
        out = render_stage_to_png(
            sim.stage, args.out, width=args.width, height=args.height, camera=parse_camera(args.camera),
            overlays=overlays, body_poses=(snap.body_paths, snap.positions, snap.orientations),
            debug_info=sim.query(PhysicsDebugInfo()).value, mission=drawing,
        )
    except Exception as exc:  # no GL anywhere, or a bad overlay name
        print(f"luncosim render: {exc}", file=sys.stderr)
        return 1
    finally:
        sim.close()
    print(f"rendered {args.scene} after {snap.tick} ticks to {out}")
    return 0


def _run_mission(sim, args: argparse.Namespace):
    """Run ``--mission`` on ``sim`` (up to ``--mission-seconds``): its last drawing, or an exit code."""
    from luncosim_core.mission.local import run_on_simulation
    from luncosim_core.mission.taskfile import TaskFileError, load_task_file

    if args.mission_seconds is not None and not args.mission_seconds > 0:
        print("luncosim render: --mission-seconds must be > 0", file=sys.stderr)
        return 2
    try:
        task = load_task_file(args.mission)
    except TaskFileError as exc:
        for e in exc.errors:
            print(f"luncosim render: {args.mission}: {e}", file=sys.stderr)
        return 2
    drawings = []
    result = run_on_simulation(sim, task, publish=drawings.append, draw_hz=1e-6, until_s=args.mission_seconds)
    if isinstance(result, str):
        print(f"luncosim render: the mission could not run: {result}", file=sys.stderr)
        return 1
    done = sum(a.result == "success" for a in result.actions)
    stopped = f", stopped at {args.mission_seconds:g} s" if args.mission_seconds is not None else ""
    print(f"mission {result.result} ({done}/{len(result.actions)} actions{stopped})")
    return drawings[-1] if drawings else None


def cmd_screenshot(args: argparse.Namespace) -> int:
    """Open the workbench on a twin, run N ticks and save the window as PNG."""
    try:
        from luncosim_workbench.screenshot import take_screenshot
    except ImportError as exc:
        print(f"luncosim screenshot: the workbench is not available: {exc}", file=sys.stderr)
        return 1
    from luncosim_workbench.app import demo_twin

    twin = args.twin or demo_twin()
    path = take_screenshot(twin, args.out, ticks=args.ticks, perspective=args.perspective,
                           width=args.width, height=args.height, select=args.select or (), plot=args.plot or ())
    print(f"screenshot of the workbench on {twin} saved to {path}")
    return 0


def cmd_modelica_diagram(args: argparse.Namespace) -> int:
    """Render a class's diagram to PNG or SVG with Qt's offscreen platform (no window)."""
    try:
        from luncosim_workbench.panels.diagram.render import RenderError, render_diagram
    except ImportError as exc:
        print(f"luncosim modelica diagram: Qt is not available: {exc}", file=sys.stderr)
        return 1
    try:
        what = render_diagram(args.file, args.out, cls=args.cls, width=args.width)
    except RenderError as exc:
        print(f"luncosim modelica diagram: {exc}", file=sys.stderr)
        return 1
    print(f"rendered {what} to {args.out}")
    return 0


def add_workbench_verbs(sub) -> None:
    """Add ``render``, ``screenshot`` and ``modelica diagram`` to an ``argparse`` subparsers object."""
    p = sub.add_parser("render", help="render a scene to PNG without a window")
    p.add_argument("--scene", required=True, help="a scene file or a twin folder")
    p.add_argument("--out", required=True, type=Path, help="PNG file to write")
    p.add_argument("--ticks", type=cli_args.ticks, default=0, help="ticks to run before rendering")
    p.add_argument("--tick-hz", type=cli_args.tick_hz, default=60.0)
    p.add_argument("--width", type=cli_args.pixels, default=1280)
    p.add_argument("--height", type=cli_args.pixels, default=800)
    p.add_argument("--camera", default=None, help="iso, front, back, left, right, top, bottom, or EX,EY,EZ:CX,CY,CZ")
    p.add_argument("--overlays", default="", help="comma list: joints,colliders,contacts,com,escaped,labels")
    p.add_argument("--set", action="append", metavar="PRIM.PORT=VALUE", help="SetPorts before the first tick")
    p.add_argument("--mission", type=Path, default=None, metavar="TASK.yaml",
                   help="run this mission task file after --ticks and draw it (costmap, path, fluid particles)")
    p.add_argument("--mission-seconds", type=float, default=None, metavar="S",
                   help="stop the mission after S simulated seconds and render that moment (default: its end)")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("screenshot", help="open the workbench, run N ticks, save the window as PNG")
    p.add_argument("--twin", type=Path, default=None, help="twin folder (default: the bundled demo twin)")
    p.add_argument("--out", required=True, type=Path, help="PNG file to write")
    p.add_argument("--ticks", type=cli_args.ticks, default=0)
    p.add_argument("--perspective", default=None, help="Build, Simulate or Debug")
    p.add_argument("--width", type=cli_args.pixels, default=1600)
    p.add_argument("--height", type=cli_args.pixels, default=1000)
    p.add_argument("--select", action="append", metavar="PRIM", help="select this prim (repeatable; the view frames it)")
    p.add_argument("--plot", action="append", metavar="PRIM.PORT", help="plot this port (repeatable)")
    p.set_defaults(func=cmd_screenshot)

    from luncosim_core.modelica.syntax.cli import modelica_verbs

    d = modelica_verbs(sub).add_parser("diagram", help="render a class's diagram to PNG or SVG without a window")
    d.add_argument("file", type=Path, help="the .mo file")
    d.add_argument("--class", dest="cls", default=None, metavar="NAME",
                   help="the class to draw (default: the file's first class with connections)")
    d.add_argument("--out", required=True, type=Path, help="the picture to write: FILE.png or FILE.svg")
    d.add_argument("--width", type=cli_args.pixels, default=1200, help="width in pixels (default 1200)")
    d.set_defaults(func=cmd_modelica_diagram)
