"""LunCoSim's scene tests that spawn catalog entries at runtime (set LUNCOSIM_EXTERNAL_ASSETS to its
assets/): a rover spawned and given a runtime waypoint it arrives at, and the base-building
lesson whose unattended task spawns five structures and whose mission reads them back by
catalog id."""

from __future__ import annotations

import pytest

from luncosim_core.sim.scene_test import run_scene_test

SPAWN_SCENES = ["runtime_waypoint", "tutorial_build_base"]


@pytest.mark.external
@pytest.mark.parametrize("name", SPAWN_SCENES)
def test_lunco_spawning_scene_passes(external_assets, name):
    lines: list[str] = []
    report = run_scene_test(external_assets / "scenes" / "tests" / f"{name}.usda", lunco_root=external_assets,
                            out=lines.append)
    assert report.outcome == "PASS", "\n".join(lines[-30:])
