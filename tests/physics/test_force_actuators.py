"""Force actuators (LunCoForceActuatorAPI): a thruster pushes its rigid body along its authored
direction at its mount, clamped to [0, maxForce]; off the centre of mass it also turns the body."""

from __future__ import annotations

import pytest
from physics_scenes import LUNAR_SCENE, run

CRAFT = """
def Cube "Craft" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{
    double size = 1.0
    float physics:mass = 10.0
    double3 xformOp:translate = (0, 100, 0)
    double3 xformOp:rotateXYZ = (0, 90, 0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
    def Cone "Main" (prepend apiSchemas = ["LunCoForceActuatorAPI"])
    {
        double3 xformOp:translate = (0, -0.5, 0)
        double3 xformOp:scale = (0.2, 0.5, 0.2)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
        custom float3 lunco:forceActuator:direction = (0, 1, 0)
        custom double lunco:forceActuator:maxForce = 40.0
    }
    def Xform "Side" (prepend apiSchemas = ["LunCoForceActuatorAPI"])
    {
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        custom float3 lunco:forceActuator:direction = (1, 0, 0)
        custom double lunco:forceActuator:maxForce = 5.0
    }
}
def Xform "Loose" (prepend apiSchemas = ["LunCoForceActuatorAPI"])
{
    custom float3 lunco:forceActuator:direction = (0, 1, 0)
    custom double lunco:forceActuator:maxForce = 5.0
}
"""


def test_a_thruster_lifts_its_body_against_gravity(make_world):
    w = make_world(LUNAR_SCENE + CRAFT)
    assert w.read_port("/Craft/Main", "force_command") == 0.0
    w.write_port("/Craft/Main", "force_command", 26.2)  # 2.62 m/s2 up, net 1 m/s2 against lunar gravity
    run(w, 60)
    assert w.read_port("/Craft", "velocity_y") == pytest.approx(1.0, rel=0.02)
    assert abs(w.read_port("/Craft", "angvel_x")) < 1e-6 and abs(w.read_port("/Craft", "angvel_z")) < 1e-6
    # an engine cannot pull, and it cannot exceed its rating
    w.write_port("/Craft/Main", "force_command", -100.0)
    v0 = w.read_port("/Craft", "velocity_y")
    run(w, 60)
    assert w.read_port("/Craft", "velocity_y") - v0 == pytest.approx(-1.62, rel=0.02)
    w.write_port("/Craft/Main", "force_command", 1.0e6)
    v0 = w.read_port("/Craft", "velocity_y")
    run(w, 60)
    assert w.read_port("/Craft", "velocity_y") - v0 == pytest.approx(40.0 / 10.0 - 1.62, rel=0.02)


def test_an_off_centre_thruster_pushes_in_the_bodys_frame_and_turns_it(make_world):
    w = make_world(CRAFT)  # no gravity
    w.write_port("/Craft/Side", "force_command", 5.0)
    run(w, 6)
    # the body is yawed 90 degrees about +Y: its local +X is world -Z
    assert w.read_port("/Craft", "velocity_z") == pytest.approx(-0.5 * 0.1, rel=0.05)
    assert abs(w.read_port("/Craft", "velocity_x")) < 1e-3
    assert abs(w.read_port("/Craft", "angvel_y")) > 0.01  # r x F about the centre of mass


def test_an_actuator_without_a_body_is_reported(make_world):
    w = make_world(CRAFT)
    [bad] = [d for d in w.diagnostics if d.code == "force-actuator-invalid"]
    assert bad.path == "/Loose" and "no PhysicsRigidBodyAPI ancestor" in bad.message
    assert ("/Loose", "force_command") not in {(s.prim_path, s.name) for s in w.port_specs()}
