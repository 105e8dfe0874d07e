"""World lifecycle: faults, teardown, determinism across runs and processes, ports."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from physics_scenes import GROUND, LUNAR_SCENE, run, write_stage
from pxr import Usd

from luncosim_core.physics import PhysicsWorld, PortSpec

ESCAPE = LUNAR_SCENE + """
def Cube "Fine" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Cube "Gone" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (200000, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Cube "GoneToo" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, 5, 300000)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""


def test_body_started_outside_the_world_faults_and_the_world_stops(make_world):
    w = make_world(ESCAPE)
    assert w.fault is not None
    assert w.fault.code == "physics-body-escaped" and w.fault.severity == "error"
    assert w.fault.path == "/Gone"  # the first by sorted path
    before = w.state_bytes()
    run(w, 10)
    assert w.state_bytes() == before
    assert w.debug_info().escaped_body == "/Gone"


def test_body_below_the_static_world_faults(make_world):
    w = make_world(LUNAR_SCENE + GROUND + """
def Cube "Escapee" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, -1510.0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
""")
    assert w.fault is not None and w.fault.path == "/Escapee"


def test_body_that_leaves_during_the_run_faults_at_that_tick(make_world):
    w = make_world(LUNAR_SCENE + """
def Cube "Rocket" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 1
    float physics:mass = 1
}
""", world_bounds=50.0)
    assert w.fault is None
    w.write_port("/Rocket", "force_x", 1000.0)
    ticks = 0
    while w.fault is None and ticks < 600:
        w.step()
        ticks += 1
    assert w.fault is not None and w.fault.path == "/Rocket"
    assert w.fault.data["tick"] == w.tick
    x = w.positions()[0, 0]
    run(w, 5)
    assert w.positions()[0, 0] == x


def test_a_new_world_after_close_starts_clean(tmp_path):
    lunar = write_stage(tmp_path, LUNAR_SCENE + GROUND + ESCAPE.split('def Cube "Gone"')[0]
                        .replace(LUNAR_SCENE, ""), "a.usda")
    first = PhysicsWorld(lunar)
    run(first, 30)
    first_bytes = first.state_bytes()
    first.close()
    first.close()  # idempotent
    # A different scene in between: earth gravity, other bodies, a joint.
    other = write_stage(tmp_path, """
def PhysicsScene "S"
{
    float physics:gravityMagnitude = -1
}
def Cube "X" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
}
def PhysicsFixedJoint "J"
{
    rel physics:body1 = </X>
}
""", "b.usda")
    mid = PhysicsWorld(other)
    run(mid, 30)
    mid.close()
    # No PhysicsScene now: nothing of the earlier gravity, bodies or constraints survives.
    plain = write_stage(tmp_path, """
def Sphere "Ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double radius = 0.5
    double3 xformOp:translate = (0, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
""", "c.usda")
    third = PhysicsWorld(plain)
    assert third.body_paths == ("/Ball",)
    run(third, 30)
    assert third.positions()[0] == pytest.approx([0, 5, 0], abs=1e-12)
    assert third.read_port("/Ball", "contact") == 0.0
    third.close()
    again = PhysicsWorld(Usd.Stage.Open(str(tmp_path / "a.usda")))
    run(again, 30)
    assert again.state_bytes() == first_bytes
    again.close()


ROVER = LUNAR_SCENE + GROUND + """
def Xform "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 200
    double3 xformOp:translate = (0, 1.0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Chassis" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 1
        double3 xformOp:scale = (2, 0.4, 1.2)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }
}
"""


def _wheel(name: str, x: float, z: float) -> str:
    return f"""
def Cylinder "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{{
    uniform token axis = "Z"
    double radius = 0.4
    double height = 0.2
    float physics:mass = 10
    double3 xformOp:translate = ({x}, 0.6, {z})
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def PhysicsRevoluteJoint "{name}Axle" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
{{
    rel physics:body0 = </Rover>
    rel physics:body1 = </{name}>
    uniform token physics:axis = "Z"
    float drive:angular:physics:damping = 200
    float drive:angular:physics:maxForce = 400
    float drive:angular:physics:targetVelocity = -60
}}
"""


def rover_scene() -> str:
    return ROVER + "".join(_wheel(n, x, z) for n, x, z in
                           (("WheelFL", 0.8, 0.75), ("WheelFR", 0.8, -0.75),
                            ("WheelRL", -0.8, 0.75), ("WheelRR", -0.8, -0.75)))


def test_rover_drives_forward_on_velocity_drives(make_world):
    w = make_world(rover_scene())
    assert not [d for d in w.diagnostics if d.severity == "error"]
    run(w, 240)
    rover = w.positions()[w.body_paths.index("/Rover")]
    assert rover[0] > 0.5  # -60 deg/s about +Z rolls the wheels towards +X
    assert abs(rover[2]) < 0.1
    assert w.read_port("/WheelFLAxle", "velocity") == pytest.approx(-1.047, rel=0.1)


def _hash_run(path: str, ticks: int) -> str:
    w = PhysicsWorld(Usd.Stage.Open(path))
    h = hashlib.sha256()
    for _ in range(ticks):
        w.step()
        h.update(w.state_bytes())
    w.close()
    return h.hexdigest()


