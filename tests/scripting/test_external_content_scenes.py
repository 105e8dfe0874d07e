"""LunCoSim scene tests that need runtime wire sources, environment probes, component networks and
the lint (set LUNCOSIM_EXTERNAL_ASSETS to its assets/)."""

from __future__ import annotations

import pytest

from luncosim_core.sim.scene_test import run_scene_test

#: Scene tests that pass on wire sources, probes, networks and the ported lint rules.
CONTENT_SCENES = ["sandbox_smoke", "thermal_with_battery", "antenna_mount", "sun_tracker", "lint_selftest"]


@pytest.mark.external
@pytest.mark.slow
@pytest.mark.parametrize("name", CONTENT_SCENES)
def test_lunco_content_scene_passes(external_assets, name):
    scene = external_assets / "scenes" / "tests" / f"{name}.usda"
    lines: list[str] = []
    report = run_scene_test(scene, lunco_root=external_assets, out=lines.append)
    assert report.exit_code == 0, "\n".join(lines[-30:])
