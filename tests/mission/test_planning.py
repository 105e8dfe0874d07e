"""Costmap, footprint, Hybrid A*, track and debug evidence on maps of our own (no simulation)."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
import shapely
from PIL import Image

from luncosim_core.mission.costmap import rasterize
from luncosim_core.mission.debug_png import debug_path, render, write_evidence
from luncosim_core.mission.footprint import CollisionChecker, Footprint, minkowski_square
from luncosim_core.mission.frames import GroundFrame
from luncosim_core.mission.hybrid_astar import PlanningFailure, plan
from luncosim_core.mission.smoothing import SAFE_CLEARANCE_M, smooth
from luncosim_core.mission.track import time_parameterize
from luncosim_core.mission.tracking import PathFollower


def box_footprint(length=1.2, width=0.8) -> Footprint:
    poly = minkowski_square(shapely.box(-length / 2, -width / 2, length / 2, width / 2))
    coords = shapely.get_coordinates(poly)
    return Footprint(shapely.MultiPolygon([poly]), float(np.hypot(coords[:, 0], coords[:, 1]).max()),
                     width / 2 + 0.005)


def checker_for(obstacles, bounds=(0, 0, 12, 10)) -> CollisionChecker:
    return CollisionChecker(rasterize(list(obstacles), bounds), box_footprint())


def swept_clear(path, obstacles, fp: Footprint) -> bool:
    union = shapely.union_all([p for _n, p in obstacles])
    return all(not fp.at(*pose).intersects(union) for pose in path.poses)


def test_minkowski_square_is_exact_for_a_rotated_square():
    diamond = shapely.Polygon([(1, 0), (0, 1), (-1, 0), (0, -1)])
    grown = minkowski_square(diamond, 0.1)
    assert grown.bounds == pytest.approx((-1.1, -1.1, 1.1, 1.1))
    # the edge point (0.5, 0.5) moved by the square's corner (0.1, 0.1): exact, not a round/mitre offset
    assert grown.covers(shapely.Point(0.6, 0.6)) and not grown.covers(shapely.Point(0.605, 0.605))
    assert grown.covers(shapely.Point(1.1, 0.1)) and not grown.covers(shapely.Point(1.1, 0.105))


def test_rasterization_is_conservative_and_the_border_is_lethal():
    cm = rasterize([("/o", shapely.box(2.01, 2.01, 2.04, 2.04))], (0, 0, 4, 4))
    r, c = cm.cell(2.02, 2.02)
    assert cm.lethal[r, c] and cm.lethal[0].all() and cm.lethal[:, -1].all()
    assert cm.lethal.sum() - (2 * cm.width + 2 * cm.height - 4) <= 9  # within half a diagonal: its 3x3 block


def test_hybrid_astar_goes_around_a_wall_without_touching_it():
    wall = [("/Wall", shapely.box(5.7, 2.0, 6.3, 6.0))]
    ch = checker_for(wall)
    path = plan(ch, (2.0, 4.0, 0.0), (10.0, 4.0, 0.0))
    assert swept_clear(path, wall, ch.fp)
    assert path.poses[-1] == pytest.approx([10.0, 4.0, 0.0], abs=1e-9)
    smoothed = smooth(ch, path)
    assert swept_clear(smoothed, wall, ch.fp) and smoothed.length <= path.length + 1e-9
    assert set(np.unique(smoothed.directions)) <= {-1, 0, 1}


def test_reverse_is_used_when_it_is_the_only_way_out():
    # a dead-end bay open only behind the robot: it must back out, then drive to the goal
    bay = [("/L", shapely.box(3.0, 2.9, 7.0, 3.2)), ("/R", shapely.box(3.0, 4.8, 7.0, 5.1)),
           ("/End", shapely.box(6.7, 2.9, 7.0, 5.1))]
    ch = checker_for(bay)
    path = plan(ch, (6.0, 4.0, 0.0), (1.5, 4.0, 0.0), allow_rotation=False)
    assert (path.directions == -1).any()
    assert swept_clear(path, bay, ch.fp)


def test_goal_in_collision_names_the_obstacle_and_no_path_is_proved():
    rock = [("/Rock", shapely.box(8.0, 3.0, 9.0, 5.0))]
    with pytest.raises(PlanningFailure) as info:
        plan(checker_for(rock), (2.0, 4.0, 0.0), (8.5, 4.0, 0.0))
    assert info.value.code == "goal-in-collision" and info.value.obstacles == ("/Rock",)
    ring = [("/N", shapely.box(7, 6, 11, 6.3)), ("/S", shapely.box(7, 1.7, 11, 2)), ("/W", shapely.box(7, 1.7, 7.3, 6.3)),
            ("/E", shapely.box(10.7, 1.7, 11, 6.3))]
    with pytest.raises(PlanningFailure) as info:
        plan(checker_for(ring), (2.0, 4.0, 0.0), (9.0, 4.0, 0.0))
    assert info.value.code == "no-path"
    with pytest.raises(PlanningFailure) as info:
        plan(checker_for([]), (2.0, 4.0, 0.0), (30.0, 4.0, 0.0))
    assert info.value.code == "goal-outside-map"


def test_track_respects_limits_and_rounds_to_the_control_period():
    ch = checker_for([])
    path = plan(ch, (2.0, 4.0, 0.0), (9.0, 6.0, 1.0))
    period = 1.0 / 60.0
    track = time_parameterize(path, period, max_speed=8.0, max_yaw_rate=9.0)
    assert np.abs(track.speeds).max() <= 5.0 + 1e-9 and np.abs(track.yaw_rates).max() <= 3.0 + 1e-9
    assert track.duration / period == pytest.approx(round(track.duration / period), abs=1e-9)
    slow = time_parameterize(path, period, min_duration=60.0)
    assert slow.duration == pytest.approx(60.0) and slow.sample(0.0)[:3] == pytest.approx(tuple(path.poses[0]))


def test_frames_for_y_up_and_z_up_stages():
    z, y = GroundFrame("Z"), GroundFrame("Y")
    assert z.to_plane((1, 2, 3)) == (1, 2, 3) and y.to_plane((1, 3, -2)) == (1, 2, 3)
    assert y.to_world(1, 2, 3).tolist() == [1, 3, -2]
    for frame in (z, y):
        for yaw in (0.0, 0.7, -2.5):
            assert frame.yaw_of(frame.yaw_quat(yaw)) == pytest.approx(yaw)
    # +90 degrees about +Y turns +X to -Z, which is +y on the ground plane
    assert y.yaw_of((math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0)) == pytest.approx(math.pi / 2)


def test_debug_png_is_atomic_and_carries_its_metadata(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    wall = [("/Wall", shapely.box(5.7, 2.0, 6.3, 6.0))]
    ch = checker_for(wall)
    path = plan(ch, (2.0, 4.0, 0.0), (10.0, 4.0, 0.0))
    target = debug_path("run-1", 3, 2)
    digest = hashlib.sha256(b"run-1").hexdigest()[:16]
    assert target == tmp_path / "luncosim-navigation-debug" / digest / \
        "mission-navigation-ordinal-00000003-attempt-0002.png"
    ev = write_evidence(target, render(ch.map, ch.fp, path, (2.0, 4.0, 0.0), (10.0, 4.0, 0.0)), ch.map, path)
    data = target.read_bytes()
    assert ev.sha256 == hashlib.sha256(data).hexdigest() and ev.size == len(data)
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temp file left
    img = Image.open(target)
    assert img.size == (ch.map.width, ch.map.height) == (ev.width, ev.height)
    assert img.text["costmap_origin"] == "0.0,0.0" and img.text["costmap_resolution"] == "0.05"
    assert (img.text["costmap_width"], img.text["costmap_height"]) == ("240", "200")
    px = np.asarray(img.convert("RGB"))
    r, c = ch.map.cell(6.0, 4.0)
    assert px[ch.map.height - 1 - r, c].tolist() == [0, 0, 0]  # the wall is black, north up
    assert ((px == [0, 200, 255]).all(axis=2)).sum() > 100  # cyan footprint outlines


def drive_unicycle(path, ch: CollisionChecker, lag_s: float = 0.15, vmax: float = 1.0, wmax: float = 1.0):
    """Follow ``path`` with the tracking controller on a unicycle whose speed and yaw rate lag the
    commands (first order): the poses it drove and the follower."""
    dt = 1.0 / 60.0
    track = time_parameterize(path, dt, max_speed=vmax, max_yaw_rate=wmax, clearance=ch.clearance_many(path.poses))
    follower = PathFollower(track, vmax, wmax)
    x, y, yaw = path.poses[0]
    v = w = 0.0
    out = []
    for _ in range(int(4 * track.duration / dt) + 600):
        if follower.done:
            break
        cv, cw = follower.command(x, y, yaw)
        v += (cv - v) * dt / lag_s
        w += (cw - w) * dt / lag_s
        x, y, yaw = x + v * math.cos(yaw) * dt, y + v * math.sin(yaw) * dt, yaw + w * dt
        out.append((x, y, yaw, v))
    return np.array(out), follower


def test_the_tracker_follows_smoothed_paths_closely_without_touching():
    wall = [("/Wall", shapely.box(5.7, 2.0, 6.3, 6.0))]
    ch = checker_for(wall)
    path = smooth(ch, plan(ch, (2.0, 4.0, 0.0), (10.0, 4.0, 0.0)))
    drove, follower = drive_unicycle(path, ch)
    assert follower.done and follower.max_cross_track_m < 0.1
    assert swept_clear(type("P", (), {"poses": drove[:, :3]})(), wall, ch.fp)
    assert math.hypot(drove[-1, 0] - 10.0, drove[-1, 1] - 4.0) < 0.1
    assert follower.stops == 0  # around the wall and onto the goal heading without stopping to turn
    assert drove[len(drove) // 4:3 * len(drove) // 4, 3].min() > 0.2  # it keeps moving through the corners
    # a bay left backwards, with a turn in place outside it
    bay = [("/L", shapely.box(3.0, 2.9, 7.0, 3.2)), ("/R", shapely.box(3.0, 4.8, 7.0, 5.1)),
           ("/End", shapely.box(6.7, 2.9, 7.0, 5.1))]
    ch = checker_for(bay)
    path = smooth(ch, plan(ch, (6.0, 4.0, 0.0), (1.5, 6.5, math.pi)))
    assert (path.directions == -1).any()
    drove, follower = drive_unicycle(path, ch)
    assert follower.done and ch.assess(drove[:, :3])[0].all()


def test_smoothing_keeps_the_plans_clearance_and_its_start_and_goal_headings():
    rocks = [("/A", shapely.box(4.0, 1.0, 5.0, 4.6)), ("/B", shapely.box(7.0, 5.4, 8.0, 9.0)),
             ("/C", shapely.box(5.5, 6.5, 6.0, 7.0))]
    ch = checker_for(rocks)
    raw = plan(ch, (2.0, 2.0, 0.0), (10.0, 8.0, 0.0))
    smoothed = smooth(ch, raw)
    assert swept_clear(smoothed, rocks, ch.fp) and smoothed.length <= raw.length + 1e-9
    raw_clear = float(ch.clearance_many(raw.poses).min())
    assert float(ch.clearance_many(smoothed.poses).min()) >= min(SAFE_CLEARANCE_M, raw_clear) - 0.03
    if raw.directions[1] != 0:  # the search drove off without turning: so does the smoothed path
        assert smoothed.directions[1] != 0 and smoothed.poses[1, 2] == pytest.approx(0.0, abs=1e-9)
    if raw.directions[-1] != 0:
        assert smoothed.directions[-1] != 0
    # corners are arcs: the heading changes while driving, not only in place
    moving = smoothed.directions[1:] != 0
    assert (np.abs(np.diff(smoothed.poses[:, 2]))[moving] > 1e-6).any()


def test_without_rotation_in_place_the_plan_is_drivable_by_a_car():
    ch = checker_for([("/Rock", shapely.box(5.0, 3.0, 6.0, 5.0))])
    path = plan(ch, (2.0, 4.0, 0.0), (9.0, 4.0, math.pi / 2), allow_rotation=False)
    assert (path.directions[1:] != 0).all()  # never turns in place
    step = np.hypot(*np.diff(path.poses[:, :2], axis=0).T)
    turn = np.abs(np.diff(path.poses[:, 2]))
    assert (turn <= step / 0.9 + 1e-6).all()  # no tighter than the lattice's turning radius
    assert path.poses[-1] == pytest.approx([9.0, 4.0, math.pi / 2], abs=1e-6)  # a Reeds-Shepp shot ends it
    assert ch.assess(path.poses)[0].all()


def test_the_track_slows_on_arcs_and_near_obstacles():
    ch = checker_for([("/Wall", shapely.box(5.7, 2.0, 6.3, 6.0))])
    path = smooth(ch, plan(ch, (2.0, 4.0, 0.0), (10.0, 4.0, 0.0)))
    period = 1.0 / 60.0
    fast = time_parameterize(path, period, max_speed=1.0, max_yaw_rate=1.0)
    assert np.abs(fast.yaw_rates).max() <= 1.0 + 1e-9 and np.abs(fast.speeds).max() <= 1.0 + 1e-9
    careful = time_parameterize(path, period, max_speed=1.0, max_yaw_rate=1.0,
                                clearance=np.full(len(path.poses), 0.05))
    assert careful.duration > 1.5 * fast.duration


def test_smoothing_a_plan_to_the_pose_the_robot_stands_on():
    ch = checker_for([])
    path = plan(ch, (5.0, 5.0, 0.0), (5.0, 5.0, 0.0))  # a stretch with no length: no leg to shortcut
    smoothed = smooth(ch, path)
    assert smoothed.poses[-1] == pytest.approx([5.0, 5.0, 0.0], abs=1e-9) and smoothed.length < 1e-9
