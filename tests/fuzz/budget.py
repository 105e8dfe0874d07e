"""How long a fuzz target runs, and the loop that runs it.

- CI (``./dev test``; ``LUNCOSIM_FUZZ_SECONDS`` unset or 0): a fixed, derandomized number of inputs
  per target (the same inputs every run; the whole folder takes about 20 s on 2 cores).
- ``LUNCOSIM_FUZZ_SECONDS=S``: a time budget. Each target draws fresh random inputs, in batches
  of :data:`BATCH`, until S seconds have passed; an input drawn after that is skipped, so a target
  overshoots by at most the one input it was running. The test's pytest timeout grows with S
  (:func:`fuzz_timeout`), so pytest-timeout never stops a long run.
- ``LUNCOSIM_FUZZ_KEEP_GOING=1`` (a campaign): a failing input does not stop its target; each
  distinct defect (exception type and where it was raised) is counted and its first input kept,
  and the target fails at its end listing them (inputs written beside ``LUNCOSIM_FUZZ_LOG`` when
  set). Without it a failure stops the target and hypothesis shrinks the input.
"""

from __future__ import annotations

import os
import re
import time
import traceback

import pytest
from hypothesis import HealthCheck, given, settings

SECONDS = float(os.environ.get("LUNCOSIM_FUZZ_SECONDS", "0") or 0)
KEEP_GOING = os.environ.get("LUNCOSIM_FUZZ_KEEP_GOING", "") not in ("", "0")
BATCH = 20  # inputs per hypothesis run in the timed mode (each run draws a fresh random seed)
CI_TIMEOUT_S = 240  # pyproject's per-test timeout, kept in CI mode
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def fuzz_timeout(per_input_s: float) -> int:
    """The pytest timeout of a fuzz test: the budget, one input past it and room to start."""
    return int(max(CI_TIMEOUT_S, SECONDS + per_input_s + 120)) if SECONDS > 0 else CI_TIMEOUT_S


def fuzz_mark(per_input_s: float):
    return pytest.mark.timeout(fuzz_timeout(per_input_s))


def defect_signature(exc: BaseException) -> str:
    """What and where: the exception (or, for a child's traceback, its last line) and the
    innermost frame in our code."""
    text = "".join(traceback.format_exception(exc))
    frames = re.findall(r'File "([^"]*luncosim_core/[^"]+)", line (\d+)', text)
    where = f"{frames[-1][0].split('luncosim_core/')[-1]}:{frames[-1][1]}" if frames else "?"
    last = [ln for ln in text.strip().splitlines() if ln.strip()][-1].strip()
    return f"{last[:160]} at {where}"


def fuzz(strategy, check, *, ci_examples: int, record_time=None, target: str = "", record=None) -> int:
    """Feed ``strategy``'s inputs to ``check`` (see the module doc); returns how many were checked.

    ``check(value)`` raises on a defect (hypothesis then shrinks the input); ``record_time(target,
    seconds, slowest)`` is told how long the target ran and its slowest input took; ``record(target,
    outcome)`` counts a defect found while keeping going (``LUNCOSIM_FUZZ_KEEP_GOING``)."""
    timed = SECONDS > 0
    deadline = time.monotonic() + SECONDS
    checked = 0
    failing = False  # once an input failed, hypothesis replays and shrinks it: never skip then
    slowest = 0.0
    defects: dict[str, list] = {}  # signature -> [count, first input] (keep-going mode)

    @given(strategy)
    @settings(max_examples=BATCH if timed else ci_examples, derandomize=not timed, database=None, deadline=None,
              suppress_health_check=_SUPPRESS, print_blob=True)
    def one(value):
        nonlocal checked, failing, slowest
        if timed and not failing and time.monotonic() > deadline:
            return  # the budget is spent: the rest of this batch is drawn but not run
        t = time.monotonic()
        try:
            check(value)
        except Exception as exc:
            if not KEEP_GOING:
                failing = True
                raise
            sig = defect_signature(exc)
            defects.setdefault(sig, [0, value])[0] += 1
            if record is not None:
                record(target, "DEFECT")
        except BaseException:
            failing = True
            raise
        slowest = max(slowest, time.monotonic() - t)
        checked += 1

    t0 = time.monotonic()
    one()
    while timed and time.monotonic() < deadline:
        one()
    if record_time is not None:
        record_time(target, time.monotonic() - t0, slowest)
    if defects:
        _write_defects(target, defects)
        raise AssertionError(f"{target}: {sum(n for n, _ in defects.values())} input(s) hit "
                             f"{len(defects)} defect(s):\n" + "\n".join(f"  {n} x {sig}" for sig, (n, _) in defects.items()))
    return checked


def _write_defects(target: str, defects: dict) -> None:
    log = os.environ.get("LUNCOSIM_FUZZ_LOG")
    if not log:
        return
    with open(log + ".defects", "a", encoding="utf-8") as f:
        for sig, (n, value) in defects.items():
            f.write(f"== {target}: {n} x {sig}\n{value!r}\n")
