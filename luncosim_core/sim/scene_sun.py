"""The scene sun's angles as ports: ``sun_azimuth`` and ``sun_elevation`` on its DistantLight.

``float inputs:sun_azimuth.connect = </Scene/SunOrbit.outputs:sun_azimuth>`` lets a model move the
sun. Azimuth is the yaw about +Y and elevation the negated pitch about +X of the light (the same
angles :class:`~luncosim_core.api.SetEnvironmentLight` takes); a write re-aims the runtime sun that
environment probes read (``sim.environment.sun_direction``), never the document.
"""

from __future__ import annotations

import math
import struct

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import PortInfo, port_key
from luncosim_core.sim.environment_state import sun_from_yaw_pitch, sun_yaw_pitch

SUN_PORTS = ("sun_azimuth", "sun_elevation")


class SceneSun:
    """The scene sun as a participant owning its two angle ports."""

    kind = "environment"
    phase = "script"

    def __init__(self, sim, prim, direction) -> None:
        self.prim_path = str(prim.GetPath())
        self.sim = sim
        yaw, pitch = sun_yaw_pitch(direction)
        self.applied = (yaw, -pitch)

    def port_infos(self) -> list[tuple[PortInfo, float]]:
        docs = {"sun_azimuth": "sun yaw about +Y (rad); writing it re-aims the runtime sun",
                "sun_elevation": "sun elevation, the negated pitch about +X (rad); writing it re-aims the runtime sun"}
        current = self._current()
        return [(PortInfo(self.prim_path, name, "in", "double", "rad", None, None, "environment", "user", True, True,
                          docs[name]), value) for name, value in zip(SUN_PORTS, current, strict=True)]

    def _current(self) -> tuple[float, float]:
        override = getattr(getattr(self.sim, "environment", None), "sun_direction", None)
        if override is None:
            return self.applied
        yaw, pitch = sun_yaw_pitch(override)
        return yaw, -pitch

    def wait_reason(self, sim) -> str:
        return ""

    def step(self, sim) -> None:
        reg = sim.registry
        values = []
        for name in SUN_PORTS:
            i = reg.index.get(port_key(self.prim_path, name))
            values.append(float(reg.values[i]) if i is not None else math.nan)
        current = self._current()
        yaw, elev = (v if math.isfinite(v) else c for v, c in zip(values, current, strict=True))
        if (yaw, elev) != current:
            sim.environment.sun_direction = sun_from_yaw_pitch(yaw, -elev)
            self.applied = (yaw, elev)

    def reset(self, sim) -> None:
        pass

    def state_bytes(self) -> bytes:
        return struct.pack("<2d", *self._current())

    def take_diagnostics(self) -> list[Diagnostic]:
        return []

    def close(self) -> None:
        pass


def scene_sun_participants(sim) -> list[SceneSun]:
    """The one scene sun, when the scene has exactly one."""
    from luncosim_core.environment.scene import scene_sun

    prim, direction, _why = scene_sun(sim.stage)
    return [SceneSun(sim, prim, direction)] if prim is not None else []
