"""One task on its own: the same verdict and final hash as ``luncosim test`` / ``luncosim run``."""

from __future__ import annotations

import re
import subprocess
import sys

from luncosim_core.batch.spec import BatchTask, load_sweep
from luncosim_core.batch.task import run_task


def luncosim(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "luncosim_core.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_a_scene_test_task_gives_luncosim_tests_verdict_and_hash(sled_dir):
    scene = sled_dir / "push_check.usda"
    row = run_task(BatchTask(task_id="t0", scene=str(scene), kind="test", ticks=400))
    cli = luncosim("test", "--scene", str(scene), "--max-ticks", "400")
    assert cli.returncode == 0 and row["verdict"] == "PASS" and row["exit"] == 0
    assert re.search(r"final hash ([0-9a-f]{64})", cli.stdout).group(1) == row["final_hash"]
    assert row["ticks"] == 30  # 30 x 1/60 = 0.49999999999999994 >= 0.5 with Rhai's float epsilon


def test_a_sweep_task_gives_luncosim_runs_hash_and_records_outputs(sled_dir):
    (sled_dir / "sweep.toml").write_text("""
scene = "sled.usda"
ticks = 45
[[parameter]]
port = "/Yard/Sled.force_x"
values = [0.0, 30.0]
[[output]]
port = "/Yard/Sled.position_x"
stats = ["final", "min", "max"]
""", encoding="utf-8")
    still, pushed = (run_task(t) for t in load_sweep(sled_dir / "sweep.toml"))
    cli = luncosim("run", "--scene", str(sled_dir / "sled.usda"), "--ticks", "45", "--set", "/Yard/Sled.force_x=30")
    assert cli.returncode == 0, cli.stderr
    assert re.search(r"final hash ([0-9a-f]{64})", cli.stdout).group(1) == pushed["final_hash"]
    assert pushed["final_hash"] != still["final_hash"]
    assert pushed["ticks"] == still["ticks"] == 45
    assert pushed["verdict"] == "NO_VERDICT" and pushed["reason"] == ""  # no verdict scenario was asked for
    x = pushed["outputs"]
    assert x["/Yard/Sled.position_x:final"] > 0.05 and x["/Yard/Sled.position_x:max"] == x["/Yard/Sled.position_x:final"]
    assert abs(still["outputs"]["/Yard/Sled.position_x:final"]) < 1e-3


def test_attribute_overrides_and_the_verdict_scenario(sled_dir):
    (sled_dir / "sweep.toml").write_text("""
scene = "sled.usda"
ticks = 200
verdict = "check.rhai"
[[parameter]]
port = "/Yard/Sled.force_x"
values = [20.0]
[[parameter]]
attribute = "/Yard/Sled.physics:mass"
values = [2.0, 4000.0]
""", encoding="utf-8")
    light, heavy = (run_task(t) for t in load_sweep(sled_dir / "sweep.toml"))
    assert light["verdict"] == "PASS", light["reason"]
    assert heavy["verdict"] == "FAIL"  # 20 N cannot move 4 t against friction in 0.5 s


def test_an_unknown_port_fails_the_task_and_says_why(sled_dir):
    task = BatchTask(task_id="s0", scene=str(sled_dir / "sled.usda"), kind="sweep", ticks=5,
                     params={"/Yard/Sled.warp_x": 1.0}, param_kinds={"/Yard/Sled.warp_x": "port"})
    row = run_task(task)
    assert row["verdict"] == "FAIL"
    assert "warp_x" in row["reason"]
