"""Wheeled vehicles on small scenes of our own: raycast wheels hold a chassis up and drive it
through a motor and gearbox, the skid mix turns it, braking holds it, jointed wheels drive
through their hinge motors, gear joints couple two hinges, PhysX damping slows a body."""

from __future__ import annotations

import math

import numpy as np
import pytest
from physics_scenes import GROUND, LUNAR_SCENE, run

from luncosim_core.physics.vehicles import DriveMix, MixEntry, lateral_force, skid_mix

_WHEEL = """
    def Cylinder "Wheel_{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysxVehicleWheelAPI"])
    {{
        uniform token axis = "X"
        double radius = 0.4
        double height = 0.3
        double3 xformOp:translate = ({x}, -0.65, {z})
        uniform token[] xformOpOrder = ["xformOp:translate"]
        float physxVehicleWheel:radius = 0.4
        float physxVehicleWheel:mass = 25.0
        float physxVehicleWheel:moi = 2.0
        float physxVehicleWheel:dampingRate = 0.45
        float physxVehicleWheel:maxBrakeTorque = 1500.0
        float lunco:suspension:restLength = 0.7
        float physxVehicleSuspension:springStrength = 15000.0
        float physxVehicleSuspension:springDamperRate = 3000.0
        float physics:dynamicFriction = 1.5
        float physxVehicleTire:longitudinalStiffness = 8000.0
        float2 physxVehicleTire:lateralStiffnessGraph = (1.0, 1160.0)
        float physxVehicleTire:restLoad = 400.0
        float lunco:tire:minValidatedSpeed = 1.07
        float inputs:drive.connect = </Rover.outputs:drive_{side}>
    }}
    def Xform "Motor_{name}"
    {{
        float lunco:motor:stallTorque = 1.5
        float lunco:motor:noLoadSpeed = 2400.0
        float lunco:motor:rotorInertia = 0.00012
        float outputs:torque = 0.0
        prepend rel lunco:motor:drivenWheel = </Rover/Wheel_{name}>
    }}
    def Xform "Gearbox_{name}" (prepend apiSchemas = ["LunCoGearboxAPI"])
    {{
        float lunco:gearbox:ratio = 200.0
        float lunco:gearbox:efficiency = 0.85
        float lunco:gearbox:maxOutputTorque = 400.0
        float inputs:torque.connect = </Rover/Motor_{name}.outputs:torque>
    }}
"""
ROVER = LUNAR_SCENE + GROUND + """
def Xform "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxVehicleTankDifferentialAPI"])
{
    double3 xformOp:translate = (0, 1.0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 1000.0
    float3 physics:diagonalInertia = (1028.0, 1354.0, 341.0)
    float physxRigidBody:linearDamping = 0.5
    float physxRigidBody:angularDamping = 2.0
    float outputs:drive_left = 0.0
    float outputs:drive_right = 0.0
    def Cube "Chassis" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 1.0
        double3 xformOp:scale = (2.0, 0.3, 3.5)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }
""" + "".join(_WHEEL.format(name=n, x=x, z=z, side=s) for n, x, z, s in (
    ("FL", -1.0, -1.225, "left"), ("FR", 1.0, -1.225, "right"),
    ("RL", -1.0, 1.225, "left"), ("RR", 1.0, 1.225, "right"))) + "}\n"


def _drive(w, left: float, right: float, brake: float = 0.0) -> None:
    ins = {f"/Rover/Wheel_{n}.drive": (left if n.endswith("L") else right) for n in ("FL", "FR", "RL", "RR")}
    ins["/Rover.brake"] = brake
    w.vehicles.set_inputs(ins)


def _pose(w):
    i = w.body_paths.index("/Rover")
    return w.positions()[i], w.linear_velocities()[i], w.orientations()[i]


@pytest.fixture
def rover(make_world):
    return make_world(ROVER)


def test_raycast_wheels_are_not_bodies_and_fold_their_mass_into_the_chassis(rover):
    assert rover.body_paths == ("/Rover",)
    assert rover.read_port("/Rover", "mass") == pytest.approx(1100.0)
    assert rover.read_port("/Rover", "com_y") == pytest.approx(-0.65 * 100.0 / 1100.0)
    assert rover.read_port("/Rover", "inertia_yy") > 1354.0


def test_suspension_holds_the_chassis_at_ride_height(rover):
    _drive(rover, 0.0, 0.0)
    run(rover, 240)
    pos, vel, _ = _pose(rover)
    # four springs of 15 kN/m carry 1100 kg * 1.62 m/s^2: 0.0297 m compression each, so the
    # axle sits 0.4 - (0.05 - 0.0297) above... the chassis origin settles near 1.02 m
    assert pos[1] == pytest.approx(1.0 + 0.05 - 1100 * 1.62 / 4 / 15000.0, abs=0.005)
    assert np.linalg.norm(vel) < 1e-3
    assert all(wh.normal_force == pytest.approx(1100 * 1.62 / 4, rel=0.02) for wh in rover.vehicles.vessels[0].wheels)


