"""Trigger zones: a collider authoring ``lunco:triggerZone = "<name>"`` never collides; once per
tick every free body or jointed tree's root body (a vehicle, not each of its links) whose centre
of mass enters (leaves) it produces an ``enter:<name>``
(``exit:<name>``) event whose value is the entrant body and whose source is the zone's model
(its nearest ancestor-or-self with a model ``kind``, e.g. a waypoint marker), as LunCoSim's
sensor zones report arrivals to scenarios."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from pxr import Usd

from .frames import Pose
from .model import Shape
from .shapes import shape_from_prim


@dataclass
class TriggerZone:
    path: str
    name: str
    source: str  # the prim reported as the event source
    shape: Shape  # posed in world (shape.local)
    inside: set[str] = field(default_factory=set)

    def contains(self, p: np.ndarray) -> bool:
        s = self.shape
        q = s.local.inverse().apply(p)
        if s.kind == "sphere":
            return float(np.dot(q, q)) <= s.radius * s.radius
        if s.kind == "box":
            return bool(np.all(np.abs(q) <= s.half_extents))
        if s.kind in ("cylinder", "capsule"):
            return float(q[0] ** 2 + q[1] ** 2) <= s.radius ** 2 and abs(q[2]) <= s.height / 2 + (
                s.radius if s.kind == "capsule" else 0.0)
        if s.vertices is not None and len(s.vertices):
            return bool(np.all(q >= s.vertices.min(axis=0)) and np.all(q <= s.vertices.max(axis=0)))
        return False


def _model_of(prim) -> str:
    p = prim
    while p and not p.IsPseudoRoot():
        if Usd.ModelAPI(p).GetKind():
            return str(p.GetPath())
        p = p.GetParent()
    return str(prim.GetPath())


def read_trigger_zones(reader) -> list[TriggerZone]:
    out: list[TriggerZone] = []
    for prim in reader.prims:
        a = prim.GetAttribute("lunco:triggerZone")
        if not a or not a.HasAuthoredValue():
            continue
        world, scale = reader.world_pose(prim)
        shape = shape_from_prim(prim, world, scale, reader.mpu, False, reader.diags)
        if shape is None:
            continue
        name = str(a.Get() or "") or str(prim.GetPath())
        out.append(TriggerZone(str(prim.GetPath()), name, _model_of(prim), shape))
    return out


def zone_events(zones: list[TriggerZone], paths: tuple[str, ...], coms: np.ndarray) -> list[tuple[str, str, str]]:
    """(event name, entrant body path, zone source path) for every crossing since the last call."""
    events: list[tuple[str, str, str]] = []
    for z in zones:
        now = {p for p, c in zip(paths, coms, strict=True) if z.contains(c)}
        for p in sorted(now - z.inside):
            events.append((f"enter:{z.name}", p, z.source))
        for p in sorted(z.inside - now):
            events.append((f"exit:{z.name}", p, z.source))
        z.inside = now
    return events


__all__ = ["Pose", "TriggerZone", "read_trigger_zones", "zone_events"]
