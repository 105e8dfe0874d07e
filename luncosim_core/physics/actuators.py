"""Force actuators on the physics world: thrusters and engines pushing their rigid body.

Each ``LunCoForceActuatorAPI`` prim (:mod:`luncosim_core.usd.actuators`) under a built dynamic body
gets a writable ``force_command`` port (N). Every substep the command, clamped to
``[0, maxForce]`` (an engine cannot pull), is applied along the actuator's body-frame direction at
its body-frame mount point, both carried by the body's live pose, as LunCoSim's force-actuator
drain does; pybullet makes the r x F torque about the live centre of mass. A non-finite command is
refused by the port write.
"""

from __future__ import annotations

import numpy as np
import pybullet as pb
from pxr import Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.physics.ports import PortSpec
from luncosim_core.usd.actuators import FORCE_ACTUATOR_API, ForceActuator, read_force_actuator
from luncosim_core.usd.schemas import has_schema

COMMAND = "force_command"


def read_force_actuators(stage: Usd.Stage, bodies: dict) -> tuple[list[ForceActuator], list[Diagnostic]]:
    """The force actuators whose body is a built dynamic body (by path), and why others are not."""
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    out, diags = [], []
    for prim in stage.Traverse():
        if not has_schema(prim, FORCE_ACTUATOR_API):
            continue
        act, why = read_force_actuator(prim, cache)
        path = str(prim.GetPath())
        if act is None:
            diags.append(Diagnostic("warning", "force-actuator-invalid", f"force actuator {path} {why}; it applies no force",
                                    path=path, source="physics"))
        elif act.body not in bodies or bodies[act.body].kinematic:
            diags.append(Diagnostic("warning", "force-actuator-invalid", f"force actuator {path}: its body {act.body} is "
                                    "not a dynamic body of the physics world; it applies no force", path=path,
                                    source="physics"))
        else:
            out.append(act)
    return out, diags


class ForceActuators:
    """Commands and per-substep application of the world's force actuators."""

    def __init__(self, actuators: list[ForceActuator]) -> None:
        self.actuators = {a.path: a for a in actuators}
        self.command = dict.fromkeys(self.actuators, 0.0)

    def port_specs(self) -> list[PortSpec]:
        return [PortSpec(p, COMMAND, "in", "N", True, "double",
                         f"thrust command along the actuator's direction, clamped to [0, {a.max_force:g}] N")
                for p, a in sorted(self.actuators.items())]

    def apply(self, client, built, pose_of) -> None:
        """Apply every non-zero command to its body (``pose_of(body) -> (position, rotation 3x3)``)."""
        for path, value in self.command.items():
            a = self.actuators[path]
            thrust = min(max(value, 0.0), a.max_force)
            if thrust <= 0.0:
                continue
            pos, rot = pose_of(a.body)
            point = pos + rot @ np.asarray(a.position)
            force = rot @ (np.asarray(a.direction) * thrust)
            b = built.bodies[a.body]
            client.applyExternalForce(b.uid, b.link, force.tolist(), point.tolist(), pb.WORLD_FRAME)
