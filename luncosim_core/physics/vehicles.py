"""Wheeled vehicles: raycast wheels, suspension, tyres, motors and gearboxes, drive allocation.

A prim applying ``PhysxVehicleWheelAPI`` is a wheel of the nearest rigid body above it (the
chassis). A wheel that a joint names (``physics:body0``/``body1``) is a *jointed* wheel: a body
of its own, driven through its hinge. Any other wheel is a *raycast* wheel: not a body and not a
collider; once per substep a ray is cast down its strut and a spring-damper suspension, a
longitudinal tyre/axle model and a lateral slip-angle law push on the chassis at the contact
point (LunCoSim's ``lunco-mobility`` model, read from the same PhysX vehicle attributes).

Authored numbers (SI, metres, wheel-local +Y up, -Z forward, +X right):

* wheel: ``physxVehicleWheel:radius``, ``:mass``, ``:moi``, ``:dampingRate`` (bearing drag),
  ``:maxBrakeTorque``; ``lunco:wheel:steerAxis``;
* suspension: ``lunco:suspension:restLength``, ``physxVehicleSuspension:springStrength``,
  ``:springDamperRate``;
* tyre: ``physics:dynamicFriction`` (Coulomb mu), ``physxVehicleTire:longitudinalStiffness``,
  ``:lateralStiffnessGraph`` (min normalised load, max stiffness N/rad), ``:restLoad``;
* motor (``lunco:motor:drivenWheel`` names the wheel): ``lunco:motor:stallTorque``,
  ``:noLoadSpeed``, ``:rotorInertia``; its gearbox is the prim whose
  ``inputs:torque`` connects to the motor's ``outputs:torque``: ``lunco:gearbox:ratio``,
  ``:efficiency``, ``:maxOutputTorque``. At the axle: peak torque = stall * ratio * gearbox
  efficiency (clamped at maxOutputTorque), no-load speed = noLoadSpeed /
  ratio, torque = clamp(peak * (demand - omega / omega_max), -peak, peak).

Drive allocation (the vessel's ``throttle``/``steer``/``brake`` inputs to its actuator ports) is
chosen as LunCoSim does: ``lunco:driveKernel`` (a scripted kernel: not available here, so the
vessel stays braked) > a ``DriveMix`` child scope of ``lunco:factor:throttle|steer|brake`` terms
(linear) > ``PhysxVehicleTankDifferentialAPI`` (skid over drive_left/drive_right) >
``PhysxVehicleAckermannSteeringAPI`` (linear: drive_left, drive_right, steering). Braking
(brake > 0.5) zeroes throttle and steer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pybullet as pb
from pxr import Usd, UsdPhysics

from .builder import KNUCKLE_TORQUE
from .frames import Pose, axis_angle_quat, quat_rotate
from .model import Body
from .reader import applied_schemas, authored, diag

WHEEL_API = "PhysxVehicleWheelAPI"
MAX_SUSPENSION_FORCE = 100_000.0  # N, per strut
STEER_RATE = 2.0  # rad/s, steering servo slew


@dataclass
class MixEntry:
    port: str
    throttle: float
    steer: float
    brake: float


@dataclass
class DriveMix:
    """A vessel's allocation: ``kernel`` is skid | linear | scripted:<hook> (``name`` is the
    kernel's name as LunCoSim reports it: the hook id for a scripted kernel)."""

    vessel: str
    kernel: str
    ports: list[str] = field(default_factory=list)
    entries: list[MixEntry] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.kernel.split(":", 1)[1] if self.kernel.startswith("scripted:") else self.kernel

    def allocate(self, throttle: float, steer: float, brake: float) -> dict[str, float]:
        """Normalised actuator-port writes for one command (each in [-1, 1])."""
        braking = brake > 0.5
        t, s, b = (0.0, 0.0, 1.0) if braking else (throttle, steer, 0.0)
        if self.kernel == "skid":
            left, right = skid_mix(t, s)
            return dict(zip(self.ports, (left, right), strict=False))
        if self.kernel == "linear":
            return {e.port: _clamp(t * e.throttle + s * e.steer + b * e.brake, 1.0) for e in self.entries}
        return {}  # a scripted kernel with no hook: nothing is actuated


def skid_mix(forward: float, steer: float) -> tuple[float, float]:
    """Tank mix with steer priority and proportional saturation (LunCoSim ``skid_mix_norm``)."""
    steer = _clamp(steer, 1.0)
    drive = _clamp(forward, 1.0) * (1.0 - 0.5 * abs(steer))
    left, right = drive + steer, drive - steer
    m = max(abs(left), abs(right), 1.0)
    return left / m, right / m


