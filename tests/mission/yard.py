"""Scenes of our own for the mission tests: a small skid-steer rover in a yard with obstacles."""

from __future__ import annotations

import textwrap
from pathlib import Path

HEADER = """#usda 1.0
(
    defaultPrim = "Yard"
    upAxis = "{up}"
    metersPerUnit = 1
)
"""


def _v(up: str, x: float, y: float, h: float) -> str:
    """A world point given as ground-plane x, y and height, in the stage's axes."""
    if up == "Z":
        return f"({x}, {y}, {h})"
    return f"({x}, {h}, {-y})"


def rover(up: str, x: float = 0.0, y: float = 0.0, name: str = "Rover") -> str:
    """A 1.2 m x 0.8 m differential-drive rover: a chassis box riding on two frictionless caster
    balls, and two wheel bodies on revolute axles at its middle (no drives: the mission writes
    each axle's target_velocity)."""
    ax = "Y" if up == "Z" else "Z"  # the axle axis across the rover
    wheels = []
    joints = []
    for wname, wy in (("L", 0.5), ("R", -0.5)):
        wheels.append(f"""
        def Xform "Wheel_{wname}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
        {{
            double3 xformOp:translate = {_v(up, 0.0, wy, -0.2)}
            uniform token[] xformOpOrder = ["xformOp:translate"]
            float physics:mass = 2
            def Cylinder "Tire" (prepend apiSchemas = ["PhysicsCollisionAPI"])
            {{
                uniform token axis = "{ax}"
                double radius = 0.2
                double height = 0.12
            }}
        }}""")
        joints.append(f"""
        def PhysicsRevoluteJoint "Axle_{wname}"
        {{
            rel physics:body0 = </Yard/{name}/Chassis>
            rel physics:body1 = </Yard/{name}/Chassis/Wheel_{wname}>
            uniform token physics:axis = "{ax}"
            point3f physics:localPos0 = {_v(up, 0.0, wy, -0.2)}
            point3f physics:localPos1 = (0, 0, 0)
        }}""")
    casters = "".join(f"""
            def Sphere "Caster_{cname}" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
            {{
                rel material:binding:physics = </Yard/{name}/Slick>
                double radius = 0.1
                double3 xformOp:translate = {_v(up, cx, 0.0, -0.28)}
                uniform token[] xformOpOrder = ["xformOp:translate"]
            }}""" for cname, cx in (("Front", 0.45), ("Rear", -0.45)))
    return f"""
    def Xform "{name}"
    {{
        float mission:maxSpeed = 1.0
        float mission:maxYawRate = 1.0
        double3 xformOp:translate = {_v(up, x, y, 0.0)}
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Xform "Chassis" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
        {{
            double3 xformOp:translate = {_v(up, 0, 0, 0.4)}
            uniform token[] xformOpOrder = ["xformOp:translate"]
            float physics:mass = 20
            def Cube "Hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
            {{
                double size = 1
                double3 xformOp:scale = {_scale(up, 1.2, 0.8, 0.25)}
                uniform token[] xformOpOrder = ["xformOp:scale"]
            }}{casters}{''.join(wheels)}
        }}
        def Material "Slick" (prepend apiSchemas = ["PhysicsMaterialAPI"])
        {{
            float physics:staticFriction = 0
            float physics:dynamicFriction = 0
            float physics:restitution = 0
        }}
        def Scope "Joints"
        {{{''.join(joints)}
        }}
    }}"""


def _scale(up: str, sx: float, sy: float, sh: float) -> str:
    return f"({sx}, {sy}, {sh})" if up == "Z" else f"({sx}, {sh}, {sy})"


def block(up: str, name: str, x: float, y: float, sx: float, sy: float, sh: float = 1.0,
          kinematic: bool = True) -> str:
    """A box obstacle standing on the ground (kinematic: it has contact ports and can be moved)."""
    schemas = '"PhysicsRigidBodyAPI", ' if kinematic else ""
    kin = "bool physics:kinematicEnabled = 1" if kinematic else ""
    return f"""
    def Cube "{name}" (prepend apiSchemas = [{schemas}"PhysicsCollisionAPI"])
    {{
        {kin}
        double size = 1
        double3 xformOp:translate = {_v(up, x, y, sh / 2)}
        double3 xformOp:scale = {_scale(up, sx, sy, sh)}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}"""


def crate(up: str, name: str, x: float, y: float, h: float, size: float = 0.3) -> str:
    """A dynamic crate (for attachments)."""
    return f"""
    def Cube "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {{
        float physics:mass = 2
        double size = {size}
        double3 xformOp:translate = {_v(up, x, y, h)}
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}"""


def yard(path: Path, up: str = "Z", parts: tuple[str, ...] = (), size: float = 30.0) -> Path:
    """A flat yard (ground top at height 0) holding a rover at the origin and ``parts``."""
    g = "(0, 0, -1)" if up == "Z" else "(0, -1, 0)"
    body = f"""
def Xform "Yard"
{{
    def PhysicsScene "PhysicsScene"
    {{
        vector3f physics:gravityDirection = {g}
        float physics:gravityMagnitude = 9.81
    }}
    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double size = 1
        double3 xformOp:translate = {_v(up, 0, 0, -0.5)}
        double3 xformOp:scale = {_scale(up, size, size, 1.0)}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}
{rover(up)}
{''.join(parts)}
}}
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER.format(up=up) + textwrap.dedent(body), encoding="utf-8")
    return path


def task(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


NAV_HEAD = """
plugins:
  mission:
    config:
      solvers:
        navigation: {backend: navigation, role: navigation, config: {}}
"""


def demo_rover_yard(path: Path, parts: tuple[str, ...] = ()) -> Path:
    """A Y-up yard under lunar gravity holding the bundled four-wheel skid-steer ``yard_rover``
    (its Modelica drive controller turns ``inputs:throttle``/``inputs:steer`` into wheel torques)
    with motors that hold a speed: more torque and a back-EMF damping on each wheel joint, so a
    steady throttle gives a steady speed, as the mission's robot contract asks."""
    dampers = "".join(f"""
            over "Axle_{w}" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
            {{
                float drive:angular:physics:damping = 0.2
                float drive:angular:physics:stiffness = 0
                float drive:angular:physics:targetVelocity = 0
            }}""" for w in ("FL", "FR", "RL", "RR"))
    body = f"""
def Xform "Yard"
{{
    def PhysicsScene "PhysicsScene"
    {{
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }}
    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double size = 1
        double3 xformOp:translate = (0, -0.5, 0)
        double3 xformOp:scale = (30, 1, 30)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}
    def Xform "Rover" (prepend references = @lunco://vessels/rovers/yard_rover.usda@)
    {{
        float mission:maxSpeed = 0.4
        float mission:maxYawRate = 0.3
        double3 xformOp:translate = (0, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        over "Controller"
        {{
            float inputs:max_torque = 40
        }}
        over "Joints"
        {{{dampers}
        }}
    }}
{''.join(parts)}
}}
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER.format(up="Y") + textwrap.dedent(body), encoding="utf-8")
    return path
