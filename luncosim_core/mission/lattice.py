"""The search lattice of Hybrid A*: heading bins and motion primitives, tabulated per heading.

Every primitive turns by a whole number of heading bins, so a search that starts at yaw ``y0``
only ever meets the headings ``y0 + k * HEADING_BIN``: the primitives' samples are rotated once
per heading ``k`` (:class:`PrimitiveTable`) and a successor is a table lookup plus a translation.
Positions stay continuous; the search keeps one node per (x bin, y bin, heading) of
``XY_BIN_M`` cells, independent of the costmap's resolution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

HEADINGS = 72
HEADING_BIN = 2.0 * math.pi / HEADINGS
XY_BIN_M = 0.25
STEP_M = 0.5
SAMPLE_M = 0.1
ARC_TURN_BINS = (0, 2, -2, 6, -6)  # heading change of an arc: 0, +-10, +-30 degrees over STEP_M
ROTATION_BINS = (3, -3, 9, -9)  # rotations in place: +-15, +-45 degrees
ROTATION_SAMPLE = math.radians(3.0)
REVERSE_FACTOR = 1.5
TURN_COST_M_PER_RAD = 0.05
ROTATION_COST_M_PER_RAD = 0.5


@dataclass(frozen=True)
class Primitive:
    direction: int  # +1 forward, -1 reverse, 0 rotation in place
    turn: int  # heading change in bins
    length: float  # metres travelled (0 for a rotation)
    base_cost: float  # cost before clearance


def primitives(allow_reverse: bool, allow_rotation: bool) -> list[Primitive]:
    out = []
    for d in ((1, -1) if allow_reverse else (1,)):
        for t in ARC_TURN_BINS:
            cost = STEP_M * (1.0 if d > 0 else REVERSE_FACTOR) + TURN_COST_M_PER_RAD * abs(t) * HEADING_BIN
            out.append(Primitive(d, d * t, STEP_M, cost))
    if allow_rotation:
        for t in ROTATION_BINS:
            out.append(Primitive(0, t, 0.0, abs(t) * HEADING_BIN * ROTATION_COST_M_PER_RAD))
    return out


def _local_samples(p: Primitive) -> np.ndarray:
    """(k, 3) samples (dx, dy, dyaw) of ``p`` from the pose (0, 0, 0); the last row is its end."""
    turn = p.turn * HEADING_BIN
    if p.direction == 0:
        n = max(2, int(math.ceil(abs(turn) / ROTATION_SAMPLE)))
        return np.array([(0.0, 0.0, turn * i / n) for i in range(1, n + 1)])
    n = max(2, int(math.ceil(p.length / SAMPLE_M)))
    s = p.direction * p.length * np.arange(1, n + 1) / n  # signed arc length
    if p.turn == 0:
        return np.stack([s, np.zeros(n), np.zeros(n)], axis=1)
    kappa = turn / (p.direction * p.length)  # heading change per signed metre
    th = kappa * s
    return np.stack([np.sin(th) / kappa, (1.0 - np.cos(th)) / kappa, th], axis=1)


class PrimitiveTable:
    """The primitives' samples and ends rotated to every heading ``y0 + k * HEADING_BIN``."""

    def __init__(self, prims: list[Primitive], yaw0: float) -> None:
        self.prims = prims
        local = [_local_samples(p) for p in prims]
        self.counts = np.array([len(s) for s in local])
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]])
        self.last = self.starts + self.counts - 1
        stack = np.concatenate(local)
        yaws = yaw0 + HEADING_BIN * np.arange(HEADINGS)
        c, s = np.cos(yaws)[:, None], np.sin(yaws)[:, None]
        self.yaws = yaws
        # (HEADINGS, samples, 3): offsets x, y and absolute yaw of every sample from heading k
        self.samples = np.empty((HEADINGS, len(stack), 3))
        self.samples[:, :, 0] = c * stack[:, 0] - s * stack[:, 1]
        self.samples[:, :, 1] = s * stack[:, 0] + c * stack[:, 1]
        self.samples[:, :, 2] = yaws[:, None] + stack[:, 2]
        self.turn = np.array([p.turn for p in prims])
        self.direction = np.array([p.direction for p in prims])
        self.length = np.array([p.length for p in prims])
        self.base_cost = np.array([p.base_cost for p in prims])

    def heading(self, k: int) -> float:
        return float(self.yaws[k % HEADINGS])
