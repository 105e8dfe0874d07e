"""Hybrid A*'s cost-to-go: the larger of two estimates.

* Holonomic with obstacles: a Dijkstra from the goal over the lattice's ``XY_BIN_M`` cells (scipy's
  C implementation), where a cell is open when the robot's inscribed circle fits somewhere in it
  and each step costs its length plus the same clearance penalty the search charges. It also
  proves "no path" before any search.
* Non-holonomic without obstacles: with rotation in place, the cheapest rotate-straight-rotate
  (forward or reverse; closed form, vectorised); without it, the Reeds-Shepp length (``rsplan``)
  for the lattice's tightest turning radius, near the goal where it differs from the distance.
"""

from __future__ import annotations

import math

import numpy as np
from rsplan import planner as rs_planner
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from luncosim_core.mission.footprint import CollisionChecker
from luncosim_core.mission.lattice import (
    ARC_TURN_BINS,
    HEADING_BIN,
    REVERSE_FACTOR,
    ROTATION_COST_M_PER_RAD,
    STEP_M,
    XY_BIN_M,
)

CLEARANCE_BAND_M = 0.5
CLEARANCE_WEIGHT = 2.0
RS_NEAR_RADII = 5.0  # Reeds-Shepp is evaluated within this many turning radii of the goal


def _wrap(a: float) -> float:
    return (a + math.pi) % (2.0 * math.pi) - math.pi


def clearance_penalty(clearance: np.ndarray) -> np.ndarray:
    """Extra cost per metre for a footprint ``clearance`` metres from the nearest obstacle:
    ``CLEARANCE_WEIGHT`` at contact, falling quadratically to 0 at ``CLEARANCE_BAND_M``."""
    f = np.clip(1.0 - np.asarray(clearance) / CLEARANCE_BAND_M, 0.0, 1.0)
    return CLEARANCE_WEIGHT * f * f


def turning_radius() -> float:
    """The tightest arc of the lattice."""
    return STEP_M / (max(abs(t) for t in ARC_TURN_BINS) * HEADING_BIN)


