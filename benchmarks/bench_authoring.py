"""What an edit costs a running simulation, and what a minimal-diff save costs.

On the demo twin (two rovers with Modelica controllers, a Rhai scenario), measured in one run:

- a structural edit carried by ``SyncStage`` (flatten the document, swap the copy, re-project
  keeping the clock and the motion) against the baseline, building a fresh Simulation from the same
  flattened text (what restarting the projection at tick 0 costs);
- a value edit carried by ``ApplyOp`` against the same baseline;
- a minimal-diff save of a one-value edit against a plain export of the layer.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from luncosim_core.sim.mirror import StageDocument, edit_command, flattened_text, stage_from_text
from luncosim_core.sim.programs import program_participants
from luncosim_core.sim.simulation import Simulation
from luncosim_core.twin import open_path
from luncosim_core.usd.create import create
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import SetAttribute
from luncosim_core.usd.usda_merge import merge_edits

DEMO = Path(__file__).resolve().parents[1] / "assets" / "twins" / "practice_yard"
REPEAT = 5


def _best(fn, repeat: int = REPEAT) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(DEMO, Path(tmp) / "yard")
        opened = open_path(Path(tmp) / "yard")
        doc = UsdDocument(opened.scene, opened.twin.roots, register=False)
        roots = opened.twin.roots
        text = flattened_text(doc.stage)

        def fresh() -> Simulation:
            stage = stage_from_text(text)
            return Simulation(stage, roots=roots, document=StageDocument(stage, roots),
                              participant_factory=program_participants)

        sim = fresh()
        sim.wait_until_ready(120)
        sim.run(30)

        def restart() -> None:
            fresh().close()

        def structural() -> None:
            op = create("cube", doc.stage, "/PracticeYard")
            doc.apply(op)
            sim.execute(edit_command(doc.stage, op))
            doc.undo()

        def value() -> None:
            op = SetAttribute(path="/PracticeYard/Marker", name="size", value=0.75)
            doc.apply(op)
            sim.execute(edit_command(doc.stage, op))

        base = _best(restart)
        t_struct = _best(structural)
        t_value = _best(value)
        original = opened.scene.read_text()
        before = doc.base.ExportToString()
        doc.apply(SetAttribute(path="/PracticeYard/Marker", name="size", value=0.5))
        after = doc.base.ExportToString()
        t_export = _best(doc.base.ExportToString, 20)
        t_merge = _best(lambda: merge_edits(original, before, after), 20)
        sim.close()
    print(f"restart baseline (fresh projection): {base * 1e3:.1f} ms")
    print(f"structural edit via SyncStage, keeping time: {t_struct * 1e3:.1f} ms = {t_struct / base:.2f} x restart")
    print(f"value edit via ApplyOp: {t_value * 1e3:.1f} ms = {t_value / base:.2f} x restart")
    print(f"minimal-diff save text: {t_merge * 1e3:.2f} ms = {t_merge / t_export:.1f} x a plain export")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