def _clamp(v: float, lim: float) -> float:
    return lim if v > lim else (-lim if v < -lim else v)


@dataclass
class Wheel:
    path: str
    chassis: str
    mount: Pose  # wheel frame in the chassis body frame (metres)
    radius: float
    mass: float
    inertia: float  # tyre + reflected rotor inertia about the axle, kg m^2
    bearing_damping: float
    brake_torque: float
    steer_axis: np.ndarray
    rest_length: float
    spring_k: float
    damper_c: float
    mu: float
    slip_k: float
    lat_min_load: float
    lat_max_stiffness: float
    rest_load: float
    tyre_inertia: float = 0.0  # the tyre's own axle inertia (``inertia`` adds the reflected rotor)
    min_speed: float = 0.0  # lunco:tire:minValidatedSpeed: floor of the slip-angle reference speed, m/s
    peak_torque: float = 0.0  # at the axle; 0 = undriven
    max_omega: float = 0.0  # no-load axle speed, rad/s
    drive_key: str = ""  # the wheel's ``drive`` input: the demand, in [-1, 1]
    steer_key: str = ""  # port whose value is the steer command (steered wheels)
    max_steer: float = 0.0
    joint: str | None = None  # the hinge of a jointed wheel
    # state
    omega: float = 0.0
    steer_angle: float = 0.0
    normal_force: float = 0.0
    demand: float = 0.0
    steer_cmd: float = 0.0
    tyre: tuple[list[float], list[float]] | None = None  # this tick's tyre force and contact point


@dataclass
class Vessel:
    path: str
    mix: DriveMix | None
    brake_key: str
    wheels: list[Wheel] = field(default_factory=list)
    braking: bool = False


def _attr(prim, name: str, default=None):
    a = prim.GetAttribute(name)
    if a and a.HasAuthoredValue():
        v = a.Get()
        if v is not None:
            return v
    return default


