"""Steered jointed wheels on a small Ackermann rover of our own: the hinge hangs off a steering
knuckle that turns with the steer servo, so the wheel points where the raycast twin's does and
the rover turns the same way; a braked jointed rover stops after a turn as its twin does."""

from __future__ import annotations

import math

import numpy as np
import pytest
from physics_scenes import run
from test_vehicles import ROVER

from luncosim_core.physics.frames import quat_rotate

ACKERMANN = ROVER.replace("PhysxVehicleTankDifferentialAPI", "PhysxVehicleAckermannSteeringAPI").replace(
    "    float outputs:drive_left = 0.0\n",
    "    float outputs:drive_left = 0.0\n    float physxVehicleAckermannSteering:maxSteerAngle = 0.5\n")
for _n in ("FL", "FR"):  # the front wheels steer
    ACKERMANN = ACKERMANN.replace(
        f"        float inputs:drive.connect = </Rover.outputs:drive_{'left' if _n == 'FL' else 'right'}>\n"
        f"    }}\n    def Xform \"Motor_{_n}\"",
        f"        float inputs:drive.connect = </Rover.outputs:drive_{'left' if _n == 'FL' else 'right'}>\n"
        f"        float inputs:steer.connect = </Rover.outputs:steering>\n    }}\n    def Xform \"Motor_{_n}\"")
assert ACKERMANN.count("inputs:steer.connect") == 2
WHEELS = ("FL", "FR", "RL", "RR")


def jointed(text: str) -> str:
    hinges = "".join(f"""
def PhysicsRevoluteJoint "Hinge_{n}"
{{
    rel physics:body0 = </Rover>
    rel physics:body1 = </Rover/Wheel_{n}>
    uniform token physics:axis = "X"
}}
""" for n in WHEELS)
    return text.replace('"PhysxVehicleWheelAPI"]', '"PhysxVehicleWheelAPI", "PhysicsCollisionAPI"]') + hinges


def command(w, throttle: float, steer: float, brake: float = 0.0) -> None:
    ins = {f"/Rover/Wheel_{n}.drive": throttle for n in WHEELS}
    ins.update({f"/Rover/Wheel_{n}.steer": steer for n in ("FL", "FR")})
    ins["/Rover.brake"] = brake
    w.vehicles.set_inputs(ins)


def state(w, path: str = "/Rover"):
    i = w.body_paths.index(path)
    return w.positions()[i], w.linear_velocities()[i], w.orientations()[i]


def yaw(q) -> float:
    f = quat_rotate(np.asarray(q), np.array([0.0, 0.0, -1.0]))
    return math.degrees(math.atan2(f[0], -f[2]))  # + to the right of -Z


def rolling_heading(w, wheel: str) -> float:
    """Where a wheel rolls (up x its spinning axle), degrees to the right of -Z."""
    axle = quat_rotate(np.asarray(state(w, wheel)[2]), np.array([1.0, 0.0, 0.0]))
    f = np.cross([0.0, 1.0, 0.0], axle)
    return math.degrees(math.atan2(f[0], -f[2]))


def test_a_steered_jointed_wheel_turns_on_its_knuckle(make_world):
    w = make_world(jointed(ACKERMANN))
    assert set(w.body_paths) == {"/Rover", *(f"/Rover/Wheel_{n}" for n in WHEELS)}  # the knuckles are not bodies
    command(w, 0.0, 0.0, brake=1.0)
    run(w, 60)
    command(w, 0.0, 0.8)
    run(w, 30)  # the servo slews at 2 rad/s to 0.8 x 0.5 rad
    wheel = w.vehicles.wheel_state("/Rover/Wheel_FL")
    assert wheel.steer_angle == pytest.approx(0.4, abs=1e-6)
    chassis = yaw(state(w)[2])
    for n, turn in (("FL", 0.4), ("FR", 0.4), ("RL", 0.0)):  # the axle (the wheel's X) turned with the knuckle
        assert rolling_heading(w, f"/Rover/Wheel_{n}") - chassis == pytest.approx(math.degrees(turn), abs=1.0)


def test_jointed_and_raycast_ackermann_rovers_turn_alike_and_stop_when_braked(make_world):
    turned, speeds = [], []
    for text in (ACKERMANN, jointed(ACKERMANN)):
        w = make_world(text)
        command(w, 0.0, 0.0, brake=1.0)
        run(w, 60)
        start = yaw(state(w)[2])
        command(w, 1.0, 0.0)
        run(w, 300)
        command(w, 1.0, 0.8)
        run(w, 240)
        turned.append(yaw(state(w)[2]) - start)
        command(w, 0.0, 0.8, brake=1.0)  # braking after the turn: the held wheels must stop it
        run(w, 150)
        speeds.append(float(np.linalg.norm(state(w)[1])))
        before = state(w)[0].copy()
        command(w, 0.0, 1.0)  # zero throttle, full lock: an Ackermann rover does not move
        run(w, 120)
        assert float(np.linalg.norm(state(w)[0] - before)) < 0.1
    assert turned[0] > 15.0 and turned[1] > 15.0  # both to the right (+steer yaws right)
    assert turned[1] == pytest.approx(turned[0], rel=0.6)
    assert max(speeds) < 0.1
