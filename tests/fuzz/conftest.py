"""The fuzz suite: every generated or mutated input must end in a result or a diagnostic.

It runs a bounded number of inputs per target in ``./dev test``; ``LUNCOSIM_FUZZ_SECONDS=N``
scales each target to about N seconds. At the end of the session the outcomes are summarised
(inputs tried per target, how many gave a result and how many a diagnostic)."""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict

import pytest

OUTCOMES: dict[str, Counter] = defaultdict(Counter)


def record(target: str, outcome: str) -> None:
    OUTCOMES[target][outcome] += 1


@pytest.fixture
def outcome():
    return record


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if not OUTCOMES:
        return
    terminalreporter.section("fuzz outcomes")
    for target, counts in sorted(OUTCOMES.items()):
        total = sum(counts.values())
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        terminalreporter.write_line(f"{target}: {total} inputs ({parts})")
    log = os.environ.get("LUNCOSIM_FUZZ_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({t: dict(c) for t, c in OUTCOMES.items()}) + "\n")
