"""PhysicsWorld: a composed USD stage projected onto one pybullet client (DIRECT mode).

One world owns one client and is used from one thread. ``step()`` advances one tick of
``substeps`` engine steps; drives, external forces and distance joints are applied every substep.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np
import pybullet as pb
from pybullet_utils.bullet_client import BulletClient

from ..diagnostics import Diagnostic
from .actuators import COMMAND, ForceActuators, read_force_actuators
from .builder import Builder, Built, JointRt
from .debug import ColliderInfo, ContactInfo, DebugInfo, JointFrameInfo
from .frames import Pose, from_xyzw, quat_conj, quat_mul, quat_rotate, quat_to_matrix, to_xyzw
from .joints import JointReader
from .model import Joint
from .ports import PortSpec, body_port_specs, joint_port_specs
from .reader import StageReader, diag
from .sensors import BODY_STATE, RAY_OUTPUTS, Sensors, read_ray_sensors
from .state_readback import BodyStateReader
from .triggers import ZoneSensor, read_trigger_zones
from .vehicles import VehicleRuntime, read_vehicles


@dataclass
class _PdGroup:
    """The USD-law drives of one multibody, as arrays (one entry per joint)."""

    uid: int
    rts: list[JointRt]
    links: list[int]
    sign: np.ndarray
    k: np.ndarray
    c_implicit: np.ndarray
    max_force: np.ndarray
    target_pos: np.ndarray
    target_vel: np.ndarray
    effort: np.ndarray

    def __post_init__(self) -> None:
        self.sign_l = self.sign.tolist()
        self.k_l = self.k.tolist()
        self.c_l = self.c_implicit.tolist()


@dataclass
class _Attachment:
    """A fixed constraint made at run time (``attach``): child inertial frame in the parent's."""

    parent: str
    child: str
    parent_frame: Pose
    constraint: int


TETHER_FREQ_HZ = 20.0  # natural frequency of the distance-joint spring
TETHER_ZETA = 1.0


