"""Jointed trees with branches (a rocker-bogie): every body starts where the stage puts it.

The joints author no ``localPos``: the anchor is derived from the composed poses (body1's
origin), as LunCoSim's rover assets expect."""

from __future__ import annotations

import numpy as np
from physics_scenes import GROUND, LUNAR_SCENE, run

_BODY = """
def Cube "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
{{
    double size = 0.2
    double3 xformOp:translate = {pos}
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = {mass}
}}
"""
_HINGE = """
def PhysicsRevoluteJoint "{name}"
{{
    rel physics:body0 = <{b0}>
    rel physics:body1 = <{b1}>
    uniform token physics:axis = "X"
}}
"""
AUTHORED = {
    "/Chassis": (0.0, 1.6, 0.0),
    "/RockerL": (-0.99, 1.4, 0.0),
    "/RockerR": (0.99, 1.4, 0.0),
    "/BogieL": (-0.99, 1.2, 0.6),
    "/BogieR": (0.99, 1.2, 0.6),
}
ROCKER_BOGIE = LUNAR_SCENE + GROUND + "".join(
    _BODY.format(name=p[1:], pos=pos, mass=100.0 if p == "/Chassis" else 10.0) for p, pos in AUTHORED.items()
) + "".join(_HINGE.format(name=n, b0=b0, b1=b1) for n, b0, b1 in (
    ("HingeL", "/Chassis", "/RockerL"), ("HingeR", "/Chassis", "/RockerR"),
    ("BogieHingeL", "/RockerL", "/BogieL"), ("BogieHingeR", "/RockerR", "/BogieR")))


def test_every_branch_of_a_rocker_bogie_starts_at_its_authored_pose(make_world):
    w = make_world(ROCKER_BOGIE)
    pos = dict(zip(w.body_paths, w.positions(), strict=True))
    for path, want in AUTHORED.items():
        assert np.allclose(pos[path], want, atol=1e-6), (path, pos[path])
    assert not [d for d in w.diagnostics if d.code == "joint-starts-violated"]


def test_a_bogie_stays_on_its_own_rocker_while_running(make_world):
    w = make_world(ROCKER_BOGIE)
    run(w, 30)
    pos = dict(zip(w.body_paths, w.positions(), strict=True))
    assert pos["/BogieL"][0] < 0 < pos["/BogieR"][0]
    for side in "LR":
        hinge = next(j for j in w.debug_info().joints if j.joint_path == f"/BogieHinge{side}")
        assert np.allclose(hinge.frame0_pos, hinge.frame1_pos, atol=1e-3)
