"""Measured body state and raycast sensors, sampled once per tick after the physics substeps.

Body state (every dynamic or kinematic body; LunCoSim's rigid-body port contract):
``acceleration_x|y|z`` (world, m/s^2: the finite difference of the solved velocity over the
tick, 0 until one full tick has been observed, when ``acceleration_valid`` becomes 1),
``quat_w|x|y|z`` (attitude), ``yaw``/``pitch``/``roll`` (Euler angles in Y-X-Z order: yaw about
+Y, pitch about +X, roll about +Z, radians), ``speed`` (m/s) and ``state_valid`` (1 once the
body exists in the world).

Raycast sensors: a prim applying ``LunCoRaycastAPI`` casts a ray from ``lunco:raycast:offset``
(metres, in the prim's frame) along ``lunco:raycast:axis`` (X, -X, Y, -Y, Z, -Z in the prim's
frame) up to ``lunco:raycast:maxDistance`` metres; its own body is never hit. Outputs:
``ray_distance``, ``ray_hit_valid``, ``ray_hit_position_x|y|z``, ``ray_hit_normal_x|y|z``,
``ray_sample_time`` (simulated seconds of the sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .frames import Pose, quat_rotate
from .ports import BODY_STATE_PORTS
from .reader import applied_schemas, diag

BODY_STATE = BODY_STATE_PORTS
RAY_OUTPUTS = ("ray_distance", "ray_hit_valid", "ray_hit_position_x", "ray_hit_position_y",
               "ray_hit_position_z", "ray_hit_normal_x", "ray_hit_normal_y", "ray_hit_normal_z",
               "ray_sample_time")
_AXES = {"X": (1.0, 0.0, 0.0), "-X": (-1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "-Y": (0.0, -1.0, 0.0),
         "Z": (0.0, 0.0, 1.0), "-Z": (0.0, 0.0, -1.0)}


@dataclass
class RaySensor:
    path: str
    body: str | None  # owner body (the ray rides it), None for a static sensor
    mount: Pose  # sensor frame in the body frame (world frame when static)
    offset: np.ndarray
    axis: np.ndarray
    max_distance: float
    values: dict[str, float] = field(default_factory=lambda: dict.fromkeys(RAY_OUTPUTS, 0.0))


def read_ray_sensors(reader) -> list[RaySensor]:
    out: list[RaySensor] = []
    for prim in reader.prims:
        if "LunCoRaycastAPI" not in applied_schemas(prim):
            continue
        path = str(prim.GetPath())
        axis = prim.GetAttribute("lunco:raycast:axis")
        dist = prim.GetAttribute("lunco:raycast:maxDistance")
        off = prim.GetAttribute("lunco:raycast:offset")
        axis_v = _AXES.get(str(axis.Get()) if axis and axis.Get() is not None else "")
        dist_v = float(dist.Get()) if dist and dist.Get() is not None else float("nan")
        off_v = off.Get() if off else None
        if axis_v is None or not (math.isfinite(dist_v) and dist_v > 0) or off_v is None:
            reader.diags.append(diag("error", "raycast-invalid",
                                     f"raycast sensor {path} needs lunco:raycast:axis (X, -X, Y, -Y, Z or -Z), "
                                     "a positive lunco:raycast:maxDistance and lunco:raycast:offset; it "
                                     "measures nothing", path))
            continue
        world, _ = reader.world_pose(prim)
        body = reader.owner_body(prim)
        mount = reader.bodies[body].pose.inverse() * world if body else world
        out.append(RaySensor(path, body, mount, np.array(off_v, dtype=float), np.array(axis_v), dist_v))
    return out


def _euler_yxz_into(q: np.ndarray, out: np.ndarray) -> None:
    """(yaw about Y, pitch about X, roll about Z) of q = Ry(yaw) Rx(pitch) Rz(roll), for every
    row of an (n, 4) w-x-y-z quaternion array, into the (n, 3) ``out``."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    s = -2 * (y * z - w * x)
    np.arcsin(np.minimum(np.maximum(s, -1.0, out=s), 1.0, out=s), out=out[:, 1])
    np.arctan2(2 * (x * z + w * y), 1 - 2 * (x * x + y * y), out=out[:, 0])
    np.arctan2(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), out=out[:, 2])


