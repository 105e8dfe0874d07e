"""Collision-aware captures of the live world for one robot.

A capture records every collider of the projection at its current pose, splits them into the
robot's assembly (its bodies plus payloads attached to them) and the rest, and projects onto the
ground plane those that can touch the robot: the query interval is the robot's complete vertical
collision extent, raised by a 0.1 mm lower contact epsilon (the supporting floor drops out) and
with a 5 cm upper allowance; only obstacles with strictly positive vertical overlap are kept.
Geometry that collision filtering (filtered pairs, collision groups) keeps from touching every
body of the robot's assembly is not an obstacle.
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass, field

import numpy as np
import shapely

from luncosim_core.mission.frames import GroundFrame
from luncosim_core.mission.host import ColliderGeometry, MissionHost

LOWER_CONTACT_EPSILON_M = 1.0e-4
UPPER_ALLOWANCE_M = 0.05
RING_SEGMENTS = 24
POSE_TOLERANCE_M = 1.0e-3
ROTATION_TOLERANCE_RAD = 1.0e-3


class CaptureError(Exception):
    """The world cannot be captured for this robot (no such prim, no bodies ...)."""


@dataclass(frozen=True)
class Piece:
    """One convex ground-plane projection of (part of) a collider and its vertical extent."""

    prim_path: str
    polygon: shapely.Polygon
    lo: float
    hi: float


@dataclass
class Capture:
    """The world as one robot's navigation sees it at one tick."""

    tick: int
    robot: str
    base_body: str
    robot_bodies: tuple[str, ...]
    payload_bodies: tuple[str, ...]
    pose: tuple[float, float, float]  # base body x, y, yaw on the ground plane
    interval: tuple[float, float]  # vertical query interval (lo, hi)
    obstacles: list[Piece]
    robot_pieces: list[Piece]
    extent: tuple[float, float, float, float]  # plane bbox of every collider: xmin, ymin, xmax, ymax
    colliders: list[ColliderGeometry] = field(repr=False, default_factory=list)
    attachments: dict[str, tuple[str, str]] = field(default_factory=dict)

    def obstacle_poses(self) -> dict[str, tuple]:
        robot = set(self.robot_bodies)
        return {g.prim_path: (g.position, g.rotation) for g in self.colliders if g.body not in robot}

    def digest(self) -> str:
        """SHA-256 over obstacle identities and poses (rounded to the capture tolerance)."""
        h = hashlib.sha256()
        for path, (p, q) in sorted(self.obstacle_poses().items()):
            h.update(path.encode())
            h.update(struct.pack("<7q", *(round(v / POSE_TOLERANCE_M) for v in p),
                                 *(round(v / ROTATION_TOLERANCE_RAD) for v in q)))
        return h.hexdigest()


