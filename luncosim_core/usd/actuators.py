"""Force actuators (``LunCoForceActuatorAPI``) read from the composed stage.

A force actuator is a prim under a rigid body (its nearest ``PhysicsRigidBodyAPI`` ancestor, itself
included) that pushes along ``lunco:forceActuator:direction`` (in the prim's own frame) with at most
``lunco:forceActuator:maxForce`` newtons, at the prim's origin. Its geometry is expressed in the
body's frame (the body prim's rotation and translation; scale does not enter), as LunCoSim's
``force_actuator_from_usd`` reads it. The command is the prim's ``inputs:force_command`` (N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pxr import Gf, Usd, UsdGeom

from luncosim_core.usd.schemas import has_schema

FORCE_ACTUATOR_API = "LunCoForceActuatorAPI"


@dataclass(frozen=True)
class ForceActuator:
    path: str
    body: str
    position: tuple[float, float, float]  # in the body frame
    direction: tuple[float, float, float]  # unit, in the body frame
    max_force: float

    def wrench_column(self) -> tuple[float, ...]:
        """Force and torque (about the body origin) at full command."""
        d, p = Gf.Vec3d(*self.direction), Gf.Vec3d(*self.position)
        f, t = d * self.max_force, Gf.Cross(p, d) * self.max_force
        return (f[0], f[1], f[2], t[0], t[1], t[2])


def body_of(prim: Usd.Prim) -> Usd.Prim | None:
    p = prim
    while p and not p.IsPseudoRoot():
        if has_schema(p, "PhysicsRigidBodyAPI"):
            return p
        p = p.GetParent()
    return None


def _rigid(m: Gf.Matrix4d) -> Gf.Matrix4d:
    """The matrix without scale or shear (rotation and translation only)."""
    out = Gf.Matrix4d(1.0)
    out.SetRotateOnly(m.ExtractRotation())
    out.SetTranslateOnly(m.ExtractTranslation())
    return out


def _value(prim: Usd.Prim, name: str):
    attr = prim.GetAttribute(name)
    return attr.Get() if attr and attr.HasAuthoredValue() else None


def read_force_actuator(prim: Usd.Prim, cache: UsdGeom.XformCache) -> tuple[ForceActuator | None, str]:
    """``(actuator, why not)`` of one ``LunCoForceActuatorAPI`` prim."""
    body = body_of(prim)
    if body is None:
        return None, "has no PhysicsRigidBodyAPI ancestor"
    direction, max_force = _value(prim, "lunco:forceActuator:direction"), _value(prim, "lunco:forceActuator:maxForce")
    if direction is None or not all(math.isfinite(float(c)) for c in direction) or Gf.Vec3d(direction).GetLength() == 0:
        return None, "has no finite non-zero lunco:forceActuator:direction"
    if max_force is None or not math.isfinite(float(max_force)) or float(max_force) <= 0:
        return None, "has no positive lunco:forceActuator:maxForce"
    rel = cache.GetLocalToWorldTransform(prim) * _rigid(cache.GetLocalToWorldTransform(body)).GetInverse()
    d = rel.TransformDir(Gf.Vec3d(*(float(c) for c in direction)))
    if d.GetLength() == 0:
        return None, "has a direction its transform collapses"
    d = d.GetNormalized()
    pos = rel.ExtractTranslation()
    return ForceActuator(str(prim.GetPath()), str(body.GetPath()), (pos[0], pos[1], pos[2]), (d[0], d[1], d[2]),
                         float(max_force)), ""
