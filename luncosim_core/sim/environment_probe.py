"""Environment probes (``LunCoEnvironmentProbeAPI``): gravity and Sun/Earth directions as ports.

A probe is a source component: its prim's transform is the mount frame (+X right, +Y up,
-Z forward) and it publishes, as outputs its API schema declares:

* ``gravity_accel`` (m/s^2) and ``gravity_x/y/z`` (world axes) from the scene's PhysicsScene;
* ``sun_mount_x/y/z``: the unit vector toward the scene sun (the one DistantLight that is not a
  celestial body's fill light; the Sun lies along its +Z), rotated into the probe frame;
* ``earth_mount_x/y/z``: the unit vector toward Earth from the scene's site anchor
  (``lunco:anchor:lat/lon/height/body``), from the DE421 ephemeris at the scenario epoch
  (``lunco:time:epochJd``, J2000 when unauthored) plus simulated time, refreshed once a simulated
  minute; computed only when a wire reads it.

A probe under a rigid body turns with it. Whatever cannot be known (no PhysicsScene, no sun, no
site anchor, an epoch outside the ephemeris) stays pending (NaN), never 0, with one diagnostic.
"""

from __future__ import annotations

import math
import struct

import numpy as np
from pxr import Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import PortInfo, port_key
from luncosim_core.ports.surface import (
    PROBE_API,
    PROBE_EARTH,
    PROBE_GRAVITY,
    PROBE_OUTPUTS,
    PROBE_SUN,
)
from luncosim_core.usd.schemas import has_schema

EARTH_REFRESH_S = 60.0
_UNITS = {"gravity_accel": "m/s^2", "gravity_x": "m/s^2", "gravity_y": "m/s^2", "gravity_z": "m/s^2"}
_DOCS = {
    "gravity_accel": "local gravitational acceleration magnitude",
    "gravity_x": "gravity vector, world X", "gravity_y": "gravity vector, world Y", "gravity_z": "gravity vector, world Z",
    "sun_mount_x": "unit direction toward the Sun, probe frame +X (right)",
    "sun_mount_y": "unit direction toward the Sun, probe frame +Y (up)",
    "sun_mount_z": "unit direction toward the Sun, probe frame Z (-Z forward)",
    "earth_mount_x": "unit direction toward Earth, probe frame +X (right)",
    "earth_mount_y": "unit direction toward Earth, probe frame +Y (up)",
    "earth_mount_z": "unit direction toward Earth, probe frame Z (-Z forward)",
}


def _quat_matrix(q) -> np.ndarray:
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _usd_rotation(prim) -> np.ndarray:
    """World rotation matrix (column-vector convention) of a prim's composed transform."""
    m = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(Usd.TimeCode.Default()) if UsdGeom.Xformable(prim) \
        else None
    if m is None:
        return np.eye(3)
    q = m.RemoveScaleShear().ExtractRotationQuat()
    im = q.GetImaginary()
    return _quat_matrix((q.GetReal(), im[0], im[1], im[2]))


