"""The robot's footprint and footprint collision checks against a costmap.

The footprint is the robot's (and its attached payloads') colliders projected into a robot-local
multipolygon (x forward, y left, origin at the base body), each convex piece Minkowski-summed with
a 5 mm axis-aligned square: a fixed 5 mm L-infinity safety envelope, by policy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import affinity

from luncosim_core.mission.capture import Capture
from luncosim_core.mission.costmap import Costmap

ENVELOPE_M = 0.005
CELL_HEADINGS = 180


@dataclass
class Footprint:
    polygon: shapely.MultiPolygon  # robot-local, envelope included
    r_out: float  # farthest footprint point from the origin
    r_in: float  # distance from the origin to the footprint boundary (0 when outside)
    cells: dict[float, list] = field(default_factory=dict, repr=False)  # per resolution, see cell_offsets

    def at(self, x: float, y: float, yaw: float):
        """The footprint placed at a plane pose (world polygon)."""
        g = affinity.rotate(self.polygon, yaw, origin=(0.0, 0.0), use_radians=True)
        return affinity.translate(g, x, y)

    def cover_circles(self) -> np.ndarray:
        """(k, 3) robot-local circles (x, y, radius) whose union covers the footprint: slabs
        along the robot's x axis, each circle enclosing its slab of the footprint."""
        x0, y0, x1, y1 = self.polygon.bounds
        width = max(y1 - y0, 1e-6)
        n = max(1, int(math.ceil((x1 - x0) / width)) + 1)
        edges = np.linspace(x0, x1, n + 1)
        out = []
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            part = self.polygon.intersection(shapely.box(a - 1e-9, y0 - 1, b + 1e-9, y1 + 1))
            if part.is_empty:
                continue
            pts = shapely.get_coordinates(part)
            cx, cy = 0.5 * (a + b), 0.5 * (pts[:, 1].min() + pts[:, 1].max())
            out.append((cx, cy, float(np.hypot(pts[:, 0] - cx, pts[:, 1] - cy).max())))
        return np.array(out)


