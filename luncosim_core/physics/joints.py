"""Read UsdPhysics joints as two frames, map generic joints, and check frames at build.

A joint holds ``T0 * frame0 == T1 * frame1`` (positions, and orientation for the locked
rotational DOF). Unauthored frames: when neither side authors ``localPos`` the anchor is body1's
origin; when neither authors ``localRot`` the frame takes body0's orientation. When only one
side is authored the other keeps the USD fallback (origin / identity), which is exactly how a
missing ``localRot1`` on a raked mechanism shows up as a violation.
"""

from __future__ import annotations

import math

import numpy as np
from pxr import Gf, UsdPhysics

from .frames import (
    Pose,
    gf_quat_to_np,
    quat_angle,
    quat_conj,
    quat_mul,
    quat_rotate,
)
from .model import Body, Drive, Joint
from .reader import StageReader, applied_schemas, authored, diag

POS_TOL = 1e-4  # m
ROT_TOL = 1e-3  # rad
_KINDS = {
    "PhysicsFixedJoint": "fixed",
    "PhysicsRevoluteJoint": "revolute",
    "PhysicsPrismaticJoint": "prismatic",
    "PhysicsSphericalJoint": "spherical",
    "PhysicsDistanceJoint": "distance",
    "PhysicsJoint": "generic",
}
_DOFS = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")


def _fmt(v) -> str:
    return "(" + ", ".join(f"{float(x):.6g}" for x in v) + ")"


