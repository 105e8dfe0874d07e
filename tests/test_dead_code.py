"""No dead code: vulture (60% confidence, the level that reports unused functions and methods)
finds nothing unused outside tests/vulture_whitelist.py. The Rhai interpreter (its builtins are
registered by decorator), Modelica and physics packages join this check when the work reshaping
them lands (docs/architecture.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXCLUDED = ("luncosim_core/scripting/rhai", "luncosim_core/modelica", "luncosim_core/physics",
            "tests/rhai", "tests/modelica", "tests/physics")


def test_vulture_finds_no_unused_code():
    done = subprocess.run(
        [sys.executable, "-m", "vulture", "luncosim_core", "luncosim_workbench", "tests", "benchmarks", "docs/images",
         "packaging", "tests/vulture_whitelist.py", "--min-confidence", "60", "--exclude", ",".join(EXCLUDED)],
        capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