class EnvironmentProbe:
    """One probe prim: a source participant stepping before the models."""

    kind = "environment"
    phase = "script"

    def __init__(self, sim, prim) -> None:
        from luncosim_core.environment import scenario_epoch_jd, scene_sun_direction, site_anchor

        self.prim_path = str(prim.GetPath())
        self.sim = sim
        self._diags: list[Diagnostic] = []
        self.demand: frozenset[str] = frozenset()
        self.up_axis = str(UsdGeom.GetStageUpAxis(sim.stage))
        # the probe frame: a fixed rotation, or one relative to the body it rides on
        self.body = ""
        bodies = set(getattr(sim.world, "body_paths", ()) or ())
        p = prim
        while p and not p.IsPseudoRoot():
            if str(p.GetPath()) in bodies:
                self.body = str(p.GetPath())
                break
            p = p.GetParent()
        probe_rot = _usd_rotation(prim)
        self.fixed_rot = probe_rot
        self.rel_rot = _usd_rotation(sim.stage.GetPrimAtPath(self.body)).T @ probe_rot if self.body else None
        self.sun_world, sun_why = scene_sun_direction(sim.stage)
        self.anchor = site_anchor(sim.stage)
        self.epoch_jd = scenario_epoch_jd(sim.stage)
        self._sun_why = sun_why
        self._earth_world: np.ndarray | None = None
        self._earth_key: float | None = None
        self._earth_why = ""
        self._reported: set[str] = set()
        self.values = dict.fromkeys(PROBE_OUTPUTS, math.nan)

    # -- participant protocol --------------------------------------------------------------
    def wire_demand(self, names: frozenset[str], implicit: frozenset[str] = frozenset()) -> None:
        self.demand = frozenset(n for n in names if n in PROBE_OUTPUTS)

    def port_infos(self) -> list[tuple[PortInfo, float]]:
        self._compute(self.sim)
        return [(PortInfo(self.prim_path, name, "out", "double", _UNITS.get(name, ""), None, None, "environment",
                          f"environment:{self.prim_path}", False, True, _DOCS[name]), self.values[name])
                for name in PROBE_OUTPUTS]

    def wait_reason(self, sim) -> str:
        return ""

    def step(self, sim) -> None:
        self._compute(sim)
        reg = sim.registry
        for name, value in self.values.items():
            i = reg.index.get(port_key(self.prim_path, name))
            if i is not None:
                reg.values[i] = value

    def reset(self, sim) -> None:
        self._earth_key = None

    def state_bytes(self) -> bytes:
        return struct.pack(f"<{len(PROBE_OUTPUTS)}d", *(self.values[n] for n in PROBE_OUTPUTS))

    def take_diagnostics(self) -> list[Diagnostic]:
        out, self._diags = self._diags, []
        return out

    def close(self) -> None:
        pass

    # -- values --------------------------------------------------------------------------------
    def _note(self, key: str, message: str) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self._diags.append(Diagnostic("info", "environment-probe-pending", message, path=self.prim_path,
                                          source="environment"))

    def _rotation(self, sim) -> np.ndarray:
        world = sim.world
        if self.body and world is not None and self.body in world.body_paths:
            q = world.orientations()[world.body_paths.index(self.body)]
            return _quat_matrix(q) @ self.rel_rot
        return self.fixed_rot

    def _compute(self, sim) -> None:
        from luncosim_core.environment import scene_gravity

        nan = math.nan
        g = scene_gravity(sim.stage, getattr(getattr(sim.world, "model", None), "gravity", None))
        if g is None:
            for n in PROBE_GRAVITY:
                self.values[n] = nan
            if PROBE_GRAVITY[0] in self.demand or any(n in self.demand for n in PROBE_GRAVITY):
                self._note("gravity", "gravity is pending: the scene has no PhysicsScene")
        else:
            self.values["gravity_accel"] = float(np.linalg.norm(g))
            for n, v in zip(PROBE_GRAVITY[1:], g, strict=True):
                self.values[n] = float(v)
        rot = self._rotation(sim)
        override = getattr(getattr(sim, "environment", None), "sun_direction", None)
        sun = override if override is not None else self.sun_world
        if sun is None:
            for n in PROBE_SUN:
                self.values[n] = nan
            if any(n in self.demand for n in PROBE_SUN):
                self._note("sun", f"the Sun direction is pending: {self._sun_why}")
        else:
            local = rot.T @ sun
            for n, v in zip(PROBE_SUN, local, strict=True):
                self.values[n] = float(v)
        if any(n in self.demand for n in PROBE_EARTH):
            earth = self._earth(sim)
            if earth is None:
                for n in PROBE_EARTH:
                    self.values[n] = nan
                self._note("earth", f"the Earth direction is pending: {self._earth_why}")
            else:
                local = rot.T @ earth
                for n, v in zip(PROBE_EARTH, local, strict=True):
                    self.values[n] = float(v)
        else:
            for n in PROBE_EARTH:
                self.values[n] = nan

    def _earth(self, sim) -> np.ndarray | None:
        from luncosim_core.environment import EphemerisError, earth_direction_enu

        if self.anchor is None:
            self._earth_why = "the scene has no site anchor (lunco:anchor:lat/lon on the scene root)"
            return None
        key = math.floor(sim.time / EARTH_REFRESH_S) * EARTH_REFRESH_S
        if key != self._earth_key:
            self._earth_key = key
            a = self.anchor
            try:
                e, n, u = earth_direction_enu(self.epoch_jd + key / 86400.0, a.lat_deg, a.lon_deg, a.height_m, a.body)
            except EphemerisError as exc:
                self._earth_world, self._earth_why = None, str(exc)
                return None
            # the site frame: +X east, up along the stage's up axis, north = -Z (Y-up) or +Y (Z-up)
            self._earth_world = np.array([e, u, -n]) if self.up_axis == "Y" else np.array([e, n, u])
        return self._earth_world


def probe_participants(sim) -> list[EnvironmentProbe]:
    """One participant per ``LunCoEnvironmentProbeAPI`` prim, in path order."""
    return [EnvironmentProbe(sim, prim) for prim in sim.stage.Traverse() if has_schema(prim, PROBE_API)]
