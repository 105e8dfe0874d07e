"""The tracking controller: desired forward speed and yaw rate that follow a control track.

The track is split into legs: *drive* legs (one travel direction, straight stretches and arcs
alike) followed by pure pursuit at the track's speed profile, and *rotate* legs (rotations in
place) that turn to the track's heading. A rotation smaller than ``MERGE_TURN`` between two drive
legs of the same direction is left to pure pursuit, so the robot never stops for it. The
follower is plain Python over poses: the navigation loop feeds it the measured pose each tick and
hands its (v, w) to the robot's drive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luncosim_core.mission.frames import wrap
from luncosim_core.mission.track import ControlTrack

MERGE_TURN = math.radians(12.0)
DONE_M = 0.05
ROTATION_DONE = math.radians(3.0)
ALIGN_LIMIT = math.radians(45.0)
MIN_SPEED_M_S = 0.1
MIN_YAW_RATE = 0.15
K_ROTATE = 2.5
ROTATE_DECELERATION = 1.5  # rad/s^2: slowing into the target heading
LOOKAHEAD_MIN_M, LOOKAHEAD_MAX_M, LOOKAHEAD_S = 0.3, 1.2, 0.5
TURN_LOOKAHEAD = 0.35  # rad: lookahead time grows as 1 / yaw rate for robots slow to turn
WINDOW = 25  # progress search window, in track samples


@dataclass
class Leg:
    kind: str  # "drive" or "rotate"
    direction: int  # +1 / -1 for drive legs, 0 for rotate legs
    xy: np.ndarray  # (m, 2) drive: the polyline; rotate: the position
    s: np.ndarray  # (m,) arc length along the polyline
    speeds: np.ndarray  # (m,) |speed| of the track at each vertex
    yaw: float  # rotate: the target heading; drive: the heading at the end


def legs_of(track: ControlTrack) -> list[Leg]:
    """The track's legs (see the module doc)."""
    poses, dirs = track.poses, track.directions.astype(int)
    n = len(poses)
    runs = []
    i = 1
    while i < n:
        d = int(dirs[i])
        j = i
        while j + 1 < n and int(dirs[j + 1]) == d:
            j += 1
        runs.append([i, j, d])
        i = j + 1
    # a small rotation between drive runs of one direction joins them
    merged: list[list[int]] = []
    k = 0
    while k < len(runs):
        run = runs[k]
        if (run[2] == 0 and merged and merged[-1][2] != 0 and k + 1 < len(runs) and runs[k + 1][2] == merged[-1][2]
                and abs(float(poses[run[1], 2] - poses[run[0] - 1, 2])) < MERGE_TURN):
            merged[-1][1] = runs[k + 1][1]
            k += 2
            continue
        merged.append(list(run))
        k += 1
    # a small turn at either end is left to pure pursuit (start) or to settling (end)
    for end in (0, -1):
        if (len(merged) > 1 and merged[end][2] == 0
                and abs(float(poses[merged[end][1], 2] - poses[merged[end][0] - 1, 2])) < MERGE_TURN):
            merged.pop(end)
    legs = []
    for first, last, d in merged:
        if d == 0:
            legs.append(Leg("rotate", 0, poses[last, :2].copy(), np.zeros(1), np.zeros(1), float(poses[last, 2])))
            continue
        idx = np.arange(first - 1, last + 1)
        step = np.hypot(*np.diff(poses[idx, :2], axis=0).T)
        keep = np.concatenate([[True], step > 1e-9])
        idx = idx[keep]
        xy = poses[idx, :2].copy()
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(xy, axis=0).T))])
        legs.append(Leg("drive", d, xy, s, np.abs(track.speeds[idx]), float(poses[last, 2])))
    return legs


