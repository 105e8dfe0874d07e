"""Read a composed stage into a ``SceneModel``: bodies, colliders, mass, gravity, materials,
collision filtering. Joints are read by ``joints.py``. Every problem becomes a Diagnostic.

Conventions: hierarchy is namespace, a joint is attachment. A collider belongs to its nearest
body ancestor-or-self (never to a body above a nested body); with none it is static geometry.
"""

from __future__ import annotations

import math

import numpy as np
from pxr import Usd, UsdGeom, UsdPhysics, UsdShade

from ..diagnostics import Diagnostic
from .frames import (
    Pose,
    gf_quat_to_np,
    matrix_to_quat,
    pose_from_usd_matrix,
)
from .model import Body, Material, SceneModel, Shape, StaticCollider
from .shapes import shape_from_prim, shape_props_in_owner

EARTH_G = 9.80665
DEFAULT_DENSITY = 1000.0  # kg/m^3, the UsdPhysics fallback when nothing is authored
# Owner-level collider exceptions: their projectors build the shape from the prim's own geometry.
OWNER_COLLIDER_APIS = ("LunCoTerrainAPI", "PhysxVehicleWheelAPI")


def diag(severity: str, code: str, msg: str, path: str = "", **data) -> Diagnostic:
    return Diagnostic(severity, code, msg, path=path, source="physics", data=data)  # type: ignore[arg-type]


def applied_schemas(prim) -> list[str]:
    """Every applied API schema name, including ones with no registered definition."""
    return list(prim.GetPrimTypeInfo().GetAppliedAPISchemas())


def authored(attr) -> bool:
    return bool(attr) and attr.HasAuthoredValue()