def test_full_drive_runs_forward_under_the_axle_speed_ceiling(rover):
    _drive(rover, 1.0, 1.0)
    run(rover, 600)
    pos, vel, _ = _pose(rover)
    assert pos[2] < -10.0  # forward is -Z
    assert abs(pos[0]) < 0.05  # straight
    ceiling = 2400.0 / 200.0 * 0.4
    assert 1.0 < -vel[2] < ceiling
    for wh in rover.vehicles.vessels[0].wheels:
        assert wh.peak_torque == pytest.approx(1.5 * 200 * 0.85)
        assert wh.max_omega == pytest.approx(12.0)


def test_skid_mix_turns_the_rover_and_braking_stops_it(rover):
    _drive(rover, 1.0, -1.0)
    run(rover, 240)
    _, _, q = _pose(rover)
    yaw = 2 * math.atan2(q[2], q[0])
    assert abs(yaw) > 0.3  # pivoting in place
    _drive(rover, 1.0, 1.0, brake=1.0)
    run(rover, 240)
    _, vel, _ = _pose(rover)
    assert np.linalg.norm(vel) < 0.02


def test_vehicle_runs_are_bit_identical(make_world):
    hashes = []
    for _ in range(2):
        w = make_world(ROVER)
        _drive(w, 1.0, 0.3)
        run(w, 120)
        hashes.append(w.state_bytes())
    assert hashes[0] == hashes[1]


def test_drive_kernels():
    assert skid_mix(1.0, 0.0) == (1.0, 1.0)
    left, right = skid_mix(1.0, 1.0)
    assert left == pytest.approx(1.0) and right == pytest.approx(-1.0 / 3.0)
    ack = DriveMix("/R", "linear", [], [MixEntry("drive_left", 1, 0, 0), MixEntry("steering", 0, 1, 0)])
    assert ack.allocate(0.0, 1.0, 0.0) == {"drive_left": 0.0, "steering": 1.0}
    assert ack.allocate(1.0, 1.0, 1.0) == {"drive_left": 0.0, "steering": 0.0}  # braking zeroes both
    assert DriveMix("/R", "scripted:nohook").allocate(1.0, 0.0, 0.0) == {}


GEARED = LUNAR_SCENE + """
def Cube "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.5
    bool physics:kinematicEnabled = true
    double3 xformOp:translate = (0, 2, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
""" + "".join(f"""
def Cube "Arm{s}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    double size = 0.2
    float physics:mass = 5.0
    double3 xformOp:translate = ({x}, 2, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def PhysicsRevoluteJoint "Hinge{s}"
{{
    rel physics:body0 = </Base>
    rel physics:body1 = </Arm{s}>
    uniform token physics:axis = "X"
}}
""" for s, x in (("L", -1.0), ("R", 1.0))) + """
def PhysxPhysicsGearJoint "Differential" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
{
    rel physxGearJoint:hinge0 = </HingeL>
    rel physxGearJoint:hinge1 = </HingeR>
    float physxGearJoint:gearRatio = -1.0
    float drive:angular:physics:stiffness = {stiffness}
}
"""


@pytest.mark.parametrize("stiffness", [100000.0, 0.0])
def test_gear_joint_mirrors_two_hinges_unless_disengaged(make_world, stiffness):
    w = make_world(GEARED.replace("{stiffness}", str(stiffness)))
    w.write_port("/HingeL", "effort", 2.0)
    run(w, 60)
    left = w.read_port("/HingeL", "angle")
    right = w.read_port("/HingeR", "angle")
    assert abs(left) > 0.05
    if stiffness:
        assert right == pytest.approx(-left, abs=1e-3)
    else:
        assert abs(right) < 1e-6


def test_physx_linear_damping_slows_a_sliding_body(make_world):
    w = make_world(LUNAR_SCENE + """
def Cube "Puck" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 1.0
    float physics:mass = 2.0
    float physxRigidBody:linearDamping = 0.5
    vector3f physics:velocity = (4, 0, 0)
}
""")
    run(w, 60)
    assert w.read_port("/Puck", "mass") == pytest.approx(2.0)  # physics:mass without PhysicsMassAPI
    assert w.read_port("/Puck", "velocity_x") == pytest.approx(4.0 * math.exp(-0.5), rel=0.01)


