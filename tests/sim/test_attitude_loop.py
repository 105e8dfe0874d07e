"""A closed attitude loop through the same chain as LunCoSim's lander (body quaternion and world
angular-velocity ports -> a Modelica rate damper in the body frame -> an actuator-wrench allocator
-> thrust models -> force actuators whose directions are authored in their own prim frames): on a
craft yawed 90 degrees in the world and spinning about its own X axis, the loop removes the spin
without pushing the craft, which only holds when every frame and sign in the chain is right."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luncosim_core.sim.simulation import open_simulation

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'


def jet(name: str, z: float, flipped: bool, valve: str) -> str:
    """A thruster 1 m above the centre at ``z``; its prim-frame direction is -Y, so a flipped one
    (rotated 180 degrees about X) pushes +Y in the craft's frame."""
    return f"""
        def Cube "{name}" (prepend apiSchemas = ["LunCoForceActuatorAPI"])
        {{
            double3 xformOp:translate = (0, 1, {z})
            double3 xformOp:rotateXYZ = ({180 if flipped else 0}, 0, 0)
            double3 xformOp:scale = (0.1, 0.3, 0.1)
            uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ", "xformOp:scale"]
            custom float3 lunco:forceActuator:direction = (0, -1, 0)
            custom double lunco:forceActuator:maxForce = 50.0
            custom string lunco:forceActuator:commandOutput = "{valve}"
            float inputs:force_command.connect = </W/Jets.outputs:{valve}_n>
        }}"""


DAMPER = '''model RateDamper
  input Real qw = 1; input Real qx = 0; input Real qy = 0; input Real qz = 0;
  input Real wx = 0; input Real wy = 0; input Real wz = 0;
  parameter Real k = 20 "N.m per rad/s";
  output Real rate_x "body-frame rate about X";
  output Real tx;
equation
  rate_x = (1 - 2 * (qy * qy + qz * qz)) * wx + 2 * (qx * qy + qw * qz) * wy + 2 * (qx * qz - qw * qy) * wz;
  tx = -k * rate_x;
end RateDamper;'''

JETS = '''model Jets
  input Real pos_a = 0; input Real pos_b = 0; input Real neg_a = 0; input Real neg_b = 0;
  output Real pos_a_n; output Real pos_b_n; output Real neg_a_n; output Real neg_b_n;
equation
  pos_a_n = 50 * pos_a; pos_b_n = 50 * pos_b; neg_a_n = 50 * neg_a; neg_b_n = 50 * neg_b;
end Jets;'''

VALVES = ("neg_a", "neg_b", "pos_a", "pos_b")


def scene() -> str:
    wires = "\n".join(f"        float inputs:{n}.connect = </W/Craft/Allocator.outputs:{n}>" for n in VALVES)
    outs = "\n".join(f"            float outputs:{n}" for n in VALVES)
    q = "\n".join(f"        float inputs:q{a}.connect = </W/Craft.outputs:quat_{a}>" for a in "wxyz")
    w = "\n".join(f"        float inputs:w{a}.connect = </W/Craft.outputs:angvel_{a}>" for a in "xyz")
    return HEAD + f"""
def Xform "W"
{{
    def PhysicsScene "Physics"
    {{
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 0
    }}
    def Scope "Damper" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform token info:implementationSource = "sourceCode"
        uniform string info:sourceCode = \"\"\"{DAMPER}\"\"\"
{q}
{w}
        float outputs:tx
        float outputs:rate_x
    }}
    def Scope "Jets" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform token info:implementationSource = "sourceCode"
        uniform string info:sourceCode = \"\"\"{JETS}\"\"\"
{wires}
{chr(10).join(f"        float outputs:{n}_n" for n in VALVES)}
    }}
    def Cube "Craft" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {{
        double size = 1
        float physics:mass = 100
        float3 physics:diagonalInertia = (10, 10, 10)
        double3 xformOp:translate = (5, 2, 0)
        double3 xformOp:rotateXYZ = (0, 90, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
        vector3f physics:angularVelocity = (0, 0, -30)
        def Scope "Allocator" (prepend apiSchemas = ["CollectionAPI:components"])
        {{
            float inputs:desired_torque_x.connect = </W/Damper.outputs:tx>
{outs}
            uniform token collection:components:expansionRule = "explicitOnly"
            prepend rel collection:components:includes = [</W/Craft/PosA>, </W/Craft/PosB>, </W/Craft/NegA>, </W/Craft/NegB>]
        }}
{jet("PosA", 1.0, False, "pos_a")}
{jet("PosB", -1.0, True, "pos_b")}
{jet("NegA", 1.0, True, "neg_a")}
{jet("NegB", -1.0, False, "neg_b")}
    }}
}}
"""


def test_a_rate_damper_through_prim_frame_thrusters_stops_a_spin_about_the_body_axis(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "w.usda", scene()))
    assert sim.wait_until_ready(180) == ""
    assert not [d for d in sim.diagnostics if d.is_error], [d.message for d in sim.diagnostics if d.is_error]
    w = sim.world
    i = w.body_paths.index("/W/Craft")
    # yawed +90 degrees about Y, the craft's X axis is world -Z: its authored spin is +30 deg/s about it
    assert np.allclose(w.angular_velocities()[i], (0, 0, -math.radians(30)), atol=1e-6)
    sim.run(6)
    # the damper sees the spin in the body frame (+X) and it is already slowing
    assert 0.8 * math.radians(30) < sim.read("/W/Damper", "rate_x") < math.radians(30)
    # a -X torque of ~9.4 N m: the two negative jets fire as a couple (50 N m each at full), the
    # positive ones stay shut
    neg_a, neg_b = sim.read("/W/Craft/Allocator", "neg_a"), sim.read("/W/Craft/Allocator", "neg_b")
    assert neg_a == pytest.approx(neg_b, rel=1e-3) and 0.05 < neg_a < 0.15
    assert sim.read("/W/Craft/Allocator", "pos_a") == pytest.approx(0.0, abs=1e-6)
    sim.run(240)
    spin = float(np.linalg.norm(w.angular_velocities()[i]))
    assert spin < 0.05 * math.radians(30)  # the damper took the spin out (a sign error would add to it)
    assert float(np.linalg.norm(w.linear_velocities()[i])) < 0.01  # couples: no push
