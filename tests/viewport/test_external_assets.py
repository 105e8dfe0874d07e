"""Optional: draw a real vehicle scene from a LunCoSim asset tree (LUNCOSIM_EXTERNAL_ASSETS)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from pxr import Ar, Usd

from luncosim_workbench.viewport import SceneModel, pick

ASSETS = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
pytestmark = [
    pytest.mark.external,
    pytest.mark.skipif(not ASSETS, reason="LUNCOSIM_EXTERNAL_ASSETS is not set"),
]


@pytest.fixture
def six_wheel(tmp_path):
    scene = Path(ASSETS) / "scenes" / "tests" / "six_wheel.usda"
    if not scene.exists():
        pytest.skip(f"{scene} not in this asset tree")
    (tmp_path / "lunco:").symlink_to(Path(ASSETS).resolve())
    ctx = Ar.DefaultResolverContext([str(tmp_path)])
    with Ar.ResolverContextBinder(ctx):
        stage = Usd.Stage.Open(str(scene), ctx)
        yield stage


def test_six_wheel_rover_is_drawn_batched_and_pickable(six_wheel):
    m = SceneModel(six_wheel)
    assert m.up_axis == "Y"
    assert len(m.body_paths) >= 7  # chassis and six wheels
    assert len(m.buckets) <= 4
    # a ray straight down onto the chassis centre hits a rover prim, not the ground
    lo, hi = m.bounds([p for k, b in m.buckets.items() if k.dynamic for p in b.prim_paths])
    top = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] + 5.0])
    hit = pick(m, top, (0, 0, -1))
    assert hit is not None and "Rover" in hit


@pytest.mark.gl
def test_six_wheel_renders(six_wheel, tmp_path, gl_canvas):
    vc = gl_canvas(320, 200)
    vc.set_stage(six_wheel)
    img = vc.render()
    assert len(np.unique(img[..., :3].reshape(-1, 3), axis=0)) > 100
