"""Wire sources resolved against the live port surface: implicit model outputs, command surfaces,
schema ports, rigid-body programs, the strict public-output policy."""

import pytest

from luncosim_core.api import GetBrokenConnections, ReadPorts, SetPorts
from luncosim_core.lint import run_lint
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.twin import open_path
from luncosim_core.usd.compose import compose

HEAD = '#usda 1.0\n(\n    defaultPrim = "World"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'

COUNTER = """
def Scope "Counter" (
    prepend apiSchemas = ["LunCoProgramAPI"]
)
{
    uniform string info:sourceCode = "model Counter\\n  output Real ramp;\\n  output Real twice;\\n  Real hidden;\\nequation\\n  ramp = time;\\n  twice = 2*ramp;\\n  hidden = 3*ramp;\\nend Counter;\\n"
}
"""

IMPLICIT = HEAD + """
def Xform "World"
{
""" + COUNTER + """
    def Scope "Display"
    {
        float inputs:ramp.connect = </World/Counter.outputs:ramp>
        float inputs:twice.connect = </World/Counter.outputs:twice>
    }
}
"""


def _sim(writer, tmp_path, text, manifest=None):
    if manifest is not None:
        writer(tmp_path / "twin.toml", manifest)
    path = writer(tmp_path / "scene.usda", text)
    sim = open_simulation(path)
    assert sim.wait_until_ready(180) == ""
    return sim, path


def _lint(path):
    opened = open_path(path)
    stage = compose(path, opened.twin.roots).stage
    return run_lint(stage, roots=opened.twin.roots)


def test_an_undeclared_model_output_is_an_implicit_public_output(writer, tmp_path):
    sim, path = _sim(writer, tmp_path, IMPLICIT)
    sim.run(60)
    assert sim.read("/World/Display", "ramp") == pytest.approx(1.0, abs=1e-9)
    assert sim.read("/World/Display", "twice") == pytest.approx(2.0, abs=1e-9)
    info = sim.registry.info("/World/Counter.ramp")
    assert info is not None and info.source == "modelica" and not info.writable
    # only what a wire reads is published: the model's other variables stay private
    assert sim.registry.info("/World/Counter.hidden") is None
    assert sim.query(GetBrokenConnections()).value == []
    found = [d for d in _lint(path) if d.code in ("implicit-public-output", "broken-wire")]
    assert sorted((d.code, d.severity, d.path) for d in found) == [
        ("implicit-public-output", "warning", "/World/Counter"), ("implicit-public-output", "warning", "/World/Counter")]


def test_strict_public_outputs_refuses_the_wire_and_lint_says_so_once(writer, tmp_path):
    sim, path = _sim(writer, tmp_path, IMPLICIT, manifest='name = "strict"\n\n[ports]\nstrict_public_outputs = true\n')
    sim.run(10)
    assert sim.read("/World/Display", "ramp") is None  # refused: pending, never 0
    broken = sim.query(GetBrokenConnections()).value
    assert {b["sink"] for b in broken} == {"/World/Display.inputs:ramp", "/World/Display.inputs:twice"}
    assert all("strict_public_outputs" in b["broken"] for b in broken)
    found = [d for d in _lint(path) if d.code in ("implicit-public-output", "broken-wire")]
    assert [(d.code, d.severity) for d in found] == [("implicit-public-output", "error")] * 2


def test_a_wire_to_an_output_the_model_lacks_is_broken_statically_and_live(writer, tmp_path):
    text = IMPLICIT.replace("</World/Counter.outputs:twice>", "</World/Counter.outputs:thrice>")
    sim, path = _sim(writer, tmp_path, text)
    sim.run(5)
    assert sim.read("/World/Display", "twice") is None
    broken = sim.query(GetBrokenConnections()).value
    assert [b["sink"] for b in broken] == ["/World/Display.inputs:twice"]
    assert "has no output 'thrice'" in broken[0]["broken"]
    wires = [d for d in _lint(path) if d.code == "broken-wire"]
    assert len(wires) == 1 and "no output 'thrice'" in wires[0].message and "ramp, twice" in wires[0].message


