"""Batches on real Dask clusters: a LocalCluster of two workers, and a scheduler and a worker
started as separate processes (``dask scheduler`` / ``dask worker``)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from luncosim_core.batch.report import LEADING, TRAILING
from luncosim_core.batch.spec import BatchTask, load_sweep
from luncosim_core.batch.task import run_task

BIN = Path(sys.executable).parent


def batch(*args: str, env: dict | None = None, timeout: float = 420) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "luncosim_core.cli", "batch", "--no-progress", *args],
                          capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})


def rows_of(out: Path) -> list[dict]:
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_local_cluster_retries_a_crash_once_then_records_crashed(sled_dir, tmp_path):
    for name in ("crash_once", "crash_always"):
        shutil.copy(sled_dir / "push_check.usda", sled_dir / f"{name}.usda")
    out = tmp_path / "results"
    run = batch("--scenes", str(sled_dir / "push_check.usda"), str(sled_dir / "crash_*.usda"),
                "--workers", "2", "--out", str(out), "--max-ticks", "400",
                env={"LUNCOSIM_BATCH_INJECT_CRASH": "once:crash_once,always:crash_always"})
    assert run.returncode == 1, run.stdout + run.stderr  # one task crashed
    assert "running 3 tasks on a local cluster of 2 workers" in run.stdout
    assert "dask dashboard: " in run.stdout
    rows = {Path(r["scene"]).stem: r for r in rows_of(out)}
    assert rows["push_check"]["verdict"] == "PASS" and rows["push_check"]["attempts"] == "1"
    assert rows["crash_once"]["verdict"] == "PASS" and rows["crash_once"]["attempts"] == "2"
    crashed = rows["crash_always"]
    assert crashed["verdict"] == "CRASHED" and "SIGSEGV" in crashed["reason"] and "attempt 2" in crashed["reason"]
    assert crashed["exit"] == ""  # no verdict, so no exit code: the reason names the signal
    local = run_task(BatchTask(task_id="x", scene=str(sled_dir / "push_check.usda"), kind="test", ticks=400))
    assert rows["push_check"]["final_hash"] == rows["crash_once"]["final_hash"] == local["final_hash"]
    assert rows["push_check"]["exit"] == "0" and rows["push_check"]["ticks"] == "30"  # Rhai float epsilon
    with open(out / "results.csv", encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    assert header == LEADING + TRAILING
    table = pq.read_table(out / "results.parquet")
    assert table.column_names == header and table.num_rows == 3
    assert sorted(table.column("verdict").to_pylist()) == ["CRASHED", "PASS", "PASS"]
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "CRASHED 1" in report and "PASS 2" in report and "<script" not in report and "http" not in report


def test_a_task_past_its_timeout_is_stopped_and_recorded(sled_dir, tmp_path):
    out = tmp_path / "results"
    started = time.monotonic()
    run = batch("--scenes", str(sled_dir / "never.usda"), "--workers", "1", "--timeout-s", "8",
                "--max-ticks", "100000000", "--out", str(out))
    assert run.returncode == 1, run.stdout + run.stderr
    (row,) = rows_of(out)
    assert row["verdict"] == "TIMEOUT" and "within 8 s" in row["reason"] and row["exit"] == ""
    assert time.monotonic() - started < 240


def test_sweep_through_a_scheduler_and_worker_started_as_processes(sled_dir, tmp_path):
    (sled_dir / "sweep.toml").write_text("""
