"""Scene tests of the public LunCoSim asset tree (set LUNCOSIM_EXTERNAL_ASSETS to its assets/).

`test_lunco_rigid_body_scene_passes` pins the scenes that need only rigid-body physics.
`test_record_every_lunco_scene_test` runs every scene test, prints one line per scene and, when
LUNCOSIM_SCENE_TEST_RECORD names a file, writes the results there as JSON; it only fails when
the runner itself crashes or a pinned scene does not pass."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from luncosim_core.sim.scene_test import run_scene_test

#: Scene tests that need only rigid-body physics and must pass.
RIGID_BODY_SCENES = ["joint", "revolute_motor", "prismatic_drive", "filtered_pairs",
                     "filtered_pairs_unfiltered", "collision_groups", "g7_joints", "prismatic_spring",
                     "differential_rig_nodiff", "rocker_bogie_nodiff", "escape_containment"]


@pytest.mark.external
@pytest.mark.parametrize("name", RIGID_BODY_SCENES)
def test_lunco_rigid_body_scene_passes(external_assets, name):
    scene = external_assets / "scenes" / "tests" / f"{name}.usda"
    lines: list[str] = []
    report = run_scene_test(scene, lunco_root=external_assets, out=lines.append)
    assert report.exit_code == 0, "\n".join(lines[-30:])
    if name != "escape_containment":
        assert report.verdicts and report.verdicts[0].value == "PASS"


@pytest.mark.external
@pytest.mark.slow
def test_record_every_lunco_scene_test(external_assets, capsys):
    results = {}
    for scene in sorted((external_assets / "scenes" / "tests").glob("*.usda")):
        report = run_scene_test(scene, lunco_root=external_assets, out=lambda s: None)
        results[scene.stem] = {"outcome": report.outcome, "exit_code": report.exit_code,
                               "ticks": report.ticks, "reasons": report.reasons[:3]}
    with capsys.disabled():
        for name, r in results.items():
            print(f"{name:32s} {r['outcome']:10s} {r['ticks']:6d}  {'; '.join(r['reasons'])[:120]}")
    target = os.environ.get("LUNCOSIM_SCENE_TEST_RECORD")
    if target:
        Path(target).write_text(json.dumps(results, indent=1), encoding="utf-8")
    assert all(results[n]["exit_code"] == 0 for n in RIGID_BODY_SCENES if n in results)
