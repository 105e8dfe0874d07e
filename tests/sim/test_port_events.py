"""LunCoEvent prims turn a connected 0/1 model output into a named event on the scripts' bus (the
lander's touchdown and fuel events): fired on the rising edge after the qualification time, from
the output's prim, re-armed when the trigger drops unless latched."""

from luncosim_core.api.events import ConsoleLine
from luncosim_core.sim.simulation import open_simulation

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'

PULSE = "model Pulse\\n  output Real flag;\\nequation\\n  flag = if sin(6.283185307179586 * time) > 0 then 1.0 else 0.0;\\nend Pulse;\\n"

SCENE = HEAD + f"""
def Xform "W"
{{
    def Scope "Gear" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform string info:sourceCode = "{PULSE}"
        float outputs:flag
    }}
    def LunCoEvent "Touchdown"
    {{
        float inputs:trigger.connect = </W/Gear.outputs:flag>
        uniform token lunco:event:name = "touchdown"
        uniform token lunco:event:severity = "warning"
        double lunco:event:qualificationTime = 0.1
    }}
    def LunCoEvent "FirstContact"
    {{
        float inputs:trigger.connect = </W/Gear.outputs:flag>
        uniform token lunco:event:name = "first_contact"
        bool lunco:event:latched = true
    }}
    def LunCoEvent "Broken"
    {{
        uniform token lunco:event:name = "never"
    }}
    def Scope "Listener" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform asset info:sourceAsset = @./listener.rhai@
    }}
}}
"""

LISTENER = """
fn on_event(me, evt) {
    if evt.name == "touchdown" || evt.name == "first_contact" {
        print(evt.name + " " + evt.severity + " " + (evt.source == find("/W/Gear")) + " ");
    }
}
"""


def test_a_connected_flag_fires_named_events_on_its_edges(writer, tmp_path):
    writer(tmp_path / "listener.rhai", LISTENER)
    sim = open_simulation(writer(tmp_path / "e.usda", SCENE))
    assert sim.wait_until_ready(120) == ""
    lines = []
    for _ in range(150):  # 2.5 s: the flag is 1 during (0, 0.5), (1, 1.5), (2, 2.5)
        sim.tick()
        lines += [e.text for e in sim.snapshot().events if isinstance(e, ConsoleLine)]
    touch = [line for line in lines if line.startswith("touchdown")]
    first = [line for line in lines if line.startswith("first_contact")]
    assert len(touch) == 3 and all(" warning true " in line for line in touch)
    assert len(first) == 1 and " info true " in first[0]  # latched: once
    [bad] = [d for d in sim.diagnostics if d.code == "event-invalid"]
    assert bad.path == "/W/Broken" and "no inputs:trigger connection" in bad.message
