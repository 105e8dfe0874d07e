"""Spread batch tasks over a ``dask.distributed`` cluster and collect their rows.

Without a scheduler address a LocalCluster is started (one single-threaded worker process per
requested worker); with one, the driver connects to a cluster started with ``dask scheduler`` and
``dask worker`` (every worker needs this package installed and the scene files at the same
paths). Each task runs in a child process of its worker (:mod:`.isolate`), so no task can take a
worker down; a worker that dies anyway is retried by Dask and, if it keeps dying, the task is
recorded as CRASHED. The batch always completes and reports.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from luncosim_core.batch.isolate import crashed_row, run_isolated
from luncosim_core.batch.spec import BatchTask

ALLOWED_WORKER_FAILURES = 1  # a dead worker's task runs once more, then it is CRASHED


class ClusterError(RuntimeError):
    """The cluster could not be started or reached."""


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def _quiet_dask() -> None:
    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker",
                 "distributed.core", "distributed.http.proxy", "bokeh", "tornado"):
        logging.getLogger(name).setLevel(logging.ERROR)


def open_client(*, workers: int, scheduler: str | None, connect_timeout_s: float = 10.0):
    """A Dask client on a fresh LocalCluster or on the cluster at ``scheduler``."""
    import dask
    from dask.distributed import Client, LocalCluster

    _quiet_dask()
    # a task whose worker process dies is run once more, then recorded as CRASHED (an external
    # scheduler reads its own setting: DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1)
    dask.config.set({"distributed.worker.daemon": False, "distributed.admin.tick.limit": "60s",
                     "distributed.scheduler.allowed-failures": ALLOWED_WORKER_FAILURES})
    if scheduler:
        _reachable(scheduler, connect_timeout_s)
        try:
            return Client(scheduler, timeout=f"{connect_timeout_s}s")
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        except (ValueError, TypeError) as exc:  # not an address Dask understands
            raise ClusterError(f"--scheduler {scheduler!r} is not a Dask scheduler address "
                               f"(e.g. tcp://HOST:8786): {exc}") from None
    try:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address="127.0.0.1:0", host="127.0.0.1")
    except Exception as exc:  # ports, permissions, a broken install: say so instead of a traceback
        raise ClusterError(f"cannot start a local Dask cluster: {exc}") from None
    return Client(cluster)


def _reachable(scheduler: str, timeout_s: float) -> None:
    """Refuse at once a ``tcp://`` scheduler nothing listens at (Dask itself would retry until its
    timeout); other schemes and bad addresses are left to Dask's own checks."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(scheduler)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    if not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc.strerror or exc}") from None


def dashboard_address(client) -> str:
    """The dashboard's URL (it is served by the scheduler and needs bokeh there)."""
    import importlib.util

    if importlib.util.find_spec("bokeh") is None:
        return "unavailable (install bokeh for the Dask dashboard)"
    try:
        return client.dashboard_link or "unavailable"
    except Exception:  # a scheduler without a dashboard still runs the batch
        return "unavailable"


def run_batch(tasks: list[BatchTask], client, *, timeout_s: float | None, memory_mb: int,
              on_result: Callable[[dict[str, Any], Counter], None] | None = None) -> list[dict[str, Any]]:
    """Submit every task, wait for all, return one row per task in task order."""
    from dask.distributed import as_completed

    run_tag = uuid.uuid4().hex[:8]
    futures = {}
    for task in tasks:
        fut = client.submit(run_isolated, task.to_json(), timeout_s, memory_mb, pure=False,
                            key=f"luncosim-{run_tag}-{task.task_id}")
        futures[fut.key] = (fut, task)
    rows: dict[str, dict[str, Any]] = {}
    counts: Counter = Counter()
    try:
        for fut in as_completed([f for f, _ in futures.values()]):
            task = futures[fut.key][1]
            try:
                row = fut.result()
            except Exception as exc:  # KilledWorker and friends: the worker process itself died
                row = crashed_row(task, f"the Dask worker running it died ({type(exc).__name__}: {exc})")
            rows[task.task_id] = row
            counts[row["verdict"]] += 1
            if on_result is not None:
                on_result(row, counts)
    except KeyboardInterrupt:
        for f, _ in futures.values():
            f.cancel()
        raise
    return [rows[t.task_id] for t in tasks]


def batch_exit_code(rows: list[dict[str, Any]]) -> int:
    """0 when every task passed (a sweep run without a verdict scenario passes by completing
    without a fault), 1 otherwise."""
    for row in rows:
        verdict = row["verdict"]
        if verdict == "PASS":
            continue
        if verdict == "NO_VERDICT" and not row.get("has_verdict_scenario", True):
            continue
        return 1
    return 0
