"""The viewport's mission overlay on a 40 m x 40 m costmap at 5 cm (800 x 800 cells), 50 obstacles.

The Mission panel publishes a drawing up to 20 times a second while a mission runs; each one
rebuilds the overlay's geometry (path, footprints, particles). Measures one overlay update when
the costmap is unchanged (its image is kept) against the update that builds the costmap image
(a new map), and against the baseline measured in the same run: copying the 800 x 800 lethal grid
once (``numpy`` copy, the least any per-frame rebuild of the map would cost). Ratios, not seconds:
the machine is shared.

Run: ``.venv/bin/python benchmarks/bench_mission_overlay.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_mission import GOAL, SIZE_M, START, obstacles, rover_footprint  # noqa: E402

from luncosim_core.mission.costmap import rasterize  # noqa: E402
from luncosim_core.mission.drawing import mission_drawing  # noqa: E402
from luncosim_core.mission.fluid import FluidStream  # noqa: E402
from luncosim_core.mission.footprint import CollisionChecker  # noqa: E402
from luncosim_core.mission.frames import GroundFrame  # noqa: E402
from luncosim_core.mission.hybrid_astar import plan  # noqa: E402
from luncosim_core.mission.runner import MissionOverlay  # noqa: E402
from luncosim_workbench.viewport.model.overlay_layers import MissionLayer, OverlayInputs  # noqa: E402
from luncosim_workbench.viewport.model.transforms import stage_to_view  # noqa: E402

REPEATS = 20


def best(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ch = CollisionChecker(rasterize(obstacles(), (0.0, 0.0, SIZE_M, SIZE_M)), rover_footprint())
    path = plan(ch, START, GOAL)
    overlay = MissionOverlay(costmap=ch.map, path=path, footprint=ch.fp)
    stream = FluidStream("f", "water", np.array([2.0, 2.0, 1.0]), np.array([1.0, 0.0, 0.0]),
                         np.array([0.0, 0.0, 1.0]), 60.0, 5.0, 1.5, 8.0, 3)
    overlay.fluids["f"] = (stream, 0.0)
    frame = GroundFrame("Z")
    s2v = stage_to_view("Z", 1.0)
    layer = MissionLayer()
    layer.update(OverlayInputs(None, s2v, 0.5, mission=mission_drawing(overlay, frame, 0.5)))

    def same_map() -> None:
        layer.update(OverlayInputs(None, s2v, 0.5, mission=mission_drawing(overlay, frame, 0.7)))

    def new_map() -> None:
        layer.image = None  # as for a fresh costmap
        layer.update(OverlayInputs(None, s2v, 0.5, mission=mission_drawing(overlay, frame, 0.7)))

    baseline = best(lambda: ch.map.lethal.copy())
    kept = best(same_map)
    rebuilt = best(new_map)
    print(f"costmap {ch.map.width} x {ch.map.height} cells, path {len(path.poses)} poses, "
          f"{len(stream.particles(0.7))} particles")
    print(f"baseline (copy the lethal grid): {baseline * 1e3:.3f} ms")
    print(f"overlay update, same costmap:    {kept * 1e3:.3f} ms  ({kept / baseline:.1f}x baseline)")
    print(f"overlay update, new costmap:     {rebuilt * 1e3:.3f} ms  ({rebuilt / baseline:.1f}x baseline)")


if __name__ == "__main__":
    main()
