"""Batch scene tests on a local Dask cluster against the same tests run one after another.

The scene set is LunCoSim's scene tests when ``LUNCOSIM_EXTERNAL_ASSETS`` points at its assets
folder, else our own: the demo twin's drill check plus small sled scene tests written here. The
baseline, measured in the same run, is every test run sequentially in one process (no process
start-up, no scheduling: the cheapest way to run them one by one). Reported: the speed-up of the
batch with 2 workers and the per-task overhead, ``(batch wall x workers - sum of task run times)
/ tasks`` (process start, imports, scheduling).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from luncosim_core.batch.driver import open_client, run_batch
from luncosim_core.batch.spec import scene_test_tasks
from luncosim_core.batch.task import run_task

WORKERS = 2
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "batch"))


def our_scenes(folder: Path) -> list[Path]:
    import conftest  # the sled scenes of the batch tests

    (folder / "sled.usda").write_text(conftest.SLED, encoding="utf-8")
    scenes = [conftest._scene_test(folder, f"push_check_{i}", conftest.PUSH_CHECK) for i in range(6)]
    return [HERE.parent / "assets/twins/practice_yard/scenes/tests/drill_check.usda", *scenes]


def scenes_of(tasks) -> list[str]:
    return [Path(t.scene).name for t in tasks]


def main() -> int:
    external = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    with tempfile.TemporaryDirectory() as tmp:
        if external:
            scenes = sorted(Path(external, "scenes", "tests").glob("*.usda"))
            root = external
        else:
            scenes, root = our_scenes(Path(tmp)), None
        tasks = scene_test_tasks(scenes, ticks=20_000, lunco_root=root)
        print(f"{len(tasks)} scene tests ({'LunCoSim' if external else 'our own set'})", flush=True)
        t0 = time.perf_counter()
        sequential = [run_task(t) for t in tasks]
        seq_wall = time.perf_counter() - t0
        client = open_client(workers=WORKERS, scheduler=None)
        try:
            client.wait_for_workers(WORKERS)
            t0 = time.perf_counter()
            rows = run_batch(tasks, client, timeout_s=1800, memory_mb=0)
            batch_wall = time.perf_counter() - t0
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()
    same = sum(a["final_hash"] == b["final_hash"] and a["verdict"] == b["verdict"] for a, b in zip(sequential, rows, strict=True))
    run_total = sum(r["run_s"] or 0.0 for r in rows)
    overhead = (batch_wall * WORKERS - run_total) / len(rows)
    verdicts: dict[str, int] = {}
    for r in rows:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    print(f"verdicts: {verdicts}; identical verdict and hash to the sequential run: {same}/{len(rows)}")
    for scene, a, b in zip(scenes_of(tasks), sequential, rows, strict=True):
        if a["final_hash"] != b["final_hash"] or a["verdict"] != b["verdict"]:
            print(f"  differs: {scene}: sequential {a['verdict']} {str(a['final_hash'])[:12]} "
                  f"ticks {a['ticks']}, batch {b['verdict']} {str(b['final_hash'])[:12]} ticks {b['ticks']}")
    for scene, r in zip(scenes_of(tasks), rows, strict=True):
        print(f"  {scene:<44} {r['verdict']:<10} ticks {r['ticks']:>6}  {r['reason'][:90]}")
    print(f"sequential (one process): {seq_wall:.1f} s")
    print(f"batch, {WORKERS} local workers: {batch_wall:.1f} s")
    print(f"speed-up batch/sequential: {seq_wall / batch_wall:.2f}x")
    print(f"per-task overhead: {overhead:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
