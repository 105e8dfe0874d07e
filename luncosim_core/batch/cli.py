"""``luncosim batch``: scene tests and sweeps on a Dask cluster (see ``docs/batch.md``)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from luncosim_core.batch.spec import (
    SweepError,
    expand_scene_globs,
    load_sweep,
    scene_test_tasks,
)

DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MEMORY_MB = 4096


def add_batch_verb(sub) -> None:
    from luncosim_core.sim.scene_test import DEFAULT_MAX_TICKS

    p = sub.add_parser("batch", help="run scene tests and parameter sweeps on a Dask cluster")
    p.add_argument("--scenes", nargs="+", metavar="GLOB", default=[],
                   help="scene-test files or twin folders (globs; ** recurses)")
    p.add_argument("--sweep", type=Path, metavar="SWEEP.toml", help="a sweep file: scene, parameters, outputs, verdict")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: the cores)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="use this Dask scheduler instead of a local cluster")
    p.add_argument("--out", type=Path, default=Path("batch-results"), help="results folder (default ./batch-results)")
    p.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S,
                   help=f"wall-clock limit per task (default {DEFAULT_TIMEOUT_S:g}); a task past it is TIMEOUT")
    p.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB,
                   help=f"address-space limit per task in MB (default {DEFAULT_MEMORY_MB}; 0 = none)")
    p.add_argument("--max-ticks", type=int, default=DEFAULT_MAX_TICKS,
                   help=f"tick budget of a scene test (default {DEFAULT_MAX_TICKS})")
    p.add_argument("--lunco-root", dest="batch_lunco_root", type=Path, default=None,
                   help="asset library root for lunco:// URIs, passed to every task")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_batch)


def _fail(message: str) -> int:
    print(f"luncosim batch: {message}", file=sys.stderr)
    return 2


def cmd_batch(args: argparse.Namespace) -> int:
    if getattr(sys, "frozen", False):  # the desktop bundle (packaging/) ships neither Dask nor a Python to start
        return _fail("batch runs need the developer install (./dev setup): the desktop bundle has no Dask "
                     "and cannot start worker interpreters")
    from luncosim_core.batch.driver import (
        ClusterError,
        batch_exit_code,
        dashboard_address,
        default_workers,
        open_client,
        run_batch,
    )
    from luncosim_core.batch.report import write_results

    problem, lunco_root = _check_args(args)
    if problem:
        return _fail(problem)
    try:
        tasks = []
        if args.scenes:
            tasks += scene_test_tasks(expand_scene_globs(args.scenes), ticks=args.max_ticks, lunco_root=lunco_root)
        if args.sweep is not None:
            tasks += load_sweep(args.sweep, lunco_root=lunco_root)
    except SweepError as exc:
        return _fail(str(exc))
    if not tasks:
        return _fail("nothing to run: the sweep has no parameter combination")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _fail(f"cannot create the results folder {args.out}: {exc.strerror or exc}")
    workers = args.workers or default_workers()
    started = time.perf_counter()
    try:
        client = open_client(workers=workers, scheduler=args.scheduler)
    except ClusterError as exc:
        return _fail(str(exc))
    try:
        where = args.scheduler or f"a local cluster of {workers} worker{'s' if workers != 1 else ''}"
        print(f"running {len(tasks)} task{'s' if len(tasks) != 1 else ''} on {where}", flush=True)
        print(f"dask dashboard: {dashboard_address(client)}", flush=True)
        rows = _run_with_progress(tasks, client, args, run_batch)
    except KeyboardInterrupt:
        print("luncosim batch: interrupted; no results written", file=sys.stderr)
        return 130
    finally:
        _close(client)
    paths = write_results(rows, args.out, title=f"LunCoSim batch: {len(rows)} tasks")
    _print_summary(rows)
    print(f"wall time {time.perf_counter() - started:.1f} s; results: {paths['csv']}, {paths['parquet']}, {paths['html']}")
    return batch_exit_code(rows)


def _check_args(args: argparse.Namespace) -> tuple[str, str | None]:
    """(what is wrong with the invocation or "", the asset library root as text or None)."""
    root = args.batch_lunco_root or getattr(args, "lunco_root", None)
    if root is not None:
        root = Path(root).expanduser().resolve()
        if not root.is_dir():
            return f"--lunco-root {root} is not a folder", None
    checks = (
        (not args.scenes and args.sweep is None, "give --scenes GLOB [GLOB ...] and/or --sweep SWEEP.toml"),
        (args.workers is not None and args.workers < 1, "--workers must be at least 1"),
        (not (args.timeout_s > 0) or args.timeout_s == float("inf"), "--timeout-s must be a positive number of seconds"),
        (args.max_ticks < 1, "--max-ticks must be at least 1"),
        (args.memory_mb < 0, "--memory-mb must be 0 (no limit) or more"),
    )
    problem = next((msg for bad, msg in checks if bad), "")
    return problem, (str(root) if root is not None else None)


def _print_summary(rows: list[dict]) -> None:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for r in rows:
        if r["verdict"] not in ("PASS", "NO_VERDICT") or (r["verdict"] == "NO_VERDICT" and r["has_verdict_scenario"]):
            print(f"  {r['verdict']:<10} {r['scene']} {r['params'] or ''} {r['reason']}".rstrip())


def _run_with_progress(tasks, client, args, run_batch):
    if args.no_progress:
        return run_batch(tasks, client, timeout_s=args.timeout_s, memory_mb=args.memory_mb)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[counts]}"), transient=False) as progress:
        bar = progress.add_task("batch", total=len(tasks), counts="")

        def on_result(_row, counts) -> None:
            progress.update(bar, advance=1, counts=" ".join(f"{k}={v}" for k, v in sorted(counts.items())))

        return run_batch(tasks, client, timeout_s=args.timeout_s, memory_mb=args.memory_mb, on_result=on_result)


def _close(client) -> None:
    cluster = getattr(client, "cluster", None)
    try:
        client.close()
        if cluster is not None:
            cluster.close()
    except Exception:  # closing a cluster that already lost its workers must not hide the results
        pass