scene = "sled.usda"
ticks = 40
[[parameter]]
port = "/Yard/Sled.force_x"
values = [0.0, 25.0]
[[output]]
port = "/Yard/Sled.position_x"
""", encoding="utf-8")
    sched_file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sched_file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--nworkers", "1",
                                       "--no-dashboard", "--name", "remote-1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        out = tmp_path / "results"
        run = batch("--sweep", str(sled_dir / "sweep.toml"), "--scheduler", address, "--out", str(out))
        assert run.returncode == 0, run.stdout + run.stderr
        assert f"running 2 tasks on {address}" in run.stdout
        rows = rows_of(out)
        assert [r["worker"] for r in rows] == ["remote-1", "remote-1"]
        local = [run_task(t) for t in load_sweep(sled_dir / "sweep.toml")]
        assert [r["final_hash"] for r in rows] == [r["final_hash"] for r in local]
        assert float(rows[1]["/Yard/Sled.position_x:final"]) > 0.05
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_bad_invocations_exit_2_with_a_reason(sled_dir, tmp_path, capsys):
    from luncosim_core.cli import main

    def run(*args: str) -> tuple[int, str]:
        code = main(["batch", "--no-progress", *args])
        return code, capsys.readouterr().err

    assert run("--out", str(tmp_path))[0] == 2  # neither --scenes nor --sweep
    code, err = run("--scenes", str(sled_dir / "nothing-*.usda"), "--out", str(tmp_path))
    assert code == 2 and "matches no file" in err
    started = time.monotonic()
    code, err = run("--scenes", str(sled_dir / "sled.usda"), "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path))
    assert code == 2 and "cannot reach the Dask scheduler" in err
    assert time.monotonic() - started < 5  # refused at once, not after Dask's connect timeout
    for address in ("notanaddress", "http://127.0.0.1:9"):
        code, err = run("--scenes", str(sled_dir / "sled.usda"), "--scheduler", address, "--out", str(tmp_path))
        assert code == 2 and "is not a Dask scheduler address" in err, err


def test_a_dask_worker_that_dies_gets_its_task_run_once_more_then_crashed(sled_dir, tmp_path):
    for name in ("worker_once", "worker_always"):
        shutil.copy(sled_dir / "push_check.usda", sled_dir / f"{name}.usda")
    log = tmp_path / "kills.log"
    env = {"LUNCOSIM_BATCH_INJECT_CRASH": "worker-once:worker_once,worker:worker_always",
           "LUNCOSIM_BATCH_INJECT_LOG": str(log)}
    rows = {}
    for name in ("worker_once", "worker_always"):  # one at a time: a dying worker takes its queue along
        run = batch("--scenes", str(sled_dir / f"{name}.usda"), "--workers", "2", "--out", str(tmp_path / name),
                    "--max-ticks", "400", env=env)
        (rows[name],) = rows_of(tmp_path / name)
        assert run.returncode == (0 if name == "worker_once" else 1), run.stdout + run.stderr
    assert rows["worker_once"]["verdict"] == "PASS"  # its worker died once: it ran again
    dead = rows["worker_always"]
    assert dead["verdict"] == "CRASHED" and "Dask worker running it died" in dead["reason"], dead
    kills = log.read_text().splitlines()
    assert sum("worker_always" in k for k in kills) == 2  # the first run and one more, no third
    assert sum("worker_once" in k for k in kills) == 1


def test_a_run_past_the_memory_limit_is_crashed_and_says_so(sled_dir, tmp_path):
    out = tmp_path / "results"
    run = batch("--scenes", str(sled_dir / "push_check.usda"), "--workers", "1", "--memory-mb", "400",
                "--out", str(out))
    assert run.returncode == 1, run.stdout + run.stderr
    (row,) = rows_of(out)
    assert row["verdict"] == "CRASHED" and "memory limit" in row["reason"] and row["attempts"] == "2"


@pytest.mark.parametrize("bad", [["--workers", "0"], ["--timeout-s", "0"], ["--timeout-s", "nan"]])
def test_bad_numbers_exit_2(sled_dir, tmp_path, bad, capsys):
    from luncosim_core.cli import main

    try:
        code = main(["batch", "--no-progress", "--scenes", str(sled_dir / "sled.usda"), "--out", str(tmp_path), *bad])
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    assert code == 2 and "luncosim batch" in capsys.readouterr().err
