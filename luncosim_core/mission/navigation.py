"""One navigation motion, end to end: capture, plan, evidence, revalidate, track, settle.

1. C0: a collision-aware capture; the costmap and the robot's footprint come from it.
2. Hybrid A* plans a path (or fails naming why); the attempt's debug PNG is written atomically
   and ``mission.navigation.debug.attempt`` (``final: false``) is emitted, before anything else.
3. C1: a fresh capture revalidates the plan. Unchanged world: submit. Changed, and the path now
   collides (focused stale evidence): rebuild from a new C0 (at most ``MAX_REBUILDS`` times).
   Changed but the path stays clear: a bounded same-plan retry takes another capture one tick
   later and submits once the world holds still (at most ``MAX_SAME_PLAN_RETRIES`` times); a
   world still changing after them is a rebuild too. Past ``MAX_REBUILDS`` the motion fails
   closed (``stale-world``), as does any other failure.
4. The path is re-anchored to the robot's C1 pose, time-parameterized into a control track,
   ``mission.navigation.debug`` (``final: true``) is emitted for the attempt's PNG, and the
   tracking controller drives the robot through its ports to the goal, within tolerance and at
   rest. One ``motion_timeout_s`` covers planning (wall time) and execution (simulated time).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from luncosim_core.mission.capture import Capture, CaptureError, capture, changed_obstacles
from luncosim_core.mission.costmap import Costmap, map_window, rasterize
from luncosim_core.mission.debug_png import debug_path, render, write_evidence
from luncosim_core.mission.drives import Drive, DriveError, bind_drive
from luncosim_core.mission.footprint import CollisionChecker, Footprint, footprint_of
from luncosim_core.mission.frames import wrap
from luncosim_core.mission.hybrid_astar import NavigationPath, PlanningFailure, plan, straight_path
from luncosim_core.mission.smoothing import smooth
from luncosim_core.mission.taskfile import NavigationMotion
from luncosim_core.mission.track import ControlTrack, time_parameterize
from luncosim_core.mission.tracking import PathFollower

MAX_SAME_PLAN_RETRIES = 2
MAX_REBUILDS = 3
ANCHOR_TOLERANCE_M = 0.05
ANCHOR_TOLERANCE_RAD = math.radians(3.0)
K_SETTLE, K_SETTLE_YAW = 1.0, 2.5
SETTLE_SPEED_M_S = 0.3
SETTLE_ALIGN = math.radians(20.0)
REST_SPEED_M_S = 0.05
REST_YAW_RATE = 0.05
REST_TICKS = 15
PROGRESS_EVERY = 30


class MotionFailed(Exception):
    """A motion failed; ``code`` is stable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class NavigationContext:
    """What a navigation motion needs from its run."""

    runner: object  # MissionRunner: host, frame, events, run_id, overlay, check_run_limit()
    action: object
    ordinal: int
    robot: str


