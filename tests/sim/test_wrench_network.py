"""An actuator-wrench network (a CollectionAPI:components scope of force actuators) allocates a
requested body torque to one normalized command per thruster, from the thrusters' composed
geometry in their rigid body's frame (LunCoSim's lander RCS allocator)."""

import pytest

from luncosim_core.api.commands import ModelVariables
from luncosim_core.modelica.wrench_model import generate_wrench, read_wrench_network
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.twin import open_path
from luncosim_core.usd.compose import compose
from luncosim_core.usd.networks import wrench_networks

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'


def thruster(name, z, command):
    return f"""
        def Cube "{name}" (prepend apiSchemas = ["LunCoForceActuatorAPI"])
        {{
            double3 xformOp:translate = (0, 0, {z})
            double3 xformOp:scale = (0.1, 0.4, 0.1)
            uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
            custom float3 lunco:forceActuator:direction = (0, 1, 0)
            custom double lunco:forceActuator:maxForce = 100.0
            custom string lunco:forceActuator:commandOutput = "{command}"
        }}"""


def scene(outputs=("aft_valve", "fore_valve")):
    outs = "\n".join(f"        float outputs:{o}" for o in outputs)
    return HEAD + f"""
def Xform "W"
{{
    def Scope "Cmd"
    {{
        float outputs:tx = 50.0
    }}
    def Xform "Craft" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {{
        double3 xformOp:translate = (5, 2, 0)
        double3 xformOp:rotateXYZ = (0, 90, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
        def Scope "Allocator" (prepend apiSchemas = ["CollectionAPI:components"])
        {{
            float inputs:desired_torque_x.connect = </W/Cmd.outputs:tx>
{outs}
            uniform token collection:components:expansionRule = "explicitOnly"
            prepend rel collection:components:includes = [</W/Craft/Fore>, </W/Craft/Aft>]
        }}
{thruster("Fore", 1.0, "fore_valve")}
{thruster("Aft", -1.0, "aft_valve")}
    }}
    def Scope "Meter"
    {{
        float inputs:fore.connect = </W/Craft/Allocator.outputs:fore_valve>
    }}
}}
"""


def test_the_columns_come_from_body_frame_geometry(writer, tmp_path):
    opened = open_path(writer(tmp_path / "w.usda", scene()))
    stage = compose(opened.scene, opened.twin.roots).stage
    [(root, members)] = wrench_networks(stage).items()
    net = read_wrench_network(stage, root, members)
    assert not net.problems
    # the body's own pose (translated, yawed 90 degrees) does not enter: columns are body-local
    assert net.columns["fore_valve"] == pytest.approx((0, 100, 0, -100, 0, 0), abs=1e-9)
    assert net.columns["aft_valve"] == pytest.approx((0, 100, 0, 100, 0, 0), abs=1e-9)
    text = generate_wrench(net)
    assert "output Real aft_valve;" in text and "aft_valve = c_64_1;" in text and "fore_valve = c_64_2;" in text


def test_a_requested_torque_becomes_thruster_commands(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "w.usda", scene()))
    assert sim.wait_until_ready(180) == ""
    assert {p.prim_path: p.kind for p in sim.participants}["/W/Craft/Allocator"] == "actuator-wrench"
    sim.run(3)
    # +50 N m about x: only the aft thruster can give it (commands are one-sided, 0..1); the
    # bounded least-squares solve trades the torque against the force it also makes: 0.25 each way
    assert sim.read("/W/Craft/Allocator", "aft_valve") == pytest.approx(0.25, abs=1e-6)
    assert sim.read("/W/Craft/Allocator", "fore_valve") == pytest.approx(0.0, abs=1e-9)
    assert sim.read("/W/Meter", "fore") == pytest.approx(0.0, abs=1e-9)
    assert not [d for d in sim.diagnostics if d.is_error]
    # the live-variables query walks past an actuator-wrench network (it has no members)
    asked = sim.query(ModelVariables(prim="/W/Meter"))
    assert asked.ok or asked.diagnostics[0].code.startswith("model-variables"), asked


def test_outputs_that_do_not_name_the_thrusters_are_reported(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "w.usda", scene(outputs=("aft_valve", "bow_valve"))))
    sim.wait_until_ready(60)
    [bad] = [d for d in sim.diagnostics if d.code == "network-invalid"]
    assert bad.path == "/W/Craft/Allocator" and "['aft_valve', 'fore_valve']" in bad.message
