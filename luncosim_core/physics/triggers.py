"""Trigger zones: a collider authoring ``lunco:triggerZone = "<name>"`` never collides; once per
tick every free body or jointed tree (a vehicle: its root body names it, any of its links'
colliders counts) whose colliders start (stop) overlapping it produces an ``enter:<name>``
(``exit:<name>``) event whose value is the entrant body, as LunCoSim's sensor zones report
collision starts to scenarios. Each crossing is a :class:`ZoneEvent`: the triple ``(name,
entrant, model)`` (the zone's model: its nearest ancestor-or-self with a model ``kind``, e.g. a
waypoint marker, which route bookkeeping keys on) that also carries ``zone``, the trigger prim
itself, which scenarios hear as the event's source (LunCoSim's zone events come from the sensor
collider's own entity). A body with no collider at all enters when its centre of mass does.

The zone is a pybullet body in no collision group (it generates no contacts and no ray hits);
overlap is the broadphase (``getOverlappingObjects`` on the zone's bounding box) confirmed by
``getClosestPoints`` at distance 0, once per tick."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from pxr import Usd

from .frames import Pose, to_xyzw
from .model import Shape
from .shapes import shape_from_prim


@dataclass
class TriggerZone:
    path: str
    name: str
    source: str  # the zone's model (a waypoint marker: what route bookkeeping keys on)
    shape: Shape  # posed in world (shape.local)
    inside: set[str] = field(default_factory=set)

    def contains(self, p: np.ndarray) -> bool:
        """Whether a point (world) is inside the zone's shape (a mesh: its bounding box)."""
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


class ZoneEvent(tuple):
    """One crossing: the triple ``(name, entrant, model)``, plus ``zone`` (the trigger prim)."""

    zone: str

    def __new__(cls, name: str, entrant: str, model: str, zone: str) -> ZoneEvent:
        ev = super().__new__(cls, (name, entrant, model))
        ev.zone = zone
        return ev

    def __reduce__(self):
        return (ZoneEvent, (*self, self.zone))


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


class ZoneSensor:
    """The zones of one world as pybullet bodies that overlap without colliding."""

    def __init__(self, client, builder, built, zones: list[TriggerZone]) -> None:
        self.c = client
        self.zones = zones
        self.uids: list[int] = []
        for z in zones:
            shape = builder.collision_shape([(z.shape, Pose.identity())])
            uid = client.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape,
                                         basePosition=[float(x) for x in z.shape.local.p],
                                         baseOrientation=to_xyzw(z.shape.local.q))
            client.setCollisionFilterGroupMask(uid, -1, 0, 0)  # in no group: no contacts, no ray hits
            self.uids.append(uid)
        # a moving multibody, by the body that names it: a free body or a jointed tree's root
        self.entrant = {uid: base for uid, base, _links in built.multibodies
                        if base is not None and not built.bodies[base].kinematic}
        # one without any collider is a point: its root's centre of mass enters the zone
        self.points = {uid: base for uid, base in self.entrant.items()
                       if not any(client.getCollisionShapeData(uid, link) for link in range(-1, client.getNumJoints(uid)))}

    def events(self, com_of) -> list[ZoneEvent]:
        """(event name, entrant body path, zone model path) and the zone for every crossing since the last call;
        ``com_of(path)`` is a body's centre of mass (world), for the entrants without colliders."""
        events: list[ZoneEvent] = []
        c = self.c
        for z, zuid in zip(self.zones, self.uids, strict=True):
            lo, hi = c.getAABB(zuid)
            near = {uid for uid, _link in (c.getOverlappingObjects(lo, hi) or ()) if uid in self.entrant}
            now = {self.entrant[uid] for uid in sorted(near) if c.getClosestPoints(zuid, uid, 0.0)}
            now |= {p for p in self.points.values() if z.contains(com_of(p))}
            for p in sorted(now - z.inside):
                events.append(ZoneEvent(f"enter:{z.name}", p, z.source, z.path))
            for p in sorted(z.inside - now):
                events.append(ZoneEvent(f"exit:{z.name}", p, z.source, z.path))
            z.inside = now
        return events


__all__ = ["Pose", "TriggerZone", "ZoneEvent", "ZoneSensor", "read_trigger_zones"]