class PhysicsWorld:
    """The physics projection of one composed stage."""

    def __init__(self, stage, tick_hz: float = 60.0, substeps: int = 4, world_bounds: float = 1.0e5,
                 floor_margin: float = 1000.0, default_gravity: float = 0.0):
        if tick_hz <= 0 or substeps < 1:
            raise ValueError(f"tick_hz must be > 0 and substeps >= 1 (got {tick_hz}, {substeps})")
        self.tick_hz = float(tick_hz)
        self.substeps = int(substeps)
        self.world_bounds = float(world_bounds)
        self.floor_margin = float(floor_margin)
        self.dt = 1.0 / (self.tick_hz * self.substeps)
        reader = StageReader(stage, default_gravity)
        self.model = reader.read()
        self._vessels = read_vehicles(reader, stage, self.model.bodies, reader.raycast_wheels)
        self.sensors = Sensors(read_ray_sensors(reader))
        self._zones = read_trigger_zones(reader)
        self._zone_events: list[tuple[str, str, str]] = []
        jr = JointReader(reader)
        self._joints: list[Joint] = jr.read()
        self._violations: dict[str, tuple[float, float]] = {}
        for j in self._joints:
            pe, re, _ = jr.check(j, self.model.bodies)
            self._violations[j.path] = (pe, re)
        self._joint_reader = jr
        self.fault: Diagnostic | None = None
        self.tick = 0
        self._client = BulletClient(connection_mode=pb.DIRECT)
        c = self._client
        self._cid = c._client
        c.resetSimulation()
        c.setPhysicsEngineParameter(fixedTimeStep=self.dt, numSubSteps=0, deterministicOverlappingPairs=1)
        c.setGravity(*[float(x) for x in self.model.gravity])
        steered = {w.joint: (w.path, w.steer_axis) for v in self._vessels for w in v.wheels if w.joint and w.steer_key}
        self._builder = Builder(c, self.model, self._joints, reader.diags, steered)
        self._built: Built = self._builder.build()
        self._zone_sensor = ZoneSensor(c, self._builder, self._built, self._zones)
        self._make_gears(jr.read_gears(), reader.diags)
        self._suspensions = [
            [rt, rt.joint.suspension[0]] for rt in self._built.joints
            if rt.joint.suspension is not None and rt.is_link]
        self.diagnostics: list[Diagnostic] = sorted(
            reader.diags, key=lambda d: (d.path, d.code, d.message))
        self.body_paths: tuple[str, ...] = tuple(sorted(self._built.bodies))
        self._index = {p: i for i, p in enumerate(self.body_paths)}
        n = len(self.body_paths)
        self._com_p = np.array([self._built.bodies[p].com_frame.p for p in self.body_paths]).reshape(n, 3)
        self._com_q = np.array([self._built.bodies[p].com_frame.q for p in self.body_paths]).reshape(n, 4)
        self._force = np.zeros((n, 3))
        self._torque = np.zeros((n, 3))
        self._joint_by_path: dict[str, JointRt] = {rt.joint.path: rt for rt in self._built.joints}
        self._pd = [rt for rt in self._built.joints if rt.mode == "pd" and rt.is_link]
        self._pd_groups = self._make_pd_groups()
        for rt in self._built.joints:
            if rt.mode == "servo" and rt.is_link:
                self._apply_servo(rt)
        self._damped = [(self._built.bodies[p], b) for p, b in sorted(self.model.bodies.items())
                        if p in self._built.bodies and not b.kinematic and (b.linear_damping or b.angular_damping)]
        self.vehicles = VehicleRuntime(c, self._built, self._vessels, self.model.gravity, self.dt)
        self.vehicles.tick_dt = 1.0 / self.tick_hz
        self.vehicles.reflect_rotor_inertia(self.model.bodies)
        acts, act_diags = read_force_actuators(stage, self._built.bodies)
        self.diagnostics += act_diags
        self._actuators = ForceActuators(acts)
        self._ports = self._make_ports()
        self._effort_groups: list[tuple[int, list[int], list[JointRt]]] = []
        self._effort_members: set[str] = set()
        self._contacts_tick = -1
        self._contacts: list = []
        self._attachments: dict[str, _Attachment] = {}
        self._up = 2 if self.model.up_axis == "Z" else 1
        self._floor = -math.inf
        if self._built.statics:
            lows = [c.getAABB(uid)[0][self._up] for _p, uid in sorted(self._built.statics.items())]
            self._floor = min(lows) - self.floor_margin
        self._read_state()
        self.sensors.sample(self, 1.0 / self.tick_hz)
        self._check_escape()

    # ------------------------------------------------------------------ state
    def _state_reader(self) -> BodyStateReader:
        """What ``_read_state`` asks pybullet for: per multibody (uid, has a body base, the link
        indices that are bodies), the body index of each row in that order, the COM frames."""
        reader = getattr(self, "_reader", None)
        if reader is None:
            idx = self._index
            steps, order = [], []
            for uid, base, links in self._built.multibodies:
                if base is not None:
                    order.append(idx[base])
                ks = [k for k, path in enumerate(links) if path is not None]  # knuckles are not bodies
                order += [idx[links[k]] for k in ks]
                steps.append((uid, base is not None, ks))
            reader = self._reader = BodyStateReader(self._cid, steps, np.array(order, dtype=np.intp),
                                                    self._com_p, self._com_q)
        return reader

    def _read_state(self) -> None:
        self._pos, self._orn, self._lin, self._ang, self._com_world = self._state_reader().read()

    def _check_escape(self) -> None:
        if self.fault is not None or not self.body_paths:
            return
        pos = self._pos
        if (math.isfinite(float(pos.sum() + self._lin.sum() + self._orn.sum()))
                and float(np.abs(pos).max()) <= self.world_bounds and float(pos[:, self._up].min()) >= self._floor):
            return  # the usual tick: every body is inside (the exact test below names the first that is not)
        bad = ~np.isfinite(self._pos).all(axis=1) | ~np.isfinite(self._lin).all(axis=1) \
            | ~np.isfinite(self._orn).all(axis=1) | (np.abs(self._pos) > self.world_bounds).any(axis=1) \
            | (self._pos[:, self._up] < self._floor)
        if bad.any():
            i = int(np.argmax(bad))
            path = self.body_paths[i]
            where = tuple(float(x) for x in self._pos[i])
            self.fault = diag(
                "error", "physics-body-escaped",
                f"body {path} left the world at {where} m (outside +/-{self.world_bounds:g} m, more than "
                f"{self.floor_margin:g} m below the lowest static collider, or non-finite) "
                f"at tick {self.tick}; the world stops advancing. The first body to leave names the mechanism "
                "that diverged", path, tick=self.tick, position=where)

    # ------------------------------------------------------------------ stepping
    def step(self) -> None:
        """Advance one tick (``substeps`` engine steps). No-op once faulted."""
        if self.fault is not None:
            return
        c = self._client
        forced = np.flatnonzero(np.abs(self._force).sum(axis=1) + np.abs(self._torque).sum(axis=1)).tolist()
        tethers = self._built.tethers
        self.vehicles.tick()
        for _ in range(self.substeps):
            self.vehicles.substep()
            if self._damped:
                self._apply_damping()
            if self._suspensions:
                self._apply_suspensions()
            if self._pd:
                self._apply_pd()
            for i in forced:
                b = self._built.bodies[self.body_paths[i]]
                if b.link < 0:
                    com = c.getBasePositionAndOrientation(b.uid)[0]
                else:
                    com = c.getLinkState(b.uid, b.link, computeForwardKinematics=1)[0]
                if self._force[i].any():
                    c.applyExternalForce(b.uid, b.link, self._force[i].tolist(), com, pb.WORLD_FRAME)
                if self._torque[i].any():
                    c.applyExternalTorque(b.uid, b.link, self._torque[i].tolist(), pb.WORLD_FRAME)
            if self._actuators.actuators:
                self._actuators.apply(c, self._built, self._live_body_frame)
            for uid, links, rts in self._effort_groups:
                pb.setJointMotorControlArray(uid, links, pb.TORQUE_CONTROL,
                                             forces=[rt.command_effort * rt.sign for rt in rts], physicsClientId=self._cid)
            for j in tethers:
                self._apply_tether(j)
            pb.stepSimulation(physicsClientId=self._cid)
        self.tick += 1
        self._read_state()
        self.sensors.sample(self, 1.0 / self.tick_hz)
        if self._zones:
            self._zone_events += self._zone_sensor.events(lambda p: self._com_world[self._index[p]])
        self._check_escape()

    def _live_body_frame(self, path: str) -> tuple[np.ndarray, np.ndarray]:
        """The body prim's frame now (mid-tick): position and rotation matrix."""
        b, c = self._built.bodies[path], self._client
        if b.link < 0:
            p, q = c.getBasePositionAndOrientation(b.uid)
        else:
            p, q = c.getLinkState(b.uid, b.link, computeForwardKinematics=1)[:2]
        i = self._index[path]
        bq = quat_mul(from_xyzw(q), quat_conj(self._com_q[i]))
        return np.asarray(p) - quat_rotate(bq, self._com_p[i]), quat_to_matrix(bq)

    def _make_gears(self, gears, diags) -> None:
        """A gear joint couples two hinges: theta0 - ratio * theta1 stays at its start (pybullet
        JOINT_GEAR between the two links; our link coordinates carry the USD sign)."""
        by_path = {rt.joint.path: rt for rt in self._built.joints}
        for path, h0, h1, ratio, max_force in gears:
            a, b = by_path.get(h0), by_path.get(h1)
            if a is None or b is None or not (a.is_link and b.is_link) or a.uid != b.uid:
                diags.append(diag("warning", "physics-unsupported",
                                  f"gear joint {path} couples {h0} and {h1}, which are not two hinges of one "
                                  "jointed tree; it is ignored", path))
                continue
            cid = self._client.createConstraint(a.uid, a.link, b.uid, b.link, pb.JOINT_GEAR, [1.0, 0.0, 0.0],
                                                [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
            self._client.changeConstraint(cid, gearRatio=-ratio * a.sign * b.sign, maxForce=max_force)

    def _apply_suspensions(self) -> None:
        """Passive crushable struts (``LunCoPrismaticSuspensionAPI``): a spring-damper about a
        plastic rest point that sets permanently once the strut is pushed past its yield force;
        the spring is explicit (exact static balance), the damping (plus k*dt, as LunCoSim's
        solver adds) implicit against the joint's effective mass; capped at maxForce."""
        dt = self.dt
        for entry in self._suspensions:
            rt, plastic = entry
            rest, k, c, yld, mx = rt.joint.suspension
            q, qd = pb.getJointState(rt.uid, rt.link, physicsClientId=self._cid)[:2]
            x, v = q * rt.sign, qd * rt.sign
            plastic = min(plastic, rest, x + yld / k)
            entry[1] = plastic
            inv_m = 1.0 / self._effective_inertia(rt.joint)
            c_imp = c + k * dt
            f = k * (plastic - x) - c_imp * v / (1.0 + dt * c_imp * inv_m)
            f = max(-mx, min(mx, f))
            rt.effort = f
            pb.setJointMotorControl2(rt.uid, rt.link, pb.TORQUE_CONTROL, force=(f + rt.command_effort) * rt.sign,
                                     physicsClientId=self._cid)

    def _apply_damping(self) -> None:
        """PhysX rigid-body damping (``physxRigidBody:linearDamping``/``angularDamping``),
        integrated implicitly: dv = -c v dt / (1 + c dt), applied as a force and a torque."""
        c, dt = self._client, self.dt
        for b, body in self._damped:
            if b.link < 0:
                lin, ang = c.getBaseVelocity(b.uid)
                com = c.getBasePositionAndOrientation(b.uid)[0]
            else:
                st = c.getLinkState(b.uid, b.link, computeLinkVelocity=1, computeForwardKinematics=1)
                lin, ang, com = st[6], st[7], st[0]
            if body.linear_damping > 0:
                k = body.mass * body.linear_damping / (1.0 + body.linear_damping * dt)
                c.applyExternalForce(b.uid, b.link, [-k * x for x in lin], com, pb.WORLD_FRAME)
            if body.angular_damping > 0:
                k = float(np.max(body.inertia)) * body.angular_damping / (1.0 + body.angular_damping * dt)
                c.applyExternalTorque(b.uid, b.link, [-k * x for x in ang], pb.WORLD_FRAME)

    def _apply_servo(self, rt: JointRt) -> None:
        d = rt.joint.drive
        mf = d.max_force if d is not None and math.isfinite(d.max_force) else 1.0e12
        self._client.setJointMotorControl2(rt.uid, rt.link, pb.POSITION_CONTROL,
                                           targetPosition=rt.target_position * rt.sign, force=mf)

    def _make_pd_groups(self) -> list[_PdGroup]:
        groups: dict[int, list[JointRt]] = {}
        for rt in self._pd:
            groups.setdefault(rt.uid, []).append(rt)
        out = []
        for uid, rts in sorted(groups.items()):
            inertia = np.array([self._effective_inertia(rt.joint) for rt in rts])
            accel = np.array([rt.joint.drive.type == "acceleration" for rt in rts])
            scale = np.where(accel, inertia, 1.0)
            k = np.array([rt.joint.drive.stiffness for rt in rts]) * scale
            c = np.array([rt.joint.drive.damping for rt in rts]) * scale
            out.append(_PdGroup(
                uid=uid, rts=rts, links=[rt.link for rt in rts], sign=np.array([rt.sign for rt in rts]),
                k=k, c_implicit=c / (1.0 + c * self.dt / inertia),
                max_force=np.array([rt.joint.drive.max_force for rt in rts]),
                target_pos=np.array([rt.target_position for rt in rts]),
                target_vel=np.array([rt.target_velocity for rt in rts]),
                effort=np.zeros(len(rts))))
        return out

    def _apply_pd(self) -> None:
        """USD drive law: effort = stiffness*(x* - x) + damping*(v* - v), clipped to maxForce.

        The damping term is integrated implicitly against the joint's effective inertia (so a
        stiff velocity drive cannot chatter); the spring term is explicit, so static balance
        is exact.
        """
        cid = self._cid
        for g in self._pd_groups:
            states = pb.getJointStates(g.uid, g.links, physicsClientId=cid)
            # plain floats: a handful of joints per body is cheaper than numpy dispatch
            sign, k, c = g.sign_l, g.k_l, g.c_l
            tp, tv, mf = g.target_pos.tolist(), g.target_vel.tolist(), g.max_force.tolist()
            forces = []
            for n, st in enumerate(states):
                sg = sign[n]
                e = k[n] * (tp[n] - st[0] * sg) + c[n] * (tv[n] - st[1] * sg)
                lim = mf[n]
                e = lim if e > lim else (-lim if e < -lim else e)
                g.effort[n] = e
                forces.append((e + g.rts[n].command_effort) * sg)
            pb.setJointMotorControlArray(g.uid, g.links, pb.TORQUE_CONTROL, forces=forces, physicsClientId=cid)

    def _pd_slot(self, rt: JointRt) -> tuple[_PdGroup, int] | None:
        for g in self._pd_groups:
            for k, other in enumerate(g.rts):
                if other is rt:
                    return g, k
        return None

    def _axis_inertia(self, path: str | None, frame: Pose, axis: np.ndarray, kind: str) -> float:
        """Mass (prismatic) or moment of inertia about the joint axis (revolute) of one side."""
        if path is None or self.model.bodies[path].kinematic:
            return math.inf
        body = self.model.bodies[path]
        if kind == "prismatic":
            return body.mass
        a = quat_rotate(frame.q, axis)
        rot = quat_to_matrix(body.principal)
        i_axis = float(sum(body.inertia[k] * float(np.dot(rot[:, k], a)) ** 2 for k in range(3)))
        r = body.com - frame.p
        return i_axis + body.mass * float(np.dot(np.cross(r, a), np.cross(r, a)))

    def _effective_inertia(self, j: Joint) -> float:
        i0 = self._axis_inertia(j.body0, j.frame0, j.axis_vec, j.kind)
        i1 = self._axis_inertia(j.body1, j.frame1, j.axis_vec, j.kind)
        if math.isinf(i0):
            return max(i1, 1e-9)
        if math.isinf(i1):
            return max(i0, 1e-9)
        return max(i0 * i1 / (i0 + i1), 1e-9)

    def _apply_tether(self, j: Joint) -> None:
        c = self._client
        ends = []
        for body, frame in ((j.body0, j.frame0), (j.body1, j.frame1)):
            if body is None:
                ends.append((None, frame.p, np.zeros(3), 0.0))
                continue
            b = self._built.bodies[body]
            if b.link < 0:
                pos, orn = c.getBasePositionAndOrientation(b.uid)
                lin, ang = c.getBaseVelocity(b.uid)
            else:
                st = c.getLinkState(b.uid, b.link, computeLinkVelocity=1, computeForwardKinematics=1)
                pos, orn, lin, ang = st[0], st[1], st[6], st[7]
            inertial = Pose(np.array(pos), from_xyzw(orn))
            anchor = (inertial * b.com_frame.inverse()).apply(frame.p)
            vel = np.array(lin) + np.cross(np.array(ang), anchor - inertial.p)
            ends.append((b, anchor, vel, 0.0 if b.kinematic else b.mass))
        (b0, a0, v0, m0), (b1, a1, v1, m1) = ends
        d = a1 - a0
        dist = float(np.linalg.norm(d))
        lo = j.min_distance if j.min_distance >= 0 else 0.0
        hi = j.max_distance if j.max_distance >= 0 else math.inf
        if dist < 1e-12 or lo <= dist <= hi:
            return
        n = d / dist
        stretch = dist - hi if dist > hi else dist - lo
        m_eff = (m0 * m1 / (m0 + m1)) if m0 > 0 and m1 > 0 else (m0 or m1)
        w = 2 * math.pi * TETHER_FREQ_HZ
        f = -(m_eff * w * w * stretch + 2 * TETHER_ZETA * m_eff * w * float(np.dot(v1 - v0, n))) * n
        if b1 is not None and not b1.kinematic:
            c.applyExternalForce(b1.uid, b1.link, f.tolist(), a1.tolist(), pb.WORLD_FRAME)
        if b0 is not None and not b0.kinematic:
            c.applyExternalForce(b0.uid, b0.link, (-f).tolist(), a0.tolist(), pb.WORLD_FRAME)

    def move_kinematic(self, path: str, position, orientation=None) -> None:
        """Place a kinematic body (world metres, optional w,x,y,z); bodies jointed to it follow.

        Raises KeyError for an unknown body and ValueError for a dynamic one.
        """
        rt = self._built.bodies.get(path)
        if rt is None:
            raise KeyError(f"{path} is not a physics body")
        if not rt.kinematic or rt.link >= 0:
            raise ValueError(f"{path} is a dynamic body; only kinematic bodies are placed directly")
        p = np.asarray(position, dtype=float).reshape(3)
        q = self._orn[self._index[path]] if orientation is None else np.asarray(orientation, dtype=float)
        if not (np.isfinite(p).all() and np.isfinite(q).all()):
            raise ValueError(f"{path}: pose must be finite")
        inertial = Pose(p, q / np.linalg.norm(q)) * rt.com_frame
        pb.resetBasePositionAndOrientation(rt.uid, inertial.p.tolist(), to_xyzw(inertial.q),
                                           physicsClientId=self._cid)
        self._read_state()

    # ------------------------------------------------------------------ arrays
    def _ro(self, a: np.ndarray) -> np.ndarray:
        out = a.copy()
        out.setflags(write=False)
        return out

    @property
    def body_index(self) -> dict[str, int]:
        """Body path -> its row in ``body_paths`` order (read it, never change it)."""
        return self._index

    def pose_of(self, path: str) -> tuple[list[float], list[float]] | None:
        """A body's pose this tick (position; quaternion w, x, y, z), or None for a non-body."""
        i = self._index.get(path)
        return None if i is None else (self._pos[i].tolist(), self._orn[i].tolist())

    def positions(self) -> np.ndarray:
        return self._ro(self._pos)

    def orientations(self) -> np.ndarray:
        return self._ro(self._orn)

    def linear_velocities(self) -> np.ndarray:
        return self._ro(self._lin)

    def angular_velocities(self) -> np.ndarray:
        return self._ro(self._ang)

    # ------------------------------------------------------------------ joints
    def joint_state(self, path: str) -> tuple[float, float]:
        """(coordinate, rate) of a revolute (rad, rad/s) or prismatic (m, m/s) joint."""
        rt = self._joint_by_path[path]
        j = rt.joint
        if rt.is_link:
            q, qd = self._client.getJointState(rt.uid, rt.link)[:2]
            return q * rt.sign, qd * rt.sign
        return self._measure_constraint_joint(j)

    def joint_table(self) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]:
        """Every revolute/prismatic joint (sorted path order): coordinate, rate, drive effort.

        One ``getJointStates`` call per multibody; computed once per tick.
        """
        if getattr(self, "_jtable_tick", None) == self.tick:
            return self._jtable
        plan = getattr(self, "_jplan", None)
        if plan is None:
            paths = tuple(p for p in sorted(self._joint_by_path)
                          if self._joint_by_path[p].joint.kind in ("revolute", "prismatic"))
            by_uid: dict[int, list[tuple[int, JointRt]]] = {}
            constraints = []
            for k, path in enumerate(paths):
                rt = self._joint_by_path[path]
                if rt.is_link:
                    by_uid.setdefault(rt.uid, []).append((k, rt))
                else:
                    constraints.append((k, rt))
            groups = [(uid, [rt.link for _, rt in items], items) for uid, items in by_uid.items()]
            plan = self._jplan = (paths, constraints, groups)
        paths, constraints, groups = plan
        q = np.zeros(len(paths))
        qd = np.zeros(len(paths))
        effort = np.zeros(len(paths))
        for k, rt in constraints:
            q[k], qd[k] = self._measure_constraint_joint(rt.joint)
        for uid, links, items in groups:
            states = pb.getJointStates(uid, links, physicsClientId=self._cid)
            for (k, rt), st in zip(items, states, strict=True):
                q[k], qd[k] = st[0] * rt.sign, st[1] * rt.sign
                if rt.mode in ("servo", "velocity"):
                    effort[k] = st[3] * rt.sign
                elif rt.joint.suspension is not None:
                    effort[k] = rt.effort
                else:
                    slot = self._pd_slot(rt)
                    effort[k] = float(slot[0].effort[slot[1]]) if slot else 0.0
        self._jtable = (paths, q, qd, effort)
        self._jtable_tick = self.tick
        return self._jtable

    def _body_pose(self, path: str | None) -> Pose:
        if path is None:
            return Pose.identity()
        i = self._index[path]
        return Pose(self._pos[i].copy(), self._orn[i].copy())

    def _measure_constraint_joint(self, j: Joint) -> tuple[float, float]:
        f0 = self._body_pose(j.body0) * j.frame0
        f1 = self._body_pose(j.body1) * j.frame1
        axis_w = quat_rotate(f0.q, j.axis_vec)

        def vel(path, at):
            if path is None:
                return np.zeros(3), np.zeros(3)
            i = self._index[path]
            return self._lin[i] + np.cross(self._ang[i], at - self._pos[i]), self._ang[i]

        v0, w0 = vel(j.body0, f1.p)
        v1, w1 = vel(j.body1, f1.p)
        if j.kind == "prismatic":
            return float(np.dot(f1.p - f0.p, axis_w)), float(np.dot(v1 - v0, axis_w))
        if j.kind == "revolute":
            q = quat_mul(quat_conj(f0.q), f1.q)
            ang = 2.0 * math.atan2(float(np.dot(q[1:], j.axis_vec)), float(q[0]))
            ang = (ang + math.pi) % (2 * math.pi) - math.pi
            return ang, float(np.dot(w1 - w0, axis_w))
        return 0.0, 0.0

    # ------------------------------------------------------------------ contacts
    def _contact_points(self) -> list:
        if self._contacts_tick != self.tick:
            self._contacts = list(self._client.getContactPoints())
            self._contacts_tick = self.tick
        return self._contacts

    def contact_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per body (``body_paths`` order): touching (0/1), distinct contacts, normal force sum.

        Computed once per tick from the last substep's contact points.
        """
        if getattr(self, "_table_tick", None) == self.tick:
            return self._table
        n = len(self.body_paths)
        others: list[set[str]] = [set() for _ in range(n)]
        force = np.zeros(n)
        owner = self._built.owner_of
        slot = getattr(self, "_contact_slot", None)
        if slot is None:
            slot = self._contact_slot = {(b.uid, b.link): self._index[p] for p, b in self._built.bodies.items()}
        for cp in self._contact_points():
            if cp[8] > 1e-3 and cp[9] <= 0:
                continue
            a, bb = (cp[1], cp[3]), (cp[2], cp[4])
            for me, other in ((a, bb), (bb, a)):
                i = slot.get(me)
                if i is None:
                    continue
                others[i].add(owner.get(other, f"<uid {other[0]} link {other[1]}>"))
                force[i] += float(cp[9])
        count = np.array([len(o) for o in others], dtype=float)
        self._table = ((count > 0).astype(float), count, force)
        self._table_tick = self.tick
        return self._table

    def _contact_summary(self, path: str) -> tuple[bool, int, float]:
        touching, count, force = self.contact_table()
        i = self._index[path]
        return bool(touching[i]), int(count[i]), float(force[i])

    # ------------------------------------------------------------------ ports
    def _make_ports(self) -> dict[tuple[str, str], PortSpec]:
        out: dict[tuple[str, str], PortSpec] = {}
        for p in self.body_paths:
            declared = self.model.bodies[p].declared_inputs
            for spec in body_port_specs(p, self._built.bodies[p].kinematic):
                if spec.name.startswith("com_") and spec.name in declared:
                    continue  # a centre of mass cannot move at run time; the prim owns the name
                if (spec.name == "mass" or spec.name.startswith("inertia_")) and spec.name in declared \
                        and not self._built.bodies[p].kinematic:
                    # the prim's own model (a lander burning propellant) drives its mass properties
                    spec = PortSpec(p, spec.name, "in", spec.unit, True, "double",
                                    f"{spec.description}; an input: the prim declares inputs:{spec.name}")
                elif spec.name.startswith("inertia_") and spec.name in declared:
                    continue
                out[(p, spec.name)] = spec
        for path in sorted(self._joint_by_path):
            for spec in joint_port_specs(path, self._joint_by_path[path].joint.kind):
                out[(path, spec.name)] = spec
        for spec in self._actuators.port_specs():
            out[(spec.prim_path, spec.name)] = spec
        for ray in self.sensors.rays:
            for name in RAY_OUTPUTS:
                out[(ray.path, name)] = PortSpec(ray.path, name, "out", "s" if name == "ray_sample_time" else (
                    "" if name in ("ray_hit_valid",) or "normal" in name else "m"), False,
                    "bool" if name == "ray_hit_valid" else "double", f"raycast sensor {name}")
        return out

    def take_zone_events(self) -> list[tuple[str, str, str]]:
        """Trigger-zone crossings since the last call: (event name, entrant body, zone source)."""
        out, self._zone_events = self._zone_events, []
        return out

    def body_block(self, contacts: bool = True) -> np.ndarray:
        """This tick's per-body read-back as one (bodies, columns) array, columns in
        ``BODY_BLOCK`` order: pose, velocities, the sampled state and (``contacts``) the contact
        summary. Without ``contacts`` the contact columns are left out (and not computed)."""
        parts = [self._pos, self._orn, self._lin, self._ang, self.sensors.block()]
        if contacts:
            parts.append(np.column_stack(self.contact_table()))
        return np.concatenate(parts, axis=1)

    def port_specs(self) -> list[PortSpec]:
        return [self._ports[k] for k in sorted(self._ports)]

    def _spec(self, prim_path: str, name: str) -> PortSpec:
        spec = self._ports.get((prim_path, name))
        if spec is None:
            names = sorted(n for (p, n) in self._ports if p == prim_path)
            if not names:
                raise KeyError(f"{prim_path} is not a physics body or a revolute/prismatic joint; "
                               "it has no physics ports")
            raise KeyError(f"{prim_path} has no physics port {name!r}; it has: {', '.join(names)}")
        return spec

    def read_port(self, prim_path: str, name: str) -> float:
        spec = self._spec(prim_path, name)
        if name == COMMAND and prim_path in self._actuators.command:
            return float(self._actuators.command[prim_path])
        if prim_path in self._index:
            return self._body_port(prim_path, name)
        ray = next((r for r in self.sensors.rays if r.path == prim_path), None)
        if ray is not None:
            return float(ray.values[name])
        rt = self._joint_by_path[prim_path]
        if name in ("angle", "displacement"):
            return float(self.joint_state(prim_path)[0])
        if name == "velocity":
            return float(self.joint_state(prim_path)[1])
        if name == "target_velocity":
            return float(rt.target_velocity)
        if name == "effort":
            return float(rt.command_effort)
        if name in ("torque", "force"):
            if rt.mode in ("servo", "velocity") and rt.is_link:
                return float(self._client.getJointState(rt.uid, rt.link)[3] * rt.sign)
            if rt.joint.suspension is not None:
                return float(rt.effort)
            slot = self._pd_slot(rt)
            return float(slot[0].effort[slot[1]]) if slot else 0.0
        raise KeyError(f"{prim_path}: unhandled port {spec.name}")

    def _body_port(self, prim_path: str, name: str) -> float:
        i = self._index[prim_path]
        prefix, _, ax = name.rpartition("_")
        k = "xyz".find(ax)
        if prefix == "position":
            return float(self._pos[i, k])
        if prefix == "orientation":
            return float(self._orn[i, "wxyz".index(ax)])
        if prefix == "velocity":
            return float(self._lin[i, k])
        if prefix == "angvel":
            return float(self._ang[i, k])
        if prefix == "force":
            return float(self._force[i, k])
        if prefix == "torque":
            return float(self._torque[i, k])
        if name in BODY_STATE:
            return float(self.sensors.block()[i, BODY_STATE.index(name)])
        if name == "mass" or prefix in ("com", "inertia"):
            return self._mass_port(prim_path, prefix, ax)
        touching, count, force = self._contact_summary(prim_path)
        return {"contact": float(touching), "contact_count": float(count), "contact_force": force}[name]

    def _set_mass_property(self, path: str, name: str, v: float) -> None:
        """A declared ``inputs:mass`` / ``inputs:inertia_xx|yy|zz`` changes the body now."""
        if v <= 0:
            raise ValueError(f"{path}.{name} must be > 0, got {v!r}")
        body, b = self.model.bodies[path], self._built.bodies[path]
        if name == "mass":
            if v == body.mass:
                return
            body.mass = b.mass = v
            self._client.changeDynamics(b.uid, b.link, mass=v)
            return
        k = "xyz".index(name[-1])
        if v == body.inertia[k]:
            return
        body.inertia = body.inertia.copy()
        body.inertia[k] = v
        self._client.changeDynamics(b.uid, b.link, localInertiaDiagonal=[float(x) for x in body.inertia])

    def _mass_port(self, path: str, prefix: str, ax: str) -> float:
        body = self.model.bodies[path]
        if prefix == "com":
            return float(body.com["xyz".find(ax)])
        if prefix == "inertia":
            return float(body.inertia["xyz".find(ax[0])])
        return float(self._built.bodies[path].mass)

    def write_port(self, prim_path: str, name: str, value: float) -> None:
        spec = self._spec(prim_path, name)
        if not spec.writable:
            raise ValueError(f"{prim_path}.{name} is an output port ({spec.description}); it cannot be written")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{prim_path}.{name} takes a number, got {value!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"{prim_path}.{name} must be finite, got {value!r}")
        if name == COMMAND and prim_path in self._actuators.command:
            self._actuators.command[prim_path] = v
            return
        if prim_path in self._index:
            i = self._index[prim_path]
            prefix, _, ax = name.rpartition("_")
            if name == "mass" or prefix == "inertia":
                self._set_mass_property(prim_path, name, v)
                return
            (self._force if prefix == "force" else self._torque)[i, "xyz".index(ax)] = v
            return
        rt = self._joint_by_path[prim_path]
        if not rt.is_link:
            raise ValueError(f"{prim_path} is a pybullet constraint (it closes a loop), which has no drive; "
                             f"{name} cannot be commanded")
        slot = self._pd_slot(rt)
        if name == "effort":
            rt.command_effort = v
            if prim_path not in self._effort_members:  # membership changes only on the first command
                self._effort_members.add(prim_path)
                self._regroup_efforts()
            return
        if name == "target_velocity":
            rt.target_velocity = v
            if slot:
                slot[0].target_vel[slot[1]] = v
            if rt.mode != "pd":
                rt.mode = "velocity"
                d = rt.joint.drive
                mf = d.max_force if d is not None and math.isfinite(d.max_force) else 1.0e12
                self._client.setJointMotorControl2(rt.uid, rt.link, pb.VELOCITY_CONTROL,
                                                   targetVelocity=v * rt.sign, force=mf)
            return
        rt.target_position = v
        if slot:
            slot[0].target_pos[slot[1]] = v
        if rt.mode != "pd":
            rt.mode = "servo"
            self._apply_servo(rt)

    def export_state(self) -> dict:
        """Engine state by prim path: multibody base poses/velocities and link-joint coordinates.

        Used to carry a running world across a rebuild (a document edit between ticks).
        """
        c = self._client
        bases: dict[str, tuple] = {}
        for uid, base, _links in self._built.multibodies:
            if base is not None:
                pos, orn = c.getBasePositionAndOrientation(uid)
                lin, ang = c.getBaseVelocity(uid)
                bases[base] = (tuple(pos), tuple(orn), tuple(lin), tuple(ang))
        joints: dict[str, tuple[float, float]] = {}
        for path, rt in self._joint_by_path.items():
            if rt.is_link and rt.joint.kind in ("revolute", "prismatic"):
                q, qd = c.getJointState(rt.uid, rt.link)[:2]
                joints[path] = (q, qd, rt.sign)
        return {"bases": bases, "joints": joints, "tick": self.tick,
                "attachments": {k: (a.parent, a.child, a.parent_frame) for k, a in self._attachments.items()}}

    def import_state(self, state: dict, *, skip: tuple[str, ...] = ()) -> list[str]:
        """Restore what :meth:`export_state` saved, for every body and joint that still exists and
        is not under a ``skip`` prefix (those keep their newly authored pose). Returns the paths
        restored."""
        c = self._client

        def skipped(path: str) -> bool:
            return any(path == s or path.startswith(s.rstrip("/") + "/") for s in skip)

        restored: list[str] = []
        for uid, base, links in self._built.multibodies:
            if base is None or base not in state.get("bases", {}) or skipped(base) or any(skipped(p) for p in links if p):
                continue
            pos, orn, lin, ang = state["bases"][base]
            c.resetBasePositionAndOrientation(uid, pos, orn)
            c.resetBaseVelocity(uid, lin, ang)
            restored.append(base)
            for path, rt in sorted(self._joint_by_path.items()):
                saved = state.get("joints", {}).get(path)
                if saved is None or rt.uid != uid or not rt.is_link:
                    continue
                q, qd, sign = saved
                c.resetJointState(rt.uid, rt.link, q * sign * rt.sign, qd * sign * rt.sign)
                restored.append(path)
        self.tick = int(state.get("tick", self.tick))
        for name, (parent, child, frame) in sorted(state.get("attachments", {}).items()):
            if parent in self._index and child in self._index and not (skipped(parent) or skipped(child)):
                self._fix(name, parent, child, frame)
        self._read_state()
        self._check_escape()
        return restored

    def _regroup_efforts(self) -> None:
        """Joints without an authored drive law that carry a commanded effort, per multibody."""
        groups: dict[int, list[JointRt]] = {}
        for path in sorted(self._joint_by_path):
            rt = self._joint_by_path[path]
            if rt.is_link and rt.mode != "pd" and path in self._effort_members:
                if rt.mode in ("servo", "velocity"):
                    continue  # a position/velocity motor owns the joint; effort is not added
                groups.setdefault(rt.uid, []).append(rt)
        self._effort_groups = [(uid, [rt.link for rt in rts], rts) for uid, rts in sorted(groups.items())]

    # ------------------------------------------------------------------ attachments
    def attach(self, name: str, parent: str, child: str) -> None:
        """Fix body ``child`` to body ``parent`` at their current relative pose (a FIXED
        constraint) and stop the pair colliding. Raises KeyError/ValueError on bad input."""
        for path in (parent, child):
            if path not in self._index:
                raise KeyError(f"{path} is not a physics body")
        if parent == child:
            raise ValueError(f"{parent} cannot be attached to itself")
        if name in self._attachments:
            raise ValueError(f"attachment {name!r} already exists ({self._attachments[name].child})")
        if self._built.bodies[child].kinematic:
            raise ValueError(f"{child} is kinematic; only a dynamic body can be attached")
        frame = (self._body_pose(parent) * self._built.bodies[parent].com_frame).inverse() \
            * (self._body_pose(child) * self._built.bodies[child].com_frame)
        self._fix(name, parent, child, frame)

    def _fix(self, name: str, parent: str, child: str, frame: Pose) -> None:
        p, c = self._built.bodies[parent], self._built.bodies[child]
        cid = self._client.createConstraint(p.uid, p.link, c.uid, c.link, pb.JOINT_FIXED, [0.0, 0.0, 0.0],
                                            frame.p.tolist(), [0.0, 0.0, 0.0], to_xyzw(frame.q), [0.0, 0.0, 0.0, 1.0])
        self._client.setCollisionFilterPair(p.uid, c.uid, p.link, c.link, 0)
        self._attachments[name] = _Attachment(parent, child, frame, cid)

    def detach(self, name: str) -> tuple[str, str]:
        """Remove an attachment made by :meth:`attach`; the pair collides again. Returns
        (parent, child); KeyError when there is no such attachment."""
        a = self._attachments.pop(name, None)
        if a is None:
            raise KeyError(f"no attachment {name!r} (attached: {', '.join(sorted(self._attachments)) or 'none'})")
        self._client.removeConstraint(a.constraint)
        p, c = self._built.bodies[a.parent], self._built.bodies[a.child]
        self._client.setCollisionFilterPair(p.uid, c.uid, p.link, c.link, 1)
        return a.parent, a.child

    def attachments(self) -> dict[str, tuple[str, str]]:
        """Current attachments: name -> (parent body, child body)."""
        return {k: (a.parent, a.child) for k, a in sorted(self._attachments.items())}

    # ------------------------------------------------------------------ snapshots
    def state_bytes(self) -> bytes:
        """Every body's pose and velocity, then every joint's coordinate and rate, packed."""
        parts = [np.ascontiguousarray(a, dtype="<f8").tobytes()
                 for a in (self._pos, self._orn, self._lin, self._ang)]
        js = []
        for path in sorted(self._joint_by_path):
            if self._joint_by_path[path].joint.kind in ("revolute", "prismatic"):
                js.extend(self.joint_state(path))
        parts.append(struct.pack(f"<{len(js)}d", *js))
        vs = self.vehicles.state_values()
        parts.append(struct.pack(f"<{len(vs)}d", *vs))
        parts.append(struct.pack("<q", self.tick))
        return b"".join(parts)

    def debug_info(self) -> DebugInfo:
        mpu = self.model.meters_per_unit
        inv = 1.0 / mpu

        def v(x) -> tuple[float, float, float]:
            return (float(x[0]) * inv, float(x[1]) * inv, float(x[2]) * inv)

        def q(x) -> tuple[float, float, float, float]:
            return (float(x[0]), float(x[1]), float(x[2]), float(x[3]))

        joints = []
        for path in sorted(self._joint_by_path):
            j = self._joint_by_path[path].joint
            f0 = self._body_pose(j.body0) * j.frame0
            f1 = self._body_pose(j.body1) * j.frame1
            axis = quat_rotate(f0.q, j.axis_vec) if j.kind in ("revolute", "prismatic") else np.zeros(3)
            pe, re = self._violations.get(path, (0.0, 0.0))
            joints.append(JointFrameInfo(path, j.generic_from and "generic" or j.kind, j.body0, j.body1,
                                         v(f0.p), q(f0.q), v(f1.p), q(f1.q),
                                         (float(axis[0]), float(axis[1]), float(axis[2])), pe, re))
        colliders = []
        for path in self.body_paths:
            pose = self._body_pose(path)
            for s in self.model.bodies[path].shapes:
                w = pose * s.local
                colliders.append(self._collider_info(s, path, w, inv))
        for sc in self.model.statics:
            colliders.append(self._collider_info(sc.shape, None, sc.pose * sc.shape.local, inv))
        contacts = []
        owner = self._built.owner_of
        for cp in self._contact_points():
            contacts.append(ContactInfo(owner.get((cp[1], cp[3]), "?"), owner.get((cp[2], cp[4]), "?"),
                                        v(cp[5]), (float(cp[7][0]), float(cp[7][1]), float(cp[7][2])),
                                        float(cp[9])))
        coms = {p: v(self._com_world[self._index[p]]) for p in self.body_paths}
        return DebugInfo(tuple(joints), tuple(colliders), tuple(contacts), coms,
                         self.fault.path if self.fault else None)

    @staticmethod
    def _collider_info(s, body: str | None, w: Pose, inv: float) -> ColliderInfo:
        dims: dict = {}
        if s.kind == "box":
            dims["half_extents"] = tuple(float(x) * inv for x in s.half_extents)
        if s.kind in ("sphere", "cylinder", "capsule") or (s.kind == "convex" and s.height > 0):
            dims["radius"] = s.radius * inv
            dims["height"] = s.height * inv
            dims["axis"] = "Z" if s.kind in ("cylinder", "capsule") else s.axis
        if s.kind in ("convex", "trimesh"):
            dims["vertices"] = [tuple(float(c) * inv for c in p) for p in s.vertices]
        if s.kind == "trimesh":
            dims["indices"] = [int(i) for i in s.indices]
        shape = "cone" if s.kind == "convex" and s.height > 0 else s.kind
        shape = {"trimesh": "trimesh"}.get(shape, shape)
        return ColliderInfo(s.prim_path, body, shape, dims,
                            (float(w.p[0]) * inv, float(w.p[1]) * inv, float(w.p[2]) * inv),
                            (float(w.q[0]), float(w.q[1]), float(w.q[2]), float(w.q[3])), s.purpose)

    def close(self) -> None:
        """Disconnect the client and drop every engine object; safe to call twice."""
        client = getattr(self, "_client", None)
        if client is not None:
            try:
                if client._client >= 0:
                    pb.disconnect(physicsClientId=client._client)
            finally:
                # Mark the wrapper disconnected so its own __del__ can never disconnect a
                # later world that pybullet gave the same client id.
                client._client = -1
                self._client = None  # type: ignore[assignment]
                self._builder.close()

    def __enter__(self) -> PhysicsWorld:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