class Sensors:
    """Per-tick samples of body state and raycast sensors."""

    def __init__(self, sensors: list[RaySensor]) -> None:
        self.rays = sensors
        self._prev_lin: np.ndarray | None = None
        self._acc: np.ndarray | None = None
        self._valid = 0.0
        self._state: tuple[np.ndarray, np.ndarray] | None = None  # (lin, orn) of the last sample
        self._block: np.ndarray | None = None  # (n, len(BODY_STATE)) of the last sample, built on demand

    def sample(self, world, tick_dt: float) -> None:
        """Record this tick (the acceleration needs every tick); the columns are derived lazily."""
        lin, orn = world._lin, world._orn
        self._acc = np.zeros_like(lin) if self._prev_lin is None else (lin - self._prev_lin) / tick_dt
        self._valid = 0.0 if self._prev_lin is None else 1.0
        self._prev_lin = lin.copy()
        self._state = (lin, orn)
        self._block = None
        if self.rays:
            self._cast(world)

    def block(self) -> np.ndarray:
        """The last sample's ``BODY_STATE`` values as one read-only (bodies, columns) array,
        columns in ``BODY_STATE`` order (computed once per sample)."""
        if self._block is None:
            lin, orn = self._state if self._state is not None else (np.zeros((0, 3)), np.zeros((0, 4)))
            out = np.empty((len(lin), len(BODY_STATE)))
            out[:, 0:3] = self._acc if self._acc is not None else 0.0
            out[:, 3] = self._valid
            out[:, 4:8] = orn
            _euler_yxz_into(orn, out[:, 8:11])
            out[:, 11] = np.sqrt(np.add.reduce(lin * lin, axis=1))  # as np.linalg.norm computes it
            out[:, 12] = 1.0
            out.flags.writeable = False
            self._block = out
        return self._block

    def _cast(self, world) -> None:
        starts, ends = [], []
        for s in self.rays:
            frame = world._body_pose(s.body) * s.mount if s.body else s.mount
            start = frame.apply(s.offset)
            d = quat_rotate(frame.q, s.axis)
            starts.append(start)
            ends.append(start + d * s.max_distance)
        hits = world._client.rayTestBatch([p.tolist() for p in starts], [p.tolist() for p in ends])
        now = world.tick / world.tick_hz
        for s, hit, start, end in zip(self.rays, hits, starts, ends, strict=True):
            own = world._built.bodies.get(s.body) if s.body else None
            travelled = 0.0
            if own is not None and hit[0] == own.uid and hit[1] == own.link:
                # the ray starts inside its own body: look again from just past that surface
                travelled = float(hit[2]) * s.max_distance + 1e-4
                resume = start + (end - start) * (travelled / s.max_distance)
                hit = world._client.rayTest(resume.tolist(), end.tolist())[0]
                hit = (hit[0], hit[1], hit[2] * (1.0 - travelled / s.max_distance), hit[3], hit[4])
                if hit[0] == own.uid and hit[1] == own.link:
                    hit = (-1, -1, 1.0, (0, 0, 0), (0, 0, 0))
            valid = hit[0] >= 0
            v = s.values
            v["ray_sample_time"] = now
            v["ray_hit_valid"] = 1.0 if valid else 0.0
            if valid:
                v["ray_distance"] = travelled + float(hit[2]) * s.max_distance
                for k, ax in enumerate("xyz"):
                    v[f"ray_hit_position_{ax}"] = float(hit[3][k])
                    v[f"ray_hit_normal_{ax}"] = float(hit[4][k])
