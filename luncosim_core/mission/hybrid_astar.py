"""Hybrid A* over (x, y, yaw) with forward and reverse arcs and in-place rotation.

Nodes are continuous poses binned at 0.1 m and 5 degrees. Successors are short arcs (straight,
gentle and tight turns), forward and, unless disabled, reverse, plus in-place rotations. The
heuristic is the obstacle-aware 2D distance to the goal (a Dijkstra on a coarse grid where cells
closer to an obstacle than the footprint's inscribed radius are closed), which also proves early
that no path exists. A rotate-straight-rotate shot to the goal is tried as the search proceeds;
the first collision-free shot ends the search.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from luncosim_core.mission.footprint import CollisionChecker
from luncosim_core.mission.frames import wrap

HEADINGS = 72
HEADING_BIN = 2.0 * math.pi / HEADINGS
XY_BIN_M = 0.1
STEP_M = 0.3
SAMPLE_M = 0.1
ROTATION_STEP = math.radians(15.0)
ROTATION_SAMPLE = math.radians(3.0)
REVERSE_FACTOR = 1.6
ROTATION_COST_M_PER_RAD = 0.5
SWITCH_PENALTY_M = 1.0
CLEARANCE_BAND_M = 0.4
CLEARANCE_COST = 0.6
HEURISTIC_WEIGHT = 1.3
SHOT_EVERY = 8
MAX_EXPANSIONS = 60_000
GOAL_XY_M = 0.1
GOAL_YAW = math.radians(5.0)

_path_revisions = itertools.count(1)


class PlanningFailure(Exception):
    """No plan: ``code`` is one of goal-outside-map, goal-in-collision, start-in-collision, no-path."""

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


@dataclass(frozen=True)
class _Primitive:
    direction: int  # +1, -1 forward/reverse, 0 rotation
    samples: np.ndarray  # (k, 3) local dx, dy, dyaw at yaw 0; last row is the end
    cost: float


def _primitives(allow_reverse: bool, allow_rotation: bool) -> list[_Primitive]:
    out = []
    n = max(2, int(math.ceil(STEP_M / SAMPLE_M)))
    dirs = (1, -1) if allow_reverse else (1,)
    for d in dirs:
        for turn in (0.0, math.radians(5.0), -math.radians(5.0), math.radians(15.0), -math.radians(15.0)):
            kappa = turn / STEP_M
            rows = []
            for k in range(1, n + 1):
                s = d * STEP_M * k / n
                if kappa == 0.0:
                    rows.append((s, 0.0, 0.0))
                else:
                    th = kappa * s
                    rows.append((math.sin(th) / kappa, (1.0 - math.cos(th)) / kappa, th))
            cost = STEP_M * (1.0 if d > 0 else REVERSE_FACTOR) + 0.02 * abs(turn)
            out.append(_Primitive(d, np.array(rows), cost))
    if allow_rotation:
        m = max(2, int(math.ceil(ROTATION_STEP / ROTATION_SAMPLE)))
        for sign in (1.0, -1.0):
            rows = [(0.0, 0.0, sign * ROTATION_STEP * k / m) for k in range(1, m + 1)]
            out.append(_Primitive(0, np.array(rows), ROTATION_STEP * ROTATION_COST_M_PER_RAD))
    return out


class Heuristic:
    """Obstacle-aware 2D distance to the goal on a coarse grid (inf: unreachable)."""

    def __init__(self, checker: CollisionChecker, goal: tuple[float, float], coarse_m: float = 0.2) -> None:
        m = checker.map
        k = max(1, int(round(coarse_m / m.resolution)))
        self.k = k
        self.map = m
        open_fine = m.distance >= max(0.0, checker.fp.r_in - checker.margin)
        h, w = open_fine.shape
        hc, wc = -(-h // k), -(-w // k)
        padded = np.zeros((hc * k, wc * k), dtype=bool)
        padded[:h, :w] = open_fine
        passable = padded.reshape(hc, k, wc, k).any(axis=(1, 3))
        idx = np.arange(hc * wc).reshape(hc, wc)
        rows, cols, weights = [], [], []
        step = k * m.resolution
        for dr, dc, wgt in ((0, 1, step), (1, 0, step), (1, 1, step * math.sqrt(2)), (1, -1, step * math.sqrt(2))):
            c0, c1 = max(0, -dc), wc - max(0, dc)
            a = passable[0:hc - dr, c0:c1]
            b = passable[dr:hc, c0 + dc:c1 + dc]
            both = a & b
            rows.append(idx[0:hc - dr, c0:c1][both])
            cols.append(idx[dr:hc, c0 + dc:c1 + dc][both])
            weights.append(np.full(int(both.sum()), wgt))
        n = hc * wc
        graph = coo_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
                           shape=(n, n)).tocsr()
        gr, gc = m.cell(*goal)
        goal_idx = int(idx[min(gr // k, hc - 1), min(gc // k, wc - 1)])
        self.dist = dijkstra(graph, directed=False, indices=goal_idx).reshape(hc, wc)
        self.goal = goal

    def __call__(self, x: float, y: float) -> float:
        m = self.map
        r = int((y - m.origin[1]) / m.resolution) // self.k
        c = int((x - m.origin[0]) / m.resolution) // self.k
        r = min(max(r, 0), self.dist.shape[0] - 1)
        c = min(max(c, 0), self.dist.shape[1] - 1)
        return max(float(self.dist[r, c]), math.hypot(x - self.goal[0], y - self.goal[1]))


def _shot(checker: CollisionChecker, x: float, y: float, yaw: float, goal, allow_reverse: bool,
          allow_rotation: bool) -> tuple[list[tuple[float, float, float, int]], float] | None:
    """Rotate-straight-rotate from (x, y, yaw) to the goal, when collision-free."""
    gx, gy, gyaw = goal
    dist = math.hypot(gx - x, gy - y)
    options = []
    if dist < 1e-6:
        options.append((1, yaw))
    else:
        bearing = math.atan2(gy - y, gx - x)
        options.append((1, bearing))
        if allow_reverse:
            options.append((-1, wrap(bearing + math.pi)))
    best = None
    for d, heading in options:
        r1, r2 = wrap(heading - yaw), wrap(gyaw - heading)
        if not allow_rotation and (abs(r1) > GOAL_YAW or abs(r2) > GOAL_YAW):
            continue
        cost = (abs(r1) + abs(r2)) * ROTATION_COST_M_PER_RAD + dist * (1.0 if d > 0 else REVERSE_FACTOR)
        if best is None or cost < best[0]:
            best = (cost, d, heading, r1, r2)
    if best is None:
        return None
    cost, d, heading, r1, r2 = best
    out: list[tuple[float, float, float, int]] = []
    n = int(math.ceil(abs(r1) / ROTATION_SAMPLE))
    out += [(x, y, yaw + r1 * k / n, 0) for k in range(1, n + 1)]
    n = int(math.ceil(dist / SAMPLE_M)) if dist > 1e-6 else 0
    out += [(x + (gx - x) * k / n, y + (gy - y) * k / n, yaw + r1, d) for k in range(1, n + 1)]
    n = int(math.ceil(abs(r2) / ROTATION_SAMPLE))
    out += [(gx, gy, yaw + r1 + r2 * k / n, 0) for k in range(1, n + 1)]
    skip_to = -1.0
    m = checker.map
    for px, py, pyaw, pd in out:
        if pd != 0 and math.hypot(px - x, py - y) < skip_to:
            continue  # inside the disc the distance field proved free
        if not checker.free(px, py, pyaw):
            return None
        if pd != 0:
            room = m.clearance(px, py) - checker.fp.r_out - checker.margin
            if room > SAMPLE_M:
                skip_to = math.hypot(px - x, py - y) + room
    return out, cost


def plan(checker: CollisionChecker, start: tuple[float, float, float], goal: tuple[float, float, float], *,
         allow_reverse: bool = True, allow_rotation: bool = True,
         max_expansions: int = MAX_EXPANSIONS, deadline: float | None = None) -> NavigationPath:
    """A collision-free path from ``start`` to ``goal`` (plane poses), or :class:`PlanningFailure`."""
    m = checker.map
    fp = checker.fp
    gx, gy, gyaw = goal
    if not m.contains(gx, gy):
        xmin, ymin, xmax, ymax = m.bounds
        raise PlanningFailure("goal-outside-map", f"goal ({gx:.3f}, {gy:.3f}) is outside the map "
                              f"[{xmin:.2f}, {xmax:.2f}] x [{ymin:.2f}, {ymax:.2f}] m")
    if not checker.free(gx, gy, gyaw):
        hits = tuple(m.obstacles_touching(fp.at(gx, gy, gyaw)))
        what = f" with {', '.join(hits)}" if hits else " (the map border)"
        raise PlanningFailure("goal-in-collision", f"the robot's footprint at the goal ({gx:.3f}, {gy:.3f}, "
                              f"yaw {gyaw:.3f}) is in collision{what}", hits)
    if not checker.free(*start):
        hits = tuple(m.obstacles_touching(fp.at(*start)))
        what = f" with {', '.join(hits)}" if hits else " (the map border)"
        raise PlanningFailure("start-in-collision", f"the robot's footprint at its start ({start[0]:.3f}, "
                              f"{start[1]:.3f}) is in collision{what}", hits)
    heur = Heuristic(checker, (gx, gy))
    h0 = heur(start[0], start[1])
    if not math.isfinite(h0):
        raise PlanningFailure("no-path", "no collision-free path: the goal is not connected to the start "
                              "(every corridor between them is narrower than the robot)")
    prims = _primitives(allow_reverse, allow_rotation)
    stack = np.concatenate([p.samples for p in prims])
    bounds = np.cumsum([0] + [len(p.samples) for p in prims])
    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    xs, ys, yaws, gs, parents, dirs = [start[0]], [start[1]], [wrap(start[2])], [0.0], [-1], [0]
    segs: list[list[tuple[float, float, float, int]]] = [[]]
    best_g: dict[tuple[int, int, int], float] = {}
    heap = [(HEURISTIC_WEIGHT * h0, 0, 0)]
    counter = itertools.count(1)
    expansions = 0
    dist_field = m.distance
    res = m.resolution
    ox, oy = m.origin
    band = fp.r_out + CLEARANCE_BAND_M
    while heap:
        _f, _c, i = heapq.heappop(heap)
        x, y, yaw, g = xs[i], ys[i], yaws[i], gs[i]
        key = (int(math.floor(x / XY_BIN_M)), int(math.floor(y / XY_BIN_M)), int(round(wrap(yaw) / HEADING_BIN)) % HEADINGS)
        if best_g.get(key, math.inf) < g - 1e-9:
            continue
        expansions += 1
        if deadline is not None and expansions % 256 == 0 and time.perf_counter() > deadline:
            raise PlanningFailure("timeout", f"planning ran out of the motion's time budget after {expansions} "
                                  "search expansions")
        if expansions > max_expansions:
            raise PlanningFailure("no-path", f"no collision-free path found within {max_expansions} search "
                                  "expansions")
        near = math.hypot(gx - x, gy - y) < GOAL_XY_M and abs(wrap(gyaw - yaw)) < GOAL_YAW
        hx = heur(x, y)
        in_sight = hx <= 1.09 * math.hypot(gx - x, gy - y) + 2 * heur.k * res  # octile vs euclid
        if near or (in_sight and (expansions % SHOT_EVERY == 1 or hx < 2.0)):
            shot = _shot(checker, x, y, yaw, goal, allow_reverse, allow_rotation)
            if shot is not None:
                return _build(xs, ys, yaws, parents, dirs, segs, i, shot[0], start, expansions, g + shot[1])
            if near and not allow_rotation:
                return _build(xs, ys, yaws, parents, dirs, segs, i, [], start, expansions, g)
        c_, s_ = math.cos(yaw), math.sin(yaw)
        allpts = np.empty_like(stack)
        allpts[:, 0] = x + c_ * stack[:, 0] - s_ * stack[:, 1]
        allpts[:, 1] = y + s_ * stack[:, 0] + c_ * stack[:, 1]
        allpts[:, 2] = yaw + stack[:, 2]
        freed = checker.free_many(allpts)
        for n_p, prim in enumerate(prims):
            a, b = spans[n_p]
            if not freed[a:b].all():
                continue
            pts = allpts[a:b]
            ex, ey, eyaw = float(pts[-1, 0]), float(pts[-1, 1]), wrap(float(pts[-1, 2]))
            cost = prim.cost
            if prim.direction != 0 and dirs[i] != 0 and prim.direction != dirs[i]:
                cost += SWITCH_PENALTY_M
            r = int((ey - oy) / res)
            c = int((ex - ox) / res)
            clear = float(dist_field[r, c])
            if clear < band:
                cost += CLEARANCE_COST * STEP_M * (band - clear) / band
            ng = g + cost
            nkey = (int(math.floor(ex / XY_BIN_M)), int(math.floor(ey / XY_BIN_M)),
                    int(round(eyaw / HEADING_BIN)) % HEADINGS)
            if best_g.get(nkey, math.inf) <= ng:
                continue
            hn = heur(ex, ey)
            if not math.isfinite(hn):
                continue
            best_g[nkey] = ng
            j = len(xs)
            xs.append(ex)
            ys.append(ey)
            yaws.append(eyaw)
            gs.append(ng)
            parents.append(i)
            dirs.append(prim.direction if prim.direction != 0 else dirs[i])
            segs.append([(float(p[0]), float(p[1]), float(p[2]), prim.direction) for p in pts])
            heapq.heappush(heap, (ng + HEURISTIC_WEIGHT * hn, next(counter), j))
    raise PlanningFailure("no-path", f"no collision-free path from ({start[0]:.2f}, {start[1]:.2f}) to "
                          f"({gx:.2f}, {gy:.2f}): the search exhausted every reachable pose "
                          f"({expansions} expansions)")


def _build(xs, ys, yaws, parents, dirs, segs, last: int, shot, start, expansions: int, cost: float) -> NavigationPath:
    chain = []
    i = last
    while i > 0:
        chain.append(segs[i])
        i = parents[i]
    rows: list[tuple[float, float, float, int]] = [(start[0], start[1], start[2], 0)]
    for seg in reversed(chain):
        rows.extend(seg)
    rows.extend(shot)
    poses = np.array([r[:3] for r in rows], dtype=float)
    poses[:, 2] = np.unwrap(poses[:, 2])  # keep the raw winding of the heading
    directions = np.array([r[3] for r in rows], dtype=np.int8)
    return NavigationPath(poses, directions, next(_path_revisions), expansions, cost)


def straight_path(start: tuple[float, float, float], goal: tuple[float, float, float]) -> NavigationPath:
    """Direct navigation (no obstacle-aware planning): rotate, drive straight, rotate."""

    class _Open:
        def free(self, *_pose) -> bool:
            return True

    shot = _shot(_Open(), *start, goal, True, True)  # type: ignore[arg-type]
    return _build([start[0]], [start[1]], [start[2]], [-1], [0], [[]], 0, shot[0], start, 0, shot[1])


def _segment(checker: CollisionChecker, a, b, direction: int, yaw_in: float):
    """Samples of rotate-then-straight from pose ``a`` to point ``b`` driving ``direction``, or
    None when any is in collision. Returns (samples, heading)."""
    dist = math.hypot(b[0] - a[0], b[1] - a[1])
    bearing = math.atan2(b[1] - a[1], b[0] - a[0])
    heading = bearing if direction >= 0 else bearing + math.pi
    turn = wrap(heading - yaw_in)
    heading = yaw_in + turn
    out = []
    n = int(math.ceil(abs(turn) / ROTATION_SAMPLE))
    out += [(a[0], a[1], yaw_in + turn * k / n, 0) for k in range(1, n + 1)]
    n = max(1, int(math.ceil(dist / SAMPLE_M)))
    out += [(a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n, heading, direction) for k in range(1, n + 1)]
    poses = np.array([o[:3] for o in out])
    if not checker.free_many(poses).all():
        return None
    return out, heading


def smooth(checker: CollisionChecker, path: NavigationPath) -> NavigationPath:
    """Shortcut the search's arcs into straight stretches joined by rotations in place, within
    each stretch driven in one direction, keeping every sample collision-free."""
    poses, dirs = path.poses, path.directions
    n = len(poses)
    if n < 3:
        return path
    # runs of one travel direction (rotations join the run they sit in)
    rows: list[tuple[float, float, float, int]] = [(*poses[0], 0)]
    yaw = float(poses[0, 2])
    i = 0
    while i < n - 1:
        d = int(dirs[i + 1]) if dirs[i + 1] != 0 else next((int(v) for v in dirs[i + 1:] if v != 0), 0)
        if d == 0:  # only rotation left
            rows += [(float(p[0]), float(p[1]), float(p[2]), 0) for p in poses[i + 1:]]
            yaw = float(poses[-1, 2])
            break
        end = i + 1
        while end + 1 < n and dirs[end + 1] in (0, d):
            end += 1
        best = None
        step = 1  # gallop forward, then bisect between the last clear and the first blocked end
        lo, hi = i, None
        while True:
            j = min(end, lo + step) if hi is None else (lo + hi) // 2
            if j <= lo or (hi is not None and j >= hi):
                break
            seg = _segment(checker, poses[i], poses[j], d, yaw)
            if seg is not None:
                best, lo = (j, seg), j
                if hi is None:
                    if j == end:
                        break
                    step *= 2
            else:
                hi = j
        if best is None:  # keep the original samples
            rows.append((float(poses[i + 1, 0]), float(poses[i + 1, 1]), float(poses[i + 1, 2]), int(dirs[i + 1])))
            yaw = float(poses[i + 1, 2])
            i += 1
            continue
        j, (samples, heading) = best
        rows += samples
        yaw = heading
        i = j
    # finish with a rotation to the goal yaw
    goal_yaw = float(poses[-1, 2])
    turn = wrap(goal_yaw - yaw)
    m = int(math.ceil(abs(turn) / ROTATION_SAMPLE))
    px, py = rows[-1][0], rows[-1][1]
    final = [(px, py, yaw + turn * k / m, 0) for k in range(1, m + 1)]
    if m and not checker.free_many(np.array([f[:3] for f in final])).all():
        return path
    rows += final
    out = np.array([r[:3] for r in rows], dtype=float)
    out[:, 2] = np.unwrap(out[:, 2])
    return NavigationPath(out, np.array([r[3] for r in rows], dtype=np.int8), path.revision, path.expansions, path.cost)
