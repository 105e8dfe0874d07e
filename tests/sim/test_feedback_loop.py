"""Two Modelica programs that feed each other (a controller commanding an engine whose vehicle mass
the controller reads) start from their inputs' start values instead of waiting for each other
forever; a loop that also waits on a script-fed input keeps waiting."""

import pytest

from luncosim_core.sim.simulation import open_simulation

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'


def program(name, source, body):
    code = source.replace("\n", "\\n")
    return f"""
    def Scope "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform string info:sourceCode = "{code}"
{body}
    }}
"""


CONTROLLER = "model Controller\n  input Real mass = 4000.0;\n  output Real throttle;\nequation\n  throttle = mass / 8000.0;\nend Controller;\n"
ENGINE = "model Engine\n  input Real valve;\n  input Real extra = 0.0;\n  output Real vehicle_mass;\nequation\n  vehicle_mass = 3000.0 + 1000.0 * valve + extra;\nend Engine;\n"


def loop_scene(engine_extra: str = "") -> str:
    return HEAD + 'def Xform "W"\n{\n' + program("Controller", CONTROLLER, """
        float inputs:mass.connect = </W/Engine.outputs:vehicle_mass>
        float outputs:throttle""") + program("Engine", ENGINE, """
        float inputs:valve.connect = </W/Controller.outputs:throttle>""" + engine_extra + """
        float outputs:vehicle_mass""") + """
    def Scope "Panel"
    {
        float outputs:level
    }
}
"""


def run(sim, ticks):
    seen = []
    for _ in range(ticks):
        sim.tick()
        seen += sim.snapshot().diagnostics
    return seen


def test_a_feedback_loop_of_waiting_models_starts_from_declared_start_values(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "loop.usda", loop_scene()))
    assert sim.wait_until_ready(180) == ""
    seen = run(sim, 3)
    # the controller tries first and waits; the engine, waiting only on it, starts from valve = 0
    # (its start value), and the loop exchanges samples from then on (Jacobi, zero-order hold)
    assert sim.read("/W/Engine", "vehicle_mass") == pytest.approx(3000.0 + 1000.0 * sim.read("/W/Engine", "valve"))
    starts = [d for d in seen if d.code == "modelica.feedback-start"]
    assert [d.path for d in starts] == ["/W/Engine"] and "valve = 0 start from" in starts[0].message
    seen += run(sim, 20)
    # the start values are the loop's first sample, held until a real one arrives: nothing is "lost"
    assert not [d for d in seen if d.code == "modelica.input-lost"]
    # the loop settles on its fixed point m = 3000 + 1000 m / 8000
    assert sim.read("/W/Engine", "vehicle_mass") == pytest.approx(3000.0 / (1 - 1000.0 / 8000.0), rel=1e-6)
    assert not sim.waits


def test_a_loop_that_also_waits_on_an_unpublished_port_keeps_waiting(writer, tmp_path):
    text = loop_scene("\n        float inputs:extra.connect = </W/Panel.outputs:level>")
    sim = open_simulation(writer(tmp_path / "loop.usda", text))
    assert sim.wait_until_ready(180) == ""
    seen = run(sim, 5)
    assert sim.read("/W/Engine", "vehicle_mass") is None and sim.read("/W/Controller", "throttle") is None
    assert not [d for d in seen if d.code == "modelica.feedback-start"]
    assert "/W/Engine" in sim.waits


def test_starting_a_feedback_loop_is_deterministic(writer, tmp_path):
    path = writer(tmp_path / "loop.usda", loop_scene())
    hashes = []
    for _ in range(2):
        sim = open_simulation(path)
        assert sim.wait_until_ready(180) == ""
        sim.run(10)
        hashes.append(sim.state_hash())
    assert hashes[0] == hashes[1]
