"""What a viewer draws for a running mission, as plain arrays in the stage's world frame.

:func:`mission_drawing` turns the runner's :class:`~luncosim_core.mission.runner.MissionOverlay`
(costmap, path, footprint, fluid streams) into a :class:`MissionDrawing`: the lethal grid with the
world corners it spans, the planned path as a polyline, the footprint outlines at samples along
the path, and the live fluid particles at one moment. The workbench viewport and
``luncosim render`` draw it; neither needs the planner's objects, and nothing here draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from luncosim_core.mission.frames import GroundFrame

FOOTPRINT_SAMPLES = 12  # footprint outlines drawn along a path (its ends included)


def _empty3() -> np.ndarray:
    return np.zeros((0, 3), np.float64)


@dataclass(frozen=True)
class MissionDrawing:
    """One moment of a mission, to draw (world metres, the stage's own axes).

    ``lethal`` is the costmap's (rows, cols) bool grid (the costmap's own array: never write to
    it; the same array in successive drawings means the same map), row 0 at the plane's low y; ``corners``
    holds the world points of the grid's (0,0), (cols,0) and (0,rows) cell corners (origin,
    +x edge end, +y edge end). ``path`` is a polyline; ``footprints`` segment pairs; ``particles``
    points. ``body_paths``/``positions``/``orientations`` are the poses of the mission's
    simulation at that moment (empty when the drawing carries none)."""

    tick: int = 0
    lethal: np.ndarray | None = None
    corners: np.ndarray | None = None  # (3, 3): origin, +x end, +y end
    path: np.ndarray = field(default_factory=_empty3)
    footprints: np.ndarray = field(default_factory=_empty3)
    particles: np.ndarray = field(default_factory=_empty3)
    body_paths: tuple[str, ...] = ()
    positions: np.ndarray = field(default_factory=_empty3)
    orientations: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float64))

    @property
    def empty(self) -> bool:
        return self.lethal is None and not len(self.path) and not len(self.particles)


def _footprint_segments(footprint, poses: np.ndarray, frame: GroundFrame, height: float) -> np.ndarray:
    """Segment pairs of the footprint's outlines at up to FOOTPRINT_SAMPLES poses of ``poses``."""
    if footprint is None or not len(poses):
        return _empty3()
    idx = np.unique(np.linspace(0, len(poses) - 1, min(FOOTPRINT_SAMPLES, len(poses))).round().astype(int))
    out: list[np.ndarray] = []
    for x, y, yaw in poses[idx]:
        placed = footprint.at(float(x), float(y), float(yaw))
        for poly in getattr(placed, "geoms", (placed,)):
            ring = np.asarray(poly.exterior.coords, np.float64)
            a, b = ring[:-1], ring[1:]
            pairs = np.stack([a, b], axis=1).reshape(-1, 2)
            out.append(np.array([frame.to_world(px, py, height) for px, py in pairs]))
    return np.concatenate(out) if out else _empty3()


def mission_drawing(overlay, frame: GroundFrame, time_s: float, *, tick: int = 0, poses=None) -> MissionDrawing:
    """The drawing of ``overlay`` (a ``MissionOverlay``) at simulated time ``time_s``.

    ``poses``: optional ``(body_paths, positions, orientations)`` of the simulation."""
    height = float(overlay.ground) + 0.02  # just above the floor, so the ground does not hide it
    lethal = corners = None
    cm = overlay.costmap
    if cm is not None:
        (ox, oy), r = cm.origin, cm.resolution
        lethal = cm.lethal  # shared, read-only: a costmap's grid is complete when it is built
        corners = np.array([frame.to_world(ox, oy, height), frame.to_world(ox + cm.width * r, oy, height),
                            frame.to_world(ox, oy + cm.height * r, height)])
    path = _empty3()
    footprints = _empty3()
    if overlay.path is not None and len(overlay.path.poses):
        poses_xy = np.asarray(overlay.path.poses, np.float64)
        path = np.array([frame.to_world(x, y, height + 0.01) for x, y, _yaw in poses_xy])
        footprints = _footprint_segments(overlay.footprint, poses_xy, frame, height + 0.01)
    live = [stream.particles(time_s - start) for _id, (stream, start) in sorted(overlay.fluids.items())]
    particles = np.concatenate(live) if live else _empty3()
    bodies, pos, orn = poses if poses is not None else ((), _empty3(), np.zeros((0, 4)))
    return MissionDrawing(tick, lethal, corners, path, footprints, particles, tuple(bodies),
                          np.asarray(pos, np.float64).reshape(-1, 3), np.asarray(orn, np.float64).reshape(-1, 4))
