"""Debug evidence of a navigation planning attempt: a PNG of the costmap, written atomically.

Black is lethal occupancy; cyan outlines are footprint samples along the path (the start in
green, the goal in magenta). North (+y) is up; one pixel is one costmap cell. PNG text chunks
hold the costmap origin, resolution, width and height, and the map and path revisions.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from PIL.PngImagePlugin import PngInfo

from luncosim_core.mission.costmap import Costmap
from luncosim_core.mission.footprint import Footprint
from luncosim_core.mission.hybrid_astar import NavigationPath

CYAN = (0, 200, 255)
GREEN = (0, 170, 0)
MAGENTA = (220, 0, 200)
SAMPLE_SPACING_M = 0.75


@dataclass(frozen=True)
class DebugEvidence:
    path: str
    sha256: str
    size: int
    width: int
    height: int
    map_revision: int
    path_revision: int | None

    def to_json(self) -> dict:
        return {"path": self.path, "sha256": self.sha256, "bytes": self.size, "width": self.width,
                "height": self.height, "map_revision": self.map_revision, "path_revision": self.path_revision}


def debug_dir(run_id: str) -> Path:
    """``<tempdir>/luncosim-navigation-debug/<sha256(run_id)[:16]>``."""
    digest = hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "luncosim-navigation-debug" / digest


def debug_path(run_id: str, ordinal: int, attempt: int) -> Path:
    return debug_dir(run_id) / f"mission-navigation-ordinal-{ordinal:08d}-attempt-{attempt:04d}.png"


def render(costmap: Costmap, footprint: Footprint | None, path: NavigationPath | None,
           start: tuple[float, float, float] | None, goal: tuple[float, float, float] | None) -> Image.Image:
    """The evidence picture (see the module doc)."""
    rgb = np.full((costmap.height, costmap.width, 3), 255, dtype=np.uint8)
    rgb[costmap.lethal] = 0
    img = Image.fromarray(rgb[::-1].copy(), "RGB")
    if footprint is None:
        return img
    draw = ImageDraw.Draw(img)
    ox, oy = costmap.origin
    res = costmap.resolution
    h = costmap.height

    def outline(pose, colour) -> None:
        placed = footprint.at(*pose)
        for poly in getattr(placed, "geoms", [placed]):
            xy = np.asarray(poly.exterior.coords)
            pts = [((x - ox) / res, h - (y - oy) / res) for x, y in xy]
            draw.line(pts, fill=colour, width=1)

    if path is not None and len(path.poses):
        for pose in sample_poses(path):
            outline(pose, CYAN)
    if start is not None:
        outline(start, GREEN)
    if goal is not None:
        outline(goal, MAGENTA)
    return img


def sample_poses(path: NavigationPath, spacing: float = SAMPLE_SPACING_M) -> list[tuple[float, float, float]]:
    """Poses along the path every ``spacing`` metres of travel or 30 degrees of turn, ends included."""
    out = [tuple(float(v) for v in path.poses[0])]
    travel = turn = 0.0
    for a, b in zip(path.poses[:-1], path.poses[1:], strict=True):
        travel += math.hypot(b[0] - a[0], b[1] - a[1])
        turn += abs(b[2] - a[2])
        if travel >= spacing or turn >= math.radians(30):
            out.append(tuple(float(v) for v in b))
            travel = turn = 0.0
    last = tuple(float(v) for v in path.poses[-1])
    if out[-1] != last:
        out.append(last)
    return out


def write_evidence(target: Path, img: Image.Image, costmap: Costmap, path: NavigationPath | None,
                   extra: dict[str, str] | None = None) -> DebugEvidence:
    """Encode ``img`` with its metadata and replace ``target`` atomically (temp file + rename)."""
    info = PngInfo()
    ox, oy = costmap.origin
    meta = {
        "costmap_origin": f"{float(ox)!r},{float(oy)!r}", "costmap_resolution": repr(float(costmap.resolution)),
        "costmap_width": str(costmap.width), "costmap_height": str(costmap.height),
        "map_revision": str(costmap.revision), "path_revision": "" if path is None else str(path.revision),
        **(extra or {}),
    }
    for k, v in meta.items():
        info.add_text(k, v)
    buf = io.BytesIO()
    img.save(buf, format="PNG", pnginfo=info, optimize=False, compress_level=6)
    data = buf.getvalue()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".png", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return DebugEvidence(str(target.resolve()), hashlib.sha256(data).hexdigest(), len(data), img.width, img.height,
                         costmap.revision, None if path is None else path.revision)
