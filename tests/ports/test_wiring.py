"""Ports and wires on real scenes: the drive-by-wire example, public outputs, broken wires, units."""

import numpy as np
import pytest

from luncosim_core.api import (
    CausalTrace,
    GetBrokenConnections,
    ListConnections,
    ListPorts,
    QueryUsdPrim,
    SetPorts,
)
from luncosim_core.ports.fabric import Fabric
from luncosim_core.ports.model import Wire
from luncosim_core.ports.units import UnitError, conversion, dimensionality, to_pint
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.roots import AssetRoots
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import OpError, RenamePrim, SetConnection

HEAD = '#usda 1.0\n(\n    defaultPrim = "Rover"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'

DRIVE_BY_WIRE = HEAD + """
def Xform "Rover" (
    kind = "assembly"
)
{
    def Scope "Controller"
    {
        float inputs:throttle = 0.0
        float inputs:steer = 0.0
        float outputs:left_torque = 0.0 (
            customData = {
                string unit = "N.m"
            }
        )
        float outputs:right_torque = 0.0
    }

    def Xform "Chassis"
    {
        float inputs:left_torque.connect = </Rover/Controller.outputs:left_torque>
        float inputs:right_torque.connect = </Rover/Controller.outputs:right_torque>
    }
}
"""


def sim_for(writer, tmp_path, text, name="scene.usda"):
    path = writer(tmp_path / name, text)
    return open_simulation(path), path


def test_drive_by_wire_setports_visible_downstream_next_tick(writer, tmp_path):
    sim, _ = sim_for(writer, tmp_path, DRIVE_BY_WIRE)
    sim.run(2)
    assert sim.read("/Rover/Chassis", "left_torque") == 0.0  # authored producer sample flows
    sim.submit(SetPorts(target="/Rover/Controller", writes={"left_torque": 12.5, "right_torque": -3.0}, correlation_id="c1"))
    assert sim.read("/Rover/Chassis", "left_torque") == 0.0  # queued, not yet admitted
    sim.tick()
    assert sim.read("/Rover/Chassis", "left_torque") == 12.5
    assert sim.read("/Rover/Chassis", "right_torque") == -3.0
    # the wired sink belongs to its wire: SetPorts on it is refused
    res = []
    sim.submit(SetPorts(target="/Rover/Chassis", writes={"left_torque": 1.0}), res.append)
    sim.tick()
    assert not res[0].ok and "wire" in res[0].diagnostics[0].message
    # one graph: the same wires are listed, the snapshot carries the value
    wires = sim.query(ListConnections(target="/Rover/Chassis")).value
    assert {w["source"] for w in wires} == {"/Rover/Controller.outputs:left_torque", "/Rover/Controller.outputs:right_torque"}
    assert sim.snapshot().port("/Rover/Chassis.left_torque") == 12.5
    trace = sim.query(CausalTrace(target="/Rover/Controller", correlation_id="c1")).value
    assert trace["tick"] == 3 and trace["complete"]
    assert trace["ports"]["left_torque"]["owner"] == "imperative"
    assert trace["ports"]["left_torque"]["downstream"] == ["/Rover/Chassis.left_torque"]
    assert trace["ports"]["left_torque"]["binding"] == "/Rover/Controller.outputs:left_torque"


def test_trace_of_nothing_is_incomplete(writer, tmp_path):
    sim, _ = sim_for(writer, tmp_path, DRIVE_BY_WIRE)
    t = sim.query(CausalTrace(target="/Rover/Controller")).value
    assert t["complete"] is False and t["stages"]["command"] == "absent"


