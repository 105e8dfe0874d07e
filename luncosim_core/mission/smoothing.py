"""Path smoothing for robots that rotate in place: straight legs joined by arcs.

Within each stretch driven in one direction, the search's samples are shortcut into the longest
straight legs whose footprint samples are collision-free and keep at least
``min(SAFE_CLEARANCE_M, the clearance the search's own path had there)`` from obstacles, so
smoothing never brings the robot closer to an obstacle than the plan did where it was tight, and
never closer than ``SAFE_CLEARANCE_M`` where there was room. Where the search's path leaves the
start or reaches the goal driving (not turning in place), the first and last legs keep the start
and goal headings (a departure and an approach leg), so the robot need not stop to turn there.
Each corner between legs is then rounded by the widest circular arc (``FILLET_RADII_M``) that fits
the legs and passes the same checks; a corner no arc fits stays a rotation in place. Robots drive
through corners without stopping; they stop only where the travel direction changes and for
rotations in place.
"""

from __future__ import annotations

import math

import numpy as np

from luncosim_core.mission.footprint import CollisionChecker
from luncosim_core.mission.frames import wrap
from luncosim_core.mission.hybrid_astar import NavigationPath, rotation_rows, straight_rows
from luncosim_core.mission.lattice import SAMPLE_M

SAFE_CLEARANCE_M = 0.3
FILLET_RADII_M = (2.0, 1.2, 0.7, 0.4, 0.2)
END_LEGS_M = (1.0, 0.6, 0.3)  # departure/approach leg lengths tried, longest first
MAX_FILLET_TURN = math.radians(120.0)
END_CORNER = math.radians(50.0)  # the sharpest joint a departure/approach leg may make...
END_CORNER_REACH_M = 0.6  # ...measured toward the path this far beyond the leg
MIN_CORNER = math.radians(0.5)
SLACK_M = 0.03


def _runs(directions: np.ndarray) -> list[tuple[int, int, int]]:
    """(first, last, direction) pose-index runs of one travel direction; rotations in place join
    the run they sit in (a trailing rotation-only run has direction 0)."""
    out = []
    n = len(directions)
    i = 0
    while i < n - 1:
        d = next((int(v) for v in directions[i + 1:] if v != 0), 0)
        j = i + 1
        while j + 1 < n and int(directions[j + 1]) in (0, d):
            j += 1
        out.append((i, j, d))
        i = j
    return out


def _motion(heading: float, d: int) -> np.ndarray:
    """Unit vector of the motion of a robot with ``heading`` driving in direction ``d``."""
    m = heading + (math.pi if d < 0 else 0.0)
    return np.array([math.cos(m), math.sin(m)])


class _Stretch:
    """The distinct positions of one run and the clearance the search's path kept between them."""

    def __init__(self, pts: np.ndarray, seg_clear: np.ndarray) -> None:
        self.pts = pts  # (m, 2)
        self.seg_clear = seg_clear  # (m - 1,): min clearance of the search's samples from pts[k] to pts[k + 1]

    def need(self, a: int, b: int) -> float:
        return min(SAFE_CLEARANCE_M, float(self.seg_clear[a:b].min())) if b > a else SAFE_CLEARANCE_M

    def length(self, a: int, b: int) -> float:
        return float(np.hypot(*(self.pts[b] - self.pts[a])))


