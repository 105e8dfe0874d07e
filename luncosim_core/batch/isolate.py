"""Run a task in a child process with a timeout and a memory limit; retry a crash once.

This is the function a Dask worker executes. The worker itself never runs simulation code, so a
segfault or an out-of-memory kill takes down only the child: the task is retried once, then
recorded as ``CRASHED``; a run past its timeout is killed and recorded as ``TIMEOUT``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

from luncosim_core.batch.spec import BatchTask

MAX_ATTEMPTS = 2  # the first run and one retry
STDERR_TAIL = 2000


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code} without a result"


def run_isolated(task_json: str, timeout_s: float | None = None, memory_mb: int = 0) -> dict[str, Any]:
    """Run the task (JSON) in a child process; the result row's task-determined fields plus
    ``attempts``, ``wall_s`` and ``worker``."""
    task = BatchTask.from_json(task_json)
    worker = _worker_name()
    started = time.perf_counter()
    reasons: list[str] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        task.attempt = attempt
        cmd = [sys.executable, "-m", "luncosim_core.batch.child", "--memory-mb", str(int(memory_mb))]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(task.to_json().encode(), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            return _row(task, {"verdict": "TIMEOUT", "exit": None,
                               "reason": f"the run did not finish within {timeout_s:g} s and was stopped"},
                        attempt, started, worker)
        result = _parse(out)
        if result is not None and result.get("verdict") != "CRASHED":
            return _row(task, result, attempt, started, worker)
        why = result.get("reason") if result else _describe_exit(proc.returncode)
        if result is None and memory_mb > 0 and proc.returncode != 0:
            why += f" (the memory limit is {int(memory_mb)} MB: a run past it dies this way)"
        tail = err.decode("utf-8", "replace")[-STDERR_TAIL:].strip().splitlines()[-3:]
        reasons.append(f"attempt {attempt}: {why}" + (f" ({' | '.join(tail)})" if tail and result is None else ""))
    return _row(task, {"verdict": "CRASHED", "exit": None, "reason": "; ".join(reasons)},
                MAX_ATTEMPTS, started, worker)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def _parse(out: bytes) -> dict[str, Any] | None:
    for line in reversed(out.decode("utf-8", "replace").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def _row(task: BatchTask, result: dict[str, Any], attempts: int, started: float, worker: str) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "kind": task.kind,
        "scene": task.scene,
        "params": task.params,
        "verdict": result.get("verdict", "CRASHED"),
        "exit": result.get("exit"),
        "ticks": result.get("ticks"),
        "final_hash": result.get("final_hash", ""),
        "outputs": result.get("outputs", {}),
        "wall_s": round(time.perf_counter() - started, 6),
        "run_s": result.get("run_s"),
        "worker": worker,
        "attempts": attempts,
        "reason": result.get("reason", ""),
        "has_verdict_scenario": bool(task.verdict_code) or task.kind == "test",
    }


def crashed_row(task: BatchTask, reason: str) -> dict[str, Any]:
    """The row of a task whose Dask worker itself died (the scheduler gave up on it)."""
    return _row(task, {"verdict": "CRASHED", "exit": None, "reason": reason}, MAX_ATTEMPTS, time.perf_counter(), "")
