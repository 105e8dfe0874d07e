"""Orthogonal routing of wires that have no ``Line`` points (Qt-free, diagram coordinates, y up).

A* on a coarse grid over the diagram: icons are obstacles (with a margin; crossing one costs so much
that a route does it only when boxed in), a turn costs more than a step, so routes are
few-cornered. Each end leaves its icon straight out (away from the icon's
middle) before the search starts. A search that finds nothing within its budget gives the plain
elbow, which is also what a wire shows while its icons are being dragged.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # x1, y1, x2, y2 with x1 <= x2, y1 <= y2

TURN = 4.0  # a corner costs this many steps
THROUGH = 25.0  # a step across an icon costs this many (a route crosses one only when boxed in)
GREED = 1.5  # the heuristic's weight: a little greedy, far fewer cells expanded, routes barely longer
BUDGET = 20_000  # cells a search may expand


def elbow(a: Point, b: Point) -> list[Point]:
    """Across, up or down, across: the route of a wire with no room to think."""
    mid = (a[0] + b[0]) / 2
    return simplify([a, (mid, a[1]), (mid, b[1]), b])


def simplify(points: list[Point]) -> list[Point]:
    """Drop repeated points and the middle of three on one line."""
    out: list[Point] = []
    for p in points:
        if out and abs(out[-1][0] - p[0]) < 1e-9 and abs(out[-1][1] - p[1]) < 1e-9:
            continue
        if len(out) >= 2:
            (x0, y0), (x1, y1) = out[-2], out[-1]
            if (abs(x0 - x1) < 1e-9 and abs(x1 - p[0]) < 1e-9) or (abs(y0 - y1) < 1e-9 and abs(y1 - p[1]) < 1e-9):
                out[-1] = p
                continue
        out.append(p)
    return out


def _inside(p: Point, r: Rect) -> bool:
    return r[0] < p[0] < r[2] and r[1] < p[1] < r[3]


def stub(port: Point, icon: Rect | None, margin: float) -> Point:
    """Where a wire leaving ``port`` is clear of its own ``icon``: straight out, away from the
    icon's middle along the axis the port is furthest along."""
    if icon is None:
        return port
    cx, cy = (icon[0] + icon[2]) / 2, (icon[1] + icon[3]) / 2
    dx, dy = port[0] - cx, port[1] - cy
    w, h = max(icon[2] - icon[0], 1e-9), max(icon[3] - icon[1], 1e-9)
    if abs(dx) / w >= abs(dy) / h:
        return (icon[2] + margin if dx >= 0 else icon[0] - margin, port[1])
    return (port[0], icon[3] + margin if dy >= 0 else icon[1] - margin)


@dataclass
class Router:
    """Obstacles of one diagram (its icons' rectangles), routing any number of wires."""

    icons: list[Rect]
    step: float = 2.0
    margin: float = 2.0

    def __post_init__(self) -> None:
        if self.icons:
            xs = [v for r in self.icons for v in (r[0], r[2])]
            ys = [v for r in self.icons for v in (r[1], r[3])]
            span = max(max(xs) - min(xs), max(ys) - min(ys))
            self.step = max(self.step, span / 160)  # a coarse grid: at most about 160 cells across
            self.bounds = (min(xs) - 40, min(ys) - 40, max(xs) + 40, max(ys) + 40)
        else:
            self.bounds = (-100.0, -100.0, 100.0, 100.0)
        self._blocked: set[tuple[int, int]] = set()
        m = self.margin
        for x1, y1, x2, y2 in self.icons:
            for i in range(self._cell(x1 - m), self._cell(x2 + m) + 1):
                for j in range(self._cell(y1 - m), self._cell(y2 + m) + 1):
                    self._blocked.add((i, j))

    def _cell(self, v: float) -> int:
        return round(v / self.step)

    def route(self, a: Point, b: Point, icon_a: Rect | None = None, icon_b: Rect | None = None) -> list[Point]:
        """An orthogonal path from ``a`` to ``b`` around the icons (``icon_a``/``icon_b``: the
        icons the ends belong to); the elbow when there is none within the budget."""
        sa, sb = stub(a, icon_a, self.margin * 2), stub(b, icon_b, self.margin * 2)
        path = self._search(sa, sb)
        if path is None:
            return elbow(a, b)
        return simplify([a, sa, *path, sb, b])

    def _search(self, a: Point, b: Point) -> list[Point] | None:
        start, goal = (self._cell(a[0]), self._cell(a[1])), (self._cell(b[0]), self._cell(b[1]))
        lo_i, lo_j = self._cell(self.bounds[0]), self._cell(self.bounds[1])
        hi_i, hi_j = self._cell(self.bounds[2]), self._cell(self.bounds[3])
        lo_i, hi_i = min(lo_i, start[0], goal[0]) - 2, max(hi_i, start[0], goal[0]) + 2
        lo_j, hi_j = min(lo_j, start[1], goal[1]) - 2, max(hi_j, start[1], goal[1]) + 2
        blocked = self._blocked
        free_ends = {start, goal}

        def h(c: tuple[int, int]) -> float:
            return abs(c[0] - goal[0]) + abs(c[1] - goal[1])

        # state: (cell, direction index); directions: 0 +x, 1 -x, 2 +y, 3 -y
        moves = ((1, 0), (-1, 0), (0, 1), (0, -1))
        best: dict[tuple[tuple[int, int], int], float] = {}
        came: dict[tuple[tuple[int, int], int], tuple[tuple[int, int], int] | None] = {}
        heap: list[tuple[float, float, tuple[int, int], int]] = []
        for d in range(4):
            best[(start, d)] = 0.0
            came[(start, d)] = None
            heapq.heappush(heap, (h(start), 0.0, start, d))
        expanded = 0
        while heap:
            _f, g, cell, d = heapq.heappop(heap)
            if cell == goal:
                return self._path((cell, d), came, a, b)
            if g > best.get((cell, d), float("inf")):
                continue
            expanded += 1
            if expanded > BUDGET:
                return None
            for nd, (di, dj) in enumerate(moves):
                if nd ^ 1 == d:  # no turning back
                    continue
                nxt = (cell[0] + di, cell[1] + dj)
                if not (lo_i <= nxt[0] <= hi_i and lo_j <= nxt[1] <= hi_j):
                    continue
                cost = THROUGH if nxt in blocked and nxt not in free_ends else 1.0
                ng = g + cost + (TURN if nd != d else 0.0)
                key = (nxt, nd)
                if ng < best.get(key, float("inf")):
                    best[key] = ng
                    came[key] = (cell, d)
                    heapq.heappush(heap, (ng + GREED * h(nxt), ng, nxt, nd))
        return None

    def _path(self, end, came, a: Point, b: Point) -> list[Point]:
        """The searched cells as corners, their first and last runs moved onto the stubs ``a``
        and ``b`` (which lie off the grid), so every segment stays horizontal or vertical."""
        cells = []
        state = end
        while state is not None:
            cells.append(state[0])
            state = came[state]
        cells.reverse()
        s = self.step
        pts = [list(p) for p in simplify([(i * s, j * s) for i, j in cells])]
        if len(pts) < 3:  # one straight run (or none): a plain elbow between the stubs
            return elbow(a, b)
        for end_pt, first, second in ((a, 0, 1), (b, -1, -2)):
            axis = 1 if abs(pts[first][1] - pts[second][1]) < 1e-9 else 0  # a horizontal run keeps its y
            pts[first][axis] = pts[second][axis] = end_pt[axis]
            pts[first][1 - axis] = end_pt[1 - axis]
        return simplify([a, *[(p[0], p[1]) for p in pts], b])
