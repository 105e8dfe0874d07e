"""Scene tests of the public LunCoSim asset tree (set LUNCOSIM_EXTERNAL_ASSETS to its assets/)."""

from __future__ import annotations

import pytest

from luncosim_core.scripting.testrunner import run_scene_test

#: Scene tests that need only rigid-body physics and must pass.
RIGID_BODY_SCENES = ["joint", "revolute_motor", "prismatic_drive", "filtered_pairs",
                     "filtered_pairs_unfiltered", "collision_groups", "g7_joints", "prismatic_spring",
                     "differential_rig_nodiff", "escape_containment"]


@pytest.mark.external
@pytest.mark.parametrize("name", RIGID_BODY_SCENES)
def test_lunco_rigid_body_scene_passes(external_assets, name):
    scene = external_assets / "scenes" / "tests" / f"{name}.usda"
    lines: list[str] = []
    report = run_scene_test(scene, lunco_root=external_assets, out=lines.append)
    assert report.exit_code == 0, "\n".join(lines[-30:])
    if name != "escape_containment":
        assert report.verdicts and report.verdicts[0].value == "PASS"
