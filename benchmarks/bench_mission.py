"""Navigation planning on a 40 m x 40 m map at 5 cm (800 x 800 cells) with 50 obstacles.

Measures, for a 1.2 m x 1.12 m rover footprint: the costmap build (rasterization + distance
field) and planning (Hybrid A*: its 2D heuristic, the search and smoothing) for the corner-to-
corner query of the issue and four more seeded queries across the map. As the baseline measured
in the same run, a plain 8-connected grid search (scipy's C Dijkstra) over the same 640,000 cells
for a point robot. Reports wall and CPU seconds and their ratios to the baseline (the machine is
shared: compare ratios, not seconds); the aim is planning under 1 s on 2 cores.

Run: ``.venv/bin/python benchmarks/bench_mission.py``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from luncosim_core.mission.costmap import rasterize  # noqa: E402
from luncosim_core.mission.footprint import CollisionChecker, Footprint, minkowski_square  # noqa: E402
from luncosim_core.mission.hybrid_astar import plan  # noqa: E402
from luncosim_core.mission.smoothing import smooth  # noqa: E402

SIZE_M = 40.0
OBSTACLES = 50
START = (1.5, 1.5, 0.0)
GOAL = (38.5, 38.5, math.pi / 2)
EXTRA_QUERIES = 4


def obstacles(seed: int = 7) -> list[tuple[str, shapely.Polygon]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[str, shapely.Polygon]] = []
    while len(out) < OBSTACLES:
        x, y = rng.uniform(3, SIZE_M - 3, 2)
        w, h = rng.uniform(0.4, 2.5, 2)
        poly = shapely.affinity.rotate(shapely.box(x - w / 2, y - h / 2, x + w / 2, y + h / 2),
                                       float(rng.uniform(0, math.pi)), use_radians=True)
        if poly.distance(shapely.Point(START[:2])) < 2.0 or poly.distance(shapely.Point(GOAL[:2])) < 2.0:
            continue
        out.append((f"/Yard/Rock{len(out):02d}", poly))
    return out


def rover_footprint() -> Footprint:
    poly = minkowski_square(shapely.box(-0.6, -0.56, 0.6, 0.56))
    c = shapely.get_coordinates(poly)
    return Footprint(shapely.MultiPolygon([poly]), float(np.hypot(c[:, 0], c[:, 1]).max()), 0.565)


def queries(checker: CollisionChecker, seed: int = 11) -> list[tuple[tuple, tuple]]:
    """The issue's corner-to-corner query and seeded ones at least 25 m apart, both ends free."""
    rng = np.random.default_rng(seed)
    out = [(START, GOAL)]
    while len(out) < 1 + EXTRA_QUERIES:
        a = (*rng.uniform(2, SIZE_M - 2, 2), float(rng.uniform(-math.pi, math.pi)))
        b = (*rng.uniform(2, SIZE_M - 2, 2), float(rng.uniform(-math.pi, math.pi)))
        if math.hypot(a[0] - b[0], a[1] - b[1]) >= 25.0 and checker.free(*a) and checker.free(*b):
            out.append((a, b))
    return out


def grid_baseline(lethal: np.ndarray, res: float) -> float:
    h, w = lethal.shape
    free = ~lethal
    idx = np.arange(h * w).reshape(h, w)
    rows, cols, wts = [], [], []
    for dr, dc, wt in ((0, 1, res), (1, 0, res), (1, 1, res * math.sqrt(2)), (1, -1, res * math.sqrt(2))):
        c0, c1 = max(0, -dc), w - max(0, dc)
        both = free[0:h - dr, c0:c1] & free[dr:h, c0 + dc:c1 + dc]
        rows.append(idx[0:h - dr, c0:c1][both])
        cols.append(idx[dr:h, c0 + dc:c1 + dc][both])
        wts.append(np.full(int(both.sum()), wt))
    g = coo_matrix((np.concatenate(wts), (np.concatenate(rows), np.concatenate(cols))), shape=(h * w, h * w)).tocsr()
    d = dijkstra(g, directed=False, indices=int(idx[int(START[1] / res), int(START[0] / res)]))
    return float(d[int(GOAL[1] / res) * w + int(GOAL[0] / res)])


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    obs = obstacles()
    cm, t_map, c_map = timed(lambda: rasterize(obs, (0.0, 0.0, SIZE_M, SIZE_M)))
    checker = CollisionChecker(cm, rover_footprint())
    dist, t_grid, c_grid = timed(lambda: grid_baseline(cm.lethal, cm.resolution))
    print(f"map {cm.width} x {cm.height} cells at {cm.resolution} m, {OBSTACLES} obstacles")
    print(f"costmap build (rasterize + distance field): {t_map:.3f} s wall, {c_map:.3f} s CPU")
    print(f"baseline: 8-connected grid Dijkstra (C):    {t_grid:.3f} s wall, {c_grid:.3f} s CPU "
          f"(point robot, {dist:.2f} m)")
    walls, cpus = [], []
    for n, (a, b) in enumerate(queries(checker)):
        path, t_plan, c_plan = timed(lambda a=a, b=b: smooth(checker, plan(checker, a, b)))
        walls.append(t_plan)
        cpus.append(c_plan)
        label = "corner to corner" if n == 0 else f"query {n}"
        print(f"Hybrid A* + smoothing, {label:16s}: {t_plan:.3f} s wall, {c_plan:.3f} s CPU  "
              f"({path.expansions} expansions, path {path.length:.2f} m for {math.dist(a[:2], b[:2]):.2f} m apart)")
    print(f"ratio planning / grid baseline (corner to corner): {walls[0] / t_grid:.2f} wall, {cpus[0] / c_grid:.2f} CPU; "
          f"worst query: {max(walls) / t_grid:.2f} wall, {max(cpus) / c_grid:.2f} CPU")


if __name__ == "__main__":
    main()
