"""``luncosim``: the command line. One function per verb; each returns the exit code.

The core's verbs are registered here. Verbs that need a GUI toolkit (``render``, ``screenshot``)
live in ``luncosim_workbench`` and join through the ``luncosim.cli`` entry-point group (each entry
point is a function adding verbs to the subparsers); the core never imports the workbench.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path

from luncosim_core import __version__, cli_args
from luncosim_core.twin.roots import LUNCO_ROOT_ENV

#: Entry-point group of packages that add verbs: ``name = "module:add_verbs"``.
VERB_ENTRY_POINTS = "luncosim.cli"
AddVerbs = Callable[[argparse._SubParsersAction], None]


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
    from luncosim_core.lint import validate_lint
    from luncosim_core.modelica.compile_server import warm_default_server
    from luncosim_core.usd.validate import validate_path

    warm_default_server()  # the compile child imports while the scenes compose
    all_diags = []
    for path in args.paths:
        diags = validate_path(path, args.lunco_root, lint=validate_lint)  # programs compiled, too
        all_diags.extend(diags)
        if not args.json:
            errors = sum(d.is_error for d in diags)
            warnings = sum(d.severity == "warning" for d in diags)
            _print_diagnostics(diags, False)
            print(f"{path}: {errors} error(s), {warnings} warning(s)")
    if args.json:
        _print_diagnostics(all_diags, True)
    return 1 if any(d.is_error for d in all_diags) else 0


def parse_sets(items: list[str]) -> dict[str, dict[str, float]]:
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
    from luncosim_core.api import SetPorts
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.sim.simulation import SimulationConfig, open_simulation

    try:
        sim = open_simulation(args.scene, lunco_root=args.lunco_root,
                              config=SimulationConfig(tick_hz=args.tick_hz, substeps=args.substeps))
    except (DiagnosticError, FileNotFoundError) as exc:
        print(f"luncosim run: {exc}", file=sys.stderr)
        return 1
    for prim, writes in parse_sets(args.set or []).items():
        sim.submit(SetPorts(target=prim, writes=writes), lambda r, _p=prim: _report_set(r, _p))
    sim.wait_until_ready()
    unloaded = [p for p in sim.participants if _load_failure(p)]  # a program that cannot run
    try:
        hashes = _run_ticks(sim, args)
    except OSError as exc:  # the --csv file cannot be written
        print(f"luncosim run: cannot write --csv {args.csv}: {exc.strerror or exc}", file=sys.stderr)
        sim.close()
        return 2
    snap = sim.snapshot()
    fault_list = [*snap.faults, *(f for f in sim.participant_faults() if f not in snap.faults)]
    faults = [f.to_json() for f in fault_list]
    diagnostics = _run_diagnostics(sim, snap)
    if sim.status_reason and sim.fault is None:
        print(f"luncosim run: stopped waiting: {sim.status_reason}", file=sys.stderr)
    if args.json:
        out = snap.to_json()
        out.pop("status", None)
        out["diagnostics"] = [d.to_json() for d in diagnostics]
        out["faults"] = faults
        out["hashes"] = hashes
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for d in diagnostics:
            if d.severity != "info":
                print(d)
        print(f"ran {sim.tick_count} ticks ({sim.time:.3f} s sim time), {len(sim.world.body_paths)} bodies, "
              f"{len(sim.registry)} ports, final hash {sim.state_hash()}")
        for f in fault_list:
            print(f"FAULT {f}")
    for part in unloaded:
        print(f"luncosim run: {part.prim_path} did not load: {_load_failure(part)}", file=sys.stderr)
    errors = [d for d in diagnostics if d.is_error]  # at build (the scene is not what was authored) or ticking
    if errors and not args.json:
        print(f"luncosim run: {len(errors)} error(s) reported (listed above)", file=sys.stderr)
    sim.close()
    return 1 if faults or unloaded or errors else 0


def _load_failure(part) -> str:
    """Why a program participant cannot run ("" when it can): a model that did not compile or
    open (``error``), a scenario that failed to load (state ``failed``: its source is missing or
    unreadable, it does not compile, its plan or a required input is wrong)."""
    if getattr(part, "error", ""):
        return str(part.error)
    if getattr(part, "kind", "") == "scenario" and getattr(part, "state", "") == "failed":
        first = next((d for d in part.all_diagnostics() if d.is_error), None)
        return first.message if first is not None else "the scenario failed to load"
    return ""


def _run_diagnostics(sim, snap) -> list:
    """Everything reported during the run: the projection's diagnostics and those found while
    ticking (a scenario's runtime error, a non-finite model output), each once, in order."""
    out, seen = [], set()
    for d in (*sim.diagnostics, *snap.diagnostics):
        key = (d.severity, d.code, d.path, d.message, d.layer, d.line, d.column)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _run_ticks(sim, args: argparse.Namespace) -> list[dict]:
    """Tick ``args.ticks`` times, writing the CSV and printing hashes as asked; the hashes."""
    import csv

    hashes: list[dict] = []
    with open(args.csv, "w", newline="", encoding="utf-8") if args.csv else nullcontext() as csv_file:
        writer = csv.writer(csv_file) if csv_file is not None else None
        if writer is not None:
            writer.writerow(["tick", "time", *sim.registry.index])
        for _ in range(args.ticks):
            if not sim.tick() and (sim.fault is not None or sim.status_reason):
                break
            if writer is not None:
                writer.writerow([sim.tick_count, repr(sim.time), *(repr(float(v)) for v in sim.registry.values)])
            if args.hash_every and sim.tick_count % args.hash_every == 0:
                h = {"tick": sim.tick_count, "hash": sim.state_hash()}
                hashes.append(h)
                if not args.json:
                    print(f"tick {h['tick']:>8}  {h['hash']}")
    return hashes


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


def plugin_verbs() -> list[AddVerbs]:
    """The verb adders other installed packages declare in the ``luncosim.cli`` entry points (one
    that fails to load is reported on stderr and skipped: the core verbs still work)."""
    from importlib.metadata import entry_points

    out = []
    for ep in sorted(entry_points(group=VERB_ENTRY_POINTS), key=lambda e: e.name):
        try:
            out.append(ep.load())
        except Exception as exc:  # a broken optional package must not take the core CLI down
            print(f"luncosim: verbs from {ep.value} are unavailable: {exc}", file=sys.stderr)
    return out


def build_parser(extra_verbs: Iterable[AddVerbs] = ()) -> argparse.ArgumentParser:
    """The ``luncosim`` parser: the core's verbs, the entry-point verbs and ``extra_verbs`` (a
    frozen bundle passes its verbs here, without relying on package metadata)."""
    parser = argparse.ArgumentParser(prog="luncosim", description="LunCoSim Workbench command line")
    parser.add_argument("--version", action="version", version=f"luncosim {__version__}")
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

    from luncosim_core.batch.cli import add_batch_verb
    from luncosim_core.scripting.cli_verbs import add_scripting_verbs
    from luncosim_core.sim.scene_test import add_test_verb

    add_test_verb(sub)
    from luncosim_core.usd.edit_cli import add_edit_verb
    from luncosim_core.usd.new_twin import add_new_verb

    add_edit_verb(sub)  # edit: typed edits of a scene file
    add_new_verb(sub)  # new TWIN_DIR: a twin folder with a scene at lunar gravity
    add_scripting_verbs(sub)  # rhai
    add_batch_verb(sub)
    from luncosim_core.mission.cli import add_mission_verb
    from luncosim_core.modelica.syntax.cli import add_modelica_verbs

    add_mission_verb(sub)  # mission run
    from luncosim_core.server.serve import add_serve_verb

    add_serve_verb(sub)  # serve
    from luncosim_core.language.cli_verbs import add_check_verb

    add_check_verb(sub)  # check FILE...
    add_modelica_verbs(sub)  # modelica apply
    added: list[AddVerbs] = []
    for add in (*plugin_verbs(), *extra_verbs):
        if add not in added:
            added.append(add)
            add(sub)
    return parser


def main(argv: list[str] | None = None, *, extra_verbs: Iterable[AddVerbs] = ()) -> int:
    parser = build_parser(extra_verbs)
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
