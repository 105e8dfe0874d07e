"""Hybrid A* over (x, y, yaw) with forward and reverse arcs and in-place rotation.

The search runs on the lattice of ``lattice.py`` (0.25 m cells x 72 headings, 0.5 m arcs, rotations
in place), independent of the costmap's 5 cm cells. Each expansion checks all of a node's
primitives at once: their samples come rotated from a per-heading table, the distance field and
the footprint's cover circles decide nearly all of them, and only samples close to an obstacle
get the exact footprint test. Every step pays a clearance penalty (``heuristic.clearance_penalty``)
so paths keep away from obstacles where there is room. The cost-to-go is ``heuristic.Heuristic``
(obstacle-aware 2D Dijkstra, rotate-straight-rotate or Reeds-Shepp). As the search nears the goal
it tries analytic shots to it (rotate-straight-rotate with rotation in place, else the Reeds-Shepp
curve from ``rsplan``), accepted when collision-free and not closer to obstacles than
``SHOT_CLEARANCE_M`` where the ends allow it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass

import numpy as np
from rsplan import planner as rs_planner

from luncosim_core.mission.footprint import CollisionChecker
from luncosim_core.mission.frames import wrap
from luncosim_core.mission.heuristic import Heuristic, clearance_penalty
from luncosim_core.mission.lattice import (
    HEADINGS,
    REVERSE_FACTOR,
    ROTATION_COST_M_PER_RAD,
    ROTATION_SAMPLE,
    SAMPLE_M,
    XY_BIN_M,
    PrimitiveTable,
    primitives,
)

HEURISTIC_WEIGHT = 1.5
SWITCH_PENALTY_M = 1.0
STOP_COST_M = 1.0  # a rotation in place begun after driving: the robot stops and turns
SHOT_EVERY = 10
SHOT_NEAR_M = 3.0
RS_SHOT_RANGE_M = 8.0
SHOT_CLEARANCE_M = 0.3
MAX_EXPANSIONS = 15_000
GOAL_XY_M = 0.15
GOAL_YAW = math.radians(5.0)

_path_revisions = itertools.count(1)


class PlanningFailure(Exception):
    """No plan: ``code`` is one of goal-outside-map, goal-in-collision, start-in-collision, no-path,
    timeout."""

    def __init__(self, code: str, message: str, obstacles: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.obstacles = obstacles


@dataclass
class NavigationPath:
    """Poses (x, y, yaw) along the plan; ``directions[i]`` is how pose i is reached from i-1:
    +1 forward, -1 reverse, 0 rotation in place (``directions[0]`` is 0)."""

    poses: np.ndarray  # (n, 3)
    directions: np.ndarray  # (n,) int8
    revision: int
    expansions: int = 0
    cost: float = 0.0

    @property
    def length(self) -> float:
        d = np.diff(self.poses[:, :2], axis=0)
        return float(np.hypot(d[:, 0], d[:, 1]).sum()) if len(d) else 0.0

    def to_json(self) -> dict:
        return {"revision": self.revision, "length_m": round(self.length, 4), "samples": len(self.poses),
                "expansions": self.expansions,
                "poses": [[round(float(v), 5) for v in p] for p in self.poses],
                "directions": [int(d) for d in self.directions]}


def rotation_rows(x: float, y: float, yaw: float, turn: float) -> np.ndarray:
    """(n, 4) rows x, y, yaw, 0 of a rotation in place by ``turn`` (none when ``turn`` is 0)."""
    n = int(math.ceil(abs(turn) / ROTATION_SAMPLE - 1e-9))
    f = np.arange(1, n + 1) / max(n, 1)
    return np.stack([np.full(n, x), np.full(n, y), yaw + turn * f, np.zeros(n)], axis=1)


def straight_rows(a, b, heading: float, direction: int) -> np.ndarray:
    """(n, 4) rows from point ``a`` (excluded) to point ``b`` at a fixed ``heading``."""
    n = max(1, int(math.ceil(math.hypot(b[0] - a[0], b[1] - a[1]) / SAMPLE_M)))
    f = np.arange(1, n + 1) / n
    return np.stack([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, np.full(n, heading),
                     np.full(n, direction)], axis=1)


def rotate_straight_rotate(start, goal, allow_reverse: bool) -> tuple[np.ndarray, float]:
    """Rows and cost of the cheapest rotate, straight, rotate from ``start`` to ``goal``."""
    x, y, yaw = start
    gx, gy, gyaw = goal
    dist = math.hypot(gx - x, gy - y)
    if dist < 1e-6:
        turn = wrap(gyaw - yaw)
        return rotation_rows(x, y, yaw, turn), abs(turn) * ROTATION_COST_M_PER_RAD
    bearing = math.atan2(gy - y, gx - x)
    best = None
    for d, heading in ((1, bearing), (-1, bearing + math.pi))[:2 if allow_reverse else 1]:
        r1, r2 = wrap(heading - yaw), wrap(gyaw - heading)
        cost = (abs(r1) + abs(r2)) * ROTATION_COST_M_PER_RAD + dist * (1.0 if d > 0 else REVERSE_FACTOR)
        if best is None or cost < best[0]:
            best = (cost, d, r1, r2)
    cost, d, r1, r2 = best
    rows = [rotation_rows(x, y, yaw, r1), straight_rows((x, y), (gx, gy), yaw + r1, d),
            rotation_rows(gx, gy, yaw + r1, r2)]
    return np.concatenate(rows), cost


def reeds_shepp(start, goal, radius: float) -> tuple[np.ndarray, float]:
    """Rows and length of the shortest Reeds-Shepp curve (``rsplan``) from ``start`` to ``goal``."""
    curve = rs_planner.path(tuple(map(float, start)), tuple(map(float, goal)), radius, 0.0, SAMPLE_M,
                            length_tolerance=0.0)
    pts = curve.waypoints()
    rows = np.array([(p.x, p.y, p.yaw, p.driving_direction) for p in pts[1:]], dtype=float)
    if not len(rows):
        return np.zeros((0, 4)), 0.0
    rows[-1, :3] = goal
    xy = np.concatenate([[start[:2]], rows[:, :2]])
    steps = np.hypot(*np.diff(xy, axis=0).T)
    return rows, float((steps * np.where(rows[:, 3] < 0, REVERSE_FACTOR, 1.0)).sum())


def _stops(rows: np.ndarray, before: int = 0) -> int:
    """How often a robot driving ``rows`` (after moving in direction ``before``) stops: rotations
    in place begun and changes of travel direction."""
    stops = 0
    last = before
    for d in rows[:, 3].astype(int).tolist():
        if d != last and (d == 0 or last != 0):
            stops += 1
        last = d
    return stops


def _check_budget(expansions: int, max_expansions: int, deadline: float | None) -> None:
    if deadline is not None and expansions % 128 == 0 and time.perf_counter() > deadline:
        raise PlanningFailure("timeout", f"planning ran out of the motion's time budget after {expansions} "
                              "search expansions")
    if expansions > max_expansions:
        raise PlanningFailure("no-path", f"no collision-free path found within {max_expansions} search expansions")


def _fail_at(checker: CollisionChecker, pose, code: str, where: str) -> PlanningFailure:
    hits = tuple(checker.map.obstacles_touching(checker.fp.at(*pose)))
    what = f" with {', '.join(hits)}" if hits else " (the map border)"
    return PlanningFailure(code, f"the robot's footprint at {where} ({pose[0]:.3f}, {pose[1]:.3f}, yaw "
                                 f"{pose[2]:.3f}) is in collision{what}", hits)


class _Search:
    """One Hybrid A* search (state kept in flat lists; see :func:`plan`)."""

    def __init__(self, checker: CollisionChecker, start, goal, allow_reverse: bool, allow_rotation: bool) -> None:
        self.checker = checker
        self.start = tuple(float(v) for v in start)
        self.goal = tuple(float(v) for v in goal)
        self.allow_reverse = allow_reverse
        self.allow_rotation = allow_rotation
        self.heur = Heuristic(checker, self.goal, allow_reverse=allow_reverse, allow_rotation=allow_rotation)
        self.table = PrimitiveTable(primitives(allow_reverse, allow_rotation), self.start[2])
        m = checker.map
        self.origin = m.origin
        self.nx = int(math.ceil(m.width * m.resolution / XY_BIN_M)) + 1
        self.goal_clearance = float(checker.clearance_many(np.array([self.goal]))[0])
        self.offsets = checker.circle_offsets(self.table.samples)  # (headings, samples, circles, 2)

    def key(self, x, y, k):
        ix = np.floor((np.asarray(x) - self.origin[0]) / XY_BIN_M).astype(np.int64)
        iy = np.floor((np.asarray(y) - self.origin[1]) / XY_BIN_M).astype(np.int64)
        return (iy * self.nx + ix) * HEADINGS + np.asarray(k)

    def shot(self, x: float, y: float, yaw: float, before: int = 0) -> tuple[np.ndarray, float] | None:
        """Analytic rows to the goal from (x, y, yaw) when collision-free and clear enough: the
        cheaper valid one of the Reeds-Shepp curve (near the goal, with reverse) and
        rotate-straight-rotate (with rotation in place), each stop costing ``STOP_COST_M``."""
        start = (x, y, yaw)
        options = []
        if self.allow_reverse and math.hypot(self.goal[0] - x, self.goal[1] - y) < RS_SHOT_RANGE_M:
            options.append(reeds_shepp(start, self.goal, self.heur.radius))
        if self.allow_rotation:
            options.append(rotate_straight_rotate(start, self.goal, self.allow_reverse))
        options = sorted(((cost + STOP_COST_M * _stops(rows, before), n, rows) for n, (rows, cost) in enumerate(options)),
                         key=lambda o: o[:2])
        here = float(self.checker.clearance_many(np.array([start]))[0])
        need = min(SHOT_CLEARANCE_M, here, self.goal_clearance) - 0.02
        for cost, _n, rows in options:
            if not len(rows):
                return rows, cost
            moving = rows[:, 3] != 0
            if not self.checker.rows_clear(rows[:, :3], need, moving):
                continue
            clear = np.maximum(self.checker.clearance_many(rows[moving, :3]), 0.0)
            return rows, cost + float((clearance_penalty(clear) * SAMPLE_M).sum())
        return None

    def check(self, x: float, y: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Samples of every primitive from node (x, y, heading k), which primitives are
        collision-free, and each sample's clearance (clamped at 0)."""
        ch, table = self.checker, self.table
        poses = table.samples[k].copy()
        poses[:, 0] += x
        poses[:, 1] += y
        clear = ch.clearance_many(poses, self.offsets[k])
        bad = clear <= 0.0
        ok = np.ones(len(table.prims), dtype=bool)
        if bad.any():
            blocked = bad & ch.blocked_many(poses)
            ok &= ~np.logical_or.reduceat(blocked, table.starts)
            unsure = bad & ~blocked & np.repeat(ok, table.counts)
            if unsure.any():
                free = np.ones(len(poses), dtype=bool)
                free[unsure] = ch.exact_free(poses[unsure])
                ok &= np.logical_and.reduceat(free, table.starts)
        return poses, ok, np.maximum(clear, 0.0)

    def run(self, max_expansions: int, deadline: float | None) -> NavigationPath:
        table, heur = self.table, self.heur
        sx, sy, syaw = self.start
        gx, gy, gyaw = self.goal
        h0 = float(heur(np.array([sx]), np.array([sy]), np.array([syaw]))[0])
        if not math.isfinite(h0):
            raise PlanningFailure("no-path", "no collision-free path: the goal is not connected to the start "
                                  "(every corridor between them is narrower than the robot)")
        # nodes, in flat lists: position, heading index, cost, parent, primitive, last travel direction
        self.xs, self.ys, self.ks, self.gs = [sx], [sy], [0], [0.0]
        self.parents, self.prims, self.dirs, self.refined = [-1], [-1], [0], [False]
        self.best_g: dict[int, float] = {int(self.key(sx, sy, 0)): 0.0}
        self.closed: set[int] = set()
        self.counter = itertools.count(1)
        self.heap = [(HEURISTIC_WEIGHT * h0, h0, 0, 0)]
        expansions = 0
        while self.heap:
            _f, h, _c, i = heapq.heappop(self.heap)
            x, y, k, g = self.xs[i], self.ys[i], self.ks[i], self.gs[i]
            yaw = table.heading(k)
            key = int(self.key(x, y, k))
            if key in self.closed or self.best_g.get(key, math.inf) < g - 1e-9:
                continue
            if heur.refines and not self.refined[i]:  # the lazy Reeds-Shepp estimate, once per node
                self.refined[i] = True
                h2 = heur.refine(h, x, y, yaw)
                if h2 > h + 1e-6:
                    heapq.heappush(self.heap, (g + HEURISTIC_WEIGHT * h2, h2, next(self.counter), i))
                    continue
            self.closed.add(key)
            expansions += 1
            _check_budget(expansions, max_expansions, deadline)
            dist = math.hypot(gx - x, gy - y)
            if self._try_shot(expansions, dist, x, y):
                moving = i > 0 and table.direction[self.prims[i]] != 0
                shot = self.shot(x, y, yaw, self.dirs[i] if moving else 0)
                if shot is not None:
                    return self._build(i, shot[0], expansions, g + shot[1])
            if dist < GOAL_XY_M and abs(wrap(gyaw - yaw)) < GOAL_YAW:
                return self._build(i, np.zeros((0, 4)), expansions, g)
            self._expand(i)
        raise PlanningFailure("no-path", f"no collision-free path from ({sx:.2f}, {sy:.2f}) to ({gx:.2f}, {gy:.2f}): "
                              f"the search exhausted every reachable pose ({expansions} expansions)")

    def _expand(self, i: int) -> None:
        """Push node ``i``'s collision-free successors that improve on their cells."""
        table = self.table
        x, y, k, g = self.xs[i], self.ys[i], self.ks[i], self.gs[i]
        poses, ok, clear = self.check(x, y, k)
        if not ok.any():
            return
        pen = np.add.reduceat(clearance_penalty(clear), table.starts) / table.counts
        cost = table.base_cost * (1.0 + pen)
        moving = table.direction != 0
        if self.dirs[i] != 0:
            cost = cost + SWITCH_PENALTY_M * (moving & (table.direction != self.dirs[i]))
        if i > 0 and table.direction[self.prims[i]] != 0:  # rotating in place means stopping first
            cost = cost + STOP_COST_M * ~moving
        last = table.last
        ex, ey = poses[last, 0], poses[last, 1]
        ek = (k + table.turn) % HEADINGS
        keys = self.key(ex, ey, ek)
        ng = g + cost
        for j in np.flatnonzero(ok).tolist():
            kj = int(keys[j])
            if kj in self.closed or ng[j] >= self.best_g.get(kj, math.inf):
                continue
            hj = self.heur.estimate(float(ex[j]), float(ey[j]), float(poses[last[j], 2]))
            if not math.isfinite(hj):
                continue
            self.best_g[kj] = float(ng[j])
            self.xs.append(float(ex[j]))
            self.ys.append(float(ey[j]))
            self.ks.append(int(ek[j]))
            self.gs.append(float(ng[j]))
            self.parents.append(i)
            self.prims.append(j)
            self.dirs.append(int(table.direction[j]) or self.dirs[i])
            self.refined.append(False)
            heapq.heappush(self.heap, (float(ng[j]) + HEURISTIC_WEIGHT * hj, hj, next(self.counter), len(self.xs) - 1))

    def _try_shot(self, expansions: int, dist: float, x: float, y: float) -> bool:
        if self.allow_rotation:
            if dist < SHOT_NEAR_M:
                return True
            if expansions % SHOT_EVERY != 1:
                return False
            hx = float(self.heur.holonomic(np.array([x]), np.array([y]))[0])
            return hx <= 1.1 * dist + 2 * XY_BIN_M  # the goal is probably in sight
        return self.allow_reverse and dist < RS_SHOT_RANGE_M and expansions % SHOT_EVERY == 1

    def _build(self, last: int, shot: np.ndarray, expansions: int, cost: float) -> NavigationPath:
        table = self.table
        xs, ys, ks, parents, prims = self.xs, self.ys, self.ks, self.parents, self.prims
        chain = []
        i = last
        while i > 0:
            chain.append(i)
            i = parents[i]
        rows = [np.array([[*self.start, 0.0]])]
        for j in reversed(chain):
            p, q = parents[j], prims[j]
            seg = table.samples[ks[p], table.starts[q]:table.last[q] + 1].copy()
            seg[:, 0] += xs[p]
            seg[:, 1] += ys[p]
            rows.append(np.concatenate([seg, np.full((len(seg), 1), table.direction[q])], axis=1))
        rows.append(shot)
        out = np.concatenate(rows)
        poses = out[:, :3].copy()
        poses[:, 2] = np.unwrap(poses[:, 2])  # keep the raw winding of the heading
        return NavigationPath(poses, out[:, 3].astype(np.int8), next(_path_revisions), expansions, cost)


