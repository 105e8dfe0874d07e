"""Time parameterization: a navigation path becomes a multi-point control track.

Speeds stay under the fixed reference-track limits (5.0 m/s, 3.0 rad/s) and the robot's own
declared limits. On arcs the speed is held where the yaw rate stays within ``CURVE_RATE_SHARE``
of the limit; near obstacles (closer than ``SLOW_CLEARANCE_M``) it drops in proportion. Every
stretch driven in one direction starts and ends at rest with acceleration ramps (forward and
backward passes), so a robot drives through the smoothed corners without stopping. The total
interval is at least ``motion_duration_s`` when given and is rounded up to a whole multiple of
the control period (the track is stretched uniformly to fit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luncosim_core.mission.hybrid_astar import NavigationPath

TRACK_MAX_SPEED_M_S = 5.0
TRACK_MAX_YAW_RATE = 3.0
TRACK_ACCELERATION_M_S2 = 0.5
CURVE_RATE_SHARE = 0.8  # on arcs, the share of the yaw-rate limit the track may use
SLOW_CLEARANCE_M = 0.3  # closer to an obstacle than this, the track slows down...
SLOW_FRACTION = 0.25  # ...to this fraction of its speed at contact


@dataclass
class ControlTrack:
    times: np.ndarray  # (n,) seconds from the start, times[0] == 0
    poses: np.ndarray  # (n, 3) x, y, yaw (raw winding)
    directions: np.ndarray  # (n,) +1 forward, -1 reverse, 0 rotation reaching pose i
    speeds: np.ndarray  # (n,) signed forward speed reaching pose i
    yaw_rates: np.ndarray  # (n,) yaw rate reaching pose i
    period: float
    path_revision: int

    @property
    def duration(self) -> float:
        return float(self.times[-1])

    def sample(self, t: float) -> tuple[float, float, float, float, float]:
        """Reference (x, y, yaw, speed, yaw rate) at time ``t`` (clamped to the track)."""
        if t <= 0.0:
            return (*self.poses[0], 0.0, 0.0)
        if t >= self.times[-1]:
            return (*self.poses[-1], 0.0, 0.0)
        i = int(np.searchsorted(self.times, t, side="right"))
        t0, t1 = self.times[i - 1], self.times[i]
        f = (t - t0) / (t1 - t0) if t1 > t0 else 1.0
        p = self.poses[i - 1] + f * (self.poses[i] - self.poses[i - 1])
        return float(p[0]), float(p[1]), float(p[2]), float(self.speeds[i]), float(self.yaw_rates[i])

    def to_json(self) -> dict:
        return {"duration_s": self.duration, "period_s": self.period, "points": len(self.times),
                "path_revision": self.path_revision}


def time_parameterize(path: NavigationPath, period: float, *, max_speed: float = TRACK_MAX_SPEED_M_S,
                      max_yaw_rate: float = TRACK_MAX_YAW_RATE, min_duration: float | None = None,
                      acceleration: float = TRACK_ACCELERATION_M_S2,
                      clearance: np.ndarray | None = None) -> ControlTrack:
    """The control track of ``path`` (see the module doc); ``clearance`` (metres, per pose) slows
    the robot where it passes close to obstacles."""
    v_max = min(TRACK_MAX_SPEED_M_S, max_speed)
    w_max = min(TRACK_MAX_YAW_RATE, max_yaw_rate)
    poses = path.poses
    n = len(poses)
    d = np.zeros(n)
    dyaw = np.zeros(n)
    if n > 1:
        step = np.diff(poses, axis=0)
        d[1:] = np.hypot(step[:, 0], step[:, 1])
        dyaw[1:] = step[:, 2]
    dirs = path.directions.astype(int)
    # the speed limit of each step: the robot's, and on arcs the yaw rate it takes (with a reserve
    # for the tracking controller's corrections)
    limit = np.full(n, v_max)
    arc = (dirs != 0) & (d > 1e-9)
    limit[arc] = np.minimum(v_max, CURVE_RATE_SHARE * w_max * d[arc] / np.maximum(np.abs(dyaw[arc]), 1e-12))
    if clearance is not None:
        limit = limit * np.clip(np.asarray(clearance) / SLOW_CLEARANCE_M, SLOW_FRACTION, 1.0)
    # speed at each pose: from rest to rest over every one-direction run, within the limits
    v = np.zeros(n)
    for first, last in _motion_runs(dirs):
        seg = v[first - 1:last + 1]
        seg[1:] = limit[first:last + 1]
        seg[-1] = 0.0
        for k in range(1, len(seg)):  # accelerating forward
            seg[k] = min(seg[k], math.sqrt(seg[k - 1] ** 2 + 2.0 * acceleration * d[first - 1 + k]))
        for k in range(len(seg) - 2, 0, -1):  # braking backward
            seg[k] = min(seg[k], math.sqrt(seg[k + 1] ** 2 + 2.0 * acceleration * d[first + k]))
    times = np.zeros(n)
    for k in range(1, n):
        dt = abs(dyaw[k]) / w_max
        if dirs[k] != 0 and d[k] > 0:
            # a step starting and ending at rest takes the time of a triangular speed profile
            dt = max(dt, 2.0 * d[k] / max(v[k - 1] + v[k], math.sqrt(acceleration * d[k])))
        times[k] = times[k - 1] + dt
    total = float(times[-1])
    if min_duration is not None and total < min_duration:
        total = min_duration
    rounded = math.ceil(total / period - 1e-9) * period if total > 0 else period
    if times[-1] > 0:
        times = times * (rounded / times[-1])
    else:
        times[-1] = rounded
    speeds = np.zeros(n)
    rates = np.zeros(n)
    dt = np.diff(times)
    ok = dt > 0
    speeds[1:][ok] = (dirs[1:] * d[1:])[ok] / dt[ok]
    rates[1:][ok] = dyaw[1:][ok] / dt[ok]
    return ControlTrack(times, poses.copy(), path.directions.copy(), speeds, rates, period, path.revision)


def _motion_runs(dirs: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) pose indices of every run driven in one direction (first > 0)."""
    out = []
    i = 1
    n = len(dirs)
    while i < n:
        if dirs[i] == 0:
            i += 1
            continue
        j = i
        while j + 1 < n and dirs[j + 1] == dirs[i]:
            j += 1
        out.append((i, j))
        i = j + 1
    return out
