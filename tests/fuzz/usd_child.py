"""USD and twin fuzz inputs, checked in a child process with a time and a memory budget.

``luncosim validate`` and the projection are native code (USD, pybullet) an input could make
hang, crash or take memory without bound; in the test process that would take pytest with it
and go unmeasured. So a persistent child (``python -m tests.fuzz.usd_child``) takes one twin
folder at a time (a JSON line on stdin), runs ``validate_path`` with ``validate_lint`` (the
command's own path: composition, asset checks, lint, programs compiled) and, for a subset
(every input that validated without errors, and the others whose layers parsed that the parent
picks: a third of them, by content), the projection:
``open_simulation`` and :data:`TICKS` ticks. It answers a JSON line: the outcome, the diagnostic
codes, its wall time and its peak resident memory.

Budgets, enforced by the parent (:class:`UsdChild`): each input must answer within
:data:`INPUT_SECONDS`; the child's address space is limited to :data:`ADDRESS_SPACE_MB` (a blow-up
ends in an allocation failure there, not in the machine swapping) and its peak resident memory
must stay under :data:`PEAK_MB`. A timeout, a crash of the child, an exception out of the command
path or memory past the budget fails the input (hypothesis then shrinks it). The child is
restarted every :data:`RESTART_EVERY` inputs, so slow growth across inputs is not blamed on one.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

INPUT_SECONDS = 60.0  # validate (a Modelica compile included) + projection of one input
ADDRESS_SPACE_MB = 6144  # the child's RLIMIT_AS (it needs ~1.5 GB of address space to start)
PEAK_MB = 1536  # peak resident memory of the child after any input
RESTART_EVERY = 200
TICKS = 5
REPO = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------ child side
def _limit_memory() -> None:
    import resource

    limit = ADDRESS_SPACE_MB * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash writes no core file


def _peak_mb() -> float:
    """This process's peak resident memory (``VmHWM``).

    Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux carries that high-water mark across
    ``execve``, and ``subprocess`` starts the child with ``vfork``, so it would report the
    pytest worker's own peak (gigabytes after a long run) as the child's.
    """
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _check(request: dict) -> dict:
    from luncosim_core.diagnostics import Diagnostic
    from luncosim_core.lint import validate_lint
    from luncosim_core.usd.validate import validate_path

    diags = validate_path(request["folder"], lint=validate_lint)
    if not isinstance(diags, list) or not all(isinstance(d, Diagnostic) and d.code and d.message for d in diags):
        return {"error": f"validate returned {diags!r}: not a list of diagnostics that say what"}
    errors = [d for d in diags if d.is_error]
    reply = {"outcome": "diagnostic" if errors else "result", "codes": sorted({d.code for d in errors})}
    parsed = "usd-malformed-layer" not in reply["codes"]  # a layer USD cannot read is refused at once
    if request.get("project") and parsed and (not errors or request.get("project_any")):
        reply["projection"] = _project(request["folder"], clean=not errors)
    return reply


def _project(folder: str, clean: bool) -> str:
    """``open_simulation`` and a few ticks: what happened, in a word or two."""
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.sim.simulation import open_simulation

    try:
        sim = open_simulation(folder)
    except (DiagnosticError, FileNotFoundError):
        return "refused" if not clean else "refused, though validate found no error"
    try:
        sim.wait_until_ready(INPUT_SECONDS / 3)
        sim.run(TICKS)
        return "faulted" if sim.fault is not None else "ran"
    finally:
        sim.close()


def main() -> int:
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # pybullet and the native libraries print to fd 1: keep it off the protocol
    sys.stdout = sys.stderr
    _limit_memory()
    for line in sys.stdin:
        request = json.loads(line)
        t0 = time.perf_counter()
        try:
            reply = _check(request)
        except Exception:  # noqa: BLE001 - a traceback out of the command path is the defect
            reply = {"error": traceback.format_exc()}
        reply.update(seconds=time.perf_counter() - t0, peak_mb=_peak_mb())
        proto_out.write(json.dumps(reply) + "\n")
        proto_out.flush()
    return 0


# ------------------------------------------------------------------------------ parent side
class UsdChild:
    """The parent's handle on the child (started on first use, restarted after a failure)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self._proc: subprocess.Popen | None = None
        self._answered = 0

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
        with open(self.log, "ab") as err:
            self._proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.usd_child"], cwd=REPO, env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, close_fds=True)
        self._answered = 0
        return self._proc

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def check(self, folder: Path, *, project: bool = False, project_any: bool = False) -> dict:
        """The child's answer for ``folder``; AssertionError when the input broke a budget."""
        if self._proc is not None and self._answered >= RESTART_EVERY:
            self.close()
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        request = {"folder": str(folder), "project": project, "project_any": project_any}
        proc.stdin.write((json.dumps(request) + "\n").encode())
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], INPUT_SECONDS)
        if not ready:
            proc.kill()
            proc.wait()
            self._proc = None
            raise AssertionError(f"the input took over {INPUT_SECONDS:g} s (hang or runaway work)")
        line = proc.stdout.readline()
        if not line:
            code = proc.wait()
            self._proc = None
            how = signal.Signals(-code).name if code < 0 and -code in signal.Signals._value2member_map_ else f"exit {code}"
            raise AssertionError(f"the validate process died on this input ({how}); see {self.log}")
        self._answered += 1
        reply = json.loads(line)
        if reply.get("error"):
            raise AssertionError(f"exception out of the command path:\n{reply['error']}")
        if reply["peak_mb"] > PEAK_MB:
            self.close()
            raise AssertionError(f"the input took the process to {reply['peak_mb']:,.0f} MB (budget {PEAK_MB:,} MB)")
        return reply


if __name__ == "__main__":
    raise SystemExit(main())
