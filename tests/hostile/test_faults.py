"""Faults a test can name: every fault has a stable code (its kind) and names the participant or
prim; a non-finite model output is an error naming the variable, and its consumers wait visibly;
scenario faults reach ``luncosim run --json`` and its exit code."""

from __future__ import annotations

import json
import math

import pytest

from luncosim_core.sim.simulation import open_simulation
from tests.hostile.test_files import luncosim

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Z"\n    metersPerUnit = 1\n)\ndef Xform "W"\n{\n'


def modelica(name: str, code: str, ports: str = "") -> str:
    return (f'    def Scope "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {{\n'
            f'        uniform token info:implementationSource = "sourceCode"\n'
            f'        string info:sourceCode = """{code}"""\n{ports}    }}\n')


def rhai(name: str, code: str) -> str:
    return (f'    def Scope "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {{\n'
            f'        uniform token info:language = "rhai"\n        string info:sourceCode = """{code}"""\n    }}\n')


GROW = modelica("Grow", "model Grow\n  Real x(start=1);\n  output Real y;\nequation\n  der(x) = 1e3*x*x;\n  y = x;\nend Grow;",
                "        float outputs:y\n")
POLE = modelica("Pole", "model Pole\n  output Real y;\nequation\n  y = 1/(1 - time);\nend Pole;", "        float outputs:y\n")
SINK = modelica("Sink", "model Sink\n  input Real u;\n  output Real v;\nequation\n  v = 2*u;\nend Sink;",
                "        float inputs:u.connect = </W/Pole.outputs:y>\n        float outputs:v\n")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    d = tmp_path_factory.mktemp("faults")
    out = {}
    for name, body in {"diverge": GROW, "pole": POLE + SINK,
                       "scenarios": rhai("Loop", "fn on_tick(me) { let i = 0; loop { i += 1; } }")
                       + rhai("Throw", 'fn on_tick(me) { throw "boom"; }'),
                       "throw": rhai("Throw", 'fn on_tick(me) { throw "boom"; }')}.items():
        (d / f"{name}.usda").write_text(HEAD + body + "}\n", encoding="utf-8")
        out[name] = d / f"{name}.usda"
    return out


def test_a_diverging_model_faults_with_its_kind_and_prim(scenes):
    r = luncosim("run", "--scene", str(scenes["diverge"]), "--ticks", "30", "--json")
    assert r.returncode == 1
    out = json.loads(r.out)
    [fault] = out["faults"]
    assert fault["code"] == "modelica.step.diverged" and fault["path"] == "/W/Grow"
    assert "non-finite states: x" in fault["message"]


def test_an_infinite_output_is_named_and_its_consumer_waits_visibly(scenes):
    sim = open_simulation(scenes["pole"])
    try:
        assert sim.wait_until_ready(120) == ""
        seen = []
        for _ in range(59):
            before = sim.read("/W/Pole", "y")
            sim.tick()
            seen += sim.snapshot().diagnostics
        assert not [d for d in seen if d.is_error]
        assert sim.read("/W/Sink", "v") == pytest.approx(2 * before)  # a wire delivers the last tick's sample
        sim.tick()  # t = 1 s: y = 1/(1 - 1) = inf
        snap = sim.snapshot()
        assert sim.fault is None
        [bad] = [d for d in snap.diagnostics if d.is_error]
        assert bad.code == "modelica.output.nonfinite" and bad.path == "/W/Pole.outputs:y"
        assert "output y of /W/Pole is inf at t=1 s" in bad.message
        assert sim.read("/W/Pole", "y") is None  # no sample, never inf
        sim.tick()  # the consumer lost its input: it says so and waits, no stale value in silence
        snap = sim.snapshot()
        [lost] = [d for d in snap.diagnostics if d.code == "modelica.input-lost"]
        assert lost.path == "/W/Sink" and lost.severity == "warning" and "outputs (v) hold" in lost.message
        assert "/W/Sink" in snap.extra["waits"]
        for _ in range(5):
            y = sim.read("/W/Pole", "y")
            sim.tick()
        assert y is not None and math.isfinite(y) and y < 0  # finite again past the pole
        assert sim.read("/W/Sink", "v") == pytest.approx(2 * y)  # and the consumer follows it
    finally:
        sim.close()


def test_a_non_finite_output_makes_luncosim_run_exit_1(scenes):
    r = luncosim("run", "--scene", str(scenes["pole"]), "--ticks", "62", "--json")
    out = json.loads(r.out)
    assert r.returncode == 1
    assert any(d["code"] == "modelica.output.nonfinite" and d["path"] == "/W/Pole.outputs:y" for d in out["diagnostics"])


def test_scenarios_that_loop_forever_or_throw_are_faults_of_luncosim_run(scenes):
    r = luncosim("run", "--scene", str(scenes["scenarios"]), "--ticks", "3", "--json", timeout=300)
    assert r.returncode == 1
    out = json.loads(r.out)
    faults = {f["path"]: f for f in out["faults"]}
    assert set(faults) == {"/W/Loop", "/W/Throw"}
    assert all(f["code"] == "scenario-runtime-error" for f in faults.values())
    assert "Too many operations" in faults["/W/Loop"]["message"] and faults["/W/Loop"]["line"] == 1
    assert "boom" in faults["/W/Throw"]["message"]
    assert {d["path"] for d in out["diagnostics"] if d["severity"] == "error"} >= {"/W/Loop", "/W/Throw"}
    r = luncosim("run", "--scene", str(scenes["throw"]), "--ticks", "3")
    assert r.returncode == 1 and "FAULT [error] scenario-runtime-error" in r.out and "/W/Throw" in r.out