def robot_assembly(host: MissionHost, robot: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(base body, robot bodies, attached payload bodies) of the robot prim ``robot``."""
    bodies = host.body_paths()
    own = tuple(p for p in bodies if p == robot or p.startswith(robot.rstrip("/") + "/"))
    if not own:
        raise CaptureError(f"robot {robot} has no rigid body (a robot is a prim with PhysicsRigidBodyAPI bodies "
                           "at or under it)")
    base = min(own, key=lambda p: (p.count("/"), p))
    payloads: list[str] = []
    members = set(own)
    grown = True
    attached = host.attachments()
    while grown:  # payloads held by the robot, and payloads held by those
        grown = False
        for _name, (parent, child) in sorted(attached.items()):
            if parent in members and child not in members:
                members.add(child)
                payloads.append(child)
                grown = True
    return base, own, tuple(sorted(payloads))


def capture(host: MissionHost, frame: GroundFrame, robot: str) -> Capture:
    """Capture the world for ``robot``'s navigation at the current tick."""
    base, own, payloads = robot_assembly(host, robot)
    moving = set(own) | set(payloads)
    colliders = host.colliders()
    robot_pieces: list[Piece] = []
    for g in colliders:
        if g.body in moving:
            robot_pieces.extend(project(g, frame))
    if not robot_pieces:
        raise CaptureError(f"robot {robot} has bodies but no colliders; its footprint is empty")
    lo = min(p.lo for p in robot_pieces) + LOWER_CONTACT_EPSILON_M
    hi = max(p.hi for p in robot_pieces) + UPPER_ALLOWANCE_M
    touching = sorted({g.body for g in colliders if g.body in moving})
    pairs = host.filtered_pairs()
    obstacles: list[Piece] = []
    xmin = ymin = math.inf
    xmax = ymax = -math.inf
    for g in colliders:
        if g.body in moving:
            continue
        key = g.body or g.prim_path
        filtered = all((min(key, r), max(key, r)) in pairs for r in touching)
        for piece in project(g, frame, (lo, hi)):
            b = piece.polygon.bounds
            xmin, ymin, xmax, ymax = min(xmin, b[0]), min(ymin, b[1]), max(xmax, b[2]), max(ymax, b[3])
            if not filtered and min(piece.hi, hi) - max(piece.lo, lo) > 0.0:
                obstacles.append(piece)
    for piece in robot_pieces:
        b = piece.polygon.bounds
        xmin, ymin, xmax, ymax = min(xmin, b[0]), min(ymin, b[1]), max(xmax, b[2]), max(ymax, b[3])
    pos, orn, _v, _w = host.body_state(base)
    x, y, _h = frame.to_plane(pos)
    return Capture(host.tick_count, robot, base, own, payloads, (x, y, frame.yaw_of(orn)), (lo, hi), obstacles,
                   robot_pieces, (xmin, ymin, xmax, ymax), colliders, dict(host.attachments()))


def changed_obstacles(c0: Capture, c1: Capture) -> list[str]:
    """Collider paths whose presence or pose differs between two captures (beyond tolerance)."""
    a, b = c0.obstacle_poses(), c1.obstacle_poses()
    out = sorted(set(a) ^ set(b))
    for path in sorted(set(a) & set(b)):
        (p0, q0), (p1, q1) = a[path], b[path]
        if max(abs(u - v) for u, v in zip(p0, p1, strict=True)) > POSE_TOLERANCE_M:
            out.append(path)
            continue
        dot = abs(sum(u * v for u, v in zip(q0, q1, strict=True)))
        if 2.0 * math.acos(min(1.0, dot)) > ROTATION_TOLERANCE_RAD:
            out.append(path)
    return sorted(out)


# ---------------------------------------------------------------------------- projection
def _rotation(q) -> np.ndarray:
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _ring(radius: float, z: float) -> np.ndarray:
    """Points of a polygon circumscribing a circle of ``radius`` at local height ``z``."""
    r = radius / math.cos(math.pi / RING_SEGMENTS)
    a = np.arange(RING_SEGMENTS) * (2 * math.pi / RING_SEGMENTS)
    return np.stack([r * np.cos(a), r * np.sin(a), np.full(RING_SEGMENTS, z)], axis=1)


def project(g: ColliderGeometry, frame: GroundFrame, interval: tuple[float, float] | None = None) -> list[Piece]:
    """Convex ground-plane pieces of one collider with their vertical extents.

    A triangle mesh gives one piece per triangle (only those overlapping ``interval`` when it is
    given, so a terrain contributes its bumps, not its whole area); every other shape one piece.
    """
    rot = _rotation(g.rotation)
    centre = np.asarray(g.position, dtype=float)
    up = frame.up_vector
    if g.kind == "trimesh":
        return _project_mesh(g, rot, centre, frame, interval)
    if g.kind == "box":
        hx, hy, hz = g.half_extents
        local = np.array([[sx * hx, sy * hy, sz * hz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        xy, h = frame.to_plane_array(local @ rot.T + centre)
        return [Piece(g.prim_path, shapely.MultiPoint(xy).convex_hull, float(h.min()), float(h.max()))]
    if g.kind == "sphere":
        x, y, hc = frame.to_plane(centre)
        disc = _ring(g.radius, 0.0)[:, :2] + (x, y)
        return [Piece(g.prim_path, shapely.Polygon(disc), hc - g.radius, hc + g.radius)]
    axis = rot[:, 2]
    a_up = abs(float(axis @ up))
    _x, _y, hc = frame.to_plane(centre)
    if g.kind == "cylinder":
        local = np.concatenate([_ring(g.radius, -g.height / 2), _ring(g.radius, g.height / 2)])
        xy, _h = frame.to_plane_array(local @ rot.T + centre)
        ext = a_up * g.height / 2 + g.radius * math.sqrt(max(0.0, 1.0 - a_up * a_up))
        return [Piece(g.prim_path, shapely.MultiPoint(xy).convex_hull, hc - ext, hc + ext)]
    if g.kind == "capsule":
        ends = np.array([[0.0, 0.0, -g.height / 2], [0.0, 0.0, g.height / 2]]) @ rot.T + centre
        xy, h = frame.to_plane_array(ends)
        r = g.radius / math.cos(math.pi / 32)
        seg = shapely.LineString(xy) if np.ptp(xy, axis=0).max() > 1e-12 else shapely.Point(xy[0])
        return [Piece(g.prim_path, seg.buffer(r, quad_segs=8), float(h.min()) - g.radius, float(h.max()) + g.radius)]
    verts = np.asarray(g.vertices, dtype=float)
    xy, h = frame.to_plane_array(verts @ rot.T + centre)
    return [Piece(g.prim_path, shapely.MultiPoint(xy).convex_hull, float(h.min()), float(h.max()))]


def _project_mesh(g: ColliderGeometry, rot, centre, frame: GroundFrame, interval) -> list[Piece]:
    verts = np.asarray(g.vertices, dtype=float) @ rot.T + centre
    xy, h = frame.to_plane_array(verts)
    tris = np.asarray(g.indices, dtype=np.int64).reshape(-1, 3)
    if len(tris) == 0:
        return []
    th = h[tris]
    lo, hi = th.min(axis=1), th.max(axis=1)
    b = (float(xy[:, 0].min()), float(xy[:, 1].min()), float(xy[:, 0].max()), float(xy[:, 1].max()))
    # the mesh's whole extent bounds the map: a flat piece (zero height never overlaps)
    out = [Piece(g.prim_path, shapely.box(*b), float(h.min()), float(h.min()))]
    if interval is not None:
        keep = np.minimum(hi, interval[1]) - np.maximum(lo, interval[0]) > 0.0
        tris, lo, hi = tris[keep], lo[keep], hi[keep]
    for t, a, b in zip(tris, lo, hi, strict=True):
        poly = shapely.MultiPoint(xy[t]).convex_hull
        if poly.area <= 0.0:  # a vertical triangle projects to a segment: give it a sliver of width
            poly = poly.buffer(1.0e-3)
        out.append(Piece(g.prim_path, poly, float(a), float(b)))
    return out
