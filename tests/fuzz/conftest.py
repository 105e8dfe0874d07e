"""The fuzz suite: every generated or mutated input must end in a result or a diagnostic, within
its time and memory budget.

``./dev test`` runs a fixed, derandomized number of inputs per target; ``LUNCOSIM_FUZZ_SECONDS=N``
runs each target for N seconds of fresh random inputs (:mod:`tests.fuzz.budget`). At the end of
the session the outcomes are summarised ("fuzz outcomes": per target, the inputs tried, how long
it ran and how many ended in a result, a diagnostic, a limit or a contained compiler crash);
``LUNCOSIM_FUZZ_LOG=FILE`` appends them as JSON."""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict

import pytest

from tests.fuzz.budget import SECONDS

OUTCOMES: dict[str, Counter] = defaultdict(Counter)
TIMES: dict[str, float] = defaultdict(float)
SLOWEST: dict[str, float] = defaultdict(float)
PEAK_MB: dict[str, float] = defaultdict(float)  # the USD child's peak resident memory after an input


def record(target: str, outcome: str) -> None:
    OUTCOMES[target][outcome] += 1


def record_time(target: str, seconds: float, slowest: float = 0.0) -> None:
    TIMES[target] += seconds
    SLOWEST[target] = max(SLOWEST[target], slowest)


def record_peak(target: str, mb: float) -> None:
    PEAK_MB[target] = max(PEAK_MB[target], mb)


record.peak = record_peak


@pytest.fixture
def outcome():
    """``outcome(target, what)`` counts an input's outcome; ``outcome.peak(target, mb)`` its memory."""
    return record


@pytest.fixture
def timer():
    return record_time


@pytest.fixture(scope="session")
def usd_child(tmp_path_factory):
    """The child process USD and twin inputs are checked in (:mod:`tests.fuzz.usd_child`)."""
    from tests.fuzz.usd_child import UsdChild

    folder = tmp_path_factory.mktemp("usd-child")
    child = UsdChild(folder / "stderr.log")
    (folder / "twin/scenes").mkdir(parents=True)  # warm it: its start is no input's time
    (folder / "twin/twin.toml").write_text('name = "w"\n[usd]\ndefault_scene = "scenes/s.usda"\n', encoding="utf-8")
    (folder / "twin/scenes/s.usda").write_text('#usda 1.0\ndef Xform "W" {}\n', encoding="utf-8")
    child.check(folder / "twin", project=True)
    yield child
    child.close()


def state() -> dict:
    """This process's outcomes as plain data (what an xdist worker hands the controller)."""
    return {"times": dict(TIMES), "slowest": dict(SLOWEST), "peak_mb": dict(PEAK_MB),
            "outcomes": {t: dict(c) for t, c in OUTCOMES.items()}}


def pytest_sessionfinish(session):
    out = getattr(session.config, "workeroutput", None)
    if out is not None and OUTCOMES:  # an xdist worker: the controller writes the summary
        out["luncosim_fuzz"] = json.dumps(state())


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if OUTCOMES and getattr(config, "workeroutput", None) is None:
        write_summary(terminalreporter, [state()])


def write_summary(terminalreporter, states: list[dict]) -> None:
    """The "fuzz outcomes" section over one or more processes' outcomes; also appended to
    ``LUNCOSIM_FUZZ_LOG`` when set."""
    outcomes: dict[str, Counter] = defaultdict(Counter)
    times: dict[str, float] = defaultdict(float)
    slowest: dict[str, float] = defaultdict(float)
    peak: dict[str, float] = defaultdict(float)
    for st in states:
        for t, c in st["outcomes"].items():
            outcomes[t].update(c)
        for t, v in st["times"].items():
            times[t] += v
        for t, v in st["slowest"].items():
            slowest[t] = max(slowest[t], v)
        for t, v in st["peak_mb"].items():
            peak[t] = max(peak[t], v)
    mode = f"{SECONDS:g} s per target, random" if SECONDS > 0 else "CI: fixed, derandomized"
    terminalreporter.section(f"fuzz outcomes ({mode})")
    total = 0
    for target, counts in sorted(outcomes.items()):
        n = sum(counts.values())
        total += n if "→" not in target else 0
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        took = f" in {times[target]:.1f} s, slowest {slowest[target]:.2f} s" if target in times else ""
        took += f", peak {peak[target]:,.0f} MB" if target in peak else ""
        terminalreporter.write_line(f"{target}: {n} inputs{took} ({parts})")
    terminalreporter.write_line(f"total: {total} inputs")
    log = os.environ.get("LUNCOSIM_FUZZ_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"seconds_per_target": SECONDS, "times": dict(times), "slowest": dict(slowest),
                                "peak_mb": dict(peak), "outcomes": {t: dict(c) for t, c in outcomes.items()}}) + "\n")
