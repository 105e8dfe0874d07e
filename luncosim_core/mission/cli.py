"""``luncosim mission run``: run a task file on a scene headless (exit 0 success, 1 failure,
2 invalid task file)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path


def add_mission_verb(sub) -> None:
    p = sub.add_parser("mission", help="run mission task files on a scene")
    verbs = p.add_subparsers(dest="mission_verb", required=True)
    r = verbs.add_parser("run", help="run a task file's actions in order on a scene (headless)")
    r.add_argument("--scene", required=True, help="a scene file or a twin folder (its default scene)")
    r.add_argument("--task", required=True, type=Path, help="the task file (YAML)")
    r.add_argument("--out", type=Path, default=None, help="folder for result.json and the debug PNGs")
    r.add_argument("--json", action="store_true", help="print the result as one JSON object")
    r.add_argument("--max-seconds", type=float, default=None, metavar="S",
                   help="stop the run after S seconds of simulated time (a failure)")
    r.set_defaults(func=cmd_mission_run)


def _invalid(errors, as_json: bool, source: str) -> int:
    if as_json:
        json.dump({"result": "failure", "actions": [], "events": [], "final_poses": {},
                   "errors": [e.to_json() for e in errors]}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for e in errors:
            print(f"luncosim mission run: {source}: {e}", file=sys.stderr)
        print(f"luncosim mission run: invalid task file ({len(errors)} error(s))", file=sys.stderr)
    return 2


def _no_scene(task, reason: str, as_json: bool) -> int:
    """Exit 1 when the scene cannot run: every action skipped, with the reason (one JSON object
    under ``--json``, as for any other failure)."""
    print(f"luncosim mission run: {reason}", file=sys.stderr)
    if as_json:
        actions = [{"name": a.name, "type": a.type, "result": "skipped", "reason": reason, "duration_s": 0.0}
                   for a in task.actions]
        json.dump({"result": "failure", "actions": actions, "events": [], "final_poses": {},
                   "errors": [{"path": "scene", "message": reason}]}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 1


def cmd_mission_run(args: argparse.Namespace) -> int:
    from luncosim_core.mission.taskfile import TaskFileError, load_task_file

    if args.max_seconds is not None and not args.max_seconds > 0:
        print("luncosim mission run: --max-seconds must be > 0", file=sys.stderr)
        return 2
    try:
        task = load_task_file(args.task)
    except TaskFileError as exc:
        return _invalid(exc.errors, args.json, str(args.task))
    # the simulation is imported only for a valid task file
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.mission.host import SimulationHost
    from luncosim_core.mission.runner import MissionRunner
    from luncosim_core.sim.simulation import open_simulation
    try:
        sim = open_simulation(args.scene, lunco_root=args.lunco_root)
    except (DiagnosticError, FileNotFoundError) as exc:
        return _no_scene(task, f"the scene did not open: {exc}", args.json)
    try:
        reason = sim.wait_until_ready()
        if reason:
            return _no_scene(task, f"the scene is not ready: {reason}", args.json)
        for d in sim.diagnostics:
            if d.is_error and not args.json:
                print(d, file=sys.stderr)
        listeners = () if args.json else (_progress,)
        runner = MissionRunner(SimulationHost(sim), task, max_seconds=args.max_seconds, listeners=listeners)
        try:
            result = runner.run()
        except TaskFileError as exc:
            return _invalid(exc.errors, args.json, str(args.task))
    finally:
        sim.close()
    if args.out is not None:
        _write_out(args.out, result)
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print_result(result)
    return 0 if result.ok else 1


def _print_result(result) -> None:
    for a in result.actions:
        mark = {"success": "ok  ", "failure": "FAIL", "skipped": "skip"}[a.result]
        print(f"{mark} {a.name} ({a.type}) {a.duration_s:.2f} s" + (f": {a.reason}" if a.reason else ""))
    for alias, pose in result.final_poses.items():
        print(f"  {alias}: x {pose['x']:.3f}  y {pose['y']:.3f}  z {pose['z']:.3f}  yaw {pose['yaw']:.3f}")
    for e in result.evidence:
        print(f"  debug evidence: {e.path}")
    print(f"mission {result.result} ({sum(a.result == 'success' for a in result.actions)}/"
          f"{len(result.actions)} actions)")


def _progress(event) -> None:
    if event.name in ("mission.action.started",):
        print(f"... {event.payload['name']} ({event.payload['type']})", flush=True)
    elif event.name == "mission.navigation.debug.attempt":
        print(f"    plan attempt {event.payload['attempt']}: {event.payload['outcome']}", flush=True)


def _write_out(out: Path, result) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for e in result.evidence:
        src = Path(e.path)
        if src.is_file():
            shutil.copyfile(src, out / src.name)
    tmp = out / ".result.json.tmp"
    tmp.write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    tmp.replace(out / "result.json")