def plan(checker: CollisionChecker, start: tuple[float, float, float], goal: tuple[float, float, float], *,
         allow_reverse: bool = True, allow_rotation: bool = True,
         max_expansions: int = MAX_EXPANSIONS, deadline: float | None = None) -> NavigationPath:
    """A collision-free path from ``start`` to ``goal`` (plane poses), or :class:`PlanningFailure`."""
    m = checker.map
    gx, gy, _gyaw = goal
    if not m.contains(gx, gy):
        xmin, ymin, xmax, ymax = m.bounds
        raise PlanningFailure("goal-outside-map", f"goal ({gx:.3f}, {gy:.3f}) is outside the map "
                              f"[{xmin:.2f}, {xmax:.2f}] x [{ymin:.2f}, {ymax:.2f}] m")
    if not checker.free(*goal):
        raise _fail_at(checker, goal, "goal-in-collision", "the goal")
    if not checker.free(*start):
        raise _fail_at(checker, start, "start-in-collision", "its start")
    return _Search(checker, start, goal, allow_reverse, allow_rotation).run(max_expansions, deadline)


def straight_path(start: tuple[float, float, float], goal: tuple[float, float, float]) -> NavigationPath:
    """Direct navigation (no obstacle-aware planning): rotate, drive straight, rotate."""
    rows, cost = rotate_straight_rotate(start, goal, True)
    out = np.concatenate([np.array([[*start, 0.0]]), rows])
    poses = out[:, :3].copy()
    poses[:, 2] = np.unwrap(poses[:, 2])
    return NavigationPath(poses, out[:, 3].astype(np.int8), next(_path_revisions), 0, cost)
