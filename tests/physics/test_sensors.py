"""Measured body state and raycast sensors on small scenes of our own."""

from __future__ import annotations

import math

import pytest
from physics_scenes import GROUND, LUNAR_SCENE, run

FALLING = LUNAR_SCENE + GROUND + """
def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
{
    double size = 1.0
    float physics:mass = 10.0
    double3 xformOp:translate = (0, 20, 0)
    double3 xformOp:rotateXYZ = (0, 30, 0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
    def Xform "Altimeter" (prepend apiSchemas = ["LunCoRaycastAPI"])
    {
        uniform token lunco:raycast:axis = "-Y"
        double lunco:raycast:maxDistance = 50.0
        double3 lunco:raycast:offset = (0, 0, 0)
    }
}
def Xform "Skyward" (prepend apiSchemas = ["LunCoRaycastAPI"])
{
    double3 xformOp:translate = (5, 1, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    uniform token lunco:raycast:axis = "Y"
    double lunco:raycast:maxDistance = 10.0
    double3 lunco:raycast:offset = (0, 0, 0)
}
"""


def test_free_fall_reads_gravity_attitude_and_speed(make_world):
    w = make_world(FALLING)
    assert w.read_port("/Box", "acceleration_valid") == 0.0
    run(w, 30)
    assert w.read_port("/Box", "acceleration_valid") == 1.0
    assert w.read_port("/Box", "acceleration_y") == pytest.approx(-1.62, rel=1e-3)
    assert w.read_port("/Box", "speed") == pytest.approx(1.62 * 0.5, rel=1e-2)
    assert w.read_port("/Box", "yaw") == pytest.approx(math.radians(30), abs=1e-6)
    assert w.read_port("/Box", "pitch") == pytest.approx(0.0, abs=1e-6)
    assert w.read_port("/Box", "quat_w") == pytest.approx(math.cos(math.radians(15)), abs=1e-6)
    assert w.read_port("/Box", "state_valid") == 1.0


def test_a_raycast_rides_its_body_and_ignores_it(make_world):
    w = make_world(FALLING)
    run(w, 1)
    first = w.read_port("/Box/Altimeter", "ray_distance")
    assert w.read_port("/Box/Altimeter", "ray_hit_valid") == 1.0
    assert first == pytest.approx(20.0, abs=0.01)  # from the box centre down to the ground top
    assert w.read_port("/Box/Altimeter", "ray_hit_normal_y") == pytest.approx(1.0)
    assert w.read_port("/Box/Altimeter", "ray_hit_position_y") == pytest.approx(0.0, abs=1e-6)
    run(w, 60)
    assert w.read_port("/Box/Altimeter", "ray_distance") == pytest.approx(first - 0.5 * 1.62 * (61 / 60) ** 2, abs=0.02)
    assert w.read_port("/Box/Altimeter", "ray_sample_time") == pytest.approx(61 / 60)
    assert w.read_port("/Skyward", "ray_hit_valid") == 0.0


def test_a_raycast_without_its_axis_is_a_diagnostic(make_world):
    w = make_world(FALLING.replace('uniform token lunco:raycast:axis = "Y"\n', ""))
    assert any(d.code == "raycast-invalid" and d.path == "/Skyward" for d in w.diagnostics)
    assert all(s.path != "/Skyward" for s in w.sensors.rays)


def test_a_body_declaring_its_mass_as_an_input_takes_it_at_run_time(make_world):
    w = make_world(LUNAR_SCENE + """
def Cube "Tank" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 1.0
    float physics:mass = 100.0
    float inputs:mass = 100.0
    float inputs:inertia_yy = 10.0
}
""")
    spec = {s.name: s for s in w.port_specs() if s.prim_path == "/Tank"}
    assert spec["mass"].writable and spec["mass"].direction == "in"
    assert "com_y" in spec and spec["inertia_yy"].writable and not spec["inertia_xx"].writable
    w.write_port("/Tank", "force_y", 100.0)
    w.write_port("/Tank", "mass", 50.0)  # propellant burnt: the same force lifts it faster
    run(w, 60)
    assert w.read_port("/Tank", "mass") == pytest.approx(50.0)
    assert w.read_port("/Tank", "velocity_y") == pytest.approx((100.0 / 50.0 - 1.62) * 1.0, rel=1e-3)
    with pytest.raises(ValueError, match="must be > 0"):
        w.write_port("/Tank", "mass", 0.0)