def cell_offsets(fp: Footprint, resolution: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per heading bin (``CELL_HEADINGS`` of them), the (row, col) offsets of the cells whose
    centres may lie within half a cell diagonal of the footprint, for any reference point inside
    the reference cell and any heading within the bin (a conservative superset; cached)."""
    got = fp.cells.get(resolution)
    if got is not None:
        return got
    half_diag = resolution * math.sqrt(0.5)
    slack = 2.0 * half_diag + fp.r_out * math.pi / CELL_HEADINGS
    grown = fp.polygon.buffer(slack, quad_segs=2)
    shapely.prepare(grown)
    reach = int(math.ceil((fp.r_out + slack) / resolution)) + 1
    g = np.arange(-reach, reach + 1)
    gc, gr = (a.ravel() for a in np.meshgrid(g, g))
    px, py = gc * resolution, gr * resolution
    out = []
    for k in range(CELL_HEADINGS):
        yaw = k * 2.0 * math.pi / CELL_HEADINGS
        c, s = math.cos(yaw), math.sin(yaw)
        inside = shapely.contains_xy(grown, c * px + s * py, -s * px + c * py)  # the cells in robot axes
        out.append((gr[inside], gc[inside]))
    fp.cells[resolution] = out
    return out


def minkowski_square(polygon: shapely.Polygon, half: float = ENVELOPE_M) -> shapely.Polygon:
    """Exact Minkowski sum of a convex polygon with an axis-aligned square of half-side ``half``."""
    xy = shapely.get_coordinates(polygon.exterior)
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    pts = (xy[:, None, :] + corners[None, :, :]).reshape(-1, 2)
    return shapely.MultiPoint(pts).convex_hull


def footprint_of(cap: Capture) -> Footprint:
    """The robot-local footprint of a capture's robot assembly at its base pose."""
    x, y, yaw = cap.pose
    c, s = math.cos(-yaw), math.sin(-yaw)
    pieces = []
    for piece in cap.robot_pieces:
        xy = shapely.get_coordinates(piece.polygon.exterior) - (x, y)
        local = np.stack([c * xy[:, 0] - s * xy[:, 1], s * xy[:, 0] + c * xy[:, 1]], axis=1)
        pieces.append(minkowski_square(shapely.MultiPoint(local).convex_hull))
    merged = shapely.union_all(pieces)
    if isinstance(merged, shapely.Polygon):
        merged = shapely.MultiPolygon([merged])
    coords = shapely.get_coordinates(merged)
    r_out = float(np.hypot(coords[:, 0], coords[:, 1]).max())
    origin = shapely.Point(0.0, 0.0)
    r_in = float(merged.boundary.distance(origin)) if merged.contains(origin) else 0.0
    return Footprint(merged, r_out, r_in)


class CollisionChecker:
    """Footprint-against-costmap checks, with the distance field deciding open space quickly."""

    def __init__(self, costmap: Costmap, footprint: Footprint) -> None:
        self.map = costmap
        self.fp = footprint
        self.circles = footprint.cover_circles()
        self.grown = footprint.polygon.buffer(costmap.resolution * math.sqrt(0.5), quad_segs=4)
        shapely.prepare(self.grown)
        self.margin = 1.5 * costmap.resolution  # cell-centre distance vs true distance
        self.checks = 0
        self._table: tuple[np.ndarray, np.ndarray] | None = None
        self._flat = costmap.lethal.ravel()
        self._dist_flat = costmap.distance.ravel()
        self._inv_res = 1.0 / costmap.resolution
        reach = footprint.r_out * (1.0 + math.pi / CELL_HEADINGS) + 2.0 * costmap.resolution
        self._edge = int(math.ceil(reach / costmap.resolution)) + 2  # cell_offsets stay inside the map

    def _offsets(self) -> tuple[np.ndarray, np.ndarray]:
        """(bins, m) flat cell offsets of :func:`cell_offsets` padded to one length, and their mask."""
        if self._table is None:
            w = self.map.width
            per_bin = cell_offsets(self.fp, self.map.resolution)
            size = max(len(r) for r, _c in per_bin)
            flat = np.zeros((len(per_bin), size), dtype=np.intp)
            mask = np.zeros((len(per_bin), size), dtype=bool)
            for k, (r, c) in enumerate(per_bin):
                flat[k, :len(r)] = r * w + c
                mask[k, :len(r)] = True
            self._table = (flat, mask)
        return self._table

    def exact_free(self, poses: np.ndarray) -> np.ndarray:
        """The exact test, vectorised: a pose is free unless a lethal cell's centre lies within
        half a cell diagonal of the footprint placed at it (so no lethal cell can touch it)."""
        m = self.map
        res = m.resolution
        n = len(poses)
        x, y, yaw = poses[:, 0], poses[:, 1], poses[:, 2]
        col = np.floor((x - m.origin[0]) * self._inv_res).astype(np.intp)
        row = np.floor((y - m.origin[1]) * self._inv_res).astype(np.intp)
        room = np.minimum(np.minimum(row, col), np.minimum(m.height - 1 - row, m.width - 1 - col))
        free = np.zeros(n, dtype=bool)
        idx = np.flatnonzero(room > self._edge)
        if len(idx):
            flat, mask = self._offsets()
            k = np.rint(yaw[idx] * (CELL_HEADINGS / (2.0 * math.pi))).astype(np.intp) % CELL_HEADINGS
            cand = (row[idx] * m.width + col[idx])[:, None] + flat[k]
            hit = self._flat[cand] & mask[k]
            pi, j = np.nonzero(hit)
            collide = np.zeros(len(idx), dtype=bool)
            if len(pi):
                hr, hc = np.divmod(cand[pi, j], m.width)
                px, py, pyaw = x[idx][pi], y[idx][pi], yaw[idx][pi]
                dx = m.origin[0] + (hc + 0.5) * res - px
                dy = m.origin[1] + (hr + 0.5) * res - py
                c, s = np.cos(pyaw), np.sin(pyaw)
                touch = shapely.intersects_xy(self.grown, c * dx + s * dy, -s * dx + c * dy)
                collide[pi[touch]] = True
                self.checks += int(len(np.unique(pi)))
            free[idx] = ~collide
        for i in np.flatnonzero((room >= 0) & (room <= self._edge)).tolist():  # near the map border
            free[i] = self._border_free(*poses[i])
        return free

    def distance_at(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The distance field at points (any shape); 0 outside the map."""
        m = self.map
        c = np.floor((x - m.origin[0]) * self._inv_res).astype(np.intp)
        r = np.floor((y - m.origin[1]) * self._inv_res).astype(np.intp)
        flat = r * m.width + c
        outside = (c < 0) | (c >= m.width) | (r < 0) | (r >= m.height)
        flat[outside] = 0  # cell (0, 0) is border, hence lethal: its distance is 0
        return self._dist_flat[flat]

    def circle_offsets(self, poses: np.ndarray) -> np.ndarray:
        """(..., circles, 2) offsets of the cover circles' centres from poses (..., 3)."""
        cs, sn = np.cos(poses[..., 2])[..., None], np.sin(poses[..., 2])[..., None]
        cx, cy = self.circles[:, 0], self.circles[:, 1]
        return np.stack([cs * cx - sn * cy, sn * cx + cs * cy], axis=-1)

    def clearance_many(self, poses: np.ndarray, offsets: np.ndarray | None = None) -> np.ndarray:
        """A lower bound of each pose's footprint clearance (metres to the nearest lethal cell),
        from the cover circles and the distance field; <= 0 means "maybe touching". ``offsets``
        are the poses' :meth:`circle_offsets` when already known."""
        if offsets is None:
            offsets = self.circle_offsets(poses)
        d = self.distance_at(poses[:, 0, None] + offsets[..., 0], poses[:, 1, None] + offsets[..., 1])
        return (d - self.circles[:, 2]).min(axis=1) - self.margin

    def blocked_many(self, poses: np.ndarray) -> np.ndarray:
        """Poses surely in collision: an obstacle inside the footprint's inscribed circle."""
        return self.distance_at(poses[:, 0], poses[:, 1]) + self.margin < self.fp.r_in

    def assess(self, poses: np.ndarray, offsets: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(free, clearance) of (n, 3) poses in one pass; clearance is clamped at 0."""
        clear = self.clearance_many(poses, offsets)
        free = clear > 0.0
        unsure = np.flatnonzero(~free & ~self.blocked_many(poses))
        if len(unsure):
            free[unsure] = self.exact_free(poses[unsure])
        return free, np.maximum(clear, 0.0)

    def rows_clear(self, poses: np.ndarray, need: float, moving: np.ndarray | None = None) -> bool:
        """Whether every pose is collision-free and each ``moving`` one keeps at least ``need``
        clearance (the cheap bounds first; exact footprint tests only where they cannot tell)."""
        if not len(poses):
            return True
        clear = self.clearance_many(poses)
        sel = clear if moving is None else clear[moving]
        if need > 0.0 and len(sel) and float(sel.min()) < need:
            return False
        unsure = clear <= 0.0
        if not unsure.any():
            return True
        if self.blocked_many(poses[unsure]).any():
            return False
        return bool(self.exact_free(poses[unsure]).all())

    def free(self, x: float, y: float, yaw: float) -> bool:
        m = self.map
        r = int((y - m.origin[1]) / m.resolution) if y >= m.origin[1] else -1
        col = int((x - m.origin[0]) / m.resolution) if x >= m.origin[0] else -1
        if not (0 <= r < m.height and 0 <= col < m.width):
            return False
        d = m.distance[r, col]
        if d > self.fp.r_out + self.margin:
            return True
        if d + self.margin < self.fp.r_in:
            return False
        return bool(self.exact_free(np.array([[x, y, yaw]], dtype=float))[0])

    def _border_free(self, x: float, y: float, yaw: float) -> bool:
        """The exact test near the map border: every cell the footprint may touch, bounds-checked."""
        m = self.map
        reach = self.fp.r_out + m.resolution
        c0 = int(math.floor((x - reach - m.origin[0]) / m.resolution))
        c1 = int(math.floor((x + reach - m.origin[0]) / m.resolution))
        r0 = int(math.floor((y - reach - m.origin[1]) / m.resolution))
        r1 = int(math.floor((y + reach - m.origin[1]) / m.resolution))
        if c0 < 0 or r0 < 0 or c1 >= m.width or r1 >= m.height:
            return False  # the footprint may leave the map
        rr, cc = np.nonzero(m.lethal[r0:r1 + 1, c0:c1 + 1])
        if not len(rr):
            return True
        self.checks += 1
        res = m.resolution
        dx = m.origin[0] + (cc + c0 + 0.5) * res - x
        dy = m.origin[1] + (rr + r0 + 0.5) * res - y
        c, s = math.cos(yaw), math.sin(yaw)
        return not shapely.intersects_xy(self.grown, c * dx + s * dy, -s * dx + c * dy).any()

    def first_collision(self, poses) -> int | None:
        """Index of the first pose (x, y, yaw) in collision, or None when all are free."""
        poses = np.asarray(poses, dtype=float).reshape(-1, 3)
        if not len(poses):
            return None
        bad = np.flatnonzero(~self.assess(poses)[0])
        return int(bad[0]) if len(bad) else None
