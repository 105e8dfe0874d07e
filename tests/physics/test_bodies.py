"""Free fall, gravity conventions, units, nested bodies, forces."""

from __future__ import annotations

import math

import numpy as np
import pytest
from physics_scenes import GROUND, LUNAR_SCENE, run

BALL = """
def Sphere "Ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double radius = 0.5
    double3 xformOp:translate = (0, 100, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""


def test_dropped_body_follows_half_g_t_squared(make_world):
    w = make_world(LUNAR_SCENE + BALL)
    assert w.body_paths == ("/Ball",)
    run(w, 120)  # 2 s at 60 Hz
    t = 2.0
    drop = 100.0 - w.positions()[0, 1]
    assert drop == pytest.approx(0.5 * 1.62 * t * t, rel=0.01)
    assert w.read_port("/Ball", "velocity_y") == pytest.approx(-1.62 * t, rel=0.01)
    assert abs(w.positions()[0, 0]) < 1e-9 and abs(w.positions()[0, 2]) < 1e-9


def test_no_physics_scene_means_no_uniform_gravity(make_world):
    w = make_world(BALL)
    run(w, 60)
    assert w.positions()[0, 1] == pytest.approx(100.0, abs=1e-9)


def test_negative_magnitude_is_earth_and_zero_direction_is_stage_down(make_world):
    scene = """
def PhysicsScene "PhysicsScene"
{
    float physics:gravityMagnitude = -1
}
"""
    w = make_world(scene + BALL.replace("(0, 100, 0)", "(0, 0, 100)"), up="Z")
    run(w, 60)
    p = w.positions()[0]
    assert 100.0 - p[2] == pytest.approx(0.5 * 9.80665, rel=0.01)
    assert abs(p[1]) < 1e-9


def test_z_up_stage_falls_along_minus_z_onto_its_ground(make_world):
    scene = """