class _Smoother:
    def __init__(self, checker: CollisionChecker, path: NavigationPath) -> None:
        self.checker = checker
        self.poses = path.poses
        self.dirs = path.directions
        _free, self.clear = checker.assess(path.poses)

    def ok(self, rows: np.ndarray, need: float) -> bool:
        slack = min(SLACK_M, 0.1 * max(need, 0.0))  # in tight spots, hardly any
        return self.checker.rows_clear(rows[:, :3], need - slack, rows[:, 3] != 0)

    def stretch(self, first: int, last: int) -> _Stretch:
        poses = self.poses[first:last + 1]
        step = np.hypot(*np.diff(poses[:, :2], axis=0).T)
        keep = np.concatenate([[0], np.flatnonzero(step > 1e-9) + 1])
        if keep[-1] != len(poses) - 1:
            keep[-1] = len(poses) - 1
        clear = self.clear[first:last + 1]
        seg = np.array([clear[a:b + 1].min() for a, b in zip(keep[:-1], keep[1:], strict=True)])
        return _Stretch(poses[keep, :2].copy(), seg)

    def leg(self, pa, pb, d: int, yaw_in: float, need: float) -> float | None:
        """Heading of a straight leg from ``pa`` to ``pb`` (after a rotation at ``pa`` from
        ``yaw_in``), when its samples are valid."""
        heading = math.atan2(pb[1] - pa[1], pb[0] - pa[0]) + (math.pi if d < 0 else 0.0)
        heading = yaw_in + wrap(heading - yaw_in)
        if not self.ok(straight_rows(pa, pb, heading, d), need):
            return None
        if not self.ok(rotation_rows(pa[0], pa[1], yaw_in, heading - yaw_in), 0.0):
            return None
        return heading

    def end_leg(self, st: _Stretch, d: int, heading: float, at_start: bool) -> _Stretch:
        """``st`` with a departure (``at_start``) or approach leg along ``heading`` when one fits:
        the search's positions within its length are replaced by the leg's far end."""
        pts = st.pts
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
        total = float(s[-1])
        for length in END_LEGS_M:
            if length > 0.8 * total:
                continue
            if at_start:
                far = pts[0] + length * _motion(heading, d)
                rows = straight_rows(pts[0], far, heading, d)
                k = int(np.searchsorted(s, length))  # first position beyond the leg
                need = min(SAFE_CLEARANCE_M, float(st.seg_clear[:k].min()))
            else:
                far = pts[-1] - length * _motion(heading, d)
                rows = straight_rows(far, pts[-1], heading, d)
                k = int(np.searchsorted(s, total - length, side="right")) - 1  # last position before it
                need = min(SAFE_CLEARANCE_M, float(st.seg_clear[k:].min()))
            # the joint must stay a corner an arc can round: look at the path a little beyond it
            if at_start:
                other = pts[min(len(pts) - 1, int(np.searchsorted(s, length + END_CORNER_REACH_M)))]
                chord = other - far
            else:
                other = pts[max(0, int(np.searchsorted(s, total - length - END_CORNER_REACH_M)) - 1)]
                chord = far - other
            if abs(wrap(math.atan2(chord[1], chord[0]) - math.atan2(*_motion(heading, d)[::-1]))) > END_CORNER:
                continue
            if not self.ok(rows, need):
                continue
            if at_start:
                return _Stretch(np.concatenate([pts[:1], [far], pts[k:]]),
                                np.concatenate([[need], [need], st.seg_clear[k:]]))
            return _Stretch(np.concatenate([pts[:k + 1], [far], pts[-1:]]),
                            np.concatenate([st.seg_clear[:k], [need], [need]]))
        return st

    def shortcut(self, st: _Stretch, d: int, yaw_in: float, fixed_first: bool,
                 fixed_last: bool) -> list[tuple[int, int, float]] | None:
        """Legs (a, b, heading) over the stretch's positions, or None when a step cannot be
        straightened. ``fixed_first``/``fixed_last``: the first/last step is a departure/approach
        leg, kept as it is."""
        pts = st.pts
        legs: list[tuple[int, int, float]] = []
        yaw = yaw_in
        end = len(pts) - 1
        a = 0
        stop = end - 1 if fixed_last else end
        while a < end:
            if (a == 0 and fixed_first) or a >= stop:  # a kept leg: one step
                heading = self.leg(pts[a], pts[a + 1], d, yaw, st.need(a, a + 1))
                best = None if heading is None else (a + 1, heading)
            else:
                best = self._farthest(st, a, stop, d, yaw)
            if best is None:
                return None
            legs.append((a, best[0], best[1]))
            a, yaw = best
        return legs

    def _farthest(self, st: _Stretch, a: int, stop: int, d: int, yaw: float) -> tuple[int, float] | None:
        """The farthest position up to ``stop`` a valid straight leg from ``a`` reaches (gallop
        forward, then bisect between the last valid and the first invalid end), and its heading;
        in a tight spot, the next position with only collision-free samples asked for."""
        best = None
        step, lo, hi = 1, a, None
        while True:
            j = min(stop, lo + step) if hi is None else (lo + hi) // 2
            if j <= lo or (hi is not None and j >= hi):
                break
            heading = self.leg(st.pts[a], st.pts[j], d, yaw, st.need(a, j))
            if heading is None:
                hi = j
                continue
            best, lo = (j, heading), j
            if hi is None:
                if j == stop:
                    break
                step *= 2
        if best is None:
            heading = self.leg(st.pts[a], st.pts[a + 1], d, yaw, 0.0)
            best = None if heading is None else (a + 1, heading)
        return best

    def fillet(self, corner, h0: float, h1: float, t_max0: float, t_max1: float, d: int,
               need: float) -> tuple[np.ndarray, float] | None:
        """Arc rows rounding ``corner`` from heading ``h0`` to ``h1`` and the tangent length used on
        each side; None when no radius fits."""
        phi = wrap(h1 - h0)
        if abs(phi) < MIN_CORNER or abs(phi) > MAX_FILLET_TURN:
            return None
        u0 = _motion(h0, d)
        side = 1.0 if phi > 0 else -1.0  # the centre lies left of the motion when the heading turns left
        for radius in FILLET_RADII_M:
            t = radius * math.tan(abs(phi) / 2)
            if t > t_max0 or t > t_max1:
                continue
            p1 = np.asarray(corner) - t * u0
            centre = p1 + radius * side * np.array([-u0[1], u0[0]])
            n = max(2, int(math.ceil(radius * abs(phi) / SAMPLE_M)))
            f = np.arange(1, n + 1) / n
            a0 = math.atan2(p1[1] - centre[1], p1[0] - centre[0])
            ang = a0 + side * abs(phi) * f
            rows = np.stack([centre[0] + radius * np.cos(ang), centre[1] + radius * np.sin(ang),
                             h0 + phi * f, np.full(n, d)], axis=1)
            if self.ok(rows, need):
                return rows, t
        return None

    def assemble(self, st: _Stretch, legs, d: int, yaw: float) -> list[np.ndarray]:
        """Rows of the legs (after a rotation from ``yaw``), corners rounded where an arc fits."""
        pts = st.pts
        pieces = [rotation_rows(pts[0][0], pts[0][1], yaw, legs[0][2] - yaw)]
        lengths = [st.length(a, b) for a, b, _h in legs]
        used = 0.0  # tangent length taken from the current leg's start by the previous arc
        cur = pts[legs[0][0]]
        for n, (a, b, heading) in enumerate(legs):
            corner = pts[b]
            arc = None
            if n + 1 < len(legs):
                na, nb, nh = legs[n + 1]
                arc = self.fillet(corner, heading, nh, lengths[n] - used,
                                  lengths[n + 1] * (0.5 if n + 2 < len(legs) else 1.0), d,
                                  min(st.need(a, b), st.need(na, nb)))
            if arc is None:
                pieces.append(straight_rows(cur, corner, heading, d))
                cur = corner
                if n + 1 < len(legs):
                    pieces.append(rotation_rows(cur[0], cur[1], heading, wrap(legs[n + 1][2] - heading)))
                used = 0.0
            else:
                rows, t = arc
                entry = corner - t * _motion(heading, d)
                if math.hypot(*(entry - cur)) > 1e-9:
                    pieces.append(straight_rows(cur, entry, heading, d))
                pieces.append(rows)
                cur = rows[-1, :2].copy()
                used = t
        return pieces

    def run(self) -> np.ndarray | None:
        poses, dirs = self.poses, self.dirs
        n = len(poses)
        rows = [np.array([[*poses[0], 0.0]])]
        yaw = float(poses[0, 2])
        for first, last, d in _runs(dirs):
            if d == 0:  # only rotation left
                rows.append(np.concatenate([poses[first + 1:last + 1], np.zeros((last - first, 1))], axis=1))
                yaw = float(poses[last, 2])
                continue
            st = self.stretch(first, last)
            depart = first == 0 and dirs[1] != 0
            arrive = last == n - 1 and dirs[-1] != 0
            if depart:
                fitted = self.end_leg(st, d, yaw, at_start=True)
                depart, st = fitted is not st, fitted
            if arrive:
                fitted = self.end_leg(st, d, float(poses[-1, 2]), at_start=False)
                arrive, st = fitted is not st, fitted
            legs = self.shortcut(st, d, yaw, depart, arrive)
            if legs is None:
                return None
            if not legs:  # a stretch too short to hold a leg (a goal a few cm away): its samples as they are
                rows.append(np.concatenate([poses[first + 1:last + 1], np.full((last - first, 1), d)], axis=1))
                yaw = float(poses[last, 2])
                continue
            rows.extend(self.assemble(st, legs, d, yaw))
            yaw = legs[-1][2]
        goal_yaw = float(poses[-1, 2])
        end = rotation_rows(poses[-1, 0], poses[-1, 1], yaw, wrap(goal_yaw - yaw))
        if not self.ok(end, 0.0):
            return None
        rows.append(end)
        out = np.concatenate(rows)
        out[:, 2] = np.unwrap(out[:, 2])
        return out


def smooth(checker: CollisionChecker, path: NavigationPath) -> NavigationPath:
    """``path`` as straight legs joined by arcs or rotations in place (see the module doc); the
    path itself when it cannot be smoothed safely."""
    if len(path.poses) < 3:
        return path
    out = _Smoother(checker, path).run()
    if out is None:
        return path
    return NavigationPath(out[:, :3].copy(), out[:, 3].astype(np.int8), path.revision, path.expansions, path.cost)