def navigate(ctx: NavigationContext, motion: NavigationMotion) -> dict:
    """Run one navigation motion; returns a summary or raises :class:`MotionFailed`."""
    run = ctx.runner
    host, frame = run.host, run.frame
    goal = (motion.pose.x, motion.pose.y, motion.pose.yaw)
    wall = 0.0
    tick0 = host.tick_count
    attempt = 0
    rebuilds = 0
    drive: Drive | None = None
    while True:
        attempt += 1
        w0 = time.perf_counter()
        c0 = _capture(host, frame, ctx.robot)
        if drive is None:
            try:
                drive = bind_drive(host, ctx.robot, frame, c0.base_body, c0.robot_bodies)
            except DriveError as exc:
                raise MotionFailed("no-drive", str(exc)) from None
        footprint = footprint_of(c0)
        if motion.solver is None:
            path = straight_path(c0.pose, goal)
            costmap = checker = evidence = None
        else:
            costmap, checker = _costmap(c0, footprint, goal)
            deadline = time.perf_counter() + motion.motion_timeout_s - wall - (host.tick_count - tick0) * host.dt
            path, evidence = _plan_with_evidence(ctx, motion, c0, costmap, checker, footprint, goal, attempt,
                                                 deadline)
        run.overlay.update(costmap=costmap, path=path, footprint=footprint, robot=ctx.robot, ground=c0.interval[0])
        wall += time.perf_counter() - w0
        _check_budget(motion, host, tick0, wall)
        if motion.solver is None:
            c1 = c0
            break
        w1 = time.perf_counter()
        outcome, c1 = _revalidate(ctx, c0, path, footprint, costmap)
        wall += time.perf_counter() - w1
        _check_budget(motion, host, tick0, wall)
        if outcome == "submit":
            break
        rebuilds += 1
        if rebuilds > MAX_REBUILDS:
            raise MotionFailed("stale-world", f"the world kept invalidating the plan: {MAX_REBUILDS} rebuilds "
                                              "from a new capture did not produce a path that stays clear")
        run.events.emit("mission.navigation.rebuild", host.tick_count, ordinal=ctx.ordinal, attempt=attempt,
                        reason=outcome)
    path = _reanchor(path, c1)
    clearance = checker.clearance_many(path.poses) if checker is not None else None
    track = time_parameterize(path, host.dt, max_speed=drive.max_speed, max_yaw_rate=drive.max_yaw_rate,
                              min_duration=motion.motion_duration_s, clearance=clearance)
    run.overlay.update(path=path, track=track)
    if evidence is not None:
        run.events.emit("mission.navigation.debug", host.tick_count, final=True, ordinal=ctx.ordinal,
                        attempt=attempt, **evidence.to_json())
    run.events.emit("mission.navigation.submitted", host.tick_count, ordinal=ctx.ordinal, attempt=attempt,
                    robot=ctx.robot, drive=drive.to_json(), track=track.to_json(), path_length_m=path.length,
                    goal={"x": goal[0], "y": goal[1], "yaw": goal[2]})
    final = _track(ctx, motion, drive, track, c1.base_body, goal, tick0, wall)
    return {"attempts": attempt, "path_length_m": round(path.length, 4), **final}


def _capture(host, frame, robot) -> Capture:
    try:
        return capture(host, frame, robot)
    except CaptureError as exc:
        raise MotionFailed("capture-failed", str(exc)) from None


def _costmap(c0: Capture, footprint: Footprint, goal) -> tuple[Costmap, CollisionChecker]:
    bounds = map_window(c0.extent, [c0.pose[:2], goal[:2]])
    costmap = rasterize([(p.prim_path, p.polygon) for p in c0.obstacles], bounds)
    return costmap, CollisionChecker(costmap, footprint)


def _plan_with_evidence(ctx: NavigationContext, motion: NavigationMotion, c0: Capture, costmap: Costmap,
                        checker: CollisionChecker, footprint: Footprint, goal, attempt: int, deadline: float):
    run = ctx.runner
    x0, y0, x1, y1 = c0.extent
    failure: PlanningFailure | None = None
    path: NavigationPath | None = None
    if not (x0 <= goal[0] <= x1 and y0 <= goal[1] <= y1):
        failure = PlanningFailure("goal-outside-map", f"goal ({goal[0]:.3f}, {goal[1]:.3f}) is outside the map: "
                                  f"the captured world spans [{x0:.2f}, {x1:.2f}] x [{y0:.2f}, {y1:.2f}] m")
    else:
        try:
            path = plan(checker, c0.pose, goal, allow_reverse=motion.solver.allow_reverse,
                        allow_rotation=motion.solver.allow_in_place_rotation, deadline=deadline)
            if motion.solver.allow_in_place_rotation:
                path = smooth(checker, path)
        except PlanningFailure as exc:
            failure = exc
    img = render(costmap, footprint, path, c0.pose, goal)
    target = debug_path(run.run_id, ctx.ordinal, attempt)
    evidence = write_evidence(target, img, costmap, path, {
        "run_id": run.run_id, "ordinal": str(ctx.ordinal), "attempt": str(attempt),
        "outcome": "planned" if failure is None else failure.code})
    run.evidence.append(evidence)
    run.events.emit("mission.navigation.debug.attempt", run.host.tick_count, final=False, ordinal=ctx.ordinal,
                    attempt=attempt, outcome="planned" if failure is None else failure.code, **evidence.to_json())
    if failure is not None:
        raise MotionFailed(failure.code, f"{failure} (debug evidence: {evidence.path})")
    run.events.emit("mission.navigation.plan", run.host.tick_count, ordinal=ctx.ordinal, attempt=attempt,
                    map=costmap.to_json(), path_revision=path.revision, path_length_m=round(path.length, 4),
                    expansions=path.expansions, obstacles=len(c0.obstacles),
                    interval=list(c0.interval), footprint={"r_out": footprint.r_out, "r_in": footprint.r_in})
    return path, evidence