class VehicleReader:
    """Find wheels, motors, gearboxes and vessels on a composed stage."""

    def __init__(self, reader) -> None:
        self.r = reader

    def wheel_prims(self) -> list:
        return [p for p in self.r.prims if WHEEL_API in applied_schemas(p)]

    def jointed_targets(self) -> set[str]:
        out: set[str] = set()
        for p in self.r.prims:
            if not p.IsA(UsdPhysics.Joint):
                continue
            if UsdPhysics.Joint(p).GetJointEnabledAttr().Get() is False:
                continue
            for rel in ("physics:body0", "physics:body1"):
                r = p.GetRelationship(rel)
                for t in (r.GetTargets() if r else []):
                    out.add(str(t))
        return out

    def read(self, bodies: dict[str, Body], raycast: set[str]) -> list[Vessel]:
        r = self.r
        motors = self._motors()
        vessels: dict[str, Vessel] = {}
        for prim in self.wheel_prims():
            path = str(prim.GetPath())
            chassis = self._chassis(prim)
            if chassis is None:
                r.diags.append(diag("warning", "vehicle-wheel-orphan",
                                    f"wheel {path} has no rigid body above it (its chassis); it does nothing",
                                    path))
                continue
            wheel = self._wheel(prim, path, chassis, bodies)
            if wheel is None:
                continue
            if path not in raycast:
                wheel.joint = self._hinge_of(path)
            self._attach_motor(wheel, motors.get(path))
            root = self._vessel_root(r.stage.GetPrimAtPath(chassis))
            vessel = vessels.get(root)
            if vessel is None:
                vessel = vessels[root] = Vessel(root, self._drive_mix(r.stage.GetPrimAtPath(root)), f"{root}.brake")
            self._steering(prim, wheel, r.stage.GetPrimAtPath(root))
            vessel.wheels.append(wheel)
        out = [vessels[k] for k in sorted(vessels)]
        for v in out:
            v.wheels.sort(key=lambda w: w.path)
        return out

    def _chassis(self, prim) -> str | None:
        p = prim.GetParent()
        while p and not p.IsPseudoRoot():
            key = str(p.GetPath())
            if key in self.r.body_prims:
                return key
            p = p.GetParent()
        return None

    def _vessel_root(self, chassis) -> str:
        """The vessel a chassis belongs to: the nearest ancestor-or-self that selects a drive
        allocation or offers a command surface (``Controls``); else the chassis itself."""
        p = chassis
        while p and not p.IsPseudoRoot():
            schemas = applied_schemas(p)
            if (p.GetChild("Controls") or p.GetChild("DriveMix") or _attr(p, "lunco:driveKernel")
                    or "PhysxVehicleTankDifferentialAPI" in schemas
                    or "PhysxVehicleAckermannSteeringAPI" in schemas):
                return str(p.GetPath())
            p = p.GetParent()
        return str(chassis.GetPath())

    def _hinge_of(self, path: str) -> str | None:
        for p in self.r.prims:
            if p.IsA(UsdPhysics.RevoluteJoint):
                for rel in ("physics:body0", "physics:body1"):
                    rr = p.GetRelationship(rel)
                    if rr and path in [str(t) for t in rr.GetTargets()]:
                        return str(p.GetPath())
        return None

    def _wheel(self, prim, path: str, chassis: str, bodies: dict[str, Body]) -> Wheel | None:
        r = self.r
        radius = _attr(prim, "physxVehicleWheel:radius", _attr(prim, "radius"))
        if radius is None or float(radius) <= 0:
            r.diags.append(diag("error", "vehicle-wheel-invalid",
                                f"wheel {path} authors no positive physxVehicleWheel:radius; it is ignored", path))
            return None
        mpu = r.mpu
        world, _ = r.world_pose(prim)
        mount = bodies[chassis].pose.inverse() * world
        mass = float(_attr(prim, "physxVehicleWheel:mass", 20.0))
        radius_m = float(radius) * mpu
        moi = float(_attr(prim, "physxVehicleWheel:moi", 0.0) or 0.5 * mass * radius_m * radius_m)
        graph = _attr(prim, "physxVehicleTire:lateralStiffnessGraph", (1.0, 0.0))
        steer_axis = np.array(_attr(prim, "lunco:wheel:steerAxis", (0.0, 1.0, 0.0)), dtype=float)
        return Wheel(
            path=path, chassis=chassis, mount=mount, radius=radius_m, mass=mass, inertia=moi,
            bearing_damping=float(_attr(prim, "physxVehicleWheel:dampingRate", 0.25)),
            brake_torque=float(_attr(prim, "physxVehicleWheel:maxBrakeTorque", 1500.0)),
            steer_axis=steer_axis / max(float(np.linalg.norm(steer_axis)), 1e-12),
            rest_length=float(_attr(prim, "lunco:suspension:restLength", 0.3)) * mpu,
            spring_k=float(_attr(prim, "physxVehicleSuspension:springStrength", 15000.0)),
            damper_c=float(_attr(prim, "physxVehicleSuspension:springDamperRate", 3000.0)),
            mu=float(_attr(prim, "physics:dynamicFriction", _attr(prim, "physics:staticFriction", 1.0))),
            slip_k=float(_attr(prim, "physxVehicleTire:longitudinalStiffness", 8000.0)),
            lat_min_load=float(graph[0]), lat_max_stiffness=float(graph[1]),
            rest_load=float(_attr(prim, "physxVehicleTire:restLoad", 400.0)),
            min_speed=float(_attr(prim, "lunco:tire:minValidatedSpeed", 0.0)) * mpu,
            drive_key=f"{path}.drive")

    def _motors(self) -> dict[str, tuple]:
        """wheel path -> (motor prim, gearbox prim or None)."""
        gearbox_of: dict[str, object] = {}
        motors: dict[str, tuple] = {}
        for p in self.r.prims:
            schemas = applied_schemas(p)
            if "LunCoGearboxAPI" in schemas:
                a = p.GetAttribute("inputs:torque")
                for src in (a.GetConnections() if a else []):
                    gearbox_of[str(src.GetPrimPath())] = p
        for p in self.r.prims:
            rel = p.GetRelationship("lunco:motor:drivenWheel")
            if not rel:
                continue
            for t in rel.GetTargets():
                motors[str(t)] = (p, gearbox_of.get(str(p.GetPath())))
        return motors

    def _attach_motor(self, wheel: Wheel, motor) -> None:
        if motor is None:
            return
        m, g = motor
        stall = float(_attr(m, "lunco:motor:stallTorque", 0.0))
        no_load = float(_attr(m, "lunco:motor:noLoadSpeed", 0.0))
        rotor = float(_attr(m, "lunco:motor:rotorInertia", 0.0))
        ratio, g_eff, g_max = 1.0, 1.0, math.inf
        if g is not None:
            ratio = float(_attr(g, "lunco:gearbox:ratio", 1.0)) or 1.0
            g_eff = float(_attr(g, "lunco:gearbox:efficiency", 1.0))
            g_max = float(_attr(g, "lunco:gearbox:maxOutputTorque", math.inf))
        wheel.peak_torque = min(stall * ratio * g_eff, g_max)
        wheel.max_omega = no_load / ratio if no_load > 0 else 0.0
        wheel.tyre_inertia = wheel.inertia
        wheel.inertia += rotor * ratio * ratio

    def _steering(self, prim, wheel: Wheel, chassis) -> None:
        steer = prim.GetAttribute("inputs:steer")
        if not steer or not (steer.HasAuthoredValue() or steer.GetConnections()):
            return
        wheel.steer_key = f"{wheel.path}.steer"
        wheel.max_steer = float(_attr(chassis, "physxVehicleAckermannSteering:maxSteerAngle",
                                      _attr(prim, "physxVehicleWheel:maxSteerAngle", 0.5)))

    def _drive_mix(self, prim) -> DriveMix | None:
        path = str(prim.GetPath())
        schemas = applied_schemas(prim)
        hook = _attr(prim, "lunco:driveKernel")
        if hook:
            self.r.diags.append(diag(
                "warning", "vehicle-drive-kernel-unavailable",
                f"{path} selects the scripted drive kernel {hook!r} (lunco:driveKernel); scripted kernels "
                "are not available, so the vessel is not actuated (it stays braked)", path))
            return DriveMix(path, f"scripted:{hook}")
        scope = prim.GetChild("DriveMix")
        if scope:
            entries = []
            for term in sorted(scope.GetChildren(), key=lambda c: c.GetName()):
                entries.append(MixEntry(term.GetName(), float(_attr(term, "lunco:factor:throttle", 0.0)),
                                        float(_attr(term, "lunco:factor:steer", 0.0)),
                                        float(_attr(term, "lunco:factor:brake", 0.0))))
            return DriveMix(path, "linear", [], entries)
        if "PhysxVehicleTankDifferentialAPI" in schemas:
            return DriveMix(path, "skid", ["drive_left", "drive_right"])
        if "PhysxVehicleAckermannSteeringAPI" in schemas:
            return DriveMix(path, "linear", [], [MixEntry("drive_left", 1.0, 0.0, 0.0),
                                                 MixEntry("drive_right", 1.0, 0.0, 0.0),
                                                 MixEntry("steering", 0.0, 1.0, 0.0)])
        return None


