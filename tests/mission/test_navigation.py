"""Missions on a live simulation of our own yard: navigation, failures with evidence, a retry
after the world changes, attachments, visual fluid, and the command line."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from luncosim_core.api.commands import SetPorts
from luncosim_core.mission import MissionRunner, SimulationHost, parse_task_text
from luncosim_core.mission.fluid import FluidStream
from luncosim_core.sim.simulation import open_simulation
from tests.mission.yard import NAV_HEAD, block, crate, demo_rover_yard, yard

REPO = Path(__file__).resolve().parents[2]


class WatchedHost(SimulationHost):
    """Records, every tick, whether any watched obstacle touches anything."""

    def __init__(self, sim, watch: tuple[str, ...]) -> None:
        super().__init__(sim)
        self.watch = watch
        self.touches: list[tuple[int, str]] = []

    def tick(self) -> bool:
        ok = super().tick()
        for path in self.watch:
            if self.sim.read(path, "contact"):
                self.touches.append((self.sim.tick_count, path))
        return ok


def nav_task(aliases: str, *steps: str) -> str:
    return NAV_HEAD + f"scenario:\n  aliases: {aliases}\n  behavior:\n    task:\n" + "".join(steps)


def go(name: str, x: float, y: float, yaw: float = 0.0, robot: str = "rover") -> str:
    return (f"      - name: {name}\n        type: navigate\n        robot: {robot}\n        motions:\n"
            f"          navigate: {{kind: navigation, solver_profile: navigation, pose: {{x: {x}, y: {y}, yaw: {yaw}}}}}\n")


@pytest.fixture
def debug_tmp(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "tmp"


def run(scene: Path, text: str, watch=(), listeners=()):
    sim = open_simulation(scene)
    host = WatchedHost(sim, watch)
    for _ in range(20):  # let the rover settle on its wheels
        host.tick()
    runner = MissionRunner(host, parse_task_text(text), run_id="test-run", listeners=listeners)
    return runner.run(), host, sim


def test_navigation_around_an_obstacle_arrives_without_contact(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Wall", 3.0, 0.0, 0.6, 3.0),))
    result, host, sim = run(scene, nav_task("{rover: /Yard/Rover, wall: /Yard/Wall}", go("go", 6.0, 0.0)),
                            watch=("/Yard/Wall",))
    try:
        assert result.result == "success", result.actions
        assert host.touches == []  # the wall was never touched
        pose = result.final_poses["rover"]
        assert math.hypot(pose["x"] - 6.0, pose["y"]) <= 0.3 and abs(pose["yaw"]) <= math.radians(10)
        assert set(result.final_poses) == {"rover", "wall"}
        names = [e.name for e in result.events]
        for expected in ("mission.navigation.debug.attempt", "mission.navigation.debug", "mission.navigation.submitted",
                         "mission.motion.completed", "mission.action.completed", "mission.run.completed"):
            assert expected in names
        attempt = next(e for e in result.events if e.name == "mission.navigation.debug.attempt").payload
        final = next(e for e in result.events if e.name == "mission.navigation.debug").payload
        assert attempt["final"] is False and final["final"] is True and attempt["path"] == final["path"]
        assert Path(final["path"]).parent.parent == debug_tmp / "luncosim-navigation-debug"
        assert Path(final["path"]).name == "mission-navigation-ordinal-00000001-attempt-0001.png"
        assert Image.open(final["path"]).size == (final["width"], final["height"])
    finally:
        sim.close()


def test_goal_in_collision_and_no_path_fail_with_evidence(tmp_path, debug_tmp):
    pen = (block("Z", "PenN", 6.0, 2.0, 3.0, 0.3), block("Z", "PenS", 6.0, -2.0, 3.0, 0.3),
           block("Z", "PenW", 4.5, 0.0, 0.3, 4.3), block("Z", "PenE", 7.5, 0.0, 0.3, 4.3),
           block("Z", "Rock", -3.0, 3.0, 1.0, 1.0))
    scene = yard(tmp_path / "yard.usda", "Z", pen)
    aliases = "{rover: /Yard/Rover}"
    result, host, sim = run(scene, nav_task(aliases, go("into-rock", -3.0, 3.0), go("never", 1.0, 0.0)))
    try:
        assert result.result == "failure"
        first, second = result.actions
        assert first.result == "failure" and first.reason.startswith("goal-in-collision")
        assert "/Yard/Rock" in first.reason and second.result == "skipped"
        evidence = [e.payload for e in result.events if e.name == "mission.navigation.debug.attempt"]
        assert [e["outcome"] for e in evidence] == ["goal-in-collision"] and Path(evidence[0]["path"]).is_file()
        assert not any(e.name == "mission.navigation.debug" for e in result.events)  # nothing submitted
        runner = MissionRunner(host, parse_task_text(nav_task(aliases, go("inside-pen", 6.0, 0.0))), run_id="r2")
        result2 = runner.run()
        (action,) = result2.actions
        assert action.result == "failure" and action.reason.startswith("no-path"), action.reason
        (ev,) = [e.payload for e in result2.events if e.name == "mission.navigation.debug.attempt"]
        assert ev["outcome"] == "no-path" and Path(ev["path"]).is_file() and ev["path_revision"] is None
    finally:
        sim.close()


def test_an_obstacle_moved_between_plan_and_handoff_triggers_a_rebuild(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Cart", 2.0, 4.0, 0.8, 0.8),))
    moved = []

    def move_cart(event) -> None:  # someone pushes the cart onto the path right after planning
        if event.name == "mission.navigation.debug.attempt" and event.payload["attempt"] == 1:
            sim_ref[0].world.move_kinematic("/Yard/Cart", [2.0, 0.0, 0.4])
            moved.append(event.tick)

    sim_ref = []
    original = open_simulation

    def opening(scene_path):
        s = original(scene_path)
        sim_ref.append(s)
        return s

    globals()["open_simulation"] = opening
    try:
        result, host, sim = run(scene, nav_task("{rover: /Yard/Rover, cart: /Yard/Cart}", go("go", 4.0, 0.0)),
                                watch=("/Yard/Cart",), listeners=(move_cart,))
    finally:
        globals()["open_simulation"] = original
    try:
        assert moved and result.result == "success", result.actions
        names = [e.name for e in result.events]
        stale = next(e.payload for e in result.events if e.name == "mission.navigation.stale")
        assert stale["changed"] == ["/Yard/Cart"] and stale["path_blocked"] is True
        assert "mission.navigation.rebuild" in names
        attempts = [e.payload for e in result.events if e.name == "mission.navigation.debug.attempt"]
        assert [a["attempt"] for a in attempts] == [1, 2]
        assert attempts[0]["path"] != attempts[1]["path"] and all(Path(a["path"]).is_file() for a in attempts)
        final = next(e.payload for e in result.events if e.name == "mission.navigation.debug")
        assert final["attempt"] == 2 and final["path"] == attempts[1]["path"]
        assert host.touches == []
        cart = result.final_poses["cart"]
        assert (cart["x"], cart["y"]) == pytest.approx((2.0, 0.0), abs=1e-6)
    finally:
        sim.close()


def _run_moving(scene: Path, text: str, mover, watch=()):
    """Run ``text`` with ``mover(sim, event)`` called on every mission event (someone in the world
    acting while the mission plans and hands off)."""
    sim = open_simulation(scene)
    host = WatchedHost(sim, watch)
    for _ in range(20):
        host.tick()
    runner = MissionRunner(host, parse_task_text(text), run_id="test-run", listeners=(lambda e: mover(sim, e),))
    return runner.run(), host, sim


def test_a_change_off_the_path_gets_a_same_plan_retry_and_submits_without_a_rebuild(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Cart", 2.0, 4.0, 0.8, 0.8),))

    def nudge(sim, event) -> None:  # the cart moves once, far from the path, right after planning
        if event.name == "mission.navigation.debug.attempt":
            sim.world.move_kinematic("/Yard/Cart", [2.0, 5.0, 0.4])

    result, host, sim = _run_moving(scene, nav_task("{rover: /Yard/Rover, cart: /Yard/Cart}", go("go", 4.0, 0.0)),
                                    nudge)
    try:
        assert result.result == "success", result.actions
        stale = [e.payload for e in result.events if e.name == "mission.navigation.stale"]
        assert [(s["retry"], s["changed"], s["path_blocked"]) for s in stale] == [(0, ["/Yard/Cart"], False)]
        (ok,) = [e.payload for e in result.events if e.name == "mission.navigation.revalidated"]
        assert ok["retry"] == 1  # the same plan, submitted once the world held still
        names = [e.name for e in result.events]
        assert "mission.navigation.rebuild" not in names
        assert [e.payload["attempt"] for e in result.events if e.name == "mission.navigation.debug.attempt"] == [1]
    finally:
        sim.close()


def test_a_world_still_changing_after_the_same_plan_retries_is_rebuilt(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Cart", 2.0, 4.0, 0.8, 0.8),))
    attempt = [0]

    def keep_moving(sim, event) -> None:  # off the path, but on the move through the first handoff
        if event.name == "mission.navigation.debug.attempt":
            attempt[0] = event.payload["attempt"]
        if attempt[0] == 1 and event.name in ("mission.navigation.debug.attempt", "mission.navigation.stale"):
            sim.world.move_kinematic("/Yard/Cart", [2.0, 4.0 + 0.5 * (1 + len(moves)), 0.4])
            moves.append(event.tick)

    moves: list[int] = []
    result, host, sim = _run_moving(scene, nav_task("{rover: /Yard/Rover, cart: /Yard/Cart}", go("go", 4.0, 0.0)),
                                    keep_moving)
    try:
        assert result.result == "success", result.actions
        stale = [e.payload for e in result.events if e.name == "mission.navigation.stale"]
        assert [s["retry"] for s in stale] == [0, 1, 2] and not any(s["path_blocked"] for s in stale)
        (rebuild,) = [e.payload for e in result.events if e.name == "mission.navigation.rebuild"]
        assert rebuild["attempt"] == 1 and "kept changing during handoff" in rebuild["reason"]
        assert [e.payload["attempt"] for e in result.events if e.name == "mission.navigation.debug.attempt"] == [1, 2]
        final = next(e.payload for e in result.events if e.name == "mission.navigation.debug")
        assert final["attempt"] == 2
    finally:
        sim.close()


def test_start_in_collision_and_goal_outside_the_map_fail_with_evidence(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Cart", 3.0, 4.0, 0.4, 0.4),))

    def park_on_the_rover(sim, event) -> None:
        if event.name == "mission.action.started":
            sim.world.move_kinematic("/Yard/Cart", [0.4, 0.0, 0.2])

    aliases = "{rover: /Yard/Rover, cart: /Yard/Cart}"
    result, host, sim = _run_moving(scene, nav_task(aliases, go("boxed-in", 3.0, 0.0)), park_on_the_rover)
    try:
        (action,) = result.actions
        assert action.result == "failure" and action.reason.startswith("start-in-collision"), action.reason
        assert "/Yard/Cart" in action.reason
        (ev,) = [e.payload for e in result.events if e.name == "mission.navigation.debug.attempt"]
        assert ev["outcome"] == "start-in-collision" and Path(ev["path"]).is_file()
        sim.world.move_kinematic("/Yard/Cart", [3.0, 4.0, 0.2])
        far = MissionRunner(host, parse_task_text(nav_task(aliases, go("far", 500.0, 0.0))), run_id="r2").run()
        (action,) = far.actions
        assert action.result == "failure" and action.reason.startswith("goal-outside-map"), action.reason
        (ev,) = [e.payload for e in far.events if e.name == "mission.navigation.debug.attempt"]
        assert ev["outcome"] == "goal-outside-map" and Path(ev["path"]).is_file()
        assert not any(e.name == "mission.navigation.debug" for e in far.events)
    finally:
        sim.close()


def test_attach_carries_the_crate_and_detach_releases_it_on_a_y_up_stage(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Y", (crate("Y", "Crate", 0.0, 0.9, 0.15),))
    attach = ("      - name: grab\n        type: physical_attachment\n        robot: rover\n        motions:\n"
              "          change: {kind: physical_attachment, operation: attach, object: crate, link: Chassis}\n")
    detach = ("      - name: drop\n        type: physical_attachment\n        robot: rover\n        motions:\n"
              "          change: {kind: physical_attachment, operation: detach, object: crate}\n")
    result, host, sim = run(scene, nav_task("{rover: /Yard/Rover, crate: /Yard/Crate}", attach, go("carry", 1.5, 0.0),
                                            detach))
    try:
        assert result.result == "success", result.actions
        changes = [e.payload for e in result.events if e.name == "mission.attachment.changed"]
        assert [c["operation"] for c in changes] == ["attach", "detach"]
        assert changes[0]["link"] == "/Yard/Rover/Chassis" and changes[0]["body"] == "/Yard/Crate"
        assert sim.world.attachments() == {}
        crate_pose, rover = result.final_poses["crate"], result.final_poses["rover"]
        assert crate_pose["x"] == pytest.approx(rover["x"], abs=0.1)  # it came along
        assert crate_pose["y"] - rover["y"] == pytest.approx(0.9, abs=0.1)  # y is -Z on a Y-up stage
        assert rover["x"] == pytest.approx(1.5, abs=0.3)
    finally:
        sim.close()


def test_fill_dispenses_deterministic_visual_particles(tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (crate("Z", "Faucet", 3.0, 3.0, 0.15),))
    fill = """      - name: fill-cup
        type: fill
        robot: rover
        motions:
          pre_fill: null
          fill: {kind: pose, solver_profile: navigation, pose: {x: 0.0, y: 0.0, yaw: 0.0}}
          dispense:
            kind: fluid
            verification: visual_only
            renderer: visualization_overlay
            source: {kind: entity, entity: faucet, position_m: [0.0, 0.0, 0.8], direction: [0.0, 0.0, -1.0],
                     inherit_velocity: false}
            fluid: water
            rate_ml_s: 40.0
            volume_ml: 12.0
            seed: 23
          retreat: null
