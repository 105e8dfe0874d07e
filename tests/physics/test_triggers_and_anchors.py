"""Trigger zones fire when a moving body's colliders overlap them (any link of a jointed tree,
reported as the tree's root), not when its centre of mass gets there; a body with no collider
enters by its centre of mass. A joint that authors neither local position is anchored at
body1's origin, and says so."""

from __future__ import annotations

import pytest
from physics_scenes import run

ZONE = """
def Xform "Marker" (kind = "component")
{
    def Sphere "Trigger" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double radius = 1.0
        custom string lunco:triggerZone = "wp"
    }
}
"""
# a cart drifting along +X (no gravity) with a boom reaching 1.5 m ahead of it on a fixed joint
CART = """
def Cube "Cart" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{
    double size = 0.5
    float physics:mass = 10
    vector3f physics:velocity = (1, 0, 0)
    double3 xformOp:translate = (-5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Boom" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {
        double size = 0.2
        float physics:mass = 1
        double3 xformOp:translate = (1.5, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
def PhysicsFixedJoint "BoomMount"
{
    rel physics:body0 = </Cart>
    rel physics:body1 = </Cart/Boom>
}
"""
# a body with no collider at all, falling through the zone from above
GHOST = """
def Xform "Ghost" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
    vector3f physics:velocity = (0, -1, 0)
    double3 xformOp:translate = (0, 3, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""


def _events_until(w, ticks: int) -> list[tuple[float, str, str, str]]:
    out = []
    for _ in range(ticks):
        run(w, 1)
        x = float(w.positions()[w.body_paths.index("/Cart")][0]) if "/Cart" in w.body_paths else 0.0
        out += [(x, *e) for e in w.take_zone_events()]
    return out


def test_a_jointed_tree_enters_when_any_of_its_colliders_overlaps_the_zone(make_world):
    w = make_world(ZONE + CART, tick_hz=60.0)
    events = _events_until(w, 60 * 9)
    names = [(e[1], e[2], e[3]) for e in events]
    assert names[0] == ("enter:wp", "/Cart", "/Marker")  # the root names the vehicle; the model is the source
    assert names[1] == ("exit:wp", "/Cart", "/Marker")
    assert len(names) == 2  # one enter, one exit: the boom and the cart are one entrant
    # the boom's front face (1.6 m ahead of the cart's centre) touched the 1 m sphere first
    assert events[0][0] == pytest.approx(-2.6, abs=0.05)
    # and the last collider (the cart's rear face) left it 0.25 m past the far side
    assert events[1][0] == pytest.approx(1.25, abs=0.05)
    assert float(w.positions()[w.body_paths.index("/Cart")][1]) == pytest.approx(0.0, abs=1e-6)  # no collision


def test_a_body_without_colliders_enters_by_its_centre_of_mass(make_world):
    w = make_world(ZONE + GHOST, tick_hz=60.0)
    seen = []
    for _ in range(60 * 3):
        run(w, 1)
        y = float(w.positions()[w.body_paths.index("/Ghost")][1])
        seen += [(y, e) for e in w.take_zone_events()]
    assert [e for _y, e in seen] == [("enter:wp", "/Ghost", "/Marker")]
    assert seen[0][0] == pytest.approx(1.0, abs=0.02)


HINGED = """
def Cube "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, 2, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Cube "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 0.5
    double3 xformOp:translate = (1.5, 2, 0.25)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsRevoluteJoint "Derived"
{
    rel physics:body0 = </Base>
    rel physics:body1 = </Arm>
    uniform token physics:axis = "Z"
}
def PhysicsRevoluteJoint "Authored"
{
    rel physics:body0 = </Base>
    rel physics:body1 = </Arm>
    uniform token physics:axis = "Z"
    point3f physics:localPos0 = (0.5, 0, 0.25)
    point3f physics:localPos1 = (-1.0, 0, 0)
    bool physics:excludeFromArticulation = true
}
"""


def test_a_derived_joint_anchor_is_reported_and_an_authored_one_is_not(make_world):
    w = make_world(HINGED, mpu=0.5)
    derived = [d for d in w.diagnostics if d.code == "physics-joint-anchor-derived"]
    assert [d.path for d in derived] == ["/Derived"]
    (d,) = derived
    assert d.severity == "info" and "/Arm" in d.message
    assert d.data["anchor"] == (1.5, 2.0, 0.25)  # body1's origin, in stage units
    # the derived anchor sits where the arm is: no body is moved to meet the joint
    assert not [d for d in w.diagnostics if d.code == "joint-starts-violated" and d.path == "/Derived"]
