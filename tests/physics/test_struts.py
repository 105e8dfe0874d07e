"""Passive crushable struts (LunCoPrismaticSuspensionAPI) and joint damping (LunCoJointDampingAPI)
on small scenes of our own."""

from __future__ import annotations

import pytest
from physics_scenes import GROUND, LUNAR_SCENE, codes, run

STRUT = LUNAR_SCENE + GROUND + """
def Cube "Hull" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 1.0
    float physics:mass = 1000.0
    double3 xformOp:translate = (0, 2.0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Cube "Leg" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
{
    double size = 0.4
    float physics:mass = 10.0
    double3 xformOp:translate = (0, 0.2, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsPrismaticJoint "Strut" (prepend apiSchemas = ["LunCoPrismaticSuspensionAPI"])
{
    rel physics:body0 = </Leg>
    rel physics:body1 = </Hull>
    uniform token physics:axis = "Y"
    float physics:lowerLimit = -1.0
    float physics:upperLimit = 0.5
    float lunco:prismaticSuspension:restPosition = 0.0
    float lunco:prismaticSuspension:stiffness = 100000.0
    float lunco:prismaticSuspension:damping = 5000.0
    float lunco:prismaticSuspension:yieldForce = {yield_force}
    float lunco:prismaticSuspension:maxForce = 50000.0
}
"""


def test_a_strut_carries_the_hull_on_its_spring(make_world):
    w = make_world(STRUT.replace("{yield_force}", "40000.0"))
    run(w, 600)
    weight = 1000.0 * 1.62
    # the hull (body1) sits on the spring: compression is negative displacement along +Y
    assert w.read_port("/Strut", "force") == pytest.approx(weight, rel=0.01)
    assert w.read_port("/Strut", "displacement") == pytest.approx(-weight / 100000.0, rel=0.02)


def test_a_strut_pushed_past_its_yield_force_takes_a_permanent_set(make_world):
    w = make_world(STRUT.replace("{yield_force}", "2000.0"))
    run(w, 600)
    # the weight (1620 N) is below the yield force, but the first compression overshoots it: the
    # rest point crushes, and the hull settles lower than the elastic balance
    assert w.read_port("/Strut", "force") == pytest.approx(1620.0, rel=0.02)
    assert w.read_port("/Strut", "displacement") < -(1620.0 / 100000.0 + 0.005)


def test_a_strut_missing_its_stiffness_is_a_diagnostic(make_world):
    w = make_world(STRUT.replace("{yield_force}", "1.0").replace(
        "    float lunco:prismaticSuspension:stiffness = 100000.0\n", ""))
    assert "physics-suspension-invalid" in codes(w)


PENDULUM = LUNAR_SCENE + """
def Cube "Pivot" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.2
    bool physics:kinematicEnabled = true
    double3 xformOp:translate = (0, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Cube "Bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.2
    float physics:mass = 1.0
    double3 xformOp:translate = (1, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsRevoluteJoint "Hinge" (prepend apiSchemas = ["LunCoJointDampingAPI"])
{
    rel physics:body0 = </Pivot>
    rel physics:body1 = </Bob>
    uniform token physics:axis = "Z"
    float3 physics:localPos0 = (0, 0, 0)
    float3 physics:localPos1 = (-1, 0, 0)
    float lunco:jointDamping:angular = {c}
}
"""


def test_joint_damping_slows_a_swinging_pendulum(make_world):
    free = make_world(PENDULUM.replace("{c}", "0.0"))
    damped = make_world(PENDULUM.replace("{c}", "2.0"))
    run(free, 120)
    run(damped, 120)
    assert abs(damped.read_port("/Hinge", "velocity")) < 0.5 * abs(free.read_port("/Hinge", "velocity"))


def test_a_hinge_whose_angle_is_an_input_holds_its_start_until_commanded(make_world):
    held = make_world(PENDULUM.replace("{c}", "0.0").replace(
        "    float lunco:jointDamping:angular = 0.0\n", "    float inputs:angle\n"))
    free = make_world(PENDULUM.replace("{c}", "0.0"))
    run(held, 60)
    run(free, 60)
    assert abs(held.read_port("/Hinge", "angle")) < 1e-3  # a pending input: held where it started
    assert abs(free.read_port("/Hinge", "angle")) > 0.1  # no input: it swings
    held.write_port("/Hinge", "angle", 0.5)
    run(held, 120)
    assert held.read_port("/Hinge", "angle") == pytest.approx(0.5, abs=1e-2)
