"""Scene tests of the public LunCoSim asset tree (set LUNCOSIM_EXTERNAL_ASSETS to its assets/).

`test_lunco_rigid_body_scene_passes` pins the scenes that need only rigid-body physics.
`test_record_lunco_scene_test` runs one scene test per scene (parametrized over the scene files
found under LUNCOSIM_EXTERNAL_ASSETS at collection, so each has its own timeout), prints one line
for it and, when LUNCOSIM_SCENE_TEST_RECORD names a file, writes every result collected so far
there as JSON; it only fails when the runner itself crashes or a pinned scene does not pass."""

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


def _scene_names() -> list[str]:
    """The scene tests of the asset tree LUNCOSIM_EXTERNAL_ASSETS names (none without it)."""
    root = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    tests = Path(root) / "scenes" / "tests" if root else None
    if tests is None or not tests.is_dir():
        return []
    return sorted(p.stem for p in tests.glob("*.usda"))


#: Results of the scene tests run in this session, by scene name (written out as they arrive).
_RESULTS: dict[str, dict] = {}


@pytest.mark.external
@pytest.mark.slow
@pytest.mark.timeout(600)  # one scene: the long lander missions run 20000 ticks (~300 s on 2 cores)
@pytest.mark.parametrize("name", _scene_names() or [pytest.param("-", marks=pytest.mark.skip(
    reason="LUNCOSIM_EXTERNAL_ASSETS not set"))])
def test_record_lunco_scene_test(external_assets, capsys, name):
    scene = external_assets / "scenes" / "tests" / f"{name}.usda"
    report = run_scene_test(scene, lunco_root=external_assets, out=lambda s: None)
    r = _RESULTS[name] = {"outcome": report.outcome, "exit_code": report.exit_code, "ticks": report.ticks,
                          "reasons": report.reasons[:3]}
    with capsys.disabled():
        print(f"\n{name:32s} {r['outcome']:10s} {r['ticks']:6d}  {'; '.join(r['reasons'])[:120]}")
    target = os.environ.get("LUNCOSIM_SCENE_TEST_RECORD")
    if target:
        Path(target).write_text(json.dumps(dict(sorted(_RESULTS.items())), indent=1), encoding="utf-8")
    if name in RIGID_BODY_SCENES:
        assert report.exit_code == 0, f"{name}: {report.outcome} {report.reasons[:3]}"