def _revalidate(ctx: NavigationContext, c0: Capture, path: NavigationPath, footprint: Footprint,
                costmap: Costmap) -> tuple[str, Capture]:
    """'submit' (with the validating capture) or the reason a rebuild is needed."""
    run = ctx.runner
    host, frame = run.host, run.frame
    reference = c0
    for retry in range(MAX_SAME_PLAN_RETRIES + 1):
        c1 = _capture(host, frame, ctx.robot)
        changed = changed_obstacles(reference, c1)
        moved = _robot_moved(path, c1)
        if not changed and not moved and c1.payload_bodies == reference.payload_bodies:
            run.events.emit("mission.navigation.revalidated", host.tick_count, ordinal=ctx.ordinal, retry=retry,
                            capture=c1.digest())
            return "submit", c1
        cm1 = rasterize([(p.prim_path, p.polygon) for p in c1.obstacles], costmap.bounds, costmap.resolution)
        hit = CollisionChecker(cm1, footprint_of(c1)).first_collision(path.poses)
        run.events.emit("mission.navigation.stale", host.tick_count, ordinal=ctx.ordinal, retry=retry,
                        changed=changed, robot_moved=moved, path_blocked=hit is not None)
        if hit is not None or moved or c1.payload_bodies != reference.payload_bodies:
            why = "the robot moved" if moved else (
                f"the path is blocked at sample {hit} by a change in {', '.join(changed) or 'the world'}"
                if hit is not None else "the robot's payload changed")
            return why, c1
        if retry == MAX_SAME_PLAN_RETRIES:
            break
        host.tick()  # let the world settle for one tick, then capture again
        reference = c1
    return (f"the world kept changing during handoff ({MAX_SAME_PLAN_RETRIES} same-plan retries; "
            f"last change in {', '.join(changed) or 'the world'})"), c1


def _robot_moved(path: NavigationPath, c1: Capture) -> bool:
    x, y, yaw = c1.pose
    p = path.poses[0]
    return math.hypot(x - p[0], y - p[1]) > ANCHOR_TOLERANCE_M or abs(wrap(yaw - p[2])) > ANCHOR_TOLERANCE_RAD


def _reanchor(path: NavigationPath, c1: Capture) -> NavigationPath:
    """The path starting at the robot's actual pose (the raw yaw winding is kept)."""
    poses = path.poses.copy()
    x, y, yaw = c1.pose
    poses[0, 0], poses[0, 1] = x, y
    poses[0, 2] = poses[0, 2] + wrap(yaw - poses[0, 2])
    return NavigationPath(poses, path.directions.copy(), path.revision, path.expansions, path.cost)


def _check_budget(motion: NavigationMotion, host, tick0: int, wall: float) -> None:
    spent = (host.tick_count - tick0) * host.dt + wall
    if spent >= motion.motion_timeout_s:
        raise MotionFailed("timeout", f"motion_timeout_s {motion.motion_timeout_s:g} s exceeded after {spent:.2f} s "
                                      f"({wall:.2f} s planning, {(host.tick_count - tick0) * host.dt:.2f} s driving)")


def _state(host, frame, base: str) -> tuple[float, float, float, float, float]:
    pos, orn, lin, ang = host.body_state(base)
    x, y, _h = frame.to_plane(pos)
    yaw = frame.yaw_of(orn)
    vx, vy = frame.plane_vector(lin)
    return x, y, yaw, vx * math.cos(yaw) + vy * math.sin(yaw), frame.yaw_rate(ang)


