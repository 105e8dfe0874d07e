"""The bundled demo twin end to end: Rhai drill -> rover ports -> Modelica controller -> wheel
joint efforts -> pybullet -> odometer -> ports, deterministic."""

import math

import pytest

from luncosim_core.api import ConsoleLine
from luncosim_core.scripting.scenario import scenarios_of
from luncosim_core.sim.simulation import open_simulation


@pytest.fixture(scope="module")
def drilled(demo_twin):
    sim = open_simulation(demo_twin)
    sim.wait_until_ready(120)
    assert not [d for d in sim.diagnostics if d.is_error], sim.diagnostics
    sim.run(900)
    sim.printed = [e.text for e in sim.snapshot().events if isinstance(e, ConsoleLine)]  # what the drill printed
    yield sim
    sim.close()


def test_the_drill_drives_rover_a_to_the_marker_and_stops_short(drilled):
    runtime = scenarios_of(drilled)[0].runtime
    names = [ev.name for ev in runtime.telemetry]
    assert names[:2] == ["yard.braking", "yard.stopped"]
    x = drilled.read("/PracticeYard/RoverA/Chassis", "position_x")
    assert 7.0 < x < 9.5  # braked at 7 m, stopped before the marker at 10 m
    assert abs(drilled.read("/PracticeYard/RoverA", "speed")) < 0.1
    assert any("RoverA stopped" in line for line in drilled.printed)


def test_rover_b_turns_and_nothing_faults(drilled):
    q = drilled.snapshot().pose("/PracticeYard/RoverB/Chassis")[1]
    yaw = abs(math.degrees(2 * math.atan2(abs(q[2]), abs(q[0]))))
    assert yaw > 20.0
    assert drilled.fault is None
    assert drilled.read("/PracticeYard/RoverB/Controller", "max_torque") == 8.0  # set by the scenario


def test_the_whole_stack_is_deterministic(demo_twin, drilled):
    again = open_simulation(demo_twin)
    again.wait_until_ready(120)
    again.run(900)
    assert again.state_hash() == drilled.state_hash()
    again.close()


def test_the_demo_twins_scene_test_passes_through_the_cli(demo_twin):
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).with_name("luncosim"))
    scene = demo_twin / "scenes" / "tests" / "drill_check.usda"
    assert subprocess.run([exe, "validate", str(scene)], capture_output=True, text=True).returncode == 0
    proc = subprocess.run([exe, "test", "--scene", str(scene), "--max-ticks", "1200"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "DRILL: PASS" in proc.stdout and "TESTS_OK 7" in proc.stdout


def test_the_models_array_io_steps_exactly_as_the_general_path(demo_twin, drilled, monkeypatch):
    """The Modelica programs' fast path (array port I/O) is an optimisation only: with it off
    the same run ends in the same state, bit for bit."""
    from luncosim_core.sim.program_modelica import ModelicaProgram

    monkeypatch.setattr(ModelicaProgram, "_fast_io", lambda self, reg, p: None)
    general = open_simulation(demo_twin)
    general.wait_until_ready(120)
    general.run(900)
    assert general.state_hash() == drilled.state_hash()
    assert general.read("/PracticeYard/RoverB/Controller", "max_torque") == 8.0
    general.close()