def PhysicsScene "PhysicsScene"
{
    vector3f physics:gravityDirection = (0, 0, 0)
    float physics:gravityMagnitude = 1.62
}
def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 1.0
    double3 xformOp:translate = (0, 0, -0.5)
    double3 xformOp:scale = (50.0, 50.0, 1.0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1.0
    double3 xformOp:translate = (0, 0, 2)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""
    w = make_world(scene, up="Z")
    run(w, 240)
    p = w.positions()[0]
    assert p[2] == pytest.approx(0.5, abs=0.02)  # resting on the ground, z up
    assert w.read_port("/Box", "contact") == 1.0
    assert w.read_port("/Box", "contact_force") == pytest.approx(1000.0 * 1.62, rel=0.05)


def test_meters_per_unit_scales_lengths_and_gravity(make_world):
    scene = """
def PhysicsScene "PhysicsScene"
{
    vector3f physics:gravityDirection = (0, -1, 0)
    float physics:gravityMagnitude = 162
}
def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 100
    double3 xformOp:translate = (0, -50, 0)
    double3 xformOp:scale = (100.0, 1.0, 100.0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{
    double size = 100
    float physics:mass = 2
    double3 xformOp:translate = (0, 300, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""
    w = make_world(scene, mpu=0.01)
    assert w.positions()[0, 1] == pytest.approx(3.0)  # metres
    run(w, 60)
    assert 3.0 - w.positions()[0, 1] == pytest.approx(0.81, rel=0.01)
    run(w, 300)
    assert w.positions()[0, 1] == pytest.approx(0.5, abs=0.02)  # a 1 m cube rests on the ground
    info = w.debug_info()
    box = next(c for c in info.colliders if c.prim_path == "/Box")
    assert box.dims["half_extents"] == pytest.approx((50.0, 50.0, 50.0))  # stage units


def test_nested_body_without_joint_falls_away_but_a_part_stays(make_world):
    scene = LUNAR_SCENE + """
def Xform "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double3 xformOp:translate = (0, 10, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 1
    }
    def Cube "Motor" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        double size = 0.2
        double3 xformOp:translate = (5, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Cube "Battery" (prepend apiSchemas = ["PhysicsMassAPI", "PhysicsCollisionAPI"])
    {
        double size = 0.2
        float physics:mass = 5000
        double3 xformOp:translate = (0, 0, -5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
def Cube "Shelf" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, 8.5, 0)
    double3 xformOp:scale = (3, 1, 12)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
"""
    w = make_world(scene)
    assert w.read_port("/Rover", "mass") == pytest.approx(1000.0 + 5000.0)
    assert w.body_paths == ("/Rover", "/Rover/Motor")
    # the battery's mass and collider belong to the rover: its COM sits towards -z
    com = w.debug_info().centers_of_mass["/Rover"]
    assert com[2] == pytest.approx(-5.0 * 5000.0 / 6000.0)
    run(w, 240)
    rover, motor = w.positions()
    assert rover[1] > 9.4  # rests on the shelf (its hull collider is its own)
    assert motor[1] < 10.0 - 0.5 * 1.62 * 3.5  # the jointless nested body fell
    colliders = {c.prim_path: c.body_path for c in w.debug_info().colliders}
    assert colliders["/Rover/Battery"] == "/Rover"
    assert colliders["/Rover/Motor"] == "/Rover/Motor"


def test_force_and_torque_inputs_in_world_frame(make_world):
    scene = """
def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 1
    float physics:mass = 4
    float3 physics:diagonalInertia = (2, 2, 2)
    double3 xformOp:rotateXYZ = (0, 0, 90)
    uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
}
"""
    w = make_world(scene)
    w.write_port("/Box", "force_x", 8.0)  # 2 m/s^2
    w.write_port("/Box", "torque_z", 1.0)  # 0.5 rad/s^2
    run(w, 60)
    assert w.read_port("/Box", "velocity_x") == pytest.approx(2.0, rel=1e-6)
    assert abs(w.read_port("/Box", "velocity_y")) < 1e-9
    assert w.read_port("/Box", "angvel_z") == pytest.approx(0.5, rel=1e-6)
    assert w.read_port("/Box", "mass") == 4.0


def test_derived_mass_from_density_and_colliders(make_world):
    scene = """
def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{
    double size = 2
    float physics:density = 500
}
"""
    w = make_world(scene)
    assert w.read_port("/Box", "mass") == pytest.approx(500.0 * 8.0)


def test_gravity_conflict_is_an_error(make_world):
    scene = LUNAR_SCENE + """
def PhysicsScene "Other"
{
    vector3f physics:gravityDirection = (0, -1, 0)
    float physics:gravityMagnitude = 9.8
}
""" + BALL
    w = make_world(scene)
    d = next(d for d in w.diagnostics if d.code == "physics-gravity-conflict")
    assert d.severity == "error" and "/Other" in d.message and "/PhysicsScene" in d.message


def test_unknown_lunco_schemas_are_ignored_and_terrain_is_static(make_world):
    scene = LUNAR_SCENE + """
def Cube "Terrain" (prepend apiSchemas = ["LunCoTerrainAPI", "LunCoWhateverAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, -0.5, 0)
    double3 xformOp:scale = (20, 1, 20)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
def Sphere "Ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "LunCoThingAPI"])
{
    double radius = 0.5
    double3 xformOp:translate = (0, 2, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""
    w = make_world(scene)
    run(w, 240)
    assert w.positions()[0, 1] == pytest.approx(0.5, abs=0.02)


def test_collision_enabled_without_api_is_reported(make_world):
    w = make_world(LUNAR_SCENE + BALL + """
def Cube "Fake"
{
    bool physics:collisionEnabled = true
}
""")
    d = next(d for d in w.diagnostics if d.code == "collision-enabled-without-api")
    assert d.path == "/Fake" and d.severity == "warning"  # as the lint reports it


def test_box_scale_is_exact_and_nonuniform_sphere_is_reported(make_world):
    scene = GROUND + """
def Cube "Slab" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 2
    double3 xformOp:translate = (0, 5, 0)
    double3 xformOp:scale = (3, 0.25, 1)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
def Sphere "Egg" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double radius = 1
    double3 xformOp:translate = (10, 5, 0)
    double3 xformOp:scale = (1, 2, 3)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
"""
    w = make_world(LUNAR_SCENE + scene)
    info = {c.prim_path: c for c in w.debug_info().colliders}
    assert info["/Slab"].dims["half_extents"] == pytest.approx((3.0, 0.25, 1.0))
    assert info["/Egg"].dims["radius"] == pytest.approx(2.0)
    d = next(d for d in w.diagnostics if d.code == "physics-sphere-nonuniform-scale")
    assert d.path == "/Egg" and "mean" in d.message
    run(w, 300)
    assert w.positions()[w.body_paths.index("/Slab"), 1] == pytest.approx(0.25, abs=0.02)


def test_orientation_port_and_arrays_are_read_only(make_world):
    w = make_world(BALL)
    q = w.orientations()
    assert q.shape == (1, 4) and q[0] == pytest.approx([1, 0, 0, 0])
    with pytest.raises(ValueError):
        q[0, 0] = 2.0
    assert math.isclose(w.read_port("/Ball", "orientation_w"), 1.0)
    assert isinstance(w.positions(), np.ndarray)


def test_authored_initial_velocity(make_world):
    w = make_world(BALL.replace("uniform token[] xformOpOrder", "vector3f physics:velocity = (3, 0, 0)\n"
                                "    vector3f physics:angularVelocity = (0, 90, 0)\n    uniform token[] xformOpOrder"))
    run(w, 60)
    assert w.positions()[0, 0] == pytest.approx(3.0, rel=1e-6)
    assert w.read_port("/Ball", "angvel_y") == pytest.approx(math.pi / 2, rel=1e-6)