def _settle(x: float, y: float, yaw: float, goal, yaw_goal: float, dist: float, tolerance: float,
            max_yaw_rate: float) -> tuple[float, float]:
    """After the track: (v, w) that bring the robot onto the goal and its heading. Off by more
    than half the tolerance, it turns toward the goal point (forward or backward, whichever is
    nearer) and creeps there; then it turns to the goal's heading."""
    if dist > 0.5 * tolerance:
        bearing = math.atan2(goal[1] - y, goal[0] - x)
        ahead = abs(wrap(bearing - yaw)) <= math.pi / 2
        err = wrap(bearing - yaw) if ahead else wrap(bearing + math.pi - yaw)
        w = float(np.clip(K_SETTLE_YAW * err, -max_yaw_rate, max_yaw_rate))
        if abs(err) > SETTLE_ALIGN:
            return 0.0, w
        speed = min(SETTLE_SPEED_M_S, K_SETTLE * dist) * math.cos(err)
        return (speed if ahead else -speed), w
    return 0.0, float(np.clip(K_SETTLE_YAW * wrap(yaw_goal - yaw), -max_yaw_rate, max_yaw_rate))


def _track(ctx: NavigationContext, motion: NavigationMotion, drive: Drive, track: ControlTrack, base: str,
           goal, tick0: int, wall: float) -> dict:
    """Follow the track (``tracking.PathFollower``), then settle at the goal, at rest."""
    run = ctx.runner
    host, frame = run.host, run.frame
    dt = host.dt
    follower = PathFollower(track, drive.max_speed, drive.max_yaw_rate)
    rest = 0
    ticks = 0
    yaw_goal = float(track.poses[-1, 2])
    try:
        while True:
            x, y, yaw, mv, mw = _state(host, frame, base)
            _check_budget(motion, host, tick0, wall)
            run.check_run_limit()
            dist = math.hypot(goal[0] - x, goal[1] - y)
            eyaw = wrap(goal[2] - yaw)
            follower.max_speed, follower.max_yaw_rate = drive.reach()
            v, w = follower.command(x, y, yaw)
            if follower.done:  # settle onto the goal (aiming at half the tolerance), then rest there
                v, w = _settle(x, y, yaw, goal, yaw_goal, dist, motion.position_tolerance_m, follower.max_yaw_rate)
                if dist <= 0.5 * motion.position_tolerance_m and abs(eyaw) <= 0.5 * motion.yaw_tolerance_rad:
                    v = w = 0.0
                if dist <= motion.position_tolerance_m and abs(eyaw) <= motion.yaw_tolerance_rad:
                    rest = rest + 1 if abs(mv) < REST_SPEED_M_S and abs(mw) < REST_YAW_RATE else 0
                    if rest >= REST_TICKS:
                        break
                else:
                    rest = 0
            drive.command(host, v, w, mv, mw, dt)
            if not host.tick():
                raise MotionFailed("simulation-stopped", f"the simulation stopped advancing: "
                                                         f"{getattr(host, 'fault', None) or 'waiting'}")
            ticks += 1
            if ticks % PROGRESS_EVERY == 0:
                run.events.emit("mission.motion.progress", host.tick_count, ordinal=ctx.ordinal,
                                fraction=round(follower.fraction, 4), distance_to_goal_m=round(dist, 4))
    finally:
        drive.stop(host)
    host.tick()  # admit the stop command
    x, y, yaw, _mv, _mw = _state(host, frame, base)
    return {"final_error_m": round(math.hypot(goal[0] - x, goal[1] - y), 4),
            "final_yaw_error_deg": round(math.degrees(abs(wrap(goal[2] - yaw))), 3),
            "drive_s": round((host.tick_count - tick0) * dt, 4), "planning_wall_s": round(wall, 4),
            "track_s": round(track.duration, 4), "max_cross_track_m": round(follower.max_cross_track_m, 4),
            "rotation_stops": follower.stops}