def fold_wheel_mass(body: Body, wheels: list[Wheel]) -> None:
    """Add raycast wheels' masses to their chassis: mass, centre of mass, inertia (parallel axis)."""
    added = sum(w.mass for w in wheels)
    if added <= 0:
        return
    total = body.mass + added
    com = (body.com * body.mass + sum(w.mount.p * w.mass for w in wheels)) / total

    def perp(m: float, d: np.ndarray) -> np.ndarray:
        return m * np.array([d[1] ** 2 + d[2] ** 2, d[0] ** 2 + d[2] ** 2, d[0] ** 2 + d[1] ** 2])

    extra = perp(body.mass, body.com - com) + sum(perp(w.mass, w.mount.p - com) for w in wheels)
    if np.allclose(body.principal, [1.0, 0.0, 0.0, 0.0]):
        body.inertia = body.inertia + extra
    body.mass = total
    body.com = com


# ---------------------------------------------------------------------------------- tyre laws
def suspension_force(compression: float, k: float, closing_speed: float, c: float) -> float:
    spring = compression * k
    damping = _clamp(closing_speed * c, spring)
    return min(max(spring + damping, 0.0), MAX_SUSPENSION_FORCE)


def longitudinal_step(w: Wheel, hub_speed: float, drive: float, brake: float, normal: float,
                      dt: float) -> tuple[float, float]:
    """(new axle speed, longitudinal patch force): implicit grip, Coulomb-limited slip."""
    i, r = w.inertia, w.radius
    if normal < 1.0:
        return w.omega + dt * (drive + brake - w.bearing_damping * w.omega) / i, 0.0
    denom = i / dt + w.slip_k * r * r + w.bearing_damping
    w_grip = (i / dt * w.omega + drive + brake + w.slip_k * r * hub_speed) / denom
    f = w.slip_k * (w_grip * r - hub_speed)
    limit = w.mu * normal
    if abs(f) <= limit:
        return w_grip, f
    prev = w.omega * r - hub_speed
    sign = math.copysign(1.0, prev if abs(prev) > 1e-15 else f)
    traction = sign * limit * r
    return w.omega + dt * (drive + brake - traction - w.bearing_damping * w.omega) / i, traction / r


