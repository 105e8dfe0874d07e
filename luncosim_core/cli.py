"""``luncosim``: the command line. One function per verb; each returns the exit code."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from luncosim_core import cli_args
from luncosim_core.twin.roots import LUNCO_ROOT_ENV


def _print_diagnostics(diags, as_json: bool, out=None) -> None:
    out = out or sys.stdout
    if as_json:
        json.dump([d.to_json() for d in diags], out, indent=2)
        out.write("\n")
        return
    for d in diags:
        out.write(f"{d}\n")


def cmd_validate(args: argparse.Namespace) -> int:
    """Compose each scene or asset and report diagnostics; exit 1 when any is an error."""
    from luncosim_core.lint import run_lint
    from luncosim_core.usd.validate import validate_path

    all_diags = []
    for path in args.paths:
        diags = validate_path(path, args.lunco_root, lint=run_lint)
        all_diags.extend(diags)
        if not args.json:
            errors = sum(d.is_error for d in diags)
            warnings = sum(d.severity == "warning" for d in diags)
            _print_diagnostics(diags, False)
            print(f"{path}: {errors} error(s), {warnings} warning(s)")
    if args.json:
        _print_diagnostics(all_diags, True)
    return 1 if any(d.is_error for d in all_diags) else 0


def _parse_sets(items: list[str]) -> dict[str, dict[str, float]]:
    """``/Prim.port=value`` pairs grouped by prim."""
    out: dict[str, dict[str, float]] = {}
    for item in items:
        target, eq, value = item.partition("=")
        prim, dot, port = target.rpartition(".")
        if not eq or not dot or not prim.startswith("/"):
            raise SystemExit(f"luncosim: --set expects /Prim.port=value, got {item!r}")
        try:
            number = float(value)
        except ValueError:
            raise SystemExit(f"luncosim: --set {item!r}: {value!r} is not a number") from None
        out.setdefault(prim, {})[port] = number
    return out


def cmd_run(args: argparse.Namespace) -> int:
    """Run a scene headless as fast as possible; print hashes and/or the final state."""
    import csv

    from luncosim_core.api import SetPorts
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.sim.simulation import SimulationConfig, open_simulation

    try:
        sim = open_simulation(args.scene, lunco_root=args.lunco_root,
                              config=SimulationConfig(tick_hz=args.tick_hz, substeps=args.substeps))
    except (DiagnosticError, FileNotFoundError) as exc:
        print(f"luncosim run: {exc}", file=sys.stderr)
        return 1
    results = []
    for prim, writes in _parse_sets(args.set or []).items():
        results.append((prim, writes))
        sim.submit(SetPorts(target=prim, writes=writes), lambda r, _p=prim: _report_set(r, _p))
    sim.wait_until_ready()
    unloaded = [p for p in sim.participants if getattr(p, "error", "")]  # a program that cannot run
    hashes: list[dict] = []
    writer = None
    csv_file = None
    if args.csv:
        try:
            csv_file = open(args.csv, "w", newline="", encoding="utf-8")
        except OSError as exc:
            print(f"luncosim run: cannot write --csv {args.csv}: {exc.strerror or exc}", file=sys.stderr)
            sim.close()
            return 2
        writer = csv.writer(csv_file)
        writer.writerow(["tick", "time", *sim.registry.index])
    try:
        for _ in range(args.ticks):
            if not sim.tick():
                if sim.fault is not None or sim.status_reason:
                    break
            if writer is not None:
                writer.writerow([sim.tick_count, repr(sim.time), *(repr(float(v)) for v in sim.registry.values)])
            if args.hash_every and sim.tick_count % args.hash_every == 0:
                h = {"tick": sim.tick_count, "hash": sim.state_hash()}
                hashes.append(h)
                if not args.json:
                    print(f"tick {h['tick']:>8}  {h['hash']}")
    finally:
        if csv_file is not None:
            csv_file.close()
    snap = sim.snapshot()
    faults = [f.to_json() for f in snap.faults]
    if sim.status_reason and sim.fault is None:
        print(f"luncosim run: stopped waiting: {sim.status_reason}", file=sys.stderr)
    if args.json:
        out = snap.to_json()
        out.pop("status", None)
        out["diagnostics"] = [d.to_json() for d in sim.diagnostics]
        out["faults"] = faults
        out["hashes"] = hashes
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for d in sim.diagnostics:
            if d.severity != "info":
                print(d)
        print(f"ran {sim.tick_count} ticks ({sim.time:.3f} s sim time), {len(sim.world.body_paths)} bodies, "
              f"{len(sim.registry)} ports, final hash {sim.state_hash()}")
        for f in snap.faults:
            print(f"FAULT {f}")
    for part in unloaded:
        print(f"luncosim run: {part.prim_path} did not load: {part.error}", file=sys.stderr)
    sim.close()
    return 1 if faults or unloaded else 0


def _report_set(result, prim: str) -> None:
    if not result.ok:
        for d in result.diagnostics:
            print(f"luncosim run: --set on {prim} refused: {d.message}", file=sys.stderr)


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the bundled demo twin on the worker thread in real time and print a telemetry summary.

    The demo twin's own scenario (``Drill``) drives the rovers."""
    import time

    from luncosim_core.sim.simulation import open_simulation
    from luncosim_core.sim.worker import SimulationWorker
    from luncosim_core.twin.roots import repository_root

    twin = args.twin or repository_root() / "assets" / "twins" / "practice_yard"
    worker = SimulationWorker(lambda: open_simulation(twin, lunco_root=args.lunco_root), speed=1.0)
    ticks = []
    worker.snapshot_ready.connect(lambda snap: ticks.append(snap.tick))
    worker.start()
    print(f"demo: {twin} (real time, {args.seconds:g} s)")
    worker.call(lambda sim: sim.wait_until_ready()).result(timeout=120)
    worker.play()
    t0 = time.perf_counter()
    time.sleep(args.seconds)
    worker.pause()
    wall = time.perf_counter() - t0
    snap = worker.call(lambda sim: sim.snapshot()).result(timeout=10)
    worker.stop()
    print(f"ran {snap.tick} ticks = {snap.time:.2f} s sim time in {wall:.2f} s wall "
          f"(real-time factor {snap.time / wall:.2f}); {len(ticks)} snapshots published; status {snap.status}")
    print(f"{len(snap.body_paths)} bodies, {len(snap.port_keys)} ports")
    for rover in ("RoverA", "RoverB"):
        pose = snap.pose(f"/PracticeYard/{rover}/Chassis")
        speed = snap.port(f"/PracticeYard/{rover}.speed")
        torque = snap.port(f"/PracticeYard/{rover}/Controller.torque_left")
        if pose is not None:
            x, y, z = (float(v) for v in pose[0])
            print(f"  {rover}: position ({x:6.2f}, {y:5.2f}, {z:6.2f}) m   speed {speed if speed is None else round(speed, 3)} m/s"
                  f"   left wheel torque {torque if torque is None else round(torque, 3)} N.m")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "demo_summary.json"
        path.write_text(json.dumps(snap.to_json(), indent=1))
        print(f"final state written to {path}")
    return 1 if snap.faults else 0


