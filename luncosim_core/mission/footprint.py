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
    samples: dict[float, np.ndarray] = field(default_factory=dict, repr=False)  # per resolution

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

    def sample_points(self, resolution: float) -> np.ndarray:
        """Robot-local points covering the footprint densely enough for a grid of ``resolution``:
        its outline every half cell and its interior on a lattice finer than a cell diagonal."""
        pts = self.samples.get(resolution)
        if pts is not None:
            return pts
        out = []
        for poly in self.polygon.geoms:
            for ring in (poly.exterior, *poly.interiors):
                n = max(4, int(math.ceil(ring.length / (resolution / 2))))
                d = np.linspace(0.0, ring.length, n, endpoint=False)
                out.append(shapely.get_coordinates(shapely.line_interpolate_point(ring, d)))
        step = resolution / math.sqrt(2.0) * 0.95
        x0, y0, x1, y1 = self.polygon.bounds
        gx, gy = np.meshgrid(np.arange(x0, x1 + step, step), np.arange(y0, y1 + step, step))
        inside = shapely.contains_xy(self.polygon, gx.ravel(), gy.ravel())
        out.append(np.stack([gx.ravel()[inside], gy.ravel()[inside]], axis=1))
        pts = np.concatenate(out)
        self.samples[resolution] = pts
        return pts


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
        self._cells: dict[int, np.ndarray] = {}
        self._flat = costmap.lethal.ravel()
        self._edge = int(math.ceil((footprint.r_out * 1.1) / costmap.resolution)) + 4  # offsets stay inside

    def _bin_cells(self, k: int) -> np.ndarray:
        """Flat cell offsets that surely cover the footprint for any reference point inside the
        reference cell and any heading within heading bin ``k`` (a conservative superset)."""
        cells = self._cells.get(k)
        if cells is not None:
            return cells
        m = self.map
        res = m.resolution
        slack = res * math.sqrt(0.5) + self.fp.r_out * math.pi / CELL_HEADINGS + res * math.sqrt(0.5)
        yaw = k * 2.0 * math.pi / CELL_HEADINGS
        grown = self.fp.at(0.0, 0.0, yaw).buffer(slack, quad_segs=2)
        x0, y0, x1, y1 = grown.bounds
        cols = np.arange(int(math.floor(x0 / res)) - 1, int(math.ceil(x1 / res)) + 2)
        rows = np.arange(int(math.floor(y0 / res)) - 1, int(math.ceil(y1 / res)) + 2)
        gc, gr = np.meshgrid(cols, rows)
        # offsets relative to the reference cell, centres relative to that cell's centre
        inside = shapely.contains_xy(grown, (gc.ravel() * res), (gr.ravel() * res))
        cells = (gr.ravel()[inside] * m.width + gc.ravel()[inside]).astype(np.intp)
        self._cells[k] = cells
        return cells

    def free_many(self, poses: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`free` over (n, 3) poses: the distance field decides most of them."""
        m = self.map
        cols = np.floor((poses[:, 0] - m.origin[0]) / m.resolution).astype(np.intp)
        rows = np.floor((poses[:, 1] - m.origin[1]) / m.resolution).astype(np.intp)
        inside = (rows >= 0) & (rows < m.height) & (cols >= 0) & (cols < m.width)
        d = np.zeros(len(poses))
        d[inside] = m.distance[rows[inside], cols[inside]]
        out = inside & (d > self.fp.r_out + self.margin)
        unsure = inside & ~out & (d + self.margin >= self.fp.r_in)
        idx = np.flatnonzero(unsure)
        if len(idx):
            covered = self._circles_clear(poses[idx])
            out[idx[covered]] = True
            idx = idx[~covered]
        for i in idx:
            out[i] = self._near(int(rows[i]), int(cols[i]), *poses[i])
        return out

    def _circles_clear(self, poses: np.ndarray) -> np.ndarray:
        """True where every cover circle is farther from any lethal cell than its radius."""
        m = self.map
        cs, sn = np.cos(poses[:, 2])[:, None], np.sin(poses[:, 2])[:, None]
        cx, cy, rad = self.circles[:, 0], self.circles[:, 1], self.circles[:, 2]
        wx = poses[:, :1] + cs * cx - sn * cy
        wy = poses[:, 1:2] + sn * cx + cs * cy
        cols = np.floor((wx - m.origin[0]) / m.resolution).astype(np.intp)
        rows = np.floor((wy - m.origin[1]) / m.resolution).astype(np.intp)
        ok = (rows >= 0) & (rows < m.height) & (cols >= 0) & (cols < m.width)
        d = np.where(ok, m.distance[np.clip(rows, 0, m.height - 1), np.clip(cols, 0, m.width - 1)], 0.0)
        return (d > rad + self.margin).all(axis=1)

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
        return self._near(r, col, x, y, yaw)

    def _near(self, r: int, col: int, x: float, y: float, yaw: float) -> bool:
        """Free unless the footprint, placed exactly, intersects a lethal cell."""
        m = self.map
        if self._edge < min(r, col, m.height - 1 - r, m.width - 1 - col):
            k = int(round(yaw / (2.0 * math.pi / CELL_HEADINGS))) % CELL_HEADINGS
            flat = r * m.width + col + self._bin_cells(k)
            hits = flat[self._flat[flat]]
        else:  # near the map border: every cell the footprint may touch, bounds-checked
            hits = self._border_hits(x, y)
            if hits is None:
                return False
        if len(hits) == 0:
            return True
        self.checks += 1
        hr, hc = np.divmod(hits, m.width)
        res = m.resolution
        dx = m.origin[0] + (hc + 0.5) * res - x
        dy = m.origin[1] + (hr + 0.5) * res - y
        c, s = math.cos(yaw), math.sin(yaw)
        # a lethal cell whose centre lies within half a diagonal of the footprint may touch it
        return not shapely.intersects_xy(self.grown, c * dx + s * dy, -s * dx + c * dy).any()

    def _border_hits(self, x: float, y: float) -> np.ndarray | None:
        m = self.map
        reach = self.fp.r_out + m.resolution
        c0 = int(math.floor((x - reach - m.origin[0]) / m.resolution))
        c1 = int(math.floor((x + reach - m.origin[0]) / m.resolution))
        r0 = int(math.floor((y - reach - m.origin[1]) / m.resolution))
        r1 = int(math.floor((y + reach - m.origin[1]) / m.resolution))
        if c0 < 0 or r0 < 0 or c1 >= m.width or r1 >= m.height:
            return None  # the footprint may leave the map
        window = m.lethal[r0:r1 + 1, c0:c1 + 1]
        rr, cc = np.nonzero(window)
        return (rr + r0) * m.width + (cc + c0)

    def first_collision(self, poses) -> int | None:
        """Index of the first pose (x, y, yaw) in collision, or None when all are free."""
        for i, (x, y, yaw) in enumerate(poses):
            if not self.free(x, y, yaw):
                return i
        return None