def lateral_force(w: Wheel, long_force: float, rolling: float, v_lat: float, normal: float,
                  wheel_load: float | None = None, share: float = 1.0) -> tuple[float, float]:
    """(longitudinal, lateral) patch force on one friction circle (mu x ``normal``). The cornering
    stiffness is the graph's at the wheel's load (``wheel_load``, default ``normal``); a contact
    carrying ``share`` of a wheel's load gets that share of the wheel's lateral force."""
    if normal <= 0:
        return 0.0, 0.0
    lat = 0.0
    load = normal if wheel_load is None else wheel_load
    if w.lat_max_stiffness > 0 and w.rest_load > 0:
        scale = min(load / w.rest_load / w.lat_min_load, 1.0) if w.lat_min_load > 0 else 1.0
        lat = w.lat_max_stiffness * scale * share * math.atan2(-v_lat, abs(rolling))
    cone = max(w.mu, 0.0) * normal
    mag = math.hypot(long_force, lat)
    if mag > cone and mag > 1e-12:
        return long_force * cone / mag, lat * cone / mag
    return long_force, lat


def axle_torque(w: Wheel, demand: float, dt: float) -> float:
    if abs(demand) <= 1e-15 or w.peak_torque <= 0:
        return 0.0
    if w.max_omega <= 0:
        return demand * w.peak_torque
    ceiling = abs(_clamp(w.peak_torque * (demand - w.omega / w.max_omega), w.peak_torque))
    target = demand * w.max_omega
    return _clamp(-w.inertia * (w.omega - target) / dt, ceiling)


def steer_quat(w: Wheel) -> np.ndarray:
    return axis_angle_quat(w.steer_axis, -w.steer_angle)


def wheel_frame(chassis: Pose, w: Wheel) -> Pose:
    mount = w.mount if w.steer_angle == 0.0 else Pose(w.mount.p, _qmul(w.mount.q, steer_quat(w)))
    return chassis * mount


def _qmul(a, b):
    from .frames import quat_mul

    return quat_mul(a, b)


def hub_ray(frame: Pose, w: Wheel) -> tuple[np.ndarray, np.ndarray]:
    """(ray start at the strut top, ray end at full extension) in world."""
    up = quat_rotate(frame.q, np.array([0.0, 1.0, 0.0]))
    start = frame.p + up * (w.rest_length - w.radius)
    return start, start - up * w.rest_length


def read_vehicles(reader, stage: Usd.Stage, bodies: dict[str, Body], raycast: set[str]) -> list[Vessel]:
    del stage
    vessels = VehicleReader(reader).read(bodies, raycast)
    by_chassis: dict[str, list[Wheel]] = {}
    for v in vessels:
        for w in v.wheels:
            if w.joint is None:
                by_chassis.setdefault(w.chassis, []).append(w)
    for chassis, ray in sorted(by_chassis.items()):
        fold_wheel_mass(bodies[chassis], ray)
    return vessels


def authored_mass_without_api(prim) -> float | None:
    """``physics:mass`` authored on a body that does not apply PhysicsMassAPI (read anyway)."""
    a = prim.GetAttribute("physics:mass")
    if a and authored(a) and not prim.HasAPI(UsdPhysics.MassAPI):
        v = a.Get()
        return float(v) if v is not None and float(v) > 0 else None
    return None


