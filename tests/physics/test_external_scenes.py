"""The public LunCoSim test scenes, projected and run (only when LUNCOSIM_EXTERNAL_ASSETS is set).

URIs (``lunco://``) resolve through the default resolver's search path: a temporary folder
holding a link named ``lunco:`` that points at the asset tree.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from physics_scenes import run
from pxr import Ar, Usd

from luncosim_core.physics import PhysicsWorld

ASSETS = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
pytestmark = [
    pytest.mark.external,
    pytest.mark.skipif(not ASSETS, reason="LUNCOSIM_EXTERNAL_ASSETS is not set"),
]


@pytest.fixture
def open_scene(tmp_path):
    mount = tmp_path / "mount"
    mount.mkdir()
    (mount / "lunco:").symlink_to(Path(ASSETS or ".").resolve())
    ctx = Ar.DefaultResolverContext([str(mount)])
    worlds: list[PhysicsWorld] = []

    def open_(name: str) -> PhysicsWorld:
        stage = Usd.Stage.Open(str(Path(ASSETS or ".") / "scenes" / "tests" / f"{name}.usda"), ctx)
        w = PhysicsWorld(stage)
        worlds.append(w)
        return w

    yield open_
    for w in worlds:
        w.close()


def test_joint_scene_fixed_pair_holds_and_witness_falls(open_scene):
    w = open_scene("joint")
    run(w, 240)
    pos = dict(zip(w.body_paths, w.positions(), strict=True))
    assert pos["/SandboxScene/CubeB"][1] == pytest.approx(5.0, abs=1e-3)
    assert pos["/SandboxScene/FreeCube"][1] == pytest.approx(0.5, abs=0.05)


def test_revolute_motor_scene(open_scene):
    w = open_scene("revolute_motor")
    run(w, 120)
    assert abs(w.read_port("/SandboxScene/Hinge", "angle")) < 0.1
    w.write_port("/SandboxScene/Hinge", "angle", 1.2)
    run(w, 480)
    assert w.read_port("/SandboxScene/Hinge", "angle") == pytest.approx(1.2, rel=0.1)


def test_prismatic_drive_scene(open_scene):
    w = open_scene("prismatic_drive")
    run(w, 300)
    assert w.read_port("/SandboxScene/Lift", "displacement") == pytest.approx(-1.5, rel=0.1)
    w.write_port("/SandboxScene/Lift", "displacement", -0.5)
    run(w, 300)
    assert w.read_port("/SandboxScene/Lift", "displacement") == pytest.approx(-0.5, rel=0.1)


@pytest.mark.parametrize(("scene", "expect"), [
    ("filtered_pairs", 0.0), ("collision_groups", 0.0), ("filtered_pairs_unfiltered", 1.0)])
def test_filtered_pair_scenes(open_scene, scene, expect):
    w = open_scene(scene)
    seen = 0.0
    for _ in range(240):
        w.step()
        seen = max(seen, w.read_port("/SandboxScene/Rig/Pad", "contact"))
    assert seen == expect


def test_escape_containment_scene_faults(open_scene):
    w = open_scene("escape_containment")
    assert w.fault is not None and w.fault.path == "/EscapeContainmentTest/Escapee"


def test_landing_legs_start_clean(open_scene):
    w = open_scene("landing_legs")
    assert not [d for d in w.diagnostics if d.code == "joint-starts-violated"]
    run(w, 600)
    assert w.fault is None
