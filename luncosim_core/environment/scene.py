"""Environment facts read from the composed stage: gravity, the scene sun, the site and epoch."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pxr import Gf, Usd, UsdGeom, UsdLux, UsdPhysics

from luncosim_core.usd.schemas import has_schema

J2000_JD = 2451545.0
CELESTIAL_BODY_API = "LunCoCelestialBodyAPI"


@dataclass(frozen=True)
class SiteAnchor:
    """Where on which body the scene's world frame stands (+X east, +Y up, -Z north)."""

    lat_deg: float
    lon_deg: float
    height_m: float
    body: int
    path: str  # the prim that authors it


def scene_gravity(stage: Usd.Stage, physics_gravity: np.ndarray | None = None) -> np.ndarray | None:
    """World gravity vector (m/s^2) from the scene's PhysicsScene; None when the scene has none.

    ``physics_gravity`` (the projected physics world's value) wins when given, so the probe and the
    bodies agree on one answer.
    """
    if not any(p.IsA(UsdPhysics.Scene) for p in stage.Traverse()):
        return None
    if physics_gravity is not None:
        return np.asarray(physics_gravity, dtype=float)
    return None


def scene_sun_direction(stage: Usd.Stage) -> tuple[np.ndarray | None, str]:
    """``(unit vector toward the Sun in world axes, "")`` or ``(None, why not)``.

    The scene sun is the one ``DistantLight`` that is not a celestial body's reflected fill (a
    light under a prim applying ``LunCoCelestialBodyAPI``, such as Earthshine). A distant light
    emits along its local -Z, so the Sun lies along its +Z (the back vector).
    """
    _prim, direction, why = scene_sun(stage)
    return direction, why


def scene_sun(stage: Usd.Stage) -> tuple[Usd.Prim | None, np.ndarray | None, str]:
    """``(the sun prim, its direction, "")`` or ``(None, None, why not)``; see :func:`scene_sun_direction`."""
    suns = []
    it = iter(Usd.PrimRange(stage.GetPseudoRoot()))
    for prim in it:
        if has_schema(prim, CELESTIAL_BODY_API):
            it.PruneChildren()
            continue
        if prim.IsA(UsdLux.DistantLight):
            suns.append(prim)
    if not suns:
        return None, None, "the scene has no DistantLight (sun)"
    if len(suns) > 1:
        return None, None, "the scene has several DistantLights (" + ", ".join(str(p.GetPath()) for p in suns) + \
            "): which one is the sun is ambiguous"
    m = UsdGeom.Xformable(suns[0]).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    d = m.RemoveScaleShear().TransformDir(Gf.Vec3d(0.0, 0.0, 1.0))
    v = np.array([d[0], d[1], d[2]], dtype=float)
    n = float(np.linalg.norm(v))
    if not math.isfinite(n) or n < 1e-12:
        return None, None, f"the sun {suns[0].GetPath()} has a degenerate transform"
    return suns[0], v / n, ""


def _first_authored(stage: Usd.Stage, name: str) -> tuple[Usd.Prim | None, object]:
    """The default prim's value of ``name`` if authored there, else the first prim (by path) authoring it."""
    default = stage.GetDefaultPrim()
    candidates = [default] if default else []
    candidates += [p for p in stage.Traverse() if p != default]
    for prim in candidates:
        attr = prim.GetAttribute(name)
        if attr and attr.HasAuthoredValue():
            return prim, attr.Get()
    return None, None


def site_anchor(stage: Usd.Stage) -> SiteAnchor | None:
    """The scene's site anchor (``lunco:anchor:lat/lon/height/body``), None when not anchored."""
    prim, lat = _first_authored(stage, "lunco:anchor:lat")
    if prim is None:
        return None

    def get(name: str, default: float) -> float:
        a = prim.GetAttribute(name)
        v = a.Get() if a and a.HasAuthoredValue() else None
        return float(v) if isinstance(v, (int, float)) else default

    lon = get("lunco:anchor:lon", 0.0)
    return SiteAnchor(float(lat), lon, get("lunco:anchor:height", 0.0), int(get("lunco:anchor:body", 301)),
                      str(prim.GetPath()))


def scenario_epoch_jd(stage: Usd.Stage) -> float:
    """The scenario epoch (``lunco:time:epochJd``, a TDB Julian date); J2000 when not authored."""
    _prim, value = _first_authored(stage, "lunco:time:epochJd")
    return float(value) if isinstance(value, (int, float)) and math.isfinite(float(value)) else J2000_JD
