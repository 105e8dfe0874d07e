"""Lost or stuck work: every command's Future resolves (after a fault, at a reset, at a stop); a
command flood while the worker builds never breaks pause() or stop(); a scenario emitting without
bound is stopped with a positioned diagnostic."""

from __future__ import annotations

import threading
import time

import pytest

from luncosim_core.api import SetPorts
from luncosim_core.scripting.runtime import MAX_EVENTS_PER_TICK
from luncosim_core.sim import CommandQueueFull, SimulationWorker
from luncosim_core.sim.simulation import open_simulation
from tests.hostile.test_faults import HEAD, rhai
from tests.sim.test_runtime import DROP

SET = SetPorts(target="/W/Panel", writes={"gain": 3.0})
REFUSED_AT_RESET = ("simulation-reset", "command-dropped")  # the simulation's refusal, or the worker's


@pytest.fixture
def drop_scene(writer, tmp_path):
    return writer(tmp_path / "drop.usda", DROP)


def _boom():
    raise RuntimeError("engine on fire")


def test_commands_sent_after_a_fault_are_answered(drop_scene):
    sim = open_simulation(drop_scene)
    sim._physics_step = _boom
    answers = []
    sim.submit(SET, answers.append)
    assert not sim.tick() and sim.fault is not None
    assert answers[0].ok  # admitted before the fault in that tick
    sim.submit(SET, answers.append)  # after the fault: answered at once, not queued forever
    assert len(answers) == 2 and not answers[1].ok
    assert answers[1].diagnostics[0].code == "simulation-faulted" and "SetPorts" in answers[1].diagnostics[0].message
    sim.close()


def test_worker_futures_resolve_after_a_fault_and_at_reset_and_stop(drop_scene):
    worker = SimulationWorker(lambda: open_simulation(drop_scene), speed=None)
    worker.start()
    try:
        worker.call(lambda s: s.tick_count).result(timeout=30)
        pending = worker.send(SET)  # paused: stays queued in the simulation
        worker.reset()
        result = pending.result(timeout=5)
        assert not result.ok and result.diagnostics[0].code in REFUSED_AT_RESET
        worker.call(lambda s: setattr(s, "_physics_step", _boom)).result(timeout=5)
        worker.step(1)
        deadline = time.time() + 10
        while (worker.latest is None or worker.latest.status != "faulted") and time.time() < deadline:
            time.sleep(0.01)
        after = worker.send(SET).result(timeout=5)
        assert not after.ok and after.diagnostics[0].code == "simulation-faulted"
        worker.call(lambda s: delattr(s, "_physics_step")).result(timeout=5)  # the engine is mended
        worker.reset()  # a reset clears the fault: commands are admitted again
        fresh = worker.send(SET)
        worker.step(1)
        assert fresh.result(timeout=10).ok
        queued = worker.send(SET)  # paused, then the worker stops: answered, not left hanging
    finally:
        worker.stop()
    result = queued.result(timeout=5)
    assert not result.ok and result.diagnostics[0].code in (*REFUSED_AT_RESET, "simulation-stopped")
    late = worker.send(SET).result(timeout=1)  # after stop: answered at once
    assert not late.ok and late.diagnostics[0].code == "simulation-stopped"


def test_a_command_flood_while_the_worker_builds_never_breaks_pause_or_stop(drop_scene):
    release = threading.Event()

    def slow_build():
        release.wait(30)
        return open_simulation(drop_scene)

    worker = SimulationWorker(slow_build, speed=None)
    worker.start()
    accepted, refused = [], 0
    for _ in range(5000):
        try:
            accepted.append(worker.send(SET))
        except CommandQueueFull:
            refused += 1
    assert refused == 5000 - len(accepted) and refused > 0  # the bound holds for commands ...
    worker.pause()  # ... but control always gets in
    worker.play()
    worker.pause()
    t0 = time.perf_counter()
    worker.stop(timeout=0.5)  # still building: returns after its timeout, never raises
    assert time.perf_counter() - t0 < 3
    release.set()
    deadline = time.time() + 60
    while not all(f.done() for f in accepted) and time.time() < deadline:
        time.sleep(0.05)
    assert all(f.done() for f in accepted)  # every accepted command has its answer
    assert {f.result().diagnostics[0].code for f in accepted if not f.result().ok} <= {"simulation-stopped",
                                                                                       *REFUSED_AT_RESET}


def test_an_emit_flood_stops_the_scenario_with_a_positioned_diagnostic(writer, tmp_path):
    code = 'fn on_tick(me) { let i = 0; while i < 50000 { emit("spam", i); i += 1; } }'
    scene = writer(tmp_path / "emit.usda", HEAD + rhai("Spam", code) + "}\n")
    sim = open_simulation(scene)
    try:
        sim.run(2)
        [fault] = sim.participant_faults()
        assert fault.path == "/W/Spam" and fault.line == 1
        assert f"more than {MAX_EVENTS_PER_TICK:,} events in one tick" in fault.message
        assert sim.fault is None  # the rest of the simulation goes on
    finally:
        sim.close()
