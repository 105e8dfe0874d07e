"""Runtime environment state: what ``SetEnvironmentLight`` changed (never written to USD)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luncosim_core.api.commands import CommandResult, SetEnvironmentLight
from luncosim_core.diagnostics import Diagnostic


@dataclass
class EnvironmentState:
    """``sun_direction``: unit vector toward the Sun in world axes overriding the authored sun, or None."""

    sun_direction: np.ndarray | None = None


def sun_yaw_pitch(direction: np.ndarray) -> tuple[float, float]:
    """Yaw (about +Y) and pitch (about +X) whose rotation carries +Z onto ``direction``."""
    x, y, z = (float(v) for v in direction)
    return math.atan2(x, z), -math.asin(max(-1.0, min(1.0, y)))


def sun_from_yaw_pitch(yaw: float, pitch: float) -> np.ndarray:
    return np.array([math.cos(pitch) * math.sin(yaw), -math.sin(pitch), math.cos(pitch) * math.cos(yaw)])


def set_environment_light(sim, cmd: SetEnvironmentLight, tick: int, seq: int) -> CommandResult:
    """Re-aim the scene sun (y-up scenes); the environment probes read it from the next step."""
    from luncosim_core.environment import scene_sun_direction

    bad = [k for k in ("sun_yaw", "sun_pitch") if getattr(cmd, k) is not None
           and not (isinstance(getattr(cmd, k), (int, float)) and math.isfinite(float(getattr(cmd, k))))]
    if bad:
        return CommandResult(False, None, (Diagnostic("error", "command-invalid",
                                                      f"SetEnvironmentLight: {', '.join(bad)} must be finite numbers (radians)",
                                                      source="environment"),), tick, seq)
    current = sim.environment.sun_direction
    if current is None:
        current, _why = scene_sun_direction(sim.stage)
    yaw, pitch = sun_yaw_pitch(current) if current is not None else (0.0, 0.0)
    if cmd.sun_yaw is not None:
        yaw = float(cmd.sun_yaw)
    if cmd.sun_pitch is not None:
        pitch = float(cmd.sun_pitch)
    sim.environment.sun_direction = sun_from_yaw_pitch(yaw, pitch)
    _show_on_sun_ports(sim, yaw, -pitch)
    return CommandResult(True, {"sun_yaw": yaw, "sun_pitch": pitch}, (), tick, seq)


def _show_on_sun_ports(sim, azimuth: float, elevation: float) -> None:
    """Keep the scene sun's angle ports in step with a commanded sun (a wire into them still wins)."""
    from luncosim_core.environment.scene import scene_sun
    from luncosim_core.ports.model import port_key

    prim, _d, _why = scene_sun(sim.stage)
    reg = getattr(sim, "registry", None)
    if prim is None or reg is None:
        return
    for name, value in (("sun_azimuth", azimuth), ("sun_elevation", elevation)):
        i = reg.index.get(port_key(str(prim.GetPath()), name))
        if i is not None:
            reg.values[i] = value
            if i in reg.held:
                reg.held[i] = value