def _jointed(rover: str) -> str:
    """The same rover with every wheel a body on a hinge (LunCoSim's ``physical`` drivetrain)."""
    hinges = "".join(f"""
def PhysicsRevoluteJoint "Hinge_{n}"
{{
    rel physics:body0 = </Rover>
    rel physics:body1 = </Rover/Wheel_{n}>
    uniform token physics:axis = "X"
}}
""" for n in ("FL", "FR", "RL", "RR"))
    return rover.replace('"PhysxVehicleWheelAPI"]', '"PhysxVehicleWheelAPI", "PhysicsCollisionAPI"]') + hinges


def test_jointed_wheels_are_bodies_driven_by_their_hinge_motors(make_world):
    w = make_world(_jointed(ROVER))
    assert set(w.body_paths) == {"/Rover", *(f"/Rover/Wheel_{n}" for n in ("FL", "FR", "RL", "RR"))}
    assert w.read_port("/Rover/Wheel_FL", "mass") == pytest.approx(25.0)  # physxVehicleWheel:mass
    wheels = w.vehicles.vessels[0].wheels
    assert all(wh.joint == f"/Hinge_{wh.path[-2:]}" for wh in wheels)
    _drive(w, 0.0, 0.0, brake=1.0)
    run(w, 120)
    start = _pose(w)[0].copy()
    _drive(w, 1.0, 1.0)
    run(w, 480)
    pos, vel, _ = _pose(w)
    assert start[2] - pos[2] > 5.0  # forward is -Z
    assert -vel[2] < 12.0 * 0.4  # the motor's no-load axle speed times the radius


def test_the_slip_angle_reference_speed_has_a_floor(rover):
    wheel = rover.vehicles.vessels[0].wheels[0]
    assert wheel.min_speed == pytest.approx(1.07)
    # a wheel at rest sliding sideways at 0.1 m/s: atan(0.1 / 1.07), not 90 degrees
    _, lat = lateral_force(wheel, 0.0, max(0.0, wheel.min_speed), 0.1, 400.0)
    assert lat == pytest.approx(-1160.0 * math.atan(0.1 / 1.07))


def test_a_jointed_skid_rover_turns_like_its_raycast_twin(make_world):
    """The jointed tyre carries the same tyre law: under one skid command both realisations yaw
    the same way by comparable amounts (pybullet's own friction is off on the wheels)."""
    yaws = []
    for text in (ROVER, _jointed(ROVER)):
        w = make_world(text)
        _drive(w, 0.0, 0.0, brake=1.0)
        run(w, 60)
        _drive(w, 1.0, -1.0)
        run(w, 240)
        q = _pose(w)[2]
        yaws.append(2 * math.atan2(q[2], q[0]))
    assert yaws[0] * yaws[1] > 0  # the same direction
    assert abs(yaws[1]) == pytest.approx(abs(yaws[0]), rel=0.5)


def _on_grade(deg: float) -> str:
    """ROVER on an ``deg`` grade whose fall line runs to +Z (behind it): gravity tilted, no
    body damping, so the drive alone holds the rover against m g sin(deg)."""
    t = math.radians(deg)
    scene = ROVER.replace(LUNAR_SCENE, f"""
def PhysicsScene "PhysicsScene"
{{
    vector3f physics:gravityDirection = (0, {-math.cos(t)!r}, {math.sin(t)!r})
    float physics:gravityMagnitude = 1.62
}}
""")
    return scene.replace("physxRigidBody:linearDamping = 0.5", "physxRigidBody:linearDamping = 0.0")


@pytest.mark.parametrize("margin", [-0.03, 0.03])
def test_a_rover_on_a_grade_holds_exactly_where_its_motor_curve_says(make_world, margin):
    """The motor curve, the tyre and the grade balance where the arithmetic says: each of 4
    wheels carries m g sin(grade) / 4 at radius r, so the throttle that holds the rover still is
    d* = m g sin(grade) r / (4 x peak); above it the rover creeps uphill at r x max_omega x
    (d - d*) less the tyre's slip, below it rolls back as fast. (A LunCoSim tutorial hangs on this
    balance: its 952 kg rover stalls where its 532 kg design would climb.)"""
    w = make_world(_on_grade(18.0))
    weight_along = 1100.0 * 1.62 * math.sin(math.radians(18.0))
    peak, max_omega, r = 1.5 * 200 * 0.85, 12.0, 0.4
    d_star = weight_along * r / (4 * peak)
    d = d_star + margin
    _drive(w, d, d)
    run(w, 900)
    _, vel, _ = _pose(w)
    slip = weight_along / 4 / 8000.0  # the tyre's grip always pushes uphill, so it always slips back
    assert -vel[2] == pytest.approx(r * max_omega * margin - slip, rel=0.05)  # uphill is -Z
