"""How many inputs a fuzz target tries: a small fixed number in CI, more with
``LUNCOSIM_FUZZ_SECONDS`` (roughly that many seconds per target)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings


def fuzz_settings(per_second: float, ci_examples: int):
    """Hypothesis settings: ``ci_examples`` inputs, or ``per_second`` x LUNCOSIM_FUZZ_SECONDS."""
    seconds = float(os.environ.get("LUNCOSIM_FUZZ_SECONDS", "0") or 0)
    n = max(ci_examples, int(per_second * seconds)) if seconds > 0 else ci_examples
    return settings(max_examples=n, deadline=None, derandomize=seconds <= 0, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