class PathFollower:
    """Pure pursuit over a track's legs; :meth:`command` gives (v, w) for the measured pose."""

    def __init__(self, track: ControlTrack, max_speed: float, max_yaw_rate: float,
                 acceleration: float = 0.5) -> None:
        self.legs = legs_of(track)
        self.max_speed = max_speed
        self.max_yaw_rate = max_yaw_rate
        self.acceleration = acceleration
        self.leg = 0
        self._i = 0
        self.max_cross_track_m = 0.0
        self.stops = 0  # rotate legs entered: the times the robot turned in place

    @property
    def done(self) -> bool:
        return self.leg >= len(self.legs)

    @property
    def fraction(self) -> float:
        return self.leg / max(1, len(self.legs))

    def command(self, x: float, y: float, yaw: float) -> tuple[float, float]:
        """Desired forward speed (m/s, + forward) and yaw rate (rad/s, + counter-clockwise)."""
        while not self.done:
            leg = self.legs[self.leg]
            got = self._rotate(leg, yaw) if leg.kind == "rotate" else self._drive(leg, x, y, yaw)
            if got is not None:
                return got
            self.leg += 1
            self._i = 0
            if not self.done and self.legs[self.leg].kind == "rotate":
                self.stops += 1
        return 0.0, 0.0

    def _rotate(self, leg: Leg, yaw: float) -> tuple[float, float] | None:
        err = wrap(leg.yaw - yaw)
        if abs(err) < ROTATION_DONE:
            return None
        rate = min(self.max_yaw_rate, K_ROTATE * abs(err), math.sqrt(2.0 * ROTATE_DECELERATION * abs(err)))
        return 0.0, math.copysign(max(rate, MIN_YAW_RATE), err)

    def _drive(self, leg: Leg, x: float, y: float, yaw: float) -> tuple[float, float] | None:
        xy, s = leg.xy, leg.s
        m = len(xy)
        if m < 2:
            return None
        p = np.array([x, y])
        lo, hi = self._i, min(m, self._i + WINDOW)
        i = lo + int(np.argmin(np.hypot(*(xy[lo:hi] - p).T)))
        self._i = i
        here, foot = _project(xy, s, i, p)
        self.max_cross_track_m = max(self.max_cross_track_m, float(np.hypot(*(p - foot))))
        total = float(s[-1])
        remaining = total - here
        end_dir = xy[-1] - xy[-2]
        end_dir = end_dir / max(float(np.hypot(*end_dir)), 1e-12)
        if remaining < DONE_M or (remaining < 0.3 and float(np.dot(p - xy[-1], end_dir)) > 0.0):
            return None
        v_ref = max(float(np.interp(here, s, leg.speeds)), MIN_SPEED_M_S)
        v_ref = min(v_ref, MIN_SPEED_M_S + math.sqrt(2.0 * self.acceleration * remaining), self.max_speed)
        # a robot slow to turn needs to look further ahead, or it weaves
        look = float(np.clip(LOOKAHEAD_MIN_M + v_ref * max(LOOKAHEAD_S, TURN_LOOKAHEAD / self.max_yaw_rate),
                             LOOKAHEAD_MIN_M, LOOKAHEAD_MAX_M))
        ahead = here + look
        if ahead <= total:
            target = np.array([np.interp(ahead, s, xy[:, 0]), np.interp(ahead, s, xy[:, 1])])
        else:  # past the end: a point on the end's tangent, so the robot arrives along it
            target = xy[-1] + (ahead - total) * end_dir
        heading = yaw + (math.pi if leg.direction < 0 else 0.0)
        alpha = wrap(math.atan2(target[1] - y, target[0] - x) - heading)
        if abs(alpha) > ALIGN_LIMIT:  # far off the path's heading: turn toward it first
            return 0.0, float(np.clip(K_ROTATE * alpha, -self.max_yaw_rate, self.max_yaw_rate))
        kappa = 2.0 * math.sin(alpha) / look
        speed = v_ref * max(0.25, 1.0 - abs(alpha) / ALIGN_LIMIT)  # off the path's heading: slow down to turn
        if abs(kappa) > 1e-9:
            speed = min(speed, self.max_yaw_rate / abs(kappa))
        return leg.direction * speed, speed * kappa


def _project(xy: np.ndarray, s: np.ndarray, i: int, p: np.ndarray) -> tuple[float, np.ndarray]:
    """Arc length and foot of the projection of ``p`` onto the segments next to vertex ``i``."""
    best = (math.inf, float(s[i]), xy[i])
    for j in (i - 1, i):
        if j < 0 or j + 1 >= len(xy):
            continue
        u = xy[j + 1] - xy[j]
        seg2 = float(u @ u)
        t = float(np.clip(np.dot(p - xy[j], u) / max(seg2, 1e-12), 0.0, 1.0))
        foot = xy[j] + t * u
        dist = float(np.hypot(*(p - foot)))
        if dist < best[0]:
            best = (dist, float(s[j] + t * math.sqrt(seg2)), foot)
    return best[1], best[2]
