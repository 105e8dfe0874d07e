"""ModelVariables: a running Modelica program's model variables by their Modelica names, from the
participant's last communication point (a real simulation of a small scene of our own)."""

from __future__ import annotations

import pytest

from luncosim_core.api import ModelVariables, from_name
from luncosim_core.server.protocol import decode_request
from luncosim_core.sim import model_variables
from luncosim_core.sim.simulation import open_simulation

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "W"
{
    def Scope "RC" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @lunco://models/Workbench/Electrical/RCCircuit.mo@
        float inputs:V_supply = 5
        float outputs:v_cap
    }
    def Scope "Decay" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceCode"
        uniform string info:sourceCode = \"\"\"model Decay
  parameter Real k(unit = "1/s") = 2 "Rate";
  Real x[2](each start = 1, each fixed = true, each unit = "m") "Two decaying lengths";
  output Real y(unit = "m") "Their sum";
equation
  der(x) = -k * x;
  y = x[1] + x[2];
end Decay;\"\"\"
        float outputs:y
    }
    def Xform "Plain"
    {
    }
}
"""


@pytest.fixture
def sim(writer, tmp_path):
    s = open_simulation(writer(tmp_path / "scene.usda", SCENE))
    assert s.wait_until_ready(180) == ""
    assert not [d for d in s.diagnostics if d.is_error], s.diagnostics
    return s


def _part(sim, path):
    return next(p for p in sim.participants if p.prim_path == path).participant


def test_values_and_units_are_the_participants_at_its_last_communication_point(sim):
    model = _part(sim, "/W/RC")
    assert model not in model_variables._TABLES  # nothing is prepared until someone asks
    assert sim.run(30) == 30
    result = sim.query(ModelVariables("/W/RC"))
    assert result.ok, result.diagnostics
    value = result.value
    assert value["prim"] == "/W/RC" and value["model"] == "Workbench.Electrical.RCCircuit"
    assert value["tick"] == 30 and value["time"] == pytest.approx(model.time) and model.time == pytest.approx(0.5)
    vs = value["variables"]
    for name in ("capacitor.v", "resistor.i", "resistor.p.v", "source.n.v", "V_supply", "resistor.R", "v_cap"):
        assert vs[name]["value"] == pytest.approx(model.value(name)), name
    assert vs["capacitor.v"]["kind"] == "state" and vs["capacitor.v"]["unit"] == "V"
    assert 0 < vs["capacitor.v"]["value"] < 5  # charging towards the supply
    assert vs["resistor.i"]["kind"] == "algebraic" and vs["resistor.i"]["unit"] == "A"
    assert vs["resistor.R"] == {"value": 100.0, "unit": "Ohm", "kind": "parameter", "description": "Resistance"}
    assert vs["V_supply"]["kind"] == "input" and vs["V_supply"]["value"] == 5.0
    assert vs["V_supply"]["port"] == {"name": "V_supply", "direction": "in", "writable": True, "authority": "user"}
    assert vs["v_cap"]["kind"] == "output" and vs["v_cap"]["port"]["direction"] == "out"
    assert vs["v_cap"]["value"] == pytest.approx(sim.read("/W/RC", "v_cap"))  # the port published the same value
    assert "port" not in vs["capacitor.v"]


def test_names_pick_variables_and_an_array_name_its_elements(sim):
    sim.run(12)
    result = sim.query(ModelVariables("/W/RC", ("resistor.p.v", "current")))
    assert result.ok and list(result.value["variables"]) == ["resistor.p.v", "current"]
    decay = sim.query(ModelVariables("/W/Decay", ("x", "k")))  # an inline model
    assert decay.ok, decay.diagnostics
    vs = decay.value["variables"]
    assert list(vs) == ["x[1]", "x[2]", "k"]
    model = _part(sim, "/W/Decay")
    assert vs["x[1]"]["value"] == pytest.approx(model.value("x[1]")) and vs["x[1]"]["unit"] == "m"
    assert vs["x[1]"]["value"] < 1.0 and vs["k"]["value"] == 2.0


def test_refusals_say_why(sim):
    sim.run(1)
    for q, code, words in (
        (ModelVariables("/W/Nowhere"), "query-not-found", "no prim at '/W/Nowhere'"),
        (ModelVariables("/W/Plain"), "model-variables-not-modelica", "/W/Plain is not a Modelica program"),
        (ModelVariables("/W/RC", ("capacitor.vv", "resistor.R")), "model-variable-unknown",
         "has no variable 'capacitor.vv' (nearest: capacitor.v"),
    ):
        result = sim.query(q)
        assert not result.ok
        [d] = result.diagnostics
        assert d.code == code and words in d.message, d.message


def test_the_query_is_in_the_vocabulary_scripts_and_http_use():
    assert from_name("ModelVariables", {"prim": "/W/RC", "names": ["v_cap"]}) == ModelVariables("/W/RC", ("v_cap",))
    decoded = decode_request({"command": "ModelVariables", "params": {"prim": "/W/RC", "names": ["v_cap"]}})
    assert decoded == ModelVariables("/W/RC", ("v_cap",))


def test_a_network_member_is_read_from_its_networks_model(writer, tmp_path):
    from tests.sim.test_component_network import scene

    s = open_simulation(scene(writer, tmp_path))
    assert s.wait_until_ready(180) == ""
    s.run(6)
    result = s.query(ModelVariables("/W/C", ("v", "C")))  # the capacitor member, by its own names
    assert result.ok, result.diagnostics
    vs = result.value["variables"]
    assert vs["v"]["kind"] == "state" and vs["v"]["unit"] == "V" and vs["C"]["value"] == pytest.approx(1e-4)
    assert vs["v"]["value"] == pytest.approx(s.read("/W/Meter", "v"), rel=1e-9)
    assert result.value["model"].startswith("Network_")