def test_two_runs_hash_equal_in_process_and_in_a_subprocess(tmp_path):
    path = tmp_path / "rover.usda"
    write_stage(tmp_path, rover_scene(), "rover.usda")
    a = _hash_run(str(path), 120)
    b = _hash_run(str(path), 120)
    assert a == b
    code = (
        "import hashlib, sys\n"
        "from pxr import Usd\n"
        "from luncosim_core.physics import PhysicsWorld\n"
        "w = PhysicsWorld(Usd.Stage.Open(sys.argv[1]))\n"
        "h = hashlib.sha256()\n"
        "for _ in range(120):\n"
        "    w.step(); h.update(w.state_bytes())\n"
        "print(h.hexdigest())\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         cwd=root, timeout=120, check=True)
    assert out.stdout.strip().splitlines()[-1] == a


def test_port_specs_and_errors(make_world):
    w = make_world(rover_scene())
    specs = w.port_specs()
    assert all(isinstance(s, PortSpec) for s in specs)
    by = {(s.prim_path, s.name): s for s in specs}
    assert by[("/Rover", "position_x")].unit == "m" and by[("/Rover", "position_x")].direction == "out"
    assert by[("/Rover", "force_y")].writable and by[("/Rover", "force_y")].unit == "N"
    assert by[("/Rover", "torque_z")].unit == "N*m"
    assert by[("/Rover", "contact")].type == "bool"
    assert by[("/WheelFLAxle", "angle")].unit == "rad" and by[("/WheelFLAxle", "angle")].writable
    assert by[("/WheelFLAxle", "velocity")].unit == "rad/s"
    assert [(s.prim_path, s.name) for s in specs] == sorted((s.prim_path, s.name) for s in specs)
    with pytest.raises(KeyError, match="no physics port 'angle'"):
        w.read_port("/Rover", "angle")
    with pytest.raises(KeyError, match="/Nope"):
        w.read_port("/Nope", "position_x")
    with pytest.raises(ValueError, match="output"):
        w.write_port("/Rover", "position_x", 1.0)
    with pytest.raises(ValueError, match="finite"):
        w.write_port("/Rover", "force_x", float("nan"))
    with pytest.raises(ValueError, match="number"):
        w.write_port("/Rover", "force_x", "fast")


def test_collecting_a_closed_world_never_disconnects_a_newer_one(tmp_path):
    import gc

    stage = write_stage(tmp_path, LUNAR_SCENE + ESCAPE.split('def Cube "Gone"')[0].replace(LUNAR_SCENE, ""))
    old = PhysicsWorld(stage)
    old.close()
    new = PhysicsWorld(stage)
    del old
    gc.collect()
    run(new, 10)  # would raise "Not connected to physics server" if the id had been reused and dropped
    assert new.positions()[0, 1] < 5.0
    new.close()


def test_link_body_velocity_matches_its_motion(make_world):
    w = make_world(LUNAR_SCENE + """
def Cube "Pivot" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.2
    bool physics:kinematicEnabled = true
}
def Cube "Bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.2
    float physics:mass = 1
    float3 physics:centerOfMass = (0.5, 0, 0)
    double3 xformOp:translate = (1.5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsRevoluteJoint "Hinge"
{
    rel physics:body0 = </Pivot>
    rel physics:body1 = </Bob>
    uniform token physics:axis = "Z"
    point3f physics:localPos0 = (0, 0, 0)
    point3f physics:localPos1 = (-1.5, 0, 0)
}
""")
    i = w.body_paths.index("/Bob")
    run(w, 30)
    p0 = w.positions()[i].copy()
    v0 = w.linear_velocities()[i].copy()
    w.step()
    p1 = w.positions()[i]
    v1 = w.linear_velocities()[i]
    fd = (p1 - p0) * 60.0
    assert fd == pytest.approx((v0 + v1) / 2, rel=0.01, abs=1e-3)  # the COM would be 33 % off
    # the body origin (not its offset COM) moves on a 1.5 m circle
    assert float((p1 ** 2).sum()) ** 0.5 == pytest.approx(1.5, abs=1e-4)


def test_a_tumbling_body_with_an_offset_rotated_mass_frame_reports_its_prim_frame(make_world):
    """The batched read-back equals the per-body frame algebra: prim frame = inertial frame *
    COM frame^-1, and the prim origin's velocity v_com + w x (origin - com)."""
    from luncosim_core.physics.frames import from_xyzw, quat_conj, quat_mul, quat_rotate

    w = make_world("""
def Cube "Tumbler" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.5
    float physics:mass = 3
    float3 physics:centerOfMass = (0.4, -0.2, 0.3)
    float3 physics:diagonalInertia = (1, 2, 3)
    quatf physics:principalAxes = (0.9238795, 0.3826834, 0, 0)
    vector3f physics:angularVelocity = (40, 90, -20)
    vector3f physics:velocity = (1, 2, 3)
    double3 xformOp:translate = (1, 20, -2)
    float3 xformOp:rotateXYZ = (10, 20, 30)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
}
def Cube "Plain" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 1
    double3 xformOp:translate = (5, 20, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
""")
    run(w, 7)
    assert float(abs(w.angular_velocities()).max()) > 0.1  # it tumbles: the rotation matters
    for path in w.body_paths:
        i, b = w.body_paths.index(path), w._built.bodies[path]
        p, o = w._client.getBasePositionAndOrientation(b.uid)
        v, ang = w._client.getBaseVelocity(b.uid)
        q = quat_mul(from_xyzw(o), quat_conj(b.com_frame.q))
        origin = np.asarray(p) - quat_rotate(q, b.com_frame.p)
        assert w.positions()[i] == pytest.approx(origin, abs=1e-12)
        assert w.orientations()[i] == pytest.approx(q, abs=1e-12)
        assert w.linear_velocities()[i] == pytest.approx(np.asarray(v) + np.cross(ang, origin - np.asarray(p)), abs=1e-10)
        assert w.angular_velocities()[i] == pytest.approx(ang, abs=1e-12)