def test_a_vessel_command_surface_is_a_wire_source(writer, tmp_path):
    text = HEAD + """
def Xform "World"
{
    def Xform "Rover"
    {
        def "Controls"
        {
            def "forward"
            {
                uniform string lunco:port = "throttle"
                uniform double lunco:factor = 1
            }
            def "left"
            {
                uniform string lunco:port = "steer"
                uniform double lunco:factor = -1
            }
        }
        def Scope "DriveLaw"
        {
            float inputs:throttle.connect = </World/Rover.inputs:throttle>
            float inputs:steer.connect = </World/Rover.inputs:steer>
            float inputs:piloted.connect = </World/Rover.outputs:piloted>
        }
        float inputs:piloted.connect = </World/Rover.outputs:piloted>
    }
}
"""
    sim, path = _sim(writer, tmp_path, text)
    sim.submit(SetPorts(target="/World/Rover", writes={"throttle": 0.75}))
    sim.run(2)
    assert sim.read("/World/Rover/DriveLaw", "throttle") == 0.75
    assert sim.read("/World/Rover/DriveLaw", "steer") == 0.0  # an unauthored command input starts at 0
    assert sim.read("/World/Rover/DriveLaw", "piloted") == 0.0  # nobody possesses the rover
    # the rover also reads its own possession into an input of the same name: the produced side is
    # the port outputs:piloted, the input keeps the bare name
    assert sim.read("/World/Rover", "piloted") == 0.0
    ports = sim.query(ReadPorts(target="/World/Rover")).value
    assert ports["outputs:piloted"]["writable"] is False and ports["throttle"]["writable"] is True
    assert not [d for d in _lint(path) if d.is_error]


def test_a_program_that_is_a_rigid_body_leaves_force_inputs_to_the_body(writer, tmp_path):
    text = HEAD + """
def Xform "World"
{
    def PhysicsScene "PhysicsScene"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 0
    }
    def Sphere "Balloon" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI", "LunCoProgramAPI"]
    )
    {
        double radius = 0.5
        float physics:mass = 2.0
        uniform string info:sourceCode = "model Lift\\n  output Real force_y;\\nequation\\n  force_y = 4.0;\\nend Lift;\\n"
        float inputs:force_y.connect = </World/Balloon.outputs:force_y>
    }
    def Scope "Telemetry"
    {
        float inputs:lift.connect = </World/Balloon.outputs:force_y>
    }
}
"""
    sim, _ = _sim(writer, tmp_path, text)
    errors = [d for d in sim.diagnostics if d.is_error]
    assert not errors, errors
    # the model's output and the body's input share a name: the produced side is outputs:force_y
    produced = sim.registry.info("/World/Balloon.outputs:force_y")
    assert produced.source == "modelica" and produced.direction == "out"
    assert sim.registry.info("/World/Balloon.force_y").source == "physics"
    sim.run(60)
    # 4 N up on 2 kg for 1 s: v = 2 m/s
    assert sim.read("/World/Balloon", "velocity_y") == pytest.approx(2.0, rel=0.05)
    assert sim.read("/World/Telemetry", "lift") == 4.0


def test_bool_ports_with_a_bool_unit_label_wire_without_unit_errors(writer, tmp_path):
    text = HEAD + """
def Xform "World"
{
    def Scope "Switch"
    {
        bool outputs:on = 1 (customData = { string unit = "bool" })
    }
    def Scope "Lamp"
    {
        bool inputs:on (customData = { string unit = "bool" })
        bool inputs:on.connect = </World/Switch.outputs:on>
    }
}
"""
    sim, _ = _sim(writer, tmp_path, text)
    sim.run(1)
    assert sim.read("/World/Lamp", "on") == 1.0
    assert not [d for d in sim.diagnostics if "unit" in d.message]


def test_setports_accepts_name_value_pairs_and_ignores_client_stamps():
    from luncosim_core.api import from_name

    cmd = from_name("SetPorts", {"target": "/R", "writes": [["throttle", 1.0], ["steer", 0.0]], "seq": 7, "tick": 3})
    assert cmd.writes == {"throttle": 1.0, "steer": 0.0} and cmd.target == "/R"
    with pytest.raises(ValueError, match="pairs"):
        from_name("SetPorts", {"target": "/R", "writes": [["throttle"]]})
