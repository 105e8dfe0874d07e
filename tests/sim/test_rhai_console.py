"""EvalRhai / RunRhai: the Rhai console's evaluations against a running simulation's host API."""

from __future__ import annotations

import time

import pytest

from luncosim_core.api import CausalTrace, EvalRhai, ReadPorts, RunRhai
from luncosim_core.server.client import encode_request
from luncosim_core.server.protocol import decode_request
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.roots import repository_root

DEMO = repository_root() / "assets" / "twins" / "practice_yard"
ROVER = "/PracticeYard/RoverA"


@pytest.fixture(scope="module")
def sim():
    s = open_simulation(DEMO)
    for _ in range(3):
        s.tick()
    yield s
    s.close()


def _eval(sim, code, session="t"):
    res = sim.query(EvalRhai(code, session))
    assert res.ok
    return res.value


def test_reads_the_host_api_and_keeps_variables_and_functions_per_session(sim):
    out = _eval(sim, 'let r = find("RoverA"); print(name(r)); world_pos(find("Chassis"))')
    assert out["ok"] and out["type"] == "array" and len(out["value"]) == 3
    assert out["printed"] == ["RoverA"] and out["refused"] == []
    assert _eval(sim, "path(r)")["value"] == ROVER  # the let of the previous evaluation
    assert _eval(sim, "fn twice(x) { x * 2 } twice(4)")["value"] == 8
    assert _eval(sim, "twice(21)")["display"] == "42"  # the fn of the previous evaluation
    other = _eval(sim, "r", session="another")
    assert not other["ok"] and "r" in other["error"]["message"]  # sessions do not share variables


def test_a_read_only_evaluation_refuses_commands_and_changes_nothing(sim):
    before = sim.query(ReadPorts(ROVER, ("throttle",))).value["throttle"]["value"]
    out = _eval(sim, f'set(find("{ROVER}"), "throttle", 0.7)')
    assert out["ok"] and out["value"] is False
    assert len(out["refused"]) == 1 and "writes are off" in out["refused"][0]
    assert out["warnings"] == []  # the refusal is said once
    assert sim.query(ReadPorts(ROVER, ("throttle",))).value["throttle"]["value"] == before
    out = _eval(sim, 'cmd("SetPorts", #{target: find("RoverA"), throttle: 0.7})')
    assert out["value"]["ok"] is False and out["refused"]


def test_run_rhai_is_a_command_whose_writes_apply_and_are_traced_to_the_console(sim):
    res = sim.execute(RunRhai(f'set(find("{ROVER}"), "throttle", 0.4)', "t"))
    assert res.ok and res.value["ok"] and res.value["value"] is True and res.tick is not None
    assert sim.query(ReadPorts(ROVER, ("throttle",))).value["throttle"]["value"] == pytest.approx(0.4)
    trace = sim.query(CausalTrace(ROVER)).value
    assert trace["correlation_id"] == "console:t"
    res = sim.execute(RunRhai('set(find("RoverA"), "no_such_port", 1.0)', "t"))
    assert res.value["value"] is False and any("no_such_port" in w for w in res.value["warnings"])


def test_errors_are_positioned_and_a_runaway_loop_is_stopped(sim):
    out = _eval(sim, "let x = ;")
    assert out["error"]["kind"] == "parse" and (out["error"]["line"], out["error"]["column"]) == (1, 9)
    out = _eval(sim, 'throw "boom"')
    assert out["error"]["kind"] == "runtime" and "boom" in out["error"]["message"]
    t = time.perf_counter()
    out = _eval(sim, "loop { }")
    assert "Too many operations" in out["error"]["message"] and time.perf_counter() - t < 5
    grow = 'let keep = []; for i in 0..200 { let s = ""; s.pad(1000000, "x"); keep.push(s) } keep.len()'
    out = _eval(sim, grow, session="m")
    assert "memory budget exceeded" in out["error"]["message"]  # a session's values together
    assert _eval(sim, "40 + 2", session="m")["display"] == "42"  # the console still answers


def test_the_console_vocabulary_crosses_the_wire():
    for value in (EvalRhai("get(1, \"x\")", "s"), RunRhai("set(1, \"x\", 2.0)")):
        assert decode_request(encode_request(value)) == value