def test_private_model_value_cannot_be_wired(writer, tmp_path):
    text = HEAD + """
def Xform "Rover"
{
    def Scope "ReactionWheel"
    {
        float outputs:torque = 0.0
    }
    def Scope "Sink"
    {
        float inputs:speed.connect = </Rover/ReactionWheel.outputs:speed>
        float inputs:torque.connect = </Rover/ReactionWheel.outputs:torque>
    }
}
"""
    sim, _ = sim_for(writer, tmp_path, text)
    broken = sim.query(GetBrokenConnections()).value
    assert [b["sink"] for b in broken] == ["/Rover/Sink.inputs:speed"]
    assert "public-output rule" in broken[0]["broken"]
    sim.run(3)
    assert sim.read("/Rover/Sink", "speed") is None  # pending, never zero
    assert sim.read("/Rover/Sink", "torque") == 0.0
    assert any(d.code == "wire-broken" and d.path == "/Rover/Sink.inputs:speed" for d in sim.diagnostics)


def test_renaming_the_source_breaks_the_wire_and_the_sink_goes_pending(writer, tmp_path):
    path = writer(tmp_path / "scene.usda", DRIVE_BY_WIRE)
    doc = UsdDocument(path, AssetRoots(twin_root=tmp_path, lunco_root=tmp_path))
    doc.apply(RenamePrim("/Rover/Controller", "Driver"))
    from luncosim_core.sim.simulation import Simulation

    sim = Simulation(doc.stage)
    sim.run(2)
    broken = sim.query(GetBrokenConnections()).value
    assert len(broken) == 2 and all("does not exist" in b["broken"] for b in broken)
    assert sim.read("/Rover/Chassis", "left_torque") is None
    msgs = [d.message for d in sim.diagnostics if d.code == "wire-broken"]
    assert any("/Rover/Controller.outputs:left_torque -> /Rover/Chassis.inputs:left_torque" in m for m in msgs)


def test_units_convert_rpm_to_rad_per_s_and_refuse_m_to_s(writer, tmp_path):
    text = HEAD + """
def Xform "Rover"
{
    def Scope "Motor"
    {
        double outputs:speed = 60 (
            customData = {
                string unit = "rpm"
            }
        )
        double outputs:range = 2 (
            customData = {
                string unit = "km"
            }
        )
        double outputs:length = 1 (
            customData = {
                string unit = "m"
            }
        )
    }
    def Scope "Wheel"
    {
        double inputs:omega (
            customData = {
                string unit = "rad/s"
            }
        )
        prepend double inputs:omega.connect = </Rover/Motor.outputs:speed>
        double inputs:dist (
            customData = {
                string unit = "m"
            }
        )
        prepend double inputs:dist.connect = </Rover/Motor.outputs:range>
        double inputs:duration (
            customData = {
                string unit = "s"
            }
        )
        prepend double inputs:duration.connect = </Rover/Motor.outputs:length>
    }
}
"""
    sim, _ = sim_for(writer, tmp_path, text)
    sim.run(1)
    assert sim.read("/Rover/Wheel", "omega") == pytest.approx(2 * np.pi)
    assert sim.read("/Rover/Wheel", "dist") == pytest.approx(2000.0)
    assert sim.read("/Rover/Wheel", "duration") is None
    bad = [d for d in sim.diagnostics if d.code == "wire-broken"]
    assert len(bad) == 1 and "incompatible units" in bad[0].message and "duration" in bad[0].path


def test_unit_conversion_table():
    assert conversion("rpm", "rad/s")[0] == pytest.approx(2 * np.pi / 60)
    assert conversion("km", "m") == (1000.0, 0.0)
    assert conversion("", "m") == (1.0, 0.0)
    assert conversion("N.m", "N*m") == (1.0, 0.0)
    assert conversion("degC", "K")[1] == pytest.approx(273.15)
    with pytest.raises(UnitError):
        conversion("m", "s")


def test_orphan_connector_warns_and_is_no_port(writer, tmp_path):
    text = HEAD + """
def Xform "Rover"
{
    def Scope "Battery"
    {
        custom token connectors:pin
        float outputs:soc = 1.0
    }
}
"""
    sim, _ = sim_for(writer, tmp_path, text)
    orphan = [d for d in sim.diagnostics if d.code == "orphan-connector"]
    assert orphan and orphan[0].severity == "warning" and orphan[0].path == "/Rover/Battery.connectors:pin"
    names = [p["name"] for p in sim.query(ListPorts(target="/Rover/Battery")).value]
    assert names == ["soc"]