class VehicleRuntime:
    """Raycast wheels and jointed-wheel motors of every vessel on one pybullet client."""

    def __init__(self, client, built, vessels: list[Vessel], gravity: np.ndarray, dt: float) -> None:
        self.c = client
        self.built = built
        self.vessels = [v for v in vessels if all(w.chassis in built.bodies for w in v.wheels)]
        self.gravity = gravity
        self.dt = dt
        self.inputs: dict[str, float] = {}
        self.ray_wheels = [(v, w) for v in self.vessels for w in v.wheels if w.joint is None]
        self.jointed = [(v, w) for v in self.vessels for w in v.wheels if w.joint is not None]
        self._joint_rt = {rt.joint.path: rt for rt in built.joints}
        self.knuckles = getattr(built, "knuckles", {})  # steered jointed wheel -> (uid, knuckle link)
        self.tick_dt = dt
        self._substep_index = 0
        self._tyre_forces: list = []
        for _v, w in self.jointed:
            b = built.bodies.get(w.path)
            if b is not None:  # the tyre law owns the tangential force: no pybullet friction
                client.changeDynamics(b.uid, b.link, lateralFriction=0.0, rollingFriction=0.0, spinningFriction=0.0)

    def reflect_rotor_inertia(self, bodies: dict[str, Body]) -> None:
        """A jointed wheel spins its motor's rotor through the gearbox: add that reflected
        inertia (rotor x ratio^2) about the axle, as the raycast wheel's axle inertia has it."""
        for _v, w in self.jointed:
            b, body = self.built.bodies.get(w.path), bodies.get(w.path)
            extra = w.inertia - w.tyre_inertia
            if b is None or body is None or extra <= 0:
                continue
            axes = np.array([quat_rotate(body.principal, e) for e in np.eye(3)])  # principal axes, body frame
            k = int(np.argmax(np.abs(axes @ np.array([1.0, 0.0, 0.0]))))  # the axle is the wheel's local X
            diag_i = body.inertia.copy()
            diag_i[k] += extra
            self.c.changeDynamics(b.uid, b.link, localInertiaDiagonal=[float(x) for x in diag_i])

    def input_keys(self) -> list[str]:
        keys = set()
        for v in self.vessels:
            keys.add(v.brake_key)
            for w in v.wheels:
                keys.add(w.drive_key)
                if w.steer_key:
                    keys.add(w.steer_key)
        return sorted(keys)

    def set_inputs(self, values: dict[str, float]) -> None:
        self.inputs = {k: v for k, v in values.items() if v == v}

    def _latch(self) -> None:
        for v in self.vessels:
            v.braking = self.inputs.get(v.brake_key, 0.0) > 0.5
            for w in v.wheels:
                w.demand = _clamp(self.inputs.get(w.drive_key, 0.0), 1.0)
                w.steer_cmd = _clamp(self.inputs.get(w.steer_key, 0.0), 1.0) if w.steer_key else 0.0

    def tick(self) -> None:
        """Once per tick before the substeps: latch inputs, command jointed wheels."""
        self._latch()
        self._steer_knuckles()
        for v, w in self.jointed:
            rt = self._joint_rt.get(w.joint or "")
            if rt is None or not rt.is_link:
                continue
            if v.braking:
                target, force = 0.0, w.brake_torque
            elif abs(w.demand) > 1e-12 and w.peak_torque > 0:
                # the motor's DC curve caps the hinge motor: peak * (demand - omega / omega_max)
                w.omega = self.c.getJointState(rt.uid, rt.link)[1] * rt.sign * _spin_sign(w)
                target = w.demand * (w.max_omega if w.max_omega > 0 else 1.0e3)
                force = abs(_clamp(w.peak_torque * (w.demand - (w.omega / w.max_omega if w.max_omega > 0 else 0.0)),
                                   w.peak_torque))
            else:
                target, force = 0.0, w.bearing_damping
            self.c.setJointMotorControl2(rt.uid, rt.link, pb.VELOCITY_CONTROL, targetVelocity=target * rt.sign * _spin_sign(w),
                                         force=force)
        self._tyre_forces = []
        self._substep_index = 0
        for v, w in self.jointed:
            self._jointed_tyre(v, w)

    def _steer_knuckles(self) -> None:
        """A steered jointed wheel's servo slews (as a raycast wheel's does) and turns its knuckle:
        the hinge, and the wheel on it, yaw about the steer axis."""
        for _v, w in self.jointed:
            knuckle = self.knuckles.get(w.path)
            if knuckle is None or not w.steer_key:
                continue
            goal = w.steer_cmd * w.max_steer
            w.steer_angle += _clamp(goal - w.steer_angle, STEER_RATE * self.tick_dt)
            self.c.setJointMotorControl2(knuckle[0], knuckle[1], pb.POSITION_CONTROL, targetPosition=-w.steer_angle,
                                         force=KNUCKLE_TORQUE)

    def _steered_frame(self, chassis: Pose, w: Wheel) -> Pose:
        """The wheel's unspun frame: its mount, turned by its knuckle's measured angle."""
        knuckle = self.knuckles.get(w.path)
        if knuckle is None:
            return chassis * w.mount
        angle = -self.c.getJointState(knuckle[0], knuckle[1])[0]
        return chassis * Pose(w.mount.p, _qmul(w.mount.q, axis_angle_quat(w.steer_axis, -angle)))

    def _jointed_tyre(self, v: Vessel, w: Wheel) -> None:
        """LunCoSim's jointed tyre: pybullet keeps only the normal contact (the wheel has no
        friction of its own); the same longitudinal and lateral tyre law as a raycast wheel acts
        at each contact point, from the solver's normal forces of the last substep. The axle and
        the cornering stiffness are evaluated at the wheel's whole load and their forces shared
        out by each point's load (pybullet may report one contact or several for the same
        patch: the wheel's grip must not depend on how many)."""
        rt = self._joint_rt.get(w.joint or "")
        b = self.built.bodies.get(w.path)
        if rt is None or not rt.is_link or b is None:
            return
        c = self.c
        omega = c.getJointState(rt.uid, rt.link)[1] * rt.sign * _spin_sign(w)
        contacts = [cp for cp in c.getContactPoints(bodyA=b.uid, linkIndexA=b.link) if cp[9] > 0]
        total = sum(cp[9] for cp in contacts)
        if total <= 0:
            return
        frame = self._steered_frame(self._chassis_state(w.chassis)[1], w)
        heading = quat_rotate(frame.q, np.array([0.0, 0.0, -1.0]))
        axle = quat_rotate(frame.q, np.array([1.0, 0.0, 0.0]))
        st = c.getLinkState(b.uid, b.link, computeLinkVelocity=1, computeForwardKinematics=1)
        hub_vel = np.array(st[6])  # link frame = the hinge on the wheel, i.e. the hub
        bases = []
        for cp in contacts:
            n = np.array(cp[7], dtype=float)  # on the ground, pointing at the wheel
            fwd = heading - n * float(np.dot(heading, n))
            fwd = fwd / max(float(np.linalg.norm(fwd)), 1e-12)
            right = np.cross(fwd, n)
            right = right if float(np.dot(right, axle)) >= 0 else -right
            bases.append((fwd, right, float(np.dot(hub_vel, fwd)), float(np.dot(hub_vel, right))))
        v_long = sum(bs[2] * cp[9] for bs, cp in zip(bases, contacts, strict=True)) / total
        drive = _brake_hold_torque(w, omega, v_long, self.tick_dt) if v.braking else _commanded_torque(w, omega, False)
        saved, w.omega = w.omega, omega
        _w, f_long = longitudinal_step(w, v_long, drive, 0.0, total, self.tick_dt)
        w.omega = saved if w.joint is None else omega
        for (fwd, right, vl, vt), cp in zip(bases, contacts, strict=True):
            share = cp[9] / total
            rolling = max(abs(vl), abs(omega * w.radius), w.min_speed)
            fl, ft = lateral_force(w, f_long * share, rolling, vt, cp[9], total, share)
            self._tyre_forces.append((b.uid, b.link, (fwd * fl + right * ft).tolist(), list(cp[5])))

    def apply_tyre_forces(self) -> None:
        for uid, link, force, point in self._tyre_forces:
            self.c.applyExternalForce(uid, link, force, point, pb.WORLD_FRAME)

    def _chassis_state(self, path: str):
        b = self.built.bodies[path]
        if b.link < 0:
            pos, orn = self.c.getBasePositionAndOrientation(b.uid)
            lin, ang = self.c.getBaseVelocity(b.uid)
        else:
            st = self.c.getLinkState(b.uid, b.link, computeLinkVelocity=1, computeForwardKinematics=1)
            pos, orn, lin, ang = st[0], st[1], st[6], st[7]
        from .frames import from_xyzw

        inertial = Pose(np.array(pos), from_xyzw(orn))
        return b, inertial * b.com_frame.inverse(), np.array(pos), np.array(lin), np.array(ang)

    def substep(self) -> None:
        """Cast every raycast wheel's ray (one batch) and push on the chassis; apply the jointed
        wheels' tyre forces."""
        self.apply_tyre_forces()
        if not self.ray_wheels:
            return
        dt = self.dt
        states = {w.chassis: self._chassis_state(w.chassis) for _v, w in self.ray_wheels}
        frames, starts, ends = [], [], []
        for _v, w in self.ray_wheels:
            if w.steer_key:
                goal = w.steer_cmd * w.max_steer
                step = STEER_RATE * dt
                w.steer_angle += _clamp(goal - w.steer_angle, step)
            frame = wheel_frame(states[w.chassis][1], w)
            s, e = hub_ray(frame, w)
            frames.append(frame)
            starts.append(s.tolist())
            ends.append(e.tolist())
        hits = self.c.rayTestBatch(starts, ends)
        for (v, w), frame, hit, s in zip(self.ray_wheels, frames, hits, starts, strict=True):
            b, _pose, com, lin, ang = states[w.chassis]
            self._wheel(v, w, b, frame, hit, np.array(s), com, lin, ang, dt)
        self._substep_index += 1

    def _wheel(self, v: Vessel, w: Wheel, b, frame: Pose, hit, start: np.ndarray, com: np.ndarray,
               lin: np.ndarray, ang: np.ndarray, dt: float) -> None:
        uid = hit[0]
        valid = uid >= 0 and not (uid == b.uid and hit[1] == b.link)
        normal = np.array(hit[4], dtype=float) if valid else np.zeros(3)
        if valid and float(np.dot(normal, normal)) < 1e-12:
            valid = False
        hub_vel = lin + np.cross(ang, frame.p - com)
        fwd = quat_rotate(frame.q, np.array([0.0, 0.0, -1.0]))
        right = quat_rotate(frame.q, np.array([1.0, 0.0, 0.0]))
        n_force = 0.0
        contact = None
        if valid:
            dist = float(hit[2]) * w.rest_length
            contact = np.array(hit[3], dtype=float)
            if dist < w.rest_length:
                closing = -float(np.dot(hub_vel, normal))
                n_force = suspension_force(w.rest_length - dist, w.spring_k, closing, w.damper_c)
                if not b.kinematic:
                    self.c.applyExternalForce(b.uid, b.link, (normal * n_force).tolist(), frame.p.tolist(),
                                             pb.WORLD_FRAME)
            fwd = fwd - normal * float(np.dot(fwd, normal))
            fwd = fwd / max(float(np.linalg.norm(fwd)), 1e-12)
            right = np.cross(fwd, normal)
        w.normal_force = n_force
        if self._substep_index > 0:
            # the tyre is solved once per tick (as LunCoSim's fixed-update tyre); its force holds
            if w.tyre is not None and not b.kinematic:
                self.c.applyExternalForce(b.uid, b.link, w.tyre[0], w.tyre[1], pb.WORLD_FRAME)
            return
        w.tyre = None
        dt = self.tick_dt
        v_long = float(np.dot(hub_vel, fwd))
        v_lat = float(np.dot(hub_vel, right))
        brake = _clamp(-w.inertia * w.omega / dt, w.brake_torque) if v.braking else 0.0
        drive = 0.0 if v.braking else axle_torque(w, w.demand, dt)
        on_ground = n_force >= 1.0
        w.omega, f_long = longitudinal_step(w, v_long, drive, brake, n_force if on_ground else 0.0, dt)
        if not on_ground or contact is None or b.kinematic:
            return
        rolling = max(abs(v_long), abs(w.omega * w.radius), w.min_speed)
        f_l, f_t = lateral_force(w, f_long, rolling, v_lat, n_force)
        force = fwd * f_l + right * f_t
        if v.braking:
            force = force + _parking_force(self.gravity, normal, n_force, w.mu)
        w.tyre = (force.tolist(), contact.tolist())
        self.c.applyExternalForce(b.uid, b.link, w.tyre[0], w.tyre[1], pb.WORLD_FRAME)

    def wheel_state(self, path: str) -> Wheel | None:
        for v in self.vessels:
            for w in v.wheels:
                if w.path == path:
                    return w
        return None

    def state_values(self) -> list[float]:
        out: list[float] = []
        for v in self.vessels:
            for w in v.wheels:
                out += [w.omega, w.steer_angle]
        return out