def _parse_camera(text: str | None):
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
    for prim, writes in _parse_sets(args.set or []).items():
        from luncosim_core.api import SetPorts

        sim.submit(SetPorts(target=prim, writes=writes))
    if args.ticks:
        sim.run(args.ticks)
    overlays = [o for o in (args.overlays or "").split(",") if o]
    snap = sim.snapshot()
    try:
        out = render_stage_to_png(
            sim.stage, args.out, width=args.width, height=args.height, camera=_parse_camera(args.camera),
            overlays=overlays, body_poses=(snap.body_paths, snap.positions, snap.orientations),
            debug_info=sim.world.debug_info(),
        )
    except Exception as exc:  # no GL anywhere, or a bad overlay name
        print(f"luncosim render: {exc}", file=sys.stderr)
        return 1
    finally:
        sim.close()
    print(f"rendered {args.scene} after {snap.tick} ticks to {out}")
    return 0


def cmd_screenshot(args: argparse.Namespace) -> int:
    """Open the workbench on a twin, run N ticks and save the window as PNG."""
    try:
        from luncosim_workbench.screenshot import take_screenshot
    except ImportError as exc:
        print(f"luncosim screenshot: the workbench is not available: {exc}", file=sys.stderr)
        return 1
    twin = args.twin
    if twin is None:
        from luncosim_core.twin.roots import repository_root

        twin = repository_root() / "assets" / "twins" / "practice_yard"
    path = take_screenshot(twin, args.out, ticks=args.ticks, perspective=args.perspective,
                           width=args.width, height=args.height)
    print(f"screenshot of the workbench on {twin} saved to {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="luncosim", description="LunCoSim Workbench command line")
    parser.add_argument(
        "--lunco-root", type=Path, default=None,
        help=f"asset library root for lunco:// URIs (default: ${LUNCO_ROOT_ENV} or the bundled assets/)",
    )
    sub = parser.add_subparsers(dest="verb", required=True)

    p = sub.add_parser("validate", help="compose scenes/assets and report diagnostics")
    p.add_argument("paths", nargs="+", help="twin folders, twin.toml files or USD files")
    p.add_argument("--json", action="store_true", help="print diagnostics as JSON")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("run", help="run a scene headless as fast as possible")
    p.add_argument("--scene", required=True, help="a scene file or a twin folder (its default scene)")
    p.add_argument("--ticks", type=cli_args.ticks, default=600, help="ticks to run (default 600 = 10 s at 60 Hz)")
    p.add_argument("--tick-hz", type=cli_args.tick_hz, default=60.0, help="fixed tick rate (default 60)")
    p.add_argument("--substeps", type=cli_args.substeps, default=4, help="physics substeps per tick (default 4)")
    p.add_argument("--hash-every", type=cli_args.ticks, default=0, metavar="K", help="print a state hash every K ticks")
    p.add_argument("--set", action="append", metavar="PRIM.PORT=VALUE", help="SetPorts before the first tick (repeatable)")
    p.add_argument("--csv", type=Path, help="write every port, every tick, to a CSV file")
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("demo", help="run the bundled demo twin headless in real time and summarise")
    p.add_argument("--twin", type=Path, default=None, help="twin folder (default: the bundled practice yard)")
    p.add_argument("--seconds", type=cli_args.seconds, default=5.0, help="wall-clock seconds to run (default 5)")
    p.add_argument("--out", type=Path, default=None, help="folder for demo_summary.json")
    p.set_defaults(func=cmd_demo)

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
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("screenshot", help="open the workbench, run N ticks, save the window as PNG")
    p.add_argument("--twin", type=Path, default=None, help="twin folder (default: the bundled demo twin)")
    p.add_argument("--out", required=True, type=Path, help="PNG file to write")
    p.add_argument("--ticks", type=cli_args.ticks, default=0)
    p.add_argument("--perspective", default=None, help="Build, Simulate or Debug")
    p.add_argument("--width", type=cli_args.pixels, default=1600)
    p.add_argument("--height", type=cli_args.pixels, default=1000)
    p.set_defaults(func=cmd_screenshot)

    from luncosim_core.scripting.cli_verbs import add_scripting_verbs

    add_scripting_verbs(sub)  # test, rhai
    from luncosim_core.batch.cli import add_batch_verb

    add_batch_verb(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.lunco_root is not None:
        root = args.lunco_root.expanduser().resolve()
        if not root.is_dir():
            parser.error(f"--lunco-root {root} is not a folder")
        args.lunco_root = root
        os.environ[LUNCO_ROOT_ENV] = str(root)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
