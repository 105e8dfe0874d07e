"""The runtime over real scenes: tick order, admission, snapshots, determinism, faults, the worker."""

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from pxr import Usd

from luncosim_core.api import ReadPorts, SetPorts
from luncosim_core.sim import CommandQueueFull, Simulation, SimulationWorker
from luncosim_core.sim.simulation import open_simulation

LUNCOSIM = str(Path(sys.executable).with_name("luncosim"))

DROP = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "W"
{
    def PhysicsScene "Scene"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }
    def Cube "Ball" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.2
        float physics:mass = 1
        double3 xformOp:translate = (0, 100, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Scope "Panel"
    {
        float inputs:gain = 2.0 (
            customData = {
                double min = 0
                double max = 10
            }
        )
        bool inputs:enabled = false
        int inputs:mode = 1
        float outputs:level
    }
}
"""


@pytest.fixture
def drop_scene(writer, tmp_path):
    return writer(tmp_path / "drop.usda", DROP)


def test_sim_time_is_tick_times_dt_and_falls_as_physics_says(drop_scene):
    sim = open_simulation(drop_scene)
    sim.run(120)
    assert sim.tick_count == 120 and sim.time == 120 * (1 / 60.0)
    y = sim.read("/W/Ball", "position_y")
    assert y == pytest.approx(100 - 0.5 * 1.62 * 2.0**2, abs=0.02)
    sim.close()


def test_snapshot_is_frozen(drop_scene):
    sim = open_simulation(drop_scene)
    sim.run(3)
    snap = sim.snapshot()
    with pytest.raises(ValueError):
        snap.positions[0, 0] = 1.0
    with pytest.raises(ValueError):
        snap.port_values[0] = 1.0
    before = snap.positions.copy()
    sim.run(10)
    assert np.array_equal(snap.positions, before)  # later ticks never change a published snapshot
    assert snap.tick == 3 and snap.port("/W/Panel.gain") == pytest.approx(2.0)
    assert snap.port("/W/Panel.level") is None  # undriven, unauthored output: pending, not zero


def test_setports_is_admitted_next_tick_stamped_and_holds(drop_scene):
    sim = open_simulation(drop_scene)
    sim.run(5)
    results = []
    sim.submit(SetPorts(target="/W/Panel", writes={"gain": 7.5, "enabled": True}), results.append)
    assert sim.read("/W/Panel", "gain") == pytest.approx(2.0)  # not yet: queued
    sim.tick()
    (res,) = results
    assert res.ok and res.tick == 6 and res.sequence == 1
    sim.run(5)
    assert sim.read("/W/Panel", "gain") == pytest.approx(7.5)
    assert sim.read("/W/Panel", "enabled") == 1.0


@pytest.mark.parametrize(
    "writes, code",
    [
        ({"gain": 3.0, "nope": 1.0}, "port-unknown"),
        ({"gain": float("nan")}, "port-non-finite"),
        ({"gain": 11.0}, "port-out-of-bounds"),
        ({"enabled": 0.3}, "port-type"),
        ({"mode": 2**40}, "port-type"),
        ({"mode": 1.5}, "port-type"),
        ({"gain": "high"}, "port-type"),
    ],
)
def test_bad_setports_applies_nothing(drop_scene, writes, code):
    sim = open_simulation(drop_scene)
    results = []
    sim.submit(SetPorts(target="/W/Panel", writes={**writes, "mode": writes.get("mode", 3)}), results.append)
    sim.tick()
    assert not results[0].ok
    assert code in [d.code for d in results[0].diagnostics]
    assert sim.read("/W/Panel", "gain") == pytest.approx(2.0) and sim.read("/W/Panel", "mode") == 1.0


def test_read_only_physics_output_refuses_writes(drop_scene):
    sim = open_simulation(drop_scene)
    res = []
    sim.submit(SetPorts(target="/W/Ball", writes={"position_y": 0.0}), res.append)
    sim.tick()
    assert not res[0].ok and res[0].diagnostics[0].code == "port-not-writable"
    r = sim.query(ReadPorts(target="/W/Ball", names=("position_y", "velocity_y")))
    assert r.ok and r.value["position_y"]["unit"] == "m" and r.value["velocity_y"]["source"] == "physics"


def test_two_runs_hash_equal_in_process(demo_twin):
    def run():
        sim = open_simulation(demo_twin)
        sim.submit(SetPorts(target="/PracticeYard/RoverA/Joints/Axle_FL", writes={"target_velocity": -3.0}))
        hashes = []
        for _ in range(4):
            sim.run(30)
            hashes.append(sim.state_hash())
        sim.close()
        return hashes

    assert run() == run()


def test_luncosim_run_prints_equal_hashes_across_processes(demo_twin):
    cmd = [LUNCOSIM, "run", "--scene", str(demo_twin), "--ticks", "120", "--hash-every", "40", "--json",
           "--set", "/PracticeYard/RoverB/Joints/Axle_RR.target_velocity=-2"]
    a = subprocess.run(cmd, capture_output=True, text=True, check=True)
    b = subprocess.run(cmd, capture_output=True, text=True, check=True)
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert [h["tick"] for h in ja["hashes"]] == [40, 80, 120]
    assert ja["hashes"] == jb["hashes"]
    assert ja["tick"] == 120 and ja["faults"] == []
    chassis = ja["bodies"]["/PracticeYard/RoverA/Chassis"]
    assert set(chassis) == {"position", "orientation", "linear_velocity"} and len(chassis["orientation"]) == 4


def test_run_exits_1_on_fault(writer, tmp_path):
    scene = writer(tmp_path / "far.usda", DROP.replace("(0, 100, 0)", "(0, 500000, 0)"))
    proc = subprocess.run([LUNCOSIM, "run", "--scene", str(scene), "--ticks", "5", "--json"], capture_output=True, text=True)
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["faults"][0]["code"] == "physics-body-escaped" and out["faults"][0]["path"] == "/W/Ball"


def test_run_csv_has_every_tick(writer, tmp_path, drop_scene):
    csv_path = tmp_path / "out.csv"
    subprocess.run([LUNCOSIM, "run", "--scene", str(drop_scene), "--ticks", "30", "--csv", str(csv_path)], check=True, capture_output=True)
    rows = csv_path.read_text().splitlines()
    assert len(rows) == 31 and rows[0].startswith("tick,time,")


def test_reset_leaves_no_state_behind(drop_scene):
    sim = open_simulation(drop_scene)
    fresh = sim.state_hash()
    sim.submit(SetPorts(target="/W/Panel", writes={"gain": 9.0}))
    sim.run(50)
    sim.build()
    sim.tick_count = 0
    assert sim.state_hash() == fresh
    assert not sim.registry.held and len(sim.trace.entries) == 0


def test_worker_pauses_keep_commands_queued_and_publish(drop_scene):
    worker = SimulationWorker(lambda: open_simulation(drop_scene), speed=None)
    snaps = []
    worker.snapshot_ready.connect(snaps.append)
    worker.start()
    fut = worker.send(SetPorts(target="/W/Panel", writes={"gain": 4.0}))
    time.sleep(0.2)
    assert not fut.done()  # paused: still queued
    worker.step(1)
    res = fut.result(timeout=5)
    assert res.ok and res.tick == 1
    worker.play()
    deadline = time.time() + 10
    while (worker.latest is None or worker.latest.tick < 100) and time.time() < deadline:
        time.sleep(0.01)
    worker.pause()
    assert worker.latest.tick >= 100
    assert worker.query(ReadPorts(target="/W/Panel", names=("gain",))).result(timeout=5).value["gain"]["value"] == 4.0
    ticks = [s.tick for s in snaps]
    assert ticks == sorted(ticks)
    worker.stop()


def test_commands_queued_at_a_reset_or_rebuild_resolve_with_an_error(drop_scene):
    worker = SimulationWorker(lambda: open_simulation(drop_scene), speed=None)
    worker.start()
    queued = worker.send(SetPorts(target="/W/Panel", writes={"gain": 4.0}))  # paused: not admitted
    worker.reset()
    result = queued.result(timeout=10)
    assert not result.ok and result.diagnostics[0].code == "command-dropped"
    assert "SetPorts was not admitted: the simulation was reset" in result.diagnostics[0].message
    again = worker.send(SetPorts(target="/W/Panel", writes={"gain": 2.0}))
    worker.replace(lambda: open_simulation(drop_scene))
    assert again.result(timeout=10).diagnostics[0].code == "command-dropped"
    worker.stop()


def test_worker_exception_becomes_a_faulted_status(drop_scene):
    def boom():
        raise RuntimeError("engine on fire")

    worker = SimulationWorker(lambda: open_simulation(drop_scene), speed=None)
    faults = []
    worker.faulted.connect(faults.append)
    worker.start()
    sim_ready = worker.call(lambda s: s.tick_count).result(timeout=10)
    assert sim_ready == 0
    worker.call(lambda s: setattr(s, "_physics_step", boom)).result(timeout=5)
    worker.step(1)
    deadline = time.time() + 5
    while worker.latest is None or worker.latest.status != "faulted":
        assert time.time() < deadline
        time.sleep(0.01)
    assert "engine on fire" in worker.latest.reason
    assert "traceback" in worker.latest.faults[0].data
    # the thread is alive and still answers
    assert worker.call(lambda s: s.tick_count).result(timeout=5) == 0
    worker.stop()


def test_queue_overflow_is_an_error_the_sender_sees(drop_scene):
    worker = SimulationWorker(lambda: open_simulation(drop_scene), speed=None)
    # not started: nothing drains the inbox
    with pytest.raises(CommandQueueFull):
        for _ in range(5000):
            worker.send(SetPorts(target="/W/Panel", writes={"gain": 1.0}))


def test_simulation_accepts_any_stage(tmp_path):
    stage = Usd.Stage.CreateInMemory()
    sim = Simulation(stage)
    assert sim.run(5) == 5 and sim.world.body_paths == () and math.isclose(sim.time, 5 / 60)


def test_an_edit_between_ticks_keeps_the_motion_of_untouched_bodies(writer, tmp_path):
    from luncosim_core.api import ApplyOp
    from luncosim_core.usd.ops import SetTransform

    scene = DROP.replace('    def Scope "Panel"', '''    def Cube "Other" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.2
        float physics:mass = 1
        double3 xformOp:translate = (5, 100, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Scope "Panel"''')
    sim = open_simulation(writer(tmp_path / "two.usda", scene))
    sim.submit(SetPorts(target="/W/Panel", writes={"gain": 5.0}))
    sim.run(60)
    ball_y, ball_vy = sim.read("/W/Ball", "position_y"), sim.read("/W/Ball", "velocity_y")
    assert ball_y < 99.5 and ball_vy < -1.0
    res = []
    sim.submit(ApplyOp(op=SetTransform(path="/W/Other", translate=(5.0, 50.0, 0.0))), res.append)
    sim.tick()
    assert res[0].ok and sim.tick_count == 61
    # the edited body takes its new authored place; the other one keeps falling from where it was
    assert sim.read("/W/Other", "position_y") == pytest.approx(50.0, abs=0.05)
    assert sim.read("/W/Ball", "position_y") < ball_y and sim.read("/W/Ball", "velocity_y") < ball_vy
    assert sim.read("/W/Panel", "gain") == 5.0 and sim.registry.held  # holds survive the edit


def test_a_flattened_copy_takes_mirrored_ops(demo_twin):
    from luncosim_core.api import ApplyOp
    from luncosim_core.sim.mirror import StageDocument, flattened_text, stage_from_text
    from luncosim_core.usd.ops import SetAttribute

    ui = open_simulation(demo_twin)  # stands in for the UI's document-owned stage
    copy = stage_from_text(flattened_text(ui.stage))
    sim = Simulation(copy, document=StageDocument(copy))
    sim.run(10)
    res = []
    op = SetAttribute(path="/PracticeYard/RoverA", name="inputs:throttle", value=0.5)
    sim.submit(ApplyOp(op=op), res.append)
    sim.tick()
    assert res[0].ok
    assert copy.GetPrimAtPath("/PracticeYard/RoverA").GetAttribute("inputs:throttle").Get() == 0.5
    assert ui.stage.GetPrimAtPath("/PracticeYard/RoverA").GetAttribute("inputs:throttle").Get() == 0.0
    assert sim.read("/PracticeYard/RoverA", "throttle") == 0.5  # the new authored value is the sample
