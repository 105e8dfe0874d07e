"""Turntable camera parameters: named views, look-at conversion and framing (pure math).

The turntable orbits ``center`` at ``distance`` with +Z up. With azimuth ``a`` and elevation
``e`` (degrees) the eye sits at ``center + distance * (sin a cos e, -cos a cos e, sin e)``:
azimuth 0 looks along +Y (front view), 90 looks along -X (right side view).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NAMED_VIEWS: dict[str, tuple[float, float]] = {
    "front": (0.0, 0.0),
    "back": (180.0, 0.0),
    "right": (90.0, 0.0),
    "side": (90.0, 0.0),
    "left": (-90.0, 0.0),
    "top": (0.0, 90.0),
    "bottom": (0.0, -90.0),
    "iso": (45.0, math.degrees(math.asin(1.0 / math.sqrt(3.0)))),
}
DEFAULT_FOV = 45.0


@dataclass(frozen=True, slots=True)
class TurntablePose:
    center: tuple[float, float, float]
    azimuth: float
    elevation: float
    distance: float

    def eye(self) -> np.ndarray:
        a, e = math.radians(self.azimuth), math.radians(self.elevation)
        d = np.array([math.sin(a) * math.cos(e), -math.cos(a) * math.cos(e), math.sin(e)])
        return np.asarray(self.center) + self.distance * d


def named_view(name: str) -> tuple[float, float]:
    """(azimuth, elevation) of a named view; ValueError listing the names otherwise."""
    try:
        return NAMED_VIEWS[name]
    except KeyError:
        raise ValueError(
            f"unknown view {name!r}; expected one of {', '.join(NAMED_VIEWS)}"
        ) from None


def look_at(eye, center, up=(0.0, 0.0, 1.0)) -> TurntablePose:
    """Turntable pose looking from ``eye`` at ``center`` (view frame). ``up`` must be close to +Z:
    the turntable has no roll."""
    eye = np.asarray(eye, np.float64)
    center = np.asarray(center, np.float64)
    up = np.asarray(up, np.float64)
    d = eye - center
    dist = float(np.linalg.norm(d))
    if not dist > 0.0:
        raise ValueError("camera eye and center coincide")
    if not np.linalg.norm(up) > 0 or float(up @ [0, 0, 1]) / np.linalg.norm(up) < 0.99:
        raise ValueError(
            f"camera up {tuple(up)} must point along +Z of the view frame (the turntable has no roll)"
        )
    d /= dist
    el = math.degrees(math.asin(max(-1.0, min(1.0, d[2]))))
    az = math.degrees(math.atan2(d[0], -d[1])) if abs(d[2]) < 1.0 - 1e-12 else 0.0
    return TurntablePose((float(center[0]), float(center[1]), float(center[2])), az, el, dist)


def fit_distance(
    lo, hi, fov_deg: float = DEFAULT_FOV, aspect: float = 1.0, margin: float = 1.15
) -> float:
    """Distance at which a sphere around the box [lo, hi] fills the narrower field of view."""
    radius = 0.5 * float(np.linalg.norm(np.asarray(hi, np.float64) - np.asarray(lo, np.float64)))
    radius = max(radius, 1e-3)
    half = math.radians(fov_deg) / 2.0
    half_narrow = math.atan(math.tan(half) * min(1.0, aspect))
    return margin * radius / math.sin(half_narrow)


def fit_pose(
    lo, hi, azimuth: float, elevation: float, fov_deg: float = DEFAULT_FOV, aspect: float = 1.0
) -> TurntablePose:
    c = 0.5 * (np.asarray(lo, np.float64) + np.asarray(hi, np.float64))
    return TurntablePose(
        (float(c[0]), float(c[1]), float(c[2])),
        azimuth,
        elevation,
        fit_distance(lo, hi, fov_deg, aspect),
    )