class StageReader:
    """One pass over a stage; holds the prim-to-owner maps the joint reader reuses."""

    def __init__(self, stage: Usd.Stage, default_gravity: float = 0.0):
        self.stage = stage
        self.default_gravity = float(default_gravity)  # m/s^2 when no PhysicsScene says otherwise
        self.mpu = float(UsdGeom.GetStageMetersPerUnit(stage)) or 1.0
        self.kpu = float(UsdPhysics.GetStageKilogramsPerUnit(stage)) or 1.0
        self.up_axis = str(UsdGeom.GetStageUpAxis(stage))
        self.xcache = UsdGeom.XformCache(Usd.TimeCode.Default())
        self.diags: list[Diagnostic] = []
        if not UsdGeom.StageHasAuthoredMetersPerUnit(stage):
            self.diags.append(diag("warning", "physics-units-unauthored",
                                   "the stage does not author metersPerUnit; USD's fallback "
                                   f"{self.mpu:g} m per unit applies to every length"))
        self.prims = [
            p for p in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate))
        ]
        self._screen(stage)
        self.body_prims: dict[str, Usd.Prim] = {}
        self.disabled_bodies: set[str] = set()
        self.bodies: dict[str, Body] = {}
        self.statics: list[StaticCollider] = []
        self.collider_owner: dict[str, str] = {}  # collider path -> body path or its own path (static)
        self.raycast_wheels: set[str] = set()

    def _screen(self, stage) -> None:
        """Refuse nonsense (NaN/negative/huge mass, non-finite or degenerate transforms, joints to
        non-bodies): those prims and everything under them are left out (:mod:`.sanity`)."""
        from .sanity import screen_stage

        screen = screen_stage(stage, self.prims, self.xcache)
        self.screen = screen
        self.diags += screen.diagnostics
        if screen.everything:  # the stage's units are nonsense: nothing of it is projected
            self.prims = []
            self.mpu = self.kpu = 1.0
        elif screen.refused or screen.ignored:
            self.prims = [p for p in self.prims if not screen.refuses(str(p.GetPath()))
                          and str(p.GetPath()) not in screen.ignored]

    # ---------------------------------------------------------------- helpers
    def purpose(self, prim) -> str:
        img = UsdGeom.Imageable(prim)
        return str(img.ComputePurpose()) if img else "default"

    def world_pose(self, prim) -> tuple[Pose, np.ndarray]:
        return pose_from_usd_matrix(self.xcache.GetLocalToWorldTransform(prim), self.mpu)

    def owner_body(self, prim) -> str | None:
        """Nearest enabled body at or above ``prim``; None when static (or under a disabled body)."""
        p = prim
        while p and p.GetPath() != p.GetPath().absoluteRootPath:
            key = str(p.GetPath())
            if key in self.body_prims:
                return key
            if key in self.disabled_bodies:
                return None
            p = p.GetParent()
        return None

    # ---------------------------------------------------------------- passes
    def read(self) -> SceneModel:
        from .vehicles import WHEEL_API, VehicleReader

        targets = VehicleReader(self).jointed_targets()
        self.raycast_wheels = {str(p.GetPath()) for p in self.prims
                               if WHEEL_API in applied_schemas(p) and str(p.GetPath()) not in targets}
        self._find_bodies()
        self._read_colliders()
        for path in sorted(self.bodies):
            self._mass_properties(self.bodies[path])
        gravity = self._gravity()
        pairs = self._filtered_pairs() + self._collision_groups()
        return SceneModel(self.mpu, self.up_axis, gravity, self.bodies, self.statics, [], pairs)

    def _find_bodies(self) -> None:
        for prim in self.prims:
            if prim.HasAPI(UsdPhysics.ArticulationRootAPI):
                self.diags.append(diag("info", "physics-not-read",
                                       f"{prim.GetPath()} applies PhysicsArticulationRootAPI, which is not read: "
                                       "jointed trees always become pybullet multibodies", str(prim.GetPath())))
            if prim.IsA(UsdGeom.PointInstancer):
                self.diags.append(diag("warning", "physics-not-read",
                                       f"{prim.GetPath()} is a PointInstancer; instances get no physics",
                                       str(prim.GetPath())))
            if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
                continue
            path = str(prim.GetPath())
            if path in self.raycast_wheels:
                continue  # a raycast wheel is a force law on its chassis, not a body
            rb = UsdPhysics.RigidBodyAPI(prim)
            enabled = rb.GetRigidBodyEnabledAttr().Get()
            if enabled is False:
                self.disabled_bodies.add(path)
                self.diags.append(diag("info", "physics-body-disabled",
                                       f"{path} has physics:rigidBodyEnabled = false; its colliders are static",
                                       path))
                continue
            if self.purpose(prim) == "guide":
                self.diags.append(diag("warning", "physics-guide-body",
                                       f"{path} has purpose 'guide' and is never a body", path))
                continue
            self.body_prims[path] = prim
            pose, _ = self.world_pose(prim)
            kin = bool(rb.GetKinematicEnabledAttr().Get())
            body = Body(path, pose, kin)
            v = rb.GetVelocityAttr().Get()
            w = rb.GetAngularVelocityAttr().Get()
            if v is not None:
                body.velocity = np.array(v, dtype=float) * self.mpu
            if w is not None:
                body.angular_velocity = np.radians(np.array(w, dtype=float))
            body.declared_inputs = frozenset(
                a.GetName()[len("inputs:"):] for a in prim.GetAttributes() if a.GetName().startswith("inputs:"))
            for name in ("linear", "angular"):
                a = prim.GetAttribute(f"physxRigidBody:{name}Damping")
                if a and authored(a) and float(a.Get() or 0.0) > 0:
                    setattr(body, f"{name}_damping", float(a.Get()))
            self.bodies[path] = body

    def _read_colliders(self) -> None:
        for prim in self.prims:
            path = str(prim.GetPath())
            schemas = applied_schemas(prim)
            has_api = prim.HasAPI(UsdPhysics.CollisionAPI)
            terrain = any(a in schemas for a in OWNER_COLLIDER_APIS)
            en_attr = prim.GetAttribute("physics:collisionEnabled")
            if self._under_raycast_wheel(path):
                continue
            if not has_api and not terrain:
                self._check_enabled_without_api(path, en_attr)
                continue
            if has_api and en_attr and en_attr.Get() is False:
                continue
            purpose = self.purpose(prim)
            if purpose == "guide" or self._trigger_zone(prim, path):
                continue
            owner = self.owner_body(prim)
            world, scale = self.world_pose(prim)
            if owner is None:
                shape = shape_from_prim(prim, world, scale, self.mpu, False, self.diags)
                if shape is None:
                    continue
                shape.purpose = purpose
                self._collider_mass_attrs(prim, shape)
                self.collider_owner[path] = path
                self.statics.append(StaticCollider(shape, Pose.identity(), self._material(prim)))
                continue
            body = self.bodies[owner]
            rel = body.pose.inverse() * world
            shape = shape_from_prim(prim, rel, scale, self.mpu, True, self.diags)
            if shape is None:
                continue
            shape.purpose = purpose
            self._collider_mass_attrs(prim, shape)
            mat = self._material(prim)
            shape.material = mat.path if mat else None
            if mat is not None and body.material is None:
                body.material = mat
            elif mat is not None and body.material is not None and mat.path != body.material.path:
                self.diags.append(diag(
                    "warning", "physics-mixed-materials",
                    f"{path} binds physics material {mat.path} but body {owner} already uses "
                    f"{body.material.path}; pybullet has one material per body, the first (by path) wins",
                    path))
            self.collider_owner[path] = owner
            body.shapes.append(shape)
        for body in self.bodies.values():
            if any(s.purpose == "proxy" for s in body.shapes):
                for s in body.shapes:
                    if s.purpose == "render":
                        s.collides = False

    def _trigger_zone(self, prim, path: str) -> bool:
        """A ``lunco:triggerZone`` collider overlaps, it never collides (LunCoSim's sensor)."""
        if not authored(prim.GetAttribute("lunco:triggerZone")):
            return False
        self.diags.append(diag("info", "physics-trigger-zone",
                               f"{path} is a trigger zone (lunco:triggerZone): it overlaps, it never collides", path))
        return True

    def _check_enabled_without_api(self, path: str, en_attr) -> None:
        if authored(en_attr) and en_attr.Get() is True:
            self.diags.append(diag(
                "warning", "collision-enabled-without-api",
                f"{path} authors physics:collisionEnabled = true but does not apply "
                "PhysicsCollisionAPI; the opt-in needs a declared collider, so it does not collide",
                path))

    def _under_raycast_wheel(self, path: str) -> bool:
        return any(path == w or path.startswith(w + "/") for w in self.raycast_wheels)

    def _collider_mass_attrs(self, prim, shape: Shape) -> None:
        if not prim.HasAPI(UsdPhysics.MassAPI):
            return
        m = UsdPhysics.MassAPI(prim)
        mass = m.GetMassAttr().Get() or 0.0
        dens = m.GetDensityAttr().Get() or 0.0
        if mass > 0:
            shape.mass = float(mass) * self.kpu
        if dens > 0:
            shape.density = float(dens) * self.kpu / self.mpu**3

    def _material(self, prim) -> Material | None:
        """The physics material: PhysicsMaterialAPI on the collider itself, else the material
        bound with purpose ``physics`` (an all-purpose look binding is not a physics material)."""
        if prim.HasAPI(UsdPhysics.MaterialAPI):
            mprim = prim
        else:
            mat, rel = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial("physics")
            if not mat or rel is None or "physics" not in rel.GetName():
                return None
            mprim = mat.GetPrim()
        mpath = str(mprim.GetPath())
        if mpath in self.screen.ignored or self.screen.refuses(mpath):
            return None  # its values are nonsense: the screen said so, default friction applies
        if not mprim.HasAPI(UsdPhysics.MaterialAPI):
            self.diags.append(diag("warning", "physics-material-without-api",
                                   f"{prim.GetPath()} binds {mpath} for physics, but it does not apply "
                                   "PhysicsMaterialAPI; default friction is used", str(prim.GetPath())))
            return None
        api = UsdPhysics.MaterialAPI(mprim)
        sf = float(api.GetStaticFrictionAttr().Get() or 0.0)
        df = float(api.GetDynamicFrictionAttr().Get() or 0.0)
        rs = float(api.GetRestitutionAttr().Get() or 0.0)
        return Material(mpath, sf, df, rs)

    # ---------------------------------------------------------------- mass
    def _mass_properties(self, body: Body) -> None:
        prim = self.body_prims[body.path]
        api = UsdPhysics.MassAPI(prim) if prim.HasAPI(UsdPhysics.MassAPI) else None
        body_mass = float(api.GetMassAttr().Get() or 0.0) * self.kpu if api else 0.0
        body_density = float(api.GetDensityAttr().Get() or 0.0) * self.kpu / self.mpu**3 if api else 0.0
        if body_mass <= 0:
            body_mass = self._mass_without_api(prim, body.path)
        shapes = [s for s in body.shapes]
        if not shapes:
            shapes = self._geometry_for_mass(prim, body)
        masses, cents, tensors = [], [], []
        for s in shapes:
            dens = s.density or body_density or DEFAULT_DENSITY
            m = s.mass if s.mass else dens * s.volume
            c, t = shape_props_in_owner(s)
            masses.append(m)
            cents.append(c)
            tensors.append(t)
        total = float(sum(masses))
        if body_mass > 0:
            mass = body_mass
        elif total > 0:
            mass = total
        else:
            mass = 1.0
            self.diags.append(diag("info", "physics-default-mass",
                                   f"{body.path} has no mass, density or geometry; it weighs 1 kg", body.path))
        if total > 0:
            w = np.array(masses) * (mass / total)
            com = np.sum(np.array(cents) * w[:, None], axis=0) / mass
            tensor = np.zeros((3, 3))
            for wi, c, t in zip(w, cents, tensors, strict=True):
                d = c - com
                tensor += wi * t + wi * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
        else:
            com = np.zeros(3)
            tensor = np.eye(3) * mass * 0.4 * 0.1**2
        if api:
            com_attr = api.GetCenterOfMassAttr()
            v = com_attr.Get()
            if authored(com_attr) and v is not None and all(math.isfinite(x) for x in v):
                com = np.array(v, dtype=float) * self.mpu
        if not (math.isfinite(mass) and np.isfinite(com).all() and np.isfinite(tensor).all()):
            # the screen refuses non-finite inputs; an overflow of finite ones still ends here
            self.diags.append(diag("error", "physics.inertia.nonfinite",
                                   f"body {body.path}: its mass properties overflow (mass {mass:g} kg); it "
                                   "weighs 1 kg with a unit inertia instead", body.path))
            mass, com, tensor = 1.0, np.zeros(3), np.eye(3) * 0.4 * 0.1**2
        principal, diag_i = _principal(tensor)
        if api:
            di = api.GetDiagonalInertiaAttr().Get()
            if di is not None and all(x > 0 for x in di):
                diag_i = np.array(di, dtype=float) * self.kpu * self.mpu**2
                principal = gf_quat_to_np(api.GetPrincipalAxesAttr().Get())
        body.mass = float(mass)
        body.com = com
        body.principal = principal
        body.inertia = np.maximum(diag_i, 1e-9)

    def _mass_without_api(self, prim, path: str) -> float:
        """A wheel's ``physxVehicleWheel:mass``, or ``physics:mass`` authored without
        PhysicsMassAPI (LunCoSim reads both); 0 when neither is authored."""
        from .vehicles import authored_mass_without_api

        wheel = prim.GetAttribute("physxVehicleWheel:mass")
        if wheel and authored(wheel) and float(wheel.Get() or 0.0) > 0:
            return float(wheel.Get()) * self.kpu
        mass = authored_mass_without_api(prim)
        if mass is None:
            return 0.0
        self.diags.append(diag("info", "physics-mass-without-api",
                               f"{path} authors physics:mass without applying PhysicsMassAPI; the mass is "
                               "used as authored", path))
        return mass * self.kpu

    def _geometry_for_mass(self, prim, body: Body) -> list[Shape]:
        """Non-colliding geometry of a body without colliders, used only for its inertia."""
        out: list[Shape] = []
        for p in Usd.PrimRange(prim, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
            if p.GetTypeName() not in ("Cube", "Sphere", "Cylinder", "Capsule", "Cone"):
                continue
            if self.owner_body(p) != body.path or self.purpose(p) == "guide":
                continue
            world, scale = self.world_pose(p)
            s = shape_from_prim(p, body.pose.inverse() * world, scale, self.mpu, True, [])
            if s is not None:
                out.append(s)
        return out

    # ---------------------------------------------------------------- gravity
    def _gravity(self) -> np.ndarray:
        scenes = sorted((p for p in self.prims if p.IsA(UsdPhysics.Scene)), key=lambda p: str(p.GetPath()))
        if not scenes:
            g = self.default_gravity
            if g:
                self.diags.append(diag("info", "physics-default-gravity",
                                       f"the stage has no PhysicsScene; the runtime's default gravity applies: "
                                       f"{g:g} m/s^2 along -{self.up_axis}"))
            down = np.array([0.0, 0.0, -1.0]) if self.up_axis == "Z" else np.array([0.0, -1.0, 0.0])
            return down * g
        values = []
        for sp in scenes:
            sc = UsdPhysics.Scene(sp)
            mag = float(sc.GetGravityMagnitudeAttr().Get())
            d = np.array(sc.GetGravityDirectionAttr().Get() or (0, 0, 0), dtype=float)
            mag_m = EARTH_G if mag < 0 or not math.isfinite(mag) else mag * self.mpu
            if np.linalg.norm(d) < 1e-12:
                d = np.array([0.0, 0.0, -1.0]) if self.up_axis == "Z" else np.array([0.0, -1.0, 0.0])
            values.append(d / np.linalg.norm(d) * mag_m)
        if len(values) > 1 and any(np.linalg.norm(v - values[0]) > 1e-9 for v in values[1:]):
            self.diags.append(diag(
                "error", "physics-gravity-conflict",
                "more than one PhysicsScene, and they disagree on gravity: "
                + "; ".join(f"{sp.GetPath()} -> {tuple(round(float(x), 6) for x in v)} m/s^2"
                            for sp, v in zip(scenes, values, strict=True))
                + f"; the first by path ({scenes[0].GetPath()}) is used",
                str(scenes[1].GetPath())))
        elif len(values) > 1:
            self.diags.append(diag("warning", "physics-multiple-scenes",
                                   f"{len(values)} PhysicsScene prims; author one per scene",
                                   str(scenes[1].GetPath())))
        return values[0]

    # ---------------------------------------------------------------- filtering
    def owner_keys(self, prim) -> list[str]:
        """Collision owners (body paths, static collider paths) a filter target names."""
        path = str(prim.GetPath())
        if path in self.bodies:
            return [path]
        if path in self.collider_owner:
            return [self.collider_owner[path]]
        body = self.owner_body(prim)
        if body is not None:
            return [body]
        keys = set()
        prefix = path.rstrip("/") + "/"
        for c, owner in self.collider_owner.items():
            if c.startswith(prefix):
                keys.add(owner)
        for b in self.bodies:
            if b.startswith(prefix):
                keys.add(b)
        return sorted(keys)

    def _filtered_pairs(self) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        for prim in self.prims:
            if not prim.HasAPI(UsdPhysics.FilteredPairsAPI):
                continue
            path = str(prim.GetPath())
            mine = self.owner_keys(prim)
            if not mine:
                self.diags.append(diag("error", "physics-filter-invalid-target",
                                       f"{path} applies PhysicsFilteredPairsAPI but is neither a body nor a "
                                       "collider", path))
                continue
            targets = UsdPhysics.FilteredPairsAPI(prim).GetFilteredPairsRel().GetTargets()
            for t in targets:
                tp = self.stage.GetPrimAtPath(t)
                keys = self.owner_keys(tp) if tp else []
                if not keys:
                    self.diags.append(diag("error", "physics-filter-invalid-target",
                                           f"{path} physics:filteredPairs names {t}, which is not a body or "
                                           "collider", path, target=str(t)))
                    continue
                for a in mine:
                    for b in keys:
                        if a == b:
                            self.diags.append(diag(
                                "warning", "physics-filter-same-compound",
                                f"{path} filters {t}, but both are parts of the same compound {a}; "
                                "a compound never collides with itself", path))
                            continue
                        pairs.append((min(a, b), max(a, b)))
        return pairs

    def _collision_groups(self) -> list[tuple[str, str]]:
        groups = sorted((p for p in self.prims if p.IsA(UsdPhysics.CollisionGroup)), key=lambda p: str(p.GetPath()))
        members: dict[str, list[str]] = {}
        for g in groups:
            coll = Usd.CollectionAPI(g, "colliders")
            query = coll.ComputeMembershipQuery()
            included = Usd.CollectionAPI.ComputeIncludedPaths(query, self.stage)
            keys: set[str] = set()
            for ip in included:
                p = self.stage.GetPrimAtPath(ip)
                if p:
                    path = str(ip)
                    if path in self.bodies or path in self.collider_owner:
                        keys.update(self.owner_keys(p))
            members[str(g.GetPath())] = sorted(keys)
        pairs: list[tuple[str, str]] = []
        for g in groups:
            gpath = str(g.GetPath())
            api = UsdPhysics.CollisionGroup(g)
            if api.GetInvertFilteredGroupsAttr().Get():
                self.diags.append(diag("warning", "physics-unsupported",
                                       f"{gpath} sets physics:invertFilteredGroups; inverted group filtering "
                                       "is not supported and the group's filteredGroups are ignored", gpath))
                continue
            if authored(api.GetMergeGroupNameAttr()):
                self.diags.append(diag("warning", "physics-unsupported",
                                       f"{gpath} sets physics:mergeGroup, which is not read", gpath))
            for t in api.GetFilteredGroupsRel().GetTargets():
                other = members.get(str(t))
                if other is None:
                    self.diags.append(diag("error", "physics-filter-invalid-target",
                                           f"{gpath} physics:filteredGroups names {t}, which is not a "
                                           "PhysicsCollisionGroup", gpath, target=str(t)))
                    continue
                for a in members[gpath]:
                    for b in other:
                        if a != b:
                            pairs.append((min(a, b), max(a, b)))
        return pairs


def _principal(tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(principal axes quaternion, diagonal inertia); identity when already diagonal."""
    off = abs(tensor[0, 1]) + abs(tensor[0, 2]) + abs(tensor[1, 2])
    if off <= 1e-12 * max(float(np.trace(tensor)), 1e-30):
        return np.array([1.0, 0.0, 0.0, 0.0]), np.diag(tensor).copy()
    vals, vecs = np.linalg.eigh(tensor)
    if np.linalg.det(vecs) < 0:
        vecs[:, 2] = -vecs[:, 2]
    return matrix_to_quat(vecs), vals