def test_several_wires_into_one_input_sum(writer, tmp_path):
    text = HEAD + """
def Xform "Rover"
{
    def Scope "A"
    {
        float outputs:x = 1.5
    }
    def Scope "B"
    {
        float outputs:x = 2.0
    }
    def Scope "Sum"
    {
        float inputs:total.connect = [</Rover/A.outputs:x>, </Rover/B.outputs:x>]
    }
}
"""
    sim, _ = sim_for(writer, tmp_path, text)
    sim.run(1)
    assert sim.read("/Rover/Sum", "total") == pytest.approx(3.5)


def test_pending_producer_keeps_sink_pending_until_a_sample(writer, tmp_path):
    text = HEAD + """
def Xform "Rover"
{
    def Scope "P"
    {
        float outputs:x
    }
    def Scope "C"
    {
        float inputs:x.connect = </Rover/P.outputs:x>
    }
}
"""
    sim, _ = sim_for(writer, tmp_path, text)
    sim.run(3)
    assert sim.read("/Rover/C", "x") is None
    sim.submit(SetPorts(target="/Rover/P", writes={"x": 4.0}))
    sim.tick()
    assert sim.read("/Rover/C", "x") == 4.0


def test_set_connection_validates_both_ends(writer, tmp_path):
    path = writer(tmp_path / "scene.usda", DRIVE_BY_WIRE)
    doc = UsdDocument(path, AssetRoots(twin_root=tmp_path, lunco_root=tmp_path))
    with pytest.raises(OpError):
        doc.apply(SetConnection(path="/Rover/Chassis", name="inputs:brake", sources=("/Rover/Controller.outputs:brake",)))
    doc.apply(SetConnection(path="/Rover/Chassis", name="inputs:steer", sources=("/Rover/Controller.inputs:steer",)))
    from luncosim_core.sim.simulation import Simulation

    sim = Simulation(doc.stage)
    sim.submit(SetPorts(target="/Rover/Controller", writes={"steer": 0.25}))
    sim.tick()
    assert sim.read("/Rover/Chassis", "steer") == 0.25
    doc.undo()
    assert not doc.stage.GetPrimAtPath("/Rover/Chassis").GetAttribute("inputs:steer")


def test_query_usd_prim_reads_the_composed_result(writer, tmp_path):
    sim, _ = sim_for(writer, tmp_path, DRIVE_BY_WIRE)
    r = sim.query(QueryUsdPrim(path="/Rover/Controller", attrs=("outputs:left_torque",)))
    assert r.ok and r.value["attributes"] == {"outputs:left_torque": 0.0}
    assert not sim.query(QueryUsdPrim(path="/Nope")).ok


def test_fabric_propagates_nan_and_sums():
    fab = Fabric()
    index = {"/a.x": 0, "/b.x": 1, "/c.y": 2, "/d.y": 3}
    wires = [Wire("/a", "x", "/c", "y", "float"), Wire("/b", "x", "/c", "y", "float"), Wire("/a", "x", "/d", "y", "float")]
    fab.compile(wires, index, {})
    values = np.array([1.0, np.nan, 0.0, 0.0])
    fab.propagate(values)
    assert np.isnan(values[2]) and values[3] == 1.0


