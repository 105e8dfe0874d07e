"""The Host protocol (luncosim_core.api.host) served by a real simulation: what scripting, lint
and the scene-test runner may ask, as plain values."""

from __future__ import annotations

import math

import pytest

from luncosim_core.api import ConsoleLine, Host, LintReport, Notification, Pose, SetPorts, SimTime
from luncosim_core.sim.simulation import open_simulation

RIG = """#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    upAxis = "Z"
)
def Xform "World"
{
    def PhysicsScene "Physics" {}
    def Cube "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        double size = 0.5
        bool physics:kinematicEnabled = true
        double3 xformOp:translate = (0, 0, 2)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Xform "Mast"
        {
            double3 xformOp:translate = (0, 0, 0.5)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
    def Cube "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {
        double size = 0.5
        float physics:mass = 1
        double3 xformOp:translate = (1, 0, 2)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def PhysicsRevoluteJoint "Hinge"
    {
        rel physics:body0 = </World/Base>
        rel physics:body1 = </World/Arm>
        uniform token physics:axis = "Y"
        point3f physics:localPos0 = (0.5, 0, 0)
        point3f physics:localPos1 = (-0.5, 0, 0)
    }
    def Scope "Script" (prepend apiSchemas = ["LunCoProgramAPI"])
    {
        uniform token info:language = "rhai"
        string info:sourceCode = "fn on_tick(me) { }"
        custom float lunco:param:gain = 2.5
    }
}
"""


@pytest.fixture
def sim(tmp_path):
    scene = tmp_path / "rig.usda"
    scene.write_text(RIG)
    s = open_simulation(scene)
    yield s
    s.close()


def test_a_simulation_serves_the_host_protocol(sim):
    host = sim.host
    assert isinstance(host, Host)
    assert host.time() == SimTime(0, 0.0, 1 / 60)
    assert host.prim_paths()[:3] == ("/World", "/World/Physics", "/World/Base")
    assert host.prim_type("/World/Hinge") == "PhysicsRevoluteJoint" and host.prim_type("/Nope") == ""
    assert host.prim_param("/World/Script", "gain") == 2.5 and host.prim_param("/World/Script", "x") is None
    assert host.program_kind("/World/Script") == "scenario" and host.program_kind("/World/Arm") == ""
    assert "angle" in host.port_names("/World/Hinge") and host.has_port("/World/Hinge", "target_velocity")
    assert not host.has_port("/World/Hinge", "nope") and host.read_port("/World/Hinge", "nope") is None
    sim.run(10)
    assert host.time().tick == 10
    assert host.read_port("/World/Arm", "mass") == 1.0


def test_poses_are_metres_and_a_prim_rides_on_its_body(sim):
    host = sim.host
    base = host.pose("/World/Base")
    assert isinstance(base, Pose) and base.position == pytest.approx((0.0, 0.0, 2.0))
    assert base.orientation == pytest.approx((1.0, 0.0, 0.0, 0.0))
    mast = host.pose("/World/Base/Mast")
    assert mast.position == pytest.approx((0.0, 0.0, 2.5))
    assert host.pose("/World/Nope") is None


def test_commands_queries_and_events_go_through_the_host(sim):
    host = sim.host
    seq = host.next_sequence()
    res = host.execute(SetPorts(target="/World/Hinge", writes={"target_velocity": 1.0}))
    assert res.ok and host.next_sequence() == seq  # executed now, not queued
    sim.run(30)
    assert host.read_port("/World/Hinge", "velocity") > 0.1
    report = host.query(LintReport())
    assert report.ok and {"findings", "errors", "warnings", "infos"} <= set(report.value)
    host.publish(ConsoleLine(3, 0.05, "/World/Script", "hi"))
    host.publish(Notification(3, 0.05, "/World/Script", "info", "note"))
    events = sim.snapshot().events
    assert [type(e).__name__ for e in events] == ["ConsoleLine", "Notification"]
    assert sim.snapshot().events == ()  # each event is published in one snapshot
    assert math.isfinite(host.read_port("/World/Hinge", "angle"))
