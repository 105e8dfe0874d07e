"""Time parameterization: a navigation path becomes a multi-point control track.

Speeds stay under the fixed reference-track limits (5.0 m/s, 3.0 rad/s) and the robot's own
declared limits, with an acceleration ramp into and out of every stretch driven in one
direction. The total interval is at least ``motion_duration_s`` when given and is rounded up to a
whole multiple of the control period (the track is stretched uniformly to fit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luncosim_core.mission.hybrid_astar import NavigationPath

TRACK_MAX_SPEED_M_S = 5.0
TRACK_MAX_YAW_RATE = 3.0
TRACK_ACCELERATION_M_S2 = 0.5


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
                      acceleration: float = TRACK_ACCELERATION_M_S2) -> ControlTrack:
    """The control track of ``path`` (see the module doc)."""
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
    # speed at each pose: ramps from rest at both ends of every one-direction run
    v = np.zeros(n)
    i = 1
    while i < n:
        if dirs[i] == 0:
            i += 1
            continue
        j = i
        while j + 1 < n and dirs[j + 1] == dirs[i]:
            j += 1
        s = np.cumsum(d[i:j + 1])
        total = s[-1]
        run = np.minimum(v_max, np.sqrt(2 * acceleration * np.minimum(s, total - s + 1e-12)))
        v[i:j + 1] = run
        v[j] = 0.0
        i = j + 1
    times = np.zeros(n)
    for k in range(1, n):
        if dirs[k] == 0:
            dt = abs(dyaw[k]) / w_max
        else:
            avg = max(0.5 * (v[k - 1] if dirs[k - 1] == dirs[k] else 0.0) + 0.5 * v[k], 0.25 * v_max, 1e-3)
            dt = max(d[k] / avg, abs(dyaw[k]) / w_max)
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