def test_set_connection_through_the_runtime_recompiles_between_ticks_without_reprojecting(writer, tmp_path):
    from luncosim_core.api import ApplyOp

    sim, _ = sim_for(writer, tmp_path, DRIVE_BY_WIRE.replace('    def Xform "Chassis"', """
    def Cube "Crate" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.5
        double3 xformOp:translate = (0, 10, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }

    def Xform "Chassis\"""", 1))
    # no PhysicsScene: the runtime's default lunar gravity applies; push harder than the weight
    sim.submit(SetPorts(target="/Rover/Crate", writes={"force_y": 400.0}))
    sim.run(30)
    y_before = sim.read("/Rover/Crate", "position_y")
    assert y_before > 10.0
    results = []
    sim.submit(ApplyOp(op=SetConnection(path="/Rover/Chassis", name="inputs:steer", sources=("/Rover/Controller.inputs:steer",))), results.append)
    sim.submit(SetPorts(target="/Rover/Controller", writes={"steer": -0.5}))
    sim.tick()
    assert results[0].ok
    assert sim.read("/Rover/Chassis", "steer") == -0.5
    assert sim.read("/Rover/Crate", "position_y") > y_before  # the body kept moving: no re-projection
    # a physics output cannot become a wire sink
    bad = []
    sim.submit(ApplyOp(op=SetConnection(path="/Rover/Crate", name="outputs:position_y", sources=("/Rover/Controller.inputs:steer",))), bad.append)
    sim.tick()
    assert not bad[0].ok and "produced by physics" in bad[0].diagnostics[0].message
    assert sim.document.journal.labels() == ["wire /Rover/Chassis.inputs:steer"]


REACTION_WHEEL = HEAD + """
def Xform "Rover"
{
    def Scope "ReactionWheel" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @lunco://models/Workbench/Pointing/ReactionWheel.mo@
        float inputs:torque_cmd = 0.1
        float outputs:momentum
    }
    def Scope "Telemetry"
    {
        float inputs:momentum.connect = </Rover/ReactionWheel.outputs:momentum>
        float inputs:omega.connect = </Rover/ReactionWheel.outputs:omega>
    }
}
"""


def test_a_models_private_value_cannot_be_wired_but_its_declared_output_can(writer, tmp_path):
    sim, _ = sim_for(writer, tmp_path, REACTION_WHEEL)
    assert sim.wait_until_ready(120) == ""
    sim.run(60)
    # momentum is a model output the prim declares: it flows (inertia 0.02 * omega after 1 s of 0.1 N.m)
    assert sim.read("/Rover/Telemetry", "momentum") == pytest.approx(0.1, rel=0.02)
    # omega is computed by the model but not declared as outputs:omega on the prim: never a port
    assert sim.registry.info("/Rover/ReactionWheel.omega") is None
    assert sim.read("/Rover/Telemetry", "omega") is None
    broken = sim.query(GetBrokenConnections()).value
    assert [b["sink"] for b in broken] == ["/Rover/Telemetry.inputs:omega"]
    assert "public-output rule" in broken[0]["broken"]


def test_a_bodys_native_physics_port_can_be_wired_without_a_declaration(writer, tmp_path):
    text = HEAD + """
def Xform "Rover"
{
    def Cube "Beacon" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.5
        double3 xformOp:translate = (3, 7, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Scope "Guidance"
    {
        double inputs:target_x.connect = </Rover/Beacon.outputs:position_x>
        double inputs:target_q.connect = </Rover/Beacon.outputs:no_such_port>
    }
}
"""
    sim, _ = sim_for(writer, tmp_path, text)
    sim.run(1)
    assert sim.read("/Rover/Guidance", "target_x") == pytest.approx(3.0)
    broken = sim.query(GetBrokenConnections()).value
    assert [b["sink"] for b in broken] == ["/Rover/Guidance.inputs:target_q"]


def test_one_translator_reads_modelica_unit_strings():
    assert to_pint("N.m") == "(N*m)" and to_pint("m/s2") == "(m)/(s**2)"
    assert to_pint("W/(m2.K4)") == "(W)/((m**2*K**4))" and to_pint("m.s-2") == "(m*s**-2)"
    assert to_pint("1") == "dimensionless" and to_pint("") == "" and to_pint(None) == ""
    assert conversion("kg.m2/s", "N.m.s") == pytest.approx((1.0, 0.0))
    assert conversion("degC", "K") == pytest.approx((1.0, 273.15))
    assert dimensionality("N.m")[0] == dimensionality("J")[0]
    # the Modelica side asks the same registry (one vocabulary)
    from luncosim_core.modelica import units as modelica_units

    assert modelica_units.dimensionality is dimensionality
