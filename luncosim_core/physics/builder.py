"""Project a ``SceneModel`` onto one pybullet client.

Topology: bodies joined by fixed/revolute/prismatic/spherical joints form trees; each tree is one
pybullet multibody (``createMultiBody`` with links). A tree is rooted at a kinematic body (fixed
base), else at a world joint (a massless fixed base at the world origin), else at a dynamic body
(floating base). A joint that would close a loop, or that reaches a second kinematic body, becomes
a ``createConstraint`` (FIXED, PRISMATIC, POINT2POINT; a revolute loop is two POINT2POINT points on
its axis). Everything is created in sorted prim-path order.

Engine frames: a root's link frame is its centre-of-mass principal frame; a link's frame is its
joint frame on the child side, with the centre-of-mass frame as inertial offset. pybullet reports
inertial frames, from which body frames are recovered with the stored offsets.
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass, field

import numpy as np
import pybullet as pb

from ..diagnostics import Diagnostic
from .frames import Pose, quat_conj, quat_rotate, to_xyzw
from .model import Body, Joint, SceneModel, Shape
from .reader import diag

TREE_KINDS = ("fixed", "revolute", "prismatic", "spherical")
WORLD = "<world>"
UNLIMITED_FORCE = 1.0e12
_JTYPE = {"fixed": pb.JOINT_FIXED, "revolute": pb.JOINT_REVOLUTE, "prismatic": pb.JOINT_PRISMATIC,
          "spherical": pb.JOINT_SPHERICAL}


@dataclass
class BodyRt:
    """A body as the engine holds it."""

    path: str
    uid: int
    link: int  # -1: multibody base
    com_frame: Pose  # inertial frame relative to the body frame
    kinematic: bool
    mass: float


@dataclass
class JointRt:
    """A joint as the engine holds it: a multibody link joint or a constraint."""

    joint: Joint
    uid: int = -1  # multibody holding the link joint
    link: int = -1
    sign: float = 1.0  # +1 when body0 is the tree parent
    constraint_ids: list[int] = field(default_factory=list)
    mode: str = "free"  # free | servo (position motor) | velocity (velocity motor) | pd (USD drive law)
    target_position: float = 0.0
    target_velocity: float = 0.0
    effort: float = 0.0  # last applied drive effort (N or N*m)
    command_effort: float = 0.0  # the ``effort`` input port: added torque/force every substep

    @property
    def is_link(self) -> bool:
        return self.link >= 0


@dataclass
class Built:
    bodies: dict[str, BodyRt]
    joints: list[JointRt]
    owner_of: dict[tuple[int, int], str]  # (uid, link) -> body or static collider path
    statics: dict[str, int]  # static collider path -> uid
    # uid, base body (None: world), the body of every link by link index (None: a steering knuckle)
    multibodies: list[tuple[int, str | None, list[str | None]]]
    tethers: list[Joint]
    knuckles: dict[str, tuple[int, int]] = field(default_factory=dict)  # steered wheel -> (uid, knuckle link)


KNUCKLE_MASS_FRACTION = 1.0e-3  # a steering knuckle weighs this much of its wheel (it only carries the steer)
KNUCKLE_TORQUE = 1.0e5  # N*m: the steering servo holds the knuckle at its angle against the tyre


class Builder:
    def __init__(self, client, model: SceneModel, joints: list[Joint], diags: list[Diagnostic],
                 steered: dict[str, tuple[str, np.ndarray]] | None = None):
        self.c = client
        self.m = model
        self.joints = joints
        self.diags = diags
        # hinge joint path -> (steered wheel, its steer axis in the wheel frame): the hinge hangs
        # off a synthesized knuckle link that turns about the steer axis
        self.steered = steered or {}
        self.knuckles: dict[str, tuple[int, int]] = {}
        self.tmpdir: tempfile.TemporaryDirectory | None = None
        self.bodies: dict[str, BodyRt] = {}
        self.owner_of: dict[tuple[int, int], str] = {}
        self.joint_rts: list[JointRt] = []
        self.multibodies: list[tuple[int, str | None, list[str | None]]] = []
        self._mesh_count = 0

    # ------------------------------------------------------------------ shapes
    def _obj_file(self, shape: Shape) -> str:
        if self.tmpdir is None:
            self.tmpdir = tempfile.TemporaryDirectory(prefix="luncosim-physics-")
        self._mesh_count += 1
        path = os.path.join(self.tmpdir.name, f"hull{self._mesh_count:05d}.obj")
        verts = shape.vertices if shape.vertices is not None else np.zeros((0, 3))
        with open(path, "w", encoding="ascii") as fh:
            for v in verts:
                fh.write(f"v {v[0]:.17g} {v[1]:.17g} {v[2]:.17g}\n")
            n = len(verts)
            for i in range(1, n - 1):  # a fan; the convex hull ignores faces
                fh.write(f"f 1 {i + 1} {i + 2}\n")
        return path

    def collision_shape(self, shapes: list[tuple[Shape, Pose]]) -> int:
        """One pybullet collision shape for (shape, pose in link frame) pairs; -1 if none.

        The physics screen refuses the dimensions pybullet cannot take (``physics.sanity``); a
        shape pybullet still rejects is an error naming it, and its owner has no collision shape
        (it keeps its mass and joints, and collides with nothing)."""
        if not shapes:
            return -1
        try:
            return self._collision_shape(shapes)
        except pb.error as exc:
            paths = ", ".join(s.prim_path for s, _ in shapes)
            self.diags.append(diag("error", "physics.shape.rejected",
                                   f"pybullet rejected the collision shape of {paths} ({exc}); it collides with "
                                   "nothing", shapes[0][0].prim_path))
            return -1

    def _collision_shape(self, shapes: list[tuple[Shape, Pose]]) -> int:
        if len(shapes) == 1:
            s, pose = shapes[0]
            kw = dict(collisionFramePosition=list(pose.p), collisionFrameOrientation=to_xyzw(pose.q))
            if s.kind == "box":
                return self.c.createCollisionShape(pb.GEOM_BOX, halfExtents=list(s.half_extents), **kw)
            if s.kind == "sphere":
                return self.c.createCollisionShape(pb.GEOM_SPHERE, radius=s.radius, **kw)
            if s.kind == "cylinder":
                return self.c.createCollisionShape(pb.GEOM_CYLINDER, radius=s.radius, height=s.height, **kw)
            if s.kind == "capsule":
                return self.c.createCollisionShape(pb.GEOM_CAPSULE, radius=s.radius, height=s.height, **kw)
            if s.kind == "convex":
                return self.c.createCollisionShape(pb.GEOM_MESH, vertices=s.vertices.tolist(), **kw)
            if s.kind == "trimesh":
                return self.c.createCollisionShape(
                    pb.GEOM_MESH, vertices=s.vertices.tolist(), indices=[int(i) for i in s.indices],
                    flags=pb.GEOM_FORCE_CONCAVE_TRIMESH, **kw)
        types, radii, halves, lengths, files, scales, poss, orns = [], [], [], [], [], [], [], []
        for s, pose in shapes:
            radii.append(s.radius)
            lengths.append(s.height)
            halves.append(list(s.half_extents) if s.half_extents is not None else [0.0, 0.0, 0.0])
            files.append(self._obj_file(s) if s.kind == "convex" else "")
            scales.append([1.0, 1.0, 1.0])
            poss.append(list(pose.p))
            orns.append(to_xyzw(pose.q))
            types.append({"box": pb.GEOM_BOX, "sphere": pb.GEOM_SPHERE, "cylinder": pb.GEOM_CYLINDER,
                          "capsule": pb.GEOM_CAPSULE, "convex": pb.GEOM_MESH}[s.kind])
        return self.c.createCollisionShapeArray(
            shapeTypes=types, radii=radii, halfExtents=halves, lengths=lengths, fileNames=files,
            meshScales=scales, collisionFramePositions=poss, collisionFrameOrientations=orns)

    def _body_shapes(self, body: Body, link_frame_in_body: Pose) -> int:
        inv = link_frame_in_body.inverse()
        return self.collision_shape([(s, inv * s.local) for s in body.shapes if s.collides])

    # ------------------------------------------------------------------ build
    def build(self) -> Built:
        bodies = self.m.bodies
        tree_joints = [j for j in self.joints if j.kind in TREE_KINDS and not j.exclude_from_tree]
        excluded = [j for j in self.joints if j.kind in TREE_KINDS and j.exclude_from_tree]
        tethers = [j for j in self.joints if j.kind == "distance"]
        adj: dict[str, list[Joint]] = {p: [] for p in bodies}
        adj[WORLD] = []
        for j in tree_joints:
            for b in (j.body0, j.body1):
                adj[b or WORLD].append(j)
        visited: set[str] = set()
        cross: list[tuple[Joint, str]] = [(j, "excluded") for j in excluded]  # joint, reason
        order = self._root_order(tree_joints)
        for root in order:
            if root in visited:
                continue
            self._build_tree(root, adj, visited, cross)
        # Cross edges become constraints, in joint-path order.
        seen: set[str] = set()
        for j, reason in sorted(cross, key=lambda x: x[0].path):
            if j.path in seen:
                continue
            seen.add(j.path)
            self._constraint(j, reason)
        for j in tethers:
            self._tether_note(j)
        statics = self._statics()
        self._materials()
        self._joint_collisions(tree_joints + excluded + tethers)
        self._initial_velocities()
        self._filters()
        self.joint_rts.sort(key=lambda r: r.joint.path)
        return Built(self.bodies, self.joint_rts, self.owner_of, statics, self.multibodies, tethers, self.knuckles)

    def _root_order(self, tree_joints: list[Joint]) -> list[str]:
        """Roots to grow trees from: kinematic bodies, then the world, then the rest by path."""
        bodies = self.m.bodies
        kin = sorted(p for p, b in bodies.items() if b.kinematic)
        children = {j.body1 for j in tree_joints if j.body1}
        dyn = sorted(p for p, b in bodies.items() if not b.kinematic)
        # A floating tree prefers a body that is never a body1 (the usual chassis).
        preferred = [p for p in dyn if p not in children] + [p for p in dyn if p in children]
        return kin + [WORLD] + preferred

    def _build_tree(self, root: str, adj, visited: set[str], cross: list) -> None:
        bodies = self.m.bodies
        visited.add(root)
        links: list[tuple[str, str, Joint]] = []  # (child, parent, joint), breadth first
        used: set[str] = set()
        frontier = [root]
        while frontier:
            nxt: list[str] = []
            for node in frontier:
                for j in sorted(adj[node], key=lambda x: x.path):
                    if j.path in used:
                        continue
                    used.add(j.path)
                    other = (j.body1 or WORLD) if (j.body0 or WORLD) == node else (j.body0 or WORLD)
                    if other == WORLD or other in visited or bodies[other].kinematic:
                        cross.append((j, "loop"))
                        continue
                    visited.add(other)
                    links.append((other, node, j))
                    nxt.append(other)
            frontier = nxt
        if root == WORLD and not links:
            return
        self._create_multibody(root, _depth_first(root, links))

    def _create_multibody(self, root: str, links: list[tuple[str, str, Joint]]) -> None:
        bodies = self.m.bodies
        c = self.c
        if root == WORLD:
            base_frame_world = Pose.identity()
            base_mass, base_shape = 0.0, -1
            root_body = None
        else:
            root_body = bodies[root]
            base_frame_world = root_body.pose * root_body.com_frame
            base_mass = 0.0 if root_body.kinematic else root_body.mass
            base_shape = self._body_shapes(root_body, root_body.com_frame)
        link_frame_world: dict[str, Pose] = {root: base_frame_world}
        index_of: dict[str, int] = {root: -1}
        masses, shapes_, poss, orns, ipos, iorns, parents, jtypes, axes = [], [], [], [], [], [], [], [], []
        rts: list[JointRt] = []
        link_bodies: list[str | None] = []  # the body of every link, by link index
        knuckles: dict[str, int] = {}
        for child, parent, j in links:
            forward = (j.body0 or WORLD) == parent
            fp, fc = (j.frame0, j.frame1) if forward else (j.frame1, j.frame0)
            parent_pose = bodies[parent].pose if parent != WORLD else Pose.identity()
            joint_world = parent_pose * fp  # the parent's side decides where the child sits
            cb = bodies[child]
            link_frame_world[child] = joint_world
            rel = link_frame_world[parent].inverse() * joint_world
            parent_index = index_of[parent] + 1
            wheel, steer = self.steered.get(j.path, (None, None)) if j.kind == "revolute" else (None, None)
            if wheel == child:
                # a steering knuckle at the hinge: turns about the wheel's steer axis (in the hinge
                # frame), carries the hinge, which now sits on it with no offset
                axis = quat_rotate(quat_conj(joint_world.q), quat_rotate(cb.pose.q, steer))
                knuckles[child] = len(masses)
                masses.append(cb.mass * KNUCKLE_MASS_FRACTION)
                shapes_.append(-1)
                poss.append(list(rel.p))
                orns.append(to_xyzw(rel.q))
                ipos.append([0.0, 0.0, 0.0])
                iorns.append([0.0, 0.0, 0.0, 1.0])
                parents.append(parent_index)
                jtypes.append(pb.JOINT_REVOLUTE)
                axes.append([float(x) for x in axis])
                link_bodies.append(None)
                parent_index = len(masses)
                rel = Pose.identity()
            inertial = fc.inverse() * cb.com_frame
            k = len(masses)
            index_of[child] = k
            masses.append(cb.mass)
            shapes_.append(self._body_shapes(cb, fc))
            poss.append(list(rel.p))
            orns.append(to_xyzw(rel.q))
            ipos.append(list(inertial.p))
            iorns.append(to_xyzw(inertial.q))
            parents.append(parent_index)
            jtypes.append(_JTYPE[j.kind])
            axes.append(list(j.axis_vec) if j.kind in ("revolute", "prismatic") else [0.0, 0.0, 1.0])
            link_bodies.append(child)
            rts.append(JointRt(j, link=k, sign=1.0 if forward else -1.0))
        flags = pb.URDF_USE_SELF_COLLISION | pb.URDF_USE_SELF_COLLISION_INCLUDE_PARENT
        uid = c.createMultiBody(
            baseMass=base_mass, baseCollisionShapeIndex=base_shape, baseVisualShapeIndex=-1,
            basePosition=list(base_frame_world.p), baseOrientation=to_xyzw(base_frame_world.q),
            linkMasses=masses, linkCollisionShapeIndices=shapes_, linkVisualShapeIndices=[-1] * len(masses),
            linkPositions=poss, linkOrientations=orns, linkInertialFramePositions=ipos,
            linkInertialFrameOrientations=iorns, linkParentIndices=parents, linkJointTypes=jtypes,
            linkJointAxis=axes, flags=flags)
        for child, link in sorted(knuckles.items()):
            wheel = bodies[child]
            tiny = [max(float(x), 1e-9) * KNUCKLE_MASS_FRACTION for x in wheel.inertia]
            c.changeDynamics(uid, link, localInertiaDiagonal=tiny, linearDamping=0.0, angularDamping=0.0,
                             jointDamping=0.0)
            c.setJointMotorControl2(uid, link, pb.POSITION_CONTROL, targetPosition=0.0, force=KNUCKLE_TORQUE)
            self.knuckles[child] = (uid, link)
        c.changeDynamics(uid, -1, linearDamping=0.0, angularDamping=0.0)
        if root_body is not None:
            self.bodies[root] = BodyRt(root, uid, -1, root_body.com_frame, root_body.kinematic, root_body.mass)
            self.owner_of[(uid, -1)] = root
            if not root_body.kinematic:
                c.changeDynamics(uid, -1, localInertiaDiagonal=list(root_body.inertia))
        for (child, _parent, _joint), rt in zip(links, rts, strict=True):
            cb = bodies[child]
            self.bodies[child] = BodyRt(child, uid, rt.link, cb.com_frame, False, cb.mass)
            self.owner_of[(uid, rt.link)] = child
            c.changeDynamics(uid, rt.link, localInertiaDiagonal=list(cb.inertia), linearDamping=0.0,
                             angularDamping=0.0, jointDamping=0.0)
            rt.uid = uid
            self._init_link_joint(rt)
            self.joint_rts.append(rt)
        self.multibodies.append((uid, None if root == WORLD else root, link_bodies))

    def _init_link_joint(self, rt: JointRt) -> None:
        c, j = self.c, rt.joint
        if j.damping > 0:
            c.changeDynamics(rt.uid, rt.link, jointDamping=j.damping)
        if j.kind == "spherical":
            c.setJointMotorControlMultiDof(rt.uid, rt.link, pb.POSITION_CONTROL, targetPosition=[0, 0, 0, 1],
                                           positionGain=0, velocityGain=0, force=[0, 0, 0])
            q = j.initial_rot if rt.sign > 0 else quat_conj(j.initial_rot)
            c.resetJointStateMultiDof(rt.uid, rt.link, targetValue=to_xyzw(q))
            return
        if j.kind == "fixed":
            return
        c.setJointMotorControl2(rt.uid, rt.link, pb.VELOCITY_CONTROL, force=0)
        lo, hi = (j.lower, j.upper) if rt.sign > 0 else (-j.upper, -j.lower)
        if math.isfinite(lo) or math.isfinite(hi):
            c.changeDynamics(rt.uid, rt.link, jointLowerLimit=lo if math.isfinite(lo) else -1e30,
                             jointUpperLimit=hi if math.isfinite(hi) else 1e30, jointLimitForce=UNLIMITED_FORCE)
        if j.initial_coord:
            c.resetJointState(rt.uid, rt.link, j.initial_coord * rt.sign)
        if j.servo_input:
            rt.target_position = j.initial_coord
            rt.mode = "servo"
        d = j.drive
        if d is not None:
            rt.target_position = d.target_position
            rt.target_velocity = d.target_velocity
            if d.stiffness > 0 or d.damping > 0:
                rt.mode = "pd"
            elif d.target_authored:
                rt.mode = "servo"

    # ------------------------------------------------------------------ constraints
    def _handle(self, path: str | None) -> tuple[int, int]:
        if path is None:
            return -1, -1
        b = self.bodies[path]
        return b.uid, b.link

    def _frame_in_link(self, body: str | None, frame: Pose) -> Pose:
        """A joint frame (given in the body frame) relative to the engine link frame."""
        if body is None:
            return frame
        b = self.bodies[body]
        return self._link_frame_in_body(b).inverse() * frame

    def _link_frame_in_body(self, b: BodyRt) -> Pose:
        if b.link < 0:
            return b.com_frame
        for rt in self.joint_rts:
            if rt.uid == b.uid and rt.link == b.link:
                j = rt.joint
                return j.frame1 if rt.sign > 0 else j.frame0
        raise KeyError(b.path)

    def _constraint(self, j: Joint, reason: str) -> None:
        c = self.c
        fixed0 = j.body0 is None or self.m.bodies[j.body0].kinematic
        fixed1 = j.body1 is None or self.m.bodies[j.body1].kinematic
        if fixed0 and fixed1:
            self.diags.append(diag("info", "physics-joint-between-fixed",
                                   f"joint {j.path} joins two bodies that never move (kinematic or world); "
                                   "it has no effect", j.path))
            self.joint_rts.append(JointRt(j))
            return
        # Always constrain with the dynamic side as the "parent" (pybullet requires a valid parent body).
        b0, b1, f0, f1 = j.body0, j.body1, j.frame0, j.frame1
        if b0 is None:
            b0, b1, f0, f1 = b1, b0, f1, f0
        pu, pl = self._handle(b0)
        cu, cl = self._handle(b1)
        p0 = self._frame_in_link(b0, f0)
        p1 = self._frame_in_link(b1, f1)
        rt = JointRt(j)
        ids: list[int] = []
        if j.kind in ("fixed", "prismatic"):
            jt = pb.JOINT_FIXED if j.kind == "fixed" else pb.JOINT_PRISMATIC
            ids.append(c.createConstraint(pu, pl, cu, cl, jt, list(j.axis_vec), list(p0.p), list(p1.p),
                                          to_xyzw(p0.q), to_xyzw(p1.q)))
        elif j.kind == "spherical":
            ids.append(c.createConstraint(pu, pl, cu, cl, pb.JOINT_POINT2POINT, [0, 0, 0], list(p0.p), list(p1.p)))
        else:  # revolute: two points on the axis make a hinge
            for s in (-0.5, 0.5):
                a0 = p0.p + quat_rotate(p0.q, j.axis_vec) * s
                a1 = p1.p + quat_rotate(p1.q, j.axis_vec) * s
                ids.append(c.createConstraint(pu, pl, cu, cl, pb.JOINT_POINT2POINT, [0, 0, 0], list(a0), list(a1)))
        for cid in ids:
            c.changeConstraint(cid, maxForce=UNLIMITED_FORCE)
        rt.constraint_ids = ids
        notes = []
        if j.drive is not None:
            notes.append("its drive")
        if math.isfinite(j.lower) or math.isfinite(j.upper):
            notes.append("its limits")
        what = {"prismatic": "PRISMATIC", "fixed": "FIXED", "spherical": "POINT2POINT",
                "revolute": "two POINT2POINT points on the axis"}[j.kind]
        why = ("it sets physics:excludeFromArticulation" if reason == "excluded"
               else "it closes a loop or joins a second fixed body (kinematic or world)")
        msg = f"joint {j.path} is a pybullet constraint ({what}) rather than a multibody link: {why}"
        if notes:
            msg += f"; {' and '.join(notes)} cannot be expressed on a constraint and are ignored"
        self.diags.append(diag("warning" if notes else "info", "physics-joint-as-constraint", msg, j.path))
        self.joint_rts.append(rt)

    def _tether_note(self, j: Joint) -> None:
        self.diags.append(diag(
            "info", "physics-distance-joint-soft",
            f"distance joint {j.path} is enforced by a stiff spring-damper applied each substep "
            f"(pybullet has no distance constraint); min {j.min_distance:g} m, max {j.max_distance:g} m",
            j.path))

    def _initial_velocities(self) -> None:
        """``physics:velocity`` / ``angularVelocity`` on multibody roots; links start at rest."""
        for path in sorted(self.bodies):
            body, rt = self.m.bodies[path], self.bodies[path]
            if not (body.velocity.any() or body.angular_velocity.any()) or body.kinematic:
                continue
            if rt.link >= 0:
                self.diags.append(diag("warning", "physics-unsupported",
                                       f"{path} authors an initial velocity but is a jointed link; it starts "
                                       "with its tree's root velocity only", path))
                continue
            com_offset = quat_rotate(body.pose.q, body.com)
            lin = body.velocity + np.cross(body.angular_velocity, com_offset)
            self.c.resetBaseVelocity(rt.uid, list(lin), list(body.angular_velocity))

    # ------------------------------------------------------------------ statics, materials, filters
    def _statics(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for sc in sorted(self.m.statics, key=lambda s: s.shape.prim_path):
            if not sc.shape.collides:
                continue
            sh = self.collision_shape([(sc.shape, Pose.identity())])
            pose = sc.pose * sc.shape.local
            uid = self.c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=sh, basePosition=list(pose.p),
                                         baseOrientation=to_xyzw(pose.q))
            out[sc.shape.prim_path] = uid
            self.owner_of[(uid, -1)] = sc.shape.prim_path
            if sc.material is not None:
                self._apply_material(uid, -1, sc.material)
        self._static_uids = out
        return out

    def _apply_material(self, uid: int, link: int, mat) -> None:
        fr = mat.dynamic_friction if mat.dynamic_friction > 0 else mat.static_friction
        self.c.changeDynamics(uid, link, lateralFriction=fr, restitution=mat.restitution)

    def _materials(self) -> None:
        for path in sorted(self.bodies):
            body = self.m.bodies[path]
            if body.material is not None:
                b = self.bodies[path]
                self._apply_material(b.uid, b.link, body.material)

    def _key_handle(self, key: str) -> tuple[int, int] | None:
        if key in self.bodies:
            return self.bodies[key].uid, self.bodies[key].link
        if key in self._static_uids:
            return self._static_uids[key], -1
        return None

    def _joint_collisions(self, joints: list[Joint]) -> None:
        for j in joints:
            if j.collision_enabled or j.body0 is None or j.body1 is None:
                continue
            a, b = self._key_handle(j.body0), self._key_handle(j.body1)
            if a and b:
                self.c.setCollisionFilterPair(a[0], b[0], a[1], b[1], 0)

    def _filters(self) -> None:
        for a_key, b_key in sorted(set(self.m.filtered_pairs)):
            a, b = self._key_handle(a_key), self._key_handle(b_key)
            if a and b:
                self.c.setCollisionFilterPair(a[0], b[0], a[1], b[1], 0)

    def close(self) -> None:
        if self.tmpdir is not None:
            self.tmpdir.cleanup()
            self.tmpdir = None


def _depth_first(root: str, links: list[tuple[str, str, Joint]]) -> list[tuple[str, str, Joint]]:
    """Links in depth-first pre-order. pybullet stores a multibody's links in that order
    whatever order they are given in, so any other order would make our link indices name
    the wrong links (a rocker read as its sibling's bogie)."""
    kids: dict[str, list[tuple[str, str, Joint]]] = {}
    for link in links:
        kids.setdefault(link[1], []).append(link)
    out: list[tuple[str, str, Joint]] = []
    stack = list(reversed(kids.get(root, [])))
    while stack:
        link = stack.pop()
        out.append(link)
        stack.extend(reversed(kids.get(link[0], [])))
    return out
