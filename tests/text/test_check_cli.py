"""``luncosim check``: the editor's diagnostics from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from luncosim_core.twin.roots import repository_root

REPO = repository_root()


def _check(*args):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "luncosim_core.cli", "check", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=180)


def test_check_json_reports_errors_warnings_and_bad_files(tmp_path):
    good = REPO / "assets" / "twins" / "practice_yard" / "scenarios" / "yard_drill.rhai"
    bad = tmp_path / "bad.rhai"
    bad.write_text("fn on_tick(me) {\n    let x = ;\n}\n")
    mo = tmp_path / "Lag.mo"
    mo.write_text("model Lag\n  output Real y;\nequation\n  der(y) = -z;\nend Lag;\n")
    binary = tmp_path / "bin.rhai"
    binary.write_bytes(b"\xff\xfe\x00")
    done = _check("--json", good, bad, mo, binary, tmp_path)
    assert done.returncode == 1, done.stderr
    rows = json.loads(done.stdout)
    got = [(os.path.basename(r["file"]), r["line"], r["column"], r["severity"], r["code"]) for r in rows]
    assert ("bad.rhai", 2, 13, "error", "rhai.syntax") in got
    assert ("Lag.mo", 4, 13, "error", "modelica.unresolved") in got
    assert any(r[0] == "bin.rhai" and r[4] == "check-unreadable" and r[1] is None for r in got)
    assert any(r[4] == "check-unsupported" for r in got)  # a folder is not a source file
    assert not [r for r in got if r[0] == "yard_drill.rhai"]
    assert _check(good).returncode == 0