class JointReader:
    def __init__(self, reader: StageReader):
        self.r = reader

    def read(self) -> list[Joint]:
        joints = []
        prims = sorted((p for p in self.r.prims if p.IsA(UsdPhysics.Joint)), key=lambda p: str(p.GetPath()))
        for prim in prims:
            j = self._read_one(prim)
            if j is not None:
                joints.append(j)
        return joints

    def read_gears(self) -> list[tuple[str, str, str, float, float]]:
        """``PhysxPhysicsGearJoint`` prims: (path, hinge0, hinge1, gear ratio, max force). A gear
        whose angular drive has zero stiffness is disengaged (LunCoSim's reading) and skipped."""
        out = []
        for prim in sorted((p for p in self.r.prims if p.GetTypeName() == "PhysxPhysicsGearJoint"),
                           key=lambda p: str(p.GetPath())):
            path = str(prim.GetPath())
            hinges = []
            for rel in ("physxGearJoint:hinge0", "physxGearJoint:hinge1"):
                r = prim.GetRelationship(rel)
                t = r.GetTargets() if r else []
                hinges.append(str(t[0]) if t else "")
            ratio_attr = prim.GetAttribute("physxGearJoint:gearRatio")
            ratio = float(ratio_attr.Get()) if ratio_attr and ratio_attr.Get() is not None else 1.0
            stiff = prim.GetAttribute("drive:angular:physics:stiffness")
            engaged = not stiff or not authored(stiff) or float(stiff.Get() or 0.0) > 0
            if not all(hinges):
                self.r.diags.append(diag("error", "physics-joint-invalid-target",
                                         f"gear joint {path} needs both physxGearJoint:hinge0 and hinge1", path))
                continue
            if not engaged:
                self.r.diags.append(diag("info", "physics-gear-disengaged",
                                         f"gear joint {path} has drive stiffness 0: disengaged", path))
                continue
            mf = prim.GetAttribute("drive:angular:physics:maxForce")
            max_force = float(mf.Get()) if mf and authored(mf) and math.isfinite(float(mf.Get())) else 1.0e9
            out.append((path, hinges[0], hinges[1], ratio, max_force))
        return out

    # ------------------------------------------------------------------ one joint
    def _target(self, prim, rel_name: str) -> tuple[bool, str | None, object | None]:
        """(ok, owning body path or None for world, target prim or None)."""
        path = str(prim.GetPath())
        targets = prim.GetRelationship(rel_name).GetTargets() if prim.GetRelationship(rel_name) else []
        if not targets:
            return True, None, None
        if len(targets) > 1:
            self.r.diags.append(diag("error", "physics-joint-invalid-target",
                                     f"joint {path} {rel_name} names {len(targets)} prims; one is allowed",
                                     path))
            return False, None, None
        tp = self.r.stage.GetPrimAtPath(targets[0])
        if not tp:
            self.r.diags.append(diag("error", "physics-joint-invalid-target",
                                     f"joint {path} {rel_name} names {targets[0]}, which does not exist",
                                     path, target=str(targets[0])))
            return False, None, None
        return True, self.r.owner_body(tp), tp

    def _read_one(self, prim) -> Joint | None:
        r = self.r
        path = str(prim.GetPath())
        api = UsdPhysics.Joint(prim)
        if api.GetJointEnabledAttr().Get() is False:
            r.diags.append(diag("info", "physics-joint-disabled", f"joint {path} is disabled", path))
            return None
        kind = _KINDS.get(prim.GetTypeName(), "generic")
        ok0, b0, t0 = self._target(prim, "physics:body0")
        ok1, b1, t1 = self._target(prim, "physics:body1")
        if not (ok0 and ok1):
            return None
        if b0 is None and b1 is None:
            r.diags.append(diag("error", "physics-joint-invalid-target",
                                f"joint {path} attaches no body (both body0 and body1 are unset or static)",
                                path))
            return None
        if b0 == b1:
            r.diags.append(diag("error", "physics-joint-invalid-target",
                                f"joint {path} attaches body {b0} to itself", path))
            return None
        for key in ("physics:breakForce", "physics:breakTorque"):
            a = prim.GetAttribute(key)
            if authored(a) and math.isfinite(float(a.Get())):
                r.diags.append(diag("warning", "physics-unsupported",
                                    f"joint {path} authors {key}; breakable joints are not supported, it never breaks",
                                    path))
        j = Joint(path, kind, b0, b1, Pose.identity(), Pose.identity())
        j.collision_enabled = bool(api.GetCollisionEnabledAttr().Get())
        j.exclude_from_tree = bool(api.GetExcludeFromArticulationAttr().Get())
        if kind == "generic" and not self._map_generic(prim, j):
            return None
        self._frames(prim, j, t0, t1)
        self._limits_and_drive(prim, j)
        if "LunCoPrismaticSuspensionAPI" in applied_schemas(prim):
            j.suspension = self._suspension(prim, j)
        if "LunCoJointDampingAPI" in applied_schemas(prim):
            self._damping(prim, j)
        coord = {"revolute": "angle", "prismatic": "displacement"}.get(j.kind)
        if coord and j.drive is None and prim.GetAttribute(f"inputs:{coord}"):
            j.servo_input = True  # held where it starts until its input is written
        return j

    def _damping(self, prim, j: Joint) -> None:
        """``lunco:jointDamping:linear|angular``: viscous damping of the joint's free motion."""
        name = "linear" if j.kind == "prismatic" else "angular"
        a = prim.GetAttribute(f"lunco:jointDamping:{name}")
        v = float(a.Get()) if a and authored(a) and a.Get() is not None else 0.0
        if not math.isfinite(v) or v < 0:
            self.r.diags.append(diag("error", "physics-joint-damping-invalid",
                                     f"{j.path} lunco:jointDamping:{name} must be a finite number >= 0; ignored",
                                     j.path))
            return
        scale = self.r.kpu if name == "linear" else self.r.kpu * self.r.mpu ** 2
        j.damping = v * scale

    def _suspension(self, prim, j: Joint) -> tuple[float, float, float, float, float] | None:
        """``lunco:prismaticSuspension:*`` on a prismatic joint: (rest m, stiffness N/m, damping
        N*s/m, yield force N, max force N); None (with a diagnostic) when it cannot be used."""
        names = ("restPosition", "stiffness", "damping", "yieldForce", "maxForce")
        vals = []
        for n in names:
            a = prim.GetAttribute(f"lunco:prismaticSuspension:{n}")
            v = a.Get() if a and authored(a) else (0.0 if n == "restPosition" else None)
            vals.append(float(v) if v is not None else math.nan)
        rest, k, c, yld, mx = vals
        ok = (j.kind == "prismatic" and all(math.isfinite(v) for v in vals) and k > 0 and c >= 0
              and yld > 0 and mx >= yld)
        if not ok:
            self.r.diags.append(diag("error", "physics-suspension-invalid",
                                     f"{j.path} applies LunCoPrismaticSuspensionAPI but is not a prismatic joint "
                                     "with lunco:prismaticSuspension:stiffness > 0, damping >= 0, yieldForce > 0 and "
                                     "maxForce >= yieldForce; the suspension is ignored", j.path))
            return None
        mpu, kpu = self.r.mpu, self.r.kpu
        return rest * mpu, k * kpu, c * kpu, yld * kpu * mpu, mx * kpu * mpu

    # ------------------------------------------------------------------ frames
    def _frames(self, prim, j: Joint, t0, t1) -> None:
        r = self.r
        names = ("physics:localPos0", "physics:localPos1", "physics:localRot0", "physics:localRot1")
        a = [prim.GetAttribute(n) for n in names]
        auth = [authored(x) for x in a]
        pos = [np.array(x.Get() if x and x.Get() is not None else (0, 0, 0), dtype=float) for x in a[:2]]
        rot = [gf_quat_to_np(x.Get()) if x and x.Get() is not None else np.array([1.0, 0, 0, 0]) for x in a[2:]]

        def world_frame(tp, p: np.ndarray, q: np.ndarray) -> Pose:
            if tp is None:
                return Pose(p * r.mpu, q)
            m = r.xcache.GetLocalToWorldTransform(tp)
            wp = np.array(m.Transform(Gf.Vec3d(*p)), dtype=float) * r.mpu
            tpose, _ = r.world_pose(tp)
            return Pose(wp, quat_mul(tpose.q, q))

        f0 = world_frame(t0, pos[0], rot[0])
        f1 = world_frame(t1, pos[1], rot[1])
        body0 = r.bodies[j.body0].pose if j.body0 else None
        body1 = r.bodies[j.body1].pose if j.body1 else None
        if not auth[0] and not auth[1] and (body0 is not None or body1 is not None):
            anchor = (body1 or body0).p.copy()  # type: ignore[union-attr]
            f0 = Pose(anchor, f0.q)
            f1 = Pose(anchor.copy(), f1.q)
            at = j.body1 if body1 is not None else j.body0
            where = tuple(round(float(x) / r.mpu, 6) for x in anchor)
            r.diags.append(diag(
                "info", "physics-joint-anchor-derived",
                f"joint {j.path} authors neither physics:localPos0 nor physics:localPos1: its anchor is "
                f"derived at the origin of {at} ({where[0]:g}, {where[1]:g}, {where[2]:g} in stage units), "
                "as LunCoSim reads such a joint", j.path, anchor=where, body=at))
        if not auth[2] and not auth[3]:
            q = body0.q.copy() if body0 is not None else np.array([1.0, 0, 0, 0])
            f0 = Pose(f0.p, q)
            f1 = Pose(f1.p, q.copy())
        j.frame0 = body0.inverse() * f0 if body0 is not None else f0
        j.frame1 = body1.inverse() * f1 if body1 is not None else f1

    def world_frames(self, j: Joint, bodies: dict[str, Body]) -> tuple[Pose, Pose]:
        f0 = bodies[j.body0].pose * j.frame0 if j.body0 else j.frame0
        f1 = bodies[j.body1].pose * j.frame1 if j.body1 else j.frame1
        return f0, f1

    def check(self, j: Joint, bodies: dict[str, Body]) -> tuple[float, float, float]:
        """Measure the build-time violation; report it; seat fixed/prismatic. Returns
        (position error m, rotation error rad, initial joint coordinate)."""
        f0, f1 = self.world_frames(j, bodies)
        e = f1.p - f0.p
        q_err = quat_mul(quat_conj(f0.q), f1.q)  # f1 relative to f0
        coord = 0.0
        axis_local = j.axis_vec if j.kind in ("revolute", "prismatic") else None
        if j.kind == "prismatic":
            axis_w = quat_rotate(f0.q, j.axis_vec)
            coord = float(np.dot(e, axis_w))
            pos_err = float(np.linalg.norm(e - coord * axis_w))
            rot_err = quat_angle(q_err)
        elif j.kind == "revolute":
            pos_err = float(np.linalg.norm(e))
            proj = float(np.dot(q_err[1:], axis_local))
            twist = np.array([q_err[0], *(proj * axis_local)])
            n = np.linalg.norm(twist)
            twist = twist / n if n > 1e-12 else np.array([1.0, 0, 0, 0])
            coord = 2.0 * math.atan2(float(np.dot(twist[1:], axis_local)), float(twist[0]))
            coord = (coord + math.pi) % (2 * math.pi) - math.pi
            rot_err = quat_angle(quat_mul(q_err, quat_conj(twist)))
        elif j.kind == "distance":
            d = float(np.linalg.norm(e))
            lo = j.min_distance if j.min_distance >= 0 else 0.0
            hi = j.max_distance if j.max_distance >= 0 else math.inf
            pos_err = max(0.0, d - hi, lo - d)
            rot_err = 0.0
        elif j.kind == "spherical":
            pos_err = float(np.linalg.norm(e))
            rot_err = 0.0
            j.initial_rot = q_err
        else:
            pos_err = float(np.linalg.norm(e))
            rot_err = quat_angle(q_err)
        if pos_err > POS_TOL or rot_err > ROT_TOL:
            self._report(j, f0, f1, pos_err, rot_err, bodies)
            if j.kind in ("fixed", "prismatic"):
                self._seat(j, f0, f1, coord, bodies)
        j.initial_coord = coord
        return pos_err, rot_err, coord

    def _report(self, j: Joint, f0: Pose, f1: Pose, pos_err: float, rot_err: float, bodies) -> None:
        if j.kind in ("fixed", "prismatic"):
            seated = self._seat_target(j, bodies)
            action = f"seating `{seated}` onto the authored joint frame" if seated else "both bodies are fixed"
        elif j.kind in ("revolute", "spherical"):
            action = ("reported only: rotation about the free axes is left to the joint; a multibody link "
                      "nevertheless starts on its parent's frame")
        else:
            action = "reported only"
        b0 = bodies[j.body0].pose if j.body0 else None
        b1 = bodies[j.body1].pose if j.body1 else None
        msg = (
            f"joint {j.path} starts violated by {pos_err:.3f} m / {rot_err:.3f} rad - {action}. "
            f"frame0: localPos0={_fmt(j.frame0.p)} localRot0={_fmt(j.frame0.q)} (world {_fmt(f0.p)}), "
            f"frame1: localPos1={_fmt(j.frame1.p)} localRot1={_fmt(j.frame1.q)} (world {_fmt(f1.p)}), "
            f"body0 {j.body0 or '<world>'} at {_fmt(b0.p) if b0 else '-'} rot {_fmt(b0.q) if b0 else '-'}, "
            f"body1 {j.body1 or '<world>'} at {_fmt(b1.p) if b1 else '-'} rot {_fmt(b1.q) if b1 else '-'}"
        )
        if rot_err > 0.1 and j.kind in ("fixed", "prismatic"):
            msg += (". An angular violation on a raked mechanism is almost always a missing "
                    "physics:localRot1: rot0*localRot0 must equal rot1*localRot1 at rest")
        self.r.diags.append(diag(
            "warning", "joint-starts-violated", msg, j.path,
            violation_m=pos_err, violation_rad=rot_err, body0=j.body0, body1=j.body1,
            frame0=(tuple(f0.p), tuple(f0.q)), frame1=(tuple(f1.p), tuple(f1.q))))

    def _seat_target(self, j: Joint, bodies: dict[str, Body]) -> str | None:
        if j.body1 and not bodies[j.body1].kinematic:
            return j.body1
        if j.body0 and not bodies[j.body0].kinematic:
            return j.body0
        return None

    def _seat(self, j: Joint, f0: Pose, f1: Pose, coord: float, bodies: dict[str, Body]) -> None:
        target = self._seat_target(j, bodies)
        if target is None:
            return
        slide = Pose(quat_rotate(f0.q, j.axis_vec) * coord, np.array([1.0, 0, 0, 0])) if j.kind == "prismatic" \
            else Pose.identity()
        if target == j.body1:
            want_f1 = slide * Pose(f0.p, f0.q)
            bodies[target].pose = want_f1 * j.frame1.inverse()
        else:
            want_f0 = slide.inverse() * Pose(f1.p, f1.q)
            bodies[target].pose = want_f0 * j.frame0.inverse()

    # ------------------------------------------------------------------ limits, drives
    def _limits_and_drive(self, prim, j: Joint) -> None:
        r = self.r
        path = j.path
        if j.kind in ("revolute", "prismatic") and j.generic_from is None:
            api = UsdPhysics.RevoluteJoint(prim) if j.kind == "revolute" else UsdPhysics.PrismaticJoint(prim)
            j.axis = str(api.GetAxisAttr().Get() or "X")
            lo = float(api.GetLowerLimitAttr().Get())
            hi = float(api.GetUpperLimitAttr().Get())
            scale = math.pi / 180.0 if j.kind == "revolute" else r.mpu
            j.lower = lo * scale if math.isfinite(lo) else -math.inf
            j.upper = hi * scale if math.isfinite(hi) else math.inf
        if j.kind == "spherical":
            api = UsdPhysics.SphericalJoint(prim)
            c0 = float(api.GetConeAngle0LimitAttr().Get())
            c1 = float(api.GetConeAngle1LimitAttr().Get())
            if (c0 >= 0 and math.isfinite(c0)) or (c1 >= 0 and math.isfinite(c1)):
                r.diags.append(diag("warning", "physics-unsupported",
                                    f"spherical joint {path} authors cone limits ({c0}, {c1} deg); pybullet "
                                    "multibody spherical joints have no limits, so the cone is not enforced",
                                    path))
        if j.kind == "distance":
            api = UsdPhysics.DistanceJoint(prim)
            j.min_distance = float(api.GetMinDistanceAttr().Get()) * r.mpu
            j.max_distance = float(api.GetMaxDistanceAttr().Get()) * r.mpu
        instances = [s.split(":", 1)[1] for s in prim.GetAppliedSchemas() if s.startswith("PhysicsDriveAPI:")]
        wanted = {"revolute": "angular", "prismatic": "linear"}.get(j.kind)
        if j.generic_from:
            wanted_generic = j.generic_from
        else:
            wanted_generic = None
        for inst in sorted(instances):
            if inst == wanted or (wanted_generic and inst == wanted_generic):
                j.drive = self._drive(prim, inst, "angular" if j.kind == "revolute" else "linear")
            else:
                r.diags.append(diag("warning", "physics-unsupported",
                                    f"joint {path} applies PhysicsDriveAPI:{inst}, which a {j.kind} joint cannot "
                                    "use; it is ignored", path))

    def _drive(self, prim, inst: str, kind: str) -> Drive:
        r = self.r
        d = UsdPhysics.DriveAPI(prim, inst)
        typ = str(d.GetTypeAttr().Get() or "force")
        stiff = float(d.GetStiffnessAttr().Get() or 0.0)
        damp = float(d.GetDampingAttr().Get() or 0.0)
        mf = d.GetMaxForceAttr().Get()
        mf = math.inf if mf is None or not math.isfinite(float(mf)) or float(mf) < 0 else float(mf)
        tp = float(d.GetTargetPositionAttr().Get() or 0.0)
        tv = float(d.GetTargetVelocityAttr().Get() or 0.0)
        if kind == "angular":
            deg = 180.0 / math.pi
            torque = r.kpu * r.mpu**2
            return Drive(kind, typ, stiff * torque * deg, damp * torque * deg, mf * torque,
                         math.radians(tp), math.radians(tv),
                         authored(d.GetTargetPositionAttr()) or stiff > 0)
        return Drive(kind, typ, stiff * r.kpu, damp * r.kpu, mf * r.kpu * r.mpu, tp * r.mpu, tv * r.mpu,
                     authored(d.GetTargetPositionAttr()) or stiff > 0)

    def _map_generic(self, prim, j: Joint) -> bool:
        """Map a generic PhysicsJoint onto fixed/revolute/prismatic/spherical via its limits."""
        r = self.r
        limits = {s.split(":", 1)[1] for s in prim.GetAppliedSchemas() if s.startswith("PhysicsLimitAPI:")}
        locked: set[str] = set()
        ranges: dict[str, tuple[float, float]] = {}
        for dof in _DOFS:
            if dof not in limits:
                continue
            lim = UsdPhysics.LimitAPI(prim, dof)
            lo = float(lim.GetLowAttr().Get())
            hi = float(lim.GetHighAttr().Get())
            if lo > hi:
                locked.add(dof)
            else:
                ranges[dof] = (lo, hi)
        free = [d for d in _DOFS if d not in locked]
        free_t = [d for d in free if d.startswith("trans")]
        free_r = [d for d in free if d.startswith("rot")]
        j.generic_from = None
        if not free:
            j.kind = "fixed"
        elif not free_t and len(free_r) == 1:
            j.kind, j.axis = "revolute", free_r[0][-1]
            lo, hi = ranges.get(free_r[0], (-math.inf, math.inf))
            j.lower = math.radians(lo) if math.isfinite(lo) else -math.inf
            j.upper = math.radians(hi) if math.isfinite(hi) else math.inf
            j.generic_from = free_r[0]
        elif not free_t and len(free_r) == 3:
            j.kind = "spherical"
        elif len(free_t) == 1 and not free_r:
            j.kind, j.axis = "prismatic", free_t[0][-1]
            lo, hi = ranges.get(free_t[0], (-math.inf, math.inf))
            j.lower = lo * r.mpu if math.isfinite(lo) else -math.inf
            j.upper = hi * r.mpu if math.isfinite(hi) else math.inf
            j.generic_from = free_t[0]
        else:
            r.diags.append(diag(
                "error", "physics-joint-unsupported",
                f"generic joint {j.path} leaves {', '.join(free)} free; pybullet can express a generic joint "
                "only as fixed (none free), revolute (one rot), prismatic (one trans) or spherical (all rot "
                "free, trans locked), so this joint is not created", j.path))
            return False
        if "distance" in limits:
            r.diags.append(diag("warning", "physics-unsupported",
                                f"generic joint {j.path} authors PhysicsLimitAPI:distance, which is not read",
                                j.path))
        return True