def _commanded_torque(w: Wheel, omega: float, braking: bool) -> float:
    """The hinge motor's torque (LunCoSim ``commanded_motor_torque``): the DC curve, or the brake
    against the spin."""
    if braking:
        return -math.copysign(w.brake_torque, omega) if abs(omega) > 1e-15 else 0.0
    if abs(w.demand) <= 1e-15 or w.max_omega <= 0 or w.peak_torque <= 0:
        return 0.0
    return _clamp(w.peak_torque * (w.demand - omega / w.max_omega), w.peak_torque)


def _brake_hold_torque(w: Wheel, omega: float, v_long: float, dt: float) -> float:
    """The brake of a jointed wheel, whose hinge motor holds the axle still (up to the brake
    torque): the torque that keeps it still this step against the tyre's grip, within the brake's
    limit. (The bare ``-sign(omega) x brake torque`` of a held axle follows the sign of its
    residual spin noise, so locked wheels push the rover either way.)"""
    need = -(w.inertia / dt * omega + w.slip_k * w.radius * v_long)
    return _clamp(need, w.brake_torque)


def _spin_sign(w: Wheel) -> float:
    """Joint-coordinate sign of forward roll: the hinge axis is the wheel's local X (right), and
    rolling forward (-Z) about +X is a negative rotation."""
    del w
    return -1.0


def _parking_force(g: np.ndarray, normal: np.ndarray, n_force: float, mu: float) -> np.ndarray:
    if n_force <= 0 or mu <= 0:
        return np.zeros(3)
    tangent = g - normal * float(np.dot(g, normal))
    t_len = float(np.linalg.norm(tangent))
    n_acc = -float(np.dot(g, normal))
    if n_acc <= 1e-12 or t_len <= 1e-12:
        return np.zeros(3)
    return -tangent / t_len * min(n_force * t_len / n_acc, mu * n_force)