class Heuristic:
    """Cost-to-go estimates toward one goal on one costmap (see the module doc)."""

    def __init__(self, checker: CollisionChecker, goal: tuple[float, float, float], *, allow_reverse: bool,
                 allow_rotation: bool) -> None:
        m = checker.map
        self.goal = goal
        self.allow_reverse = allow_reverse
        self.allow_rotation = allow_rotation
        self.radius = turning_radius()
        self.origin = m.origin
        k = max(1, int(round(XY_BIN_M / m.resolution)))
        h, w = m.distance.shape
        hc, wc = -(-h // k), -(-w // k)
        padded = np.zeros((hc * k, wc * k))
        padded[:h, :w] = m.distance
        best = padded.reshape(hc, k, wc, k).max(axis=(1, 3))  # the most open spot of each cell
        passable = best + checker.margin >= checker.fp.r_in
        # the search measures clearance from the footprint's cover circles: subtract the same
        penalty = clearance_penalty(best - float(checker.circles[:, 2].max()) - checker.margin)
        idx = np.arange(hc * wc).reshape(hc, wc)
        rows, cols, weights = [], [], []
        step = XY_BIN_M
        for dr, dc, length in ((0, 1, step), (1, 0, step), (1, 1, step * math.sqrt(2)), (1, -1, step * math.sqrt(2))):
            c0, c1 = max(0, -dc), wc - max(0, dc)
            a = passable[0:hc - dr, c0:c1]
            b = passable[dr:hc, c0 + dc:c1 + dc]
            both = a & b
            pen = 0.5 * (penalty[0:hc - dr, c0:c1] + penalty[dr:hc, c0 + dc:c1 + dc])
            rows.append(idx[0:hc - dr, c0:c1][both])
            cols.append(idx[dr:hc, c0 + dc:c1 + dc][both])
            weights.append(length * (1.0 + pen[both]))
        n = hc * wc
        graph = coo_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
                           shape=(n, n)).tocsr()
        gr, gc = self.cell(goal[0], goal[1])
        gr, gc = min(max(gr, 0), hc - 1), min(max(gc, 0), wc - 1)
        self.grid = dijkstra(graph, directed=False, indices=int(idx[gr, gc])).reshape(hc, wc)
        self.shape = (hc, wc)

    def cell(self, x: float, y: float) -> tuple[int, int]:
        return (int(math.floor((y - self.origin[1]) / XY_BIN_M)), int(math.floor((x - self.origin[0]) / XY_BIN_M)))

    def holonomic(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = np.floor((np.asarray(y) - self.origin[1]) / XY_BIN_M).astype(np.intp)
        c = np.floor((np.asarray(x) - self.origin[0]) / XY_BIN_M).astype(np.intp)
        r = np.clip(r, 0, self.shape[0] - 1)
        c = np.clip(c, 0, self.shape[1] - 1)
        return self.grid[r, c]

    def rotate_straight_rotate(self, x: np.ndarray, y: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """Cost of the cheapest rotate, drive straight, rotate to the goal (no obstacles)."""
        gx, gy, gyaw = self.goal
        dx, dy = gx - np.asarray(x), gy - np.asarray(y)
        dist = np.hypot(dx, dy)
        bearing = np.arctan2(dy, dx)

        def turns(heading):
            a = np.abs((heading - yaw + math.pi) % (2 * math.pi) - math.pi)
            b = np.abs((gyaw - heading + math.pi) % (2 * math.pi) - math.pi)
            return (a + b) * ROTATION_COST_M_PER_RAD

        cost = turns(bearing) + dist
        if self.allow_reverse:
            cost = np.minimum(cost, turns(bearing + math.pi) + REVERSE_FACTOR * dist)
        in_place = np.abs((gyaw - yaw + math.pi) % (2 * math.pi) - math.pi) * ROTATION_COST_M_PER_RAD
        return np.where(dist < 1e-6, in_place, cost)

    def reeds_shepp(self, x: float, y: float, yaw: float) -> float:
        """Reeds-Shepp length to the goal (``rsplan``), or the plain distance far from it."""
        gx, gy, gyaw = self.goal
        dist = math.hypot(gx - x, gy - y)
        if dist > RS_NEAR_RADII * self.radius:
            return dist
        return float(rs_planner.path((x, y, yaw), (gx, gy, gyaw), self.radius, 0.0, 1.0,
                                     length_tolerance=0.0).total_length)

    def __call__(self, x: np.ndarray, y: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """Estimates for arrays of poses (inf where the goal is unreachable); without rotation in
        place the Reeds-Shepp term is left to :meth:`refine` (it costs milliseconds a pose)."""
        h = np.maximum(self.holonomic(x, y), np.hypot(self.goal[0] - np.asarray(x), self.goal[1] - np.asarray(y)))
        if self.allow_rotation:
            return np.maximum(h, self.rotate_straight_rotate(x, y, yaw))
        return h

    def estimate(self, x: float, y: float, yaw: float) -> float:
        """:meth:`__call__` for one pose, in plain Python (faster than numpy for one)."""
        r = min(max(int(math.floor((y - self.origin[1]) / XY_BIN_M)), 0), self.shape[0] - 1)
        c = min(max(int(math.floor((x - self.origin[0]) / XY_BIN_M)), 0), self.shape[1] - 1)
        gx, gy, gyaw = self.goal
        dist = math.hypot(gx - x, gy - y)
        h = max(float(self.grid[r, c]), dist)
        if not self.allow_rotation:
            return h
        if dist < 1e-6:
            return max(h, abs(_wrap(gyaw - yaw)) * ROTATION_COST_M_PER_RAD)
        bearing = math.atan2(gy - y, gx - x)
        best = (abs(_wrap(bearing - yaw)) + abs(_wrap(gyaw - bearing))) * ROTATION_COST_M_PER_RAD + dist
        if self.allow_reverse:
            back = bearing + math.pi
            best = min(best, (abs(_wrap(back - yaw)) + abs(_wrap(gyaw - back))) * ROTATION_COST_M_PER_RAD
                       + REVERSE_FACTOR * dist)
        return max(h, best)

    @property
    def refines(self) -> bool:
        """Whether :meth:`refine` can raise an estimate (car-like motion with reverse)."""
        return not self.allow_rotation and self.allow_reverse

    def refine(self, estimate: float, x: float, y: float, yaw: float) -> float:
        """The estimate raised by the Reeds-Shepp length (evaluated lazily, once per expanded node)."""
        return max(estimate, self.reeds_shepp(x, y, yaw)) if self.refines else estimate
