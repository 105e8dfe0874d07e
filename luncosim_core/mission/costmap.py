"""A bounded 2D costmap of lethal occupancy, rasterized from projected obstacles.

Rasterization is conservative: a cell is lethal when an obstacle polygon touches any part of it
(its centre lies within half a cell diagonal of the polygon). The distance field (metres from each
cell centre to the nearest lethal cell centre) lets collision checks skip open space. Cell
(row, col) covers x in [ox + col*res, ox + (col+1)*res), y in [oy + row*res, ...): row 0 is the
lowest y. The map border counts as lethal: a plan never leaves the map.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from scipy import ndimage

RESOLUTION_M = 0.05
WINDOW_PADDING_M = 10.0
MAX_SIDE_M = 200.0

_revisions = itertools.count(1)


@dataclass
class Costmap:
    """Lethal occupancy on a regular grid (plain data: an overlay can draw it)."""

    origin: tuple[float, float]  # world x, y of the lower-left corner of cell (0, 0)
    resolution: float
    lethal: np.ndarray  # (height, width) bool
    sources: list[tuple[str, shapely.Polygon]] = field(default_factory=list, repr=False)
    revision: int = 0
    distance: np.ndarray | None = field(default=None, repr=False)

    @property
    def width(self) -> int:
        return int(self.lethal.shape[1])

    @property
    def height(self) -> int:
        return int(self.lethal.shape[0])

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        ox, oy = self.origin
        return ox, oy, ox + self.width * self.resolution, oy + self.height * self.resolution

    def contains(self, x: float, y: float) -> bool:
        xmin, ymin, xmax, ymax = self.bounds
        return xmin <= x < xmax and ymin <= y < ymax

    def cell(self, x: float, y: float) -> tuple[int, int]:
        return (int(math.floor((y - self.origin[1]) / self.resolution)),
                int(math.floor((x - self.origin[0]) / self.resolution)))

    def clearance(self, x: float, y: float) -> float:
        """Metres from (x, y)'s cell centre to the nearest lethal cell centre (0 outside the map)."""
        r, c = self.cell(x, y)
        if not (0 <= r < self.height and 0 <= c < self.width):
            return 0.0
        return float(self.distance[r, c])

    def obstacles_touching(self, polygon) -> list[str]:
        """Prim paths of the obstacles whose projection intersects ``polygon``."""
        return sorted({path for path, poly in self.sources if poly.intersects(polygon)})

    def to_json(self) -> dict:
        return {"origin": list(self.origin), "resolution": self.resolution, "width": self.width,
                "height": self.height, "revision": self.revision}


def map_window(extent: tuple[float, float, float, float], points: list[tuple[float, float]],
               padding: float = WINDOW_PADDING_M) -> tuple[float, float, float, float]:
    """The map's bounds: the world extent, cut to the box around ``points`` padded by ``padding``
    (at most ``MAX_SIDE_M`` a side, centred on the points)."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    wx0, wy0 = min(xs) - padding, min(ys) - padding
    wx1, wy1 = max(xs) + padding, max(ys) + padding
    for lo, hi, axis in ((wx0, wx1, 0), (wy0, wy1, 1)):
        if hi - lo > MAX_SIDE_M:
            mid = 0.5 * (lo + hi)
            lo, hi = mid - MAX_SIDE_M / 2, mid + MAX_SIDE_M / 2
        if axis == 0:
            wx0, wx1 = lo, hi
        else:
            wy0, wy1 = lo, hi
    x0, y0 = max(extent[0], wx0), max(extent[1], wy0)
    x1, y1 = min(extent[2], wx1), min(extent[3], wy1)
    return x0, y0, max(x1, x0 + RESOLUTION_M), max(y1, y0 + RESOLUTION_M)


def rasterize(obstacles, bounds: tuple[float, float, float, float], resolution: float = RESOLUTION_M) -> Costmap:
    """Rasterize ``(prim_path, polygon)`` pairs into a costmap covering ``bounds``."""
    x0, y0, x1, y1 = bounds
    width = max(1, int(math.ceil((x1 - x0) / resolution - 1e-9)))
    height = max(1, int(math.ceil((y1 - y0) / resolution - 1e-9)))
    lethal = np.zeros((height, width), dtype=bool)
    half_diag = resolution * math.sqrt(0.5)
    sources: list[tuple[str, shapely.Polygon]] = []
    window = shapely.box(x0, y0, x0 + width * resolution, y0 + height * resolution)
    for path, poly in obstacles:
        if not poly.intersects(window.buffer(half_diag)):
            continue
        sources.append((path, poly))
        grown = poly.buffer(half_diag, quad_segs=4)
        bx0, by0, bx1, by1 = grown.bounds
        c0 = max(0, int(math.floor((bx0 - x0) / resolution - 0.5)))
        c1 = min(width - 1, int(math.ceil((bx1 - x0) / resolution - 0.5)))
        r0 = max(0, int(math.floor((by0 - y0) / resolution - 0.5)))
        r1 = min(height - 1, int(math.ceil((by1 - y0) / resolution - 0.5)))
        if c1 < c0 or r1 < r0:
            continue
        cx = x0 + (np.arange(c0, c1 + 1) + 0.5) * resolution
        cy = y0 + (np.arange(r0, r1 + 1) + 0.5) * resolution
        gx, gy = np.meshgrid(cx, cy)
        shapely.prepare(grown)
        inside = shapely.contains_xy(grown, gx, gy)
        lethal[r0:r1 + 1, c0:c1 + 1] |= inside
    lethal[0, :] = lethal[-1, :] = True
    lethal[:, 0] = lethal[:, -1] = True
    distance = ndimage.distance_transform_edt(~lethal) * resolution
    return Costmap((x0, y0), resolution, lethal, sources, next(_revisions), distance)