"""
    result, host, sim = run(scene, nav_task("{rover: /Yard/Rover, faucet: /Yard/Faucet}", fill))
    try:
        assert result.result == "success", result.actions
        liquid = [e for e in result.events if e.name.startswith("mission.liquid.")]
        assert [e.name for e in liquid] == ["mission.liquid.requested", "mission.liquid.started",
                                            "mission.liquid.settled"]
        assert all(not e.payload[k] for e in liquid for k in ("claims_particle_state", "claims_reservoir_state",
                                                              "claims_received_volume"))
        started, settled = liquid[1], liquid[2]
        assert settled.tick - started.tick == 18  # 12 ml at 40 ml/s = 0.3 s = 18 ticks at 60 Hz
        stream = started.payload["stream"]
        assert stream["outlet"] == pytest.approx([3.0, 3.0, 0.95], abs=0.01)
        assert settled.payload["clear_receipt"]["cleared"] is True
        again = FluidStream("x", "water", np.array(stream["outlet"]), np.array(stream["direction"]),
                            np.array([0.0, 0.0, 1.0]), 40.0, 0.3, 0.35, 6.0, 23)
        assert again.digest() == stream["digest"] and again.count == stream["particles"] == 24
        pts = again.particles(0.2)
        assert len(pts) and (pts[:, 2] < 3.0 + 0.95).all()  # falling from the outlet
    finally:
        sim.close()


def test_cli_mission_run_json_and_exit_codes(tmp_path):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Rock", 4.0, 4.0, 0.5, 0.5),))
    good = tmp_path / "good.yaml"
    good.write_text(nav_task("{rover: /Yard/Rover, rock: /Yard/Rock}", go("hop", 1.0, 0.0)))
    bad = tmp_path / "bad.yaml"
    bad.write_text(nav_task("{rover: /Yard/Rover}", go("hop", 1.0, 0.0).replace("yaw: 0.0", "yaw: 0.0, z: 2")))
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)}
    cli = [sys.executable, "-m", "luncosim_core.cli", "mission", "run", "--scene", str(scene), "--json"]
    out = subprocess.run([*cli, "--task", str(bad)], capture_output=True, text=True, env=env, timeout=200)
    assert out.returncode == 2, out.stderr
    doc = json.loads(out.stdout)
    assert doc["result"] == "failure" and doc["errors"][0]["path"].endswith("pose.z")
    out = subprocess.run([*cli, "--task", str(good), "--out", str(tmp_path / "out")], capture_output=True,
                         text=True, env=env, timeout=400)
    assert out.returncode == 0, out.stderr + out.stdout
    doc = json.loads(out.stdout)
    assert doc["result"] == "success"
    assert list(doc["actions"][0]) == ["name", "type", "result", "reason", "duration_s"]
    assert all(set(e) == {"name", "tick", "payload"} for e in doc["events"])
    assert set(doc["final_poses"]) == {"rover", "rock"}
    assert set(doc["final_poses"]["rock"]) == {"x", "y", "z", "yaw"}
    assert (tmp_path / "out" / "result.json").is_file()
    assert list((tmp_path / "out").glob("mission-navigation-ordinal-00000001-attempt-0001.png"))
    far = tmp_path / "far.yaml"
    far.write_text(nav_task("{rover: /Yard/Rover}", go("far", 500.0, 0.0)))
    out = subprocess.run([*cli, "--task", str(far)], capture_output=True, text=True, env=env, timeout=400)
    assert out.returncode == 1, out.stderr + out.stdout
    doc = json.loads(out.stdout)
    assert doc["result"] == "failure" and doc["actions"][0]["reason"].startswith("goal-outside-map")
    missing = [*cli[:-3], "--scene", str(tmp_path / "nowhere.usda"), "--json", "--task", str(good)]
    out = subprocess.run(missing, capture_output=True, text=True, env=env, timeout=200)
    assert out.returncode == 1 and "did not open" in out.stderr
    doc = json.loads(out.stdout)  # still one JSON object: every action skipped with the reason
    assert doc["result"] == "failure" and doc["final_poses"] == {}
    assert [(a["name"], a["result"]) for a in doc["actions"]] == [("hop", "skipped")]


class PortLog(WatchedHost):
    """Also records every port write the mission submits."""

    def __init__(self, sim, watch) -> None:
        super().__init__(sim, watch)
        self.writes: list[tuple[str, dict]] = []

    def submit(self, command):
        if isinstance(command, SetPorts):
            self.writes.append((command.target, dict(command.writes)))
        return super().submit(command)


def test_a_throttle_steer_rover_like_the_demo_drives_around_a_rock(tmp_path, debug_tmp):
    # the bundled skid-steer yard_rover: the mission drives it only through inputs:throttle and
    # inputs:steer, which its Modelica controller turns into wheel torques
    scene = demo_rover_yard(tmp_path / "demo.usda", (block("Y", "Rock", 2.5, 0.0, 0.8, 2.0),))
    sim = open_simulation(scene)
    host = PortLog(sim, ("/Yard/Rock",))
    try:
        for _ in range(20):
            host.tick()
        task = parse_task_text(nav_task("{rover: /Yard/Rover, rock: /Yard/Rock}", go("go", 5.0, 0.0)))
        result = MissionRunner(host, task, run_id="demo-rover").run()
        assert result.result == "success", result.actions
        assert host.touches == []
        submitted = next(e.payload for e in result.events if e.name == "mission.navigation.submitted")
        assert submitted["drive"]["kind"] == "throttle_steer"
        assert {target for target, _w in host.writes} == {"/Yard/Rover"}
        assert all(set(w) == {"throttle", "steer"} and all(-1.0 <= v <= 1.0 for v in w.values())
                   for _t, w in host.writes)
        assert max(w["throttle"] for _t, w in host.writes) > 0.2  # it really drove...
        assert max(abs(w["steer"]) for _t, w in host.writes) > 0.2  # ...and steered
        pose = result.final_poses["rover"]
        assert math.hypot(pose["x"] - 5.0, pose["y"]) <= 0.3 and abs(pose["yaw"]) <= math.radians(10)
    finally:
        sim.close()
