"""``python -m luncosim_core.batch.child``: run one task in a process of its own.

Reads a task (JSON) on stdin, applies the memory limit, runs it and writes the result (one JSON
object) on the original stdout; everything else the run prints (native libraries included) goes
to stderr. A crash of this process (a signal, the memory limit) is the parent's to report.

``LUNCOSIM_BATCH_INJECT_CRASH`` is a fault-injection aid for testing a cluster set-up: a comma
list of ``once:TEXT`` (the first attempt of every task whose scene path contains TEXT dies with
SIGSEGV), ``always:TEXT`` (every attempt does), ``worker:TEXT`` (the Dask worker running the task
is killed, every time) and ``worker-once:TEXT`` (only the first time: it needs
``LUNCOSIM_BATCH_INJECT_LOG``, a file to which every worker kill appends the scene's path).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys


def _limit_memory(mb: int) -> None:
    if mb <= 0:
        return
    import resource

    limit = mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _maybe_inject_crash(scene: str, attempt: int) -> None:
    log = os.environ.get("LUNCOSIM_BATCH_INJECT_LOG", "")
    for entry in os.environ.get("LUNCOSIM_BATCH_INJECT_CRASH", "").split(","):
        mode, _, text = entry.strip().partition(":")
        if not text or text not in scene:
            continue
        if mode == "always" or (mode == "once" and attempt == 1):
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "worker" or (mode == "worker-once" and log and not _logged(log, scene)):
            if log:
                with open(log, "a", encoding="utf-8") as f:
                    f.write(scene + "\n")
            os.kill(os.getppid(), signal.SIGKILL)  # the worker process that started this child
            os._exit(9)


def _logged(log: str, scene: str) -> bool:
    try:
        with open(log, encoding="utf-8") as f:
            return scene in f.read().splitlines()
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="luncosim-batch-child")
    parser.add_argument("--memory-mb", type=int, default=0)
    args = parser.parse_args(argv)
    result_fd = os.dup(1)
    os.dup2(2, 1)  # anything printed by the run (Python or native) goes to stderr
    sys.stdout = sys.stderr
    _limit_memory(args.memory_mb)
    from luncosim_core.batch.spec import BatchTask
    from luncosim_core.batch.task import run_task

    task = BatchTask.from_json(sys.stdin.read())
    _maybe_inject_crash(task.scene, task.attempt)
    try:
        result = run_task(task)
    except MemoryError:
        result = {"verdict": "CRASHED", "exit": None, "reason": f"the run exceeded the memory limit ({args.memory_mb} MB)"}
    with os.fdopen(result_fd, "w", encoding="utf-8") as out:
        json.dump(result, out)
        out.write("\n")
    code = result.get("exit")
    return code if isinstance(code, int) else 3


if __name__ == "__main__":
    sys.exit(main())
