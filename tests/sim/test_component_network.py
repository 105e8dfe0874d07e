"""A component network (CollectionAPI:components) compiles into one generated Modelica model: an RC
circuit made of separate component programs charges as the closed form says."""

import math

import pytest

from luncosim_core.api import GetBrokenConnections
from luncosim_core.modelica.network_model import generate, read_network
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.twin import open_path
from luncosim_core.usd.compose import compose
from luncosim_core.usd.networks import member_output_alias, modelica_networks

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'


def part(name, model, body=""):
    return f"""
    def Scope "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @lunco://models/Workbench/Electrical/{model}.mo@
{body}
    }}
"""


RC = HEAD + """
def Xform "W"
{
    def Scope "Panel"
    {
        float outputs:volts = 5.0
    }
    def Scope "Net" (prepend apiSchemas = ["CollectionAPI:components"])
    {
        float inputs:supply.connect = </W/Panel.outputs:volts>
        float outputs:v_cap.connect = </W/C.outputs:v>
        uniform token collection:components:expansionRule = "explicitOnly"
        prepend rel collection:components:includes = [</W/Source>, </W/R>, </W/C>, </W/Gnd>, </W/Sensor>, </W/Spare>]
    }
""" + part("Source", "ConstantVoltage", """
        float inputs:V_in.connect = </W/Net.inputs:supply>
        custom token connectors:p.connect = </W/R.connectors:p>
        custom token connectors:n.connect = </W/Gnd.connectors:p>""") \
    + part("R", "Resistor", """
        float inputs:R = 1000.0
        custom token connectors:p
        custom token connectors:n.connect = </W/C.connectors:p>""") \
    + part("C", "Capacitor", """
        float inputs:C = 0.0001
        float outputs:i
        custom token connectors:p
        custom token connectors:n.connect = </W/Gnd.connectors:p>""") \
    + part("Gnd", "Ground", """
        custom token connectors:p""") \
    + """
    def Scope "Sensor" (prepend apiSchemas = ["LunCoProgramAPI"])
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @./parts/VoltageSensor.mo@
        float outputs:v_meas
        custom token connectors:p.connect = </W/C.connectors:p>
    }
""" + part("Spare", "Resistor", """
        custom token connectors:p
        custom token connectors:n""") + """
    def Scope "Meter"
    {
        float inputs:v.connect = </W/Net.outputs:v_cap>
        float inputs:v_meas.connect = </W/Sensor.outputs:v_meas>
    }
}
"""


SENSOR = """
model VoltageSensor "Ideal voltmeter against ground"
  Workbench.Interfaces.Pin p;
  output Real v_meas;
equation
  p.i = 0;
  v_meas = p.v;
end VoltageSensor;
"""


def scene(writer, tmp_path, text=RC):
    writer(tmp_path / "parts" / "VoltageSensor.mo", SENSOR)
    return writer(tmp_path / "rc.usda", text)


def test_an_rc_network_of_separate_parts_charges_like_the_closed_form(writer, tmp_path):
    path = scene(writer, tmp_path)
    sim = open_simulation(path)
    assert sim.wait_until_ready(180) == ""
    errors = [d for d in sim.diagnostics if d.is_error]
    assert not errors, errors
    # one participant for the network; none for its members
    kinds = {p.prim_path: p.kind for p in sim.participants}
    assert kinds.get("/W/Net") == "modelica-network"
    assert not {"/W/Source", "/W/R", "/W/C", "/W/Gnd"} & set(kinds)
    sim.run(6)  # 0.1 s = one time constant (R C = 0.1 s)
    v = sim.read("/W/Meter", "v")
    assert v == pytest.approx(5.0 * (1 - math.exp(-1.0)), rel=2e-3)
    # a member's output read from outside the network: published on the member and on the scope
    assert sim.read("/W/Meter", "v_meas") == pytest.approx(v, rel=1e-9)
    alias = member_output_alias("/W/Net", "/W/Sensor", "v_meas")
    assert sim.read("/W/Net", alias) == sim.read("/W/Meter", "v_meas") == sim.read("/W/Sensor", "v_meas")
    assert sim.registry.info("/W/Sensor.v_meas").authority == "modelica-network:/W/Net"
    # C's outputs:i names a variable that is not an output of its class: no alias is published
    assert sim.registry.info(f"/W/Net.{member_output_alias('/W/Net', '/W/C', 'i')}") is None
    assert sim.query(GetBrokenConnections()).value == []
    notes = [d for d in sim.diagnostics if d.code == "network-member-omitted"]
    assert [d.path for d in notes] == ["/W/Spare"]  # installed but unwired: not in the circuit


def test_the_generated_model_names_every_member_and_edge(writer, tmp_path):
    path = scene(writer, tmp_path)
    opened = open_path(path)
    stage = compose(path, opened.twin.roots).stage
    members = modelica_networks(stage)["/W/Net"]
    net = read_network(stage, "/W/Net", members, opened.twin.roots)
    text, aliases = generate(net, lambda m: None)
    # members outside the scope are named by their whole path ("/" spelled _x2f_)
    assert "Workbench.Electrical.Resistor W_x2f_R(R = 1000.0)" in text
    assert "connect(W_x2f_C.n, W_x2f_Gnd.p);" in text and "connect(W_x2f_C.p, W_x2f_R.n);" in text
    assert "W_x2f_Source.V_in = supply;" in text and "v_cap = W_x2f_C.v;" in text
    assert aliases == {"__member_W_x2f_C_i": ("/W/C", "i"), "__member_W_x2f_Sensor_v_meas": ("/W/Sensor", "v_meas")}
    assert net.omitted == ["/W/Spare"]


def test_a_member_input_from_outside_the_network_is_reported(writer, tmp_path):
    text = RC.replace("float inputs:V_in.connect = </W/Net.inputs:supply>",
                      "float inputs:V_in.connect = </W/Panel.outputs:volts2>")
    sim = open_simulation(scene(writer, tmp_path, text))
    sim.wait_until_ready(180)
    bad = [d for d in sim.diagnostics if d.code == "network-invalid"]
    assert bad and bad[0].path == "/W/Source.inputs:V_in"
    assert "boundary input of /W/Net" in bad[0].message
