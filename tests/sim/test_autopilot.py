"""Autopilots on a small skid rover of our own: engaged with no route it holds braked; with a
patrol (``spec_json``) or its own behaviour-tree program (a ``.btxml`` naming marker prims) it
drives there and stops; the claim, the refusals and the disengage's neutral inputs."""

from __future__ import annotations

import json
import math

import pytest

from luncosim_core.api import (
    ClearPatrol,
    DisengageAutopilot,
    EngageAutopilot,
    PossessVessel,
    SetAutopilotBehavior,
)
from luncosim_core.sim.simulation import open_simulation

HEADER = """#usda 1.0
(
    defaultPrim = "Site"
    upAxis = "Y"
    metersPerUnit = 1
)
"""
_WHEEL = """
        def Cylinder "Wheel_{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysxVehicleWheelAPI"])
        {{
            uniform token axis = "X"
            double radius = 0.4
            double height = 0.3
            double3 xformOp:translate = ({x}, -0.65, {z})
            uniform token[] xformOpOrder = ["xformOp:translate"]
            float physxVehicleWheel:radius = 0.4
            float physxVehicleWheel:mass = 25.0
            float physxVehicleWheel:moi = 2.0
            float physxVehicleWheel:dampingRate = 0.45
            float physxVehicleWheel:maxBrakeTorque = 1500.0
            float lunco:suspension:restLength = 0.7
            float physxVehicleSuspension:springStrength = 15000.0
            float physxVehicleSuspension:springDamperRate = 3000.0
            float physics:dynamicFriction = 1.5
            float physxVehicleTire:longitudinalStiffness = 8000.0
            float2 physxVehicleTire:lateralStiffnessGraph = (1.0, 1160.0)
            float physxVehicleTire:restLoad = 400.0
            float inputs:drive.connect = </Site/{rover}.outputs:drive_{side}>
        }}
        def Xform "Motor_{name}"
        {{
            float lunco:motor:stallTorque = 1.5
            float lunco:motor:noLoadSpeed = 2400.0
            float outputs:torque = 0.0
            prepend rel lunco:motor:drivenWheel = </Site/{rover}/Wheel_{name}>
        }}
        def Xform "Gearbox_{name}" (prepend apiSchemas = ["LunCoGearboxAPI"])
        {{
            float lunco:gearbox:ratio = 200.0
            float lunco:gearbox:efficiency = 0.85
            float lunco:gearbox:maxOutputTorque = 400.0
            float inputs:torque.connect = </Site/{rover}/Motor_{name}.outputs:torque>
        }}
"""


def rover(name: str, x: float, extra: str = "") -> str:
    """A four-wheel skid rover at (x, 1, 0) facing -Z, with throttle/steer/brake controls."""
    wheels = "".join(_WHEEL.format(name=n, x=wx, z=wz, side=s, rover=name) for n, wx, wz, s in (
        ("FL", -1.0, -1.225, "left"), ("FR", 1.0, -1.225, "right"),
        ("RL", -1.0, 1.225, "left"), ("RR", 1.0, 1.225, "right")))
    return f"""
    def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxVehicleTankDifferentialAPI"])
    {{
        double3 xformOp:translate = ({x}, 1.0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        float physics:mass = 1000.0
        float3 physics:diagonalInertia = (1028.0, 1354.0, 341.0)
        float physxRigidBody:linearDamping = 0.5
        float physxRigidBody:angularDamping = 2.0
        float outputs:drive_left = 0.0
        float outputs:drive_right = 0.0
        def "Controls"
        {{
            def "forward"
            {{
                uniform string lunco:port = "throttle"
            }}
            def "turn"
            {{
                uniform string lunco:port = "steer"
            }}
            def "stop"
            {{
                uniform string lunco:port = "brake"
            }}
        }}
        def Cube "Chassis" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {{
            double size = 1.0
            double3 xformOp:scale = (2.0, 0.3, 3.5)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }}
{wheels}{extra}
    }}
"""


SITE = HEADER + """
def Xform "Site"
{{
    def PhysicsScene "Physics"
    {{
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }}
    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double size = 1.0
        double3 xformOp:translate = (0, -0.5, 0)
        double3 xformOp:scale = (200.0, 1.0, 200.0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}
    def Cube "Crate" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {{
        double size = 0.5
        double3 xformOp:translate = (-20, 0.25, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}
    def Xform "MarkerA"
    {{
        double3 xformOp:translate = (10, 0, -12)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}
{rovers}
}}
"""

PATROL_XML = """<root BTCPP_format="4" main_tree_to_execute="MainTree">
  <BehaviorTree ID="MainTree">
    <Sequence>
      <Action ID="drive_to" target="/Site/MarkerA" speed="0.6" radius="2.0"/>
    </Sequence>
  </BehaviorTree>
</root>
"""

BT_PROGRAM = """
        def Scope "Autopilot" (prepend apiSchemas = ["LunCoProgramAPI"])
        {
            uniform asset info:sourceAsset = @./patrol.btxml@
        }
"""


def _admit(sim, cmd):
    results = []
    sim.submit(cmd, results.append)
    sim.tick()
    return results[0]


def _pos(sim, path):
    return sim.world_pose(path)[0]


def _read(sim, path, name):
    return sim.read(path, name)


@pytest.fixture
def site(tmp_path):
    def make(rovers: str, files: dict[str, str] | None = None):
        for name, text in (files or {}).items():
            (tmp_path / name).write_text(text)
        scene = tmp_path / "site.usda"
        scene.write_text(SITE.format(rovers=rovers))
        sim = open_simulation(scene)
        opened.append(sim)
        return sim

    opened: list = []
    yield make
    for sim in opened:
        sim.close()


def _settle(sim, ticks=60):
    sim.run(ticks)


def test_an_autopilot_with_no_route_claims_the_vessel_and_holds_it(site):
    sim = site(rover("Idle", 0.0))
    _settle(sim)
    start = _pos(sim, "/Site/Idle")
    res = _admit(sim, EngageAutopilot(vessel="/Site/Idle"))
    assert res.ok and res.value["source"] == "" and res.value["route"] is False
    assert [d.code for d in res.diagnostics] == ["autopilot-no-route"]
    sim.run(240)
    assert math.dist(_pos(sim, "/Site/Idle"), start) < 0.05
    assert _read(sim, "/Site/Idle", "brake") == 1.0 and _read(sim, "/Site/Idle", "throttle") == 0.0
    assert _read(sim, "/Site/Idle", "piloted") == 1.0
    # the session cannot take a vessel its autopilot drives
    res = _admit(sim, PossessVessel(target="/Site/Idle"))
    assert not res.ok and "driven by its autopilot" in res.diagnostics[0].message


def test_a_patrol_drives_the_vessel_to_its_waypoint_and_stops_there(site):
    sim = site(rover("Rover", 0.0))
    _settle(sim)
    goal = [8.0, 0.5, -10.0]  # ahead and to the right: the rover has to turn
    spec = {"kind": "patrol", "waypoints": [{"pos": goal}], "speed": 0.6, "radius": 2.0}
    res = _admit(sim, EngageAutopilot(vessel="/Site/Rover", spec_json=json.dumps(spec)))
    assert res.ok and res.value == {"vessel": "/Site/Rover", "source": "spec_json", "route": True}
    best = math.inf
    for _ in range(20):
        sim.run(60)
        best = min(best, math.dist(_pos(sim, "/Site/Rover"), goal))
    assert best < 2.5  # it reached the waypoint's radius
    end = _pos(sim, "/Site/Rover")
    sim.run(120)
    assert math.dist(_pos(sim, "/Site/Rover"), end) < 0.3  # and holds there (a one-waypoint patrol)
    assert _read(sim, "/Site/Rover", "brake") == 1.0


def test_a_vessel_without_a_spec_drives_its_own_behaviour_tree_program(site):
    sim = site(rover("Rover", 0.0, BT_PROGRAM), files={"patrol.btxml": PATROL_XML})
    _settle(sim)
    res = _admit(sim, EngageAutopilot(vessel="/Site/Rover"))
    assert res.ok and res.value["source"] == "/Site/Rover/Autopilot" and res.value["route"] is True
    marker = [10.0, 0.0, -12.0]
    for _ in range(20):
        sim.run(60)
        if math.dist(_pos(sim, "/Site/Rover"), marker) < 2.2:
            break
    assert math.dist(_pos(sim, "/Site/Rover"), marker) < 2.2
    # the sequence is done: the vessel holds until a new behaviour arrives
    assert sim.run(60) == 60 and _read(sim, "/Site/Rover", "brake") == 1.0
    res = _admit(sim, SetAutopilotBehavior(vessel="/Site/Rover",
                                           spec_json=json.dumps({"kind": "cruise", "throttle": 0.5})))
    assert res.ok
    here = _pos(sim, "/Site/Rover")
    sim.run(120)
    assert math.dist(_pos(sim, "/Site/Rover"), here) > 1.0
    assert _admit(sim, ClearPatrol(vessel="/Site/Rover")).ok
    sim.run(5)
    assert _read(sim, "/Site/Rover", "brake") == 1.0


def test_a_route_through_a_missing_waypoint_holds_and_says_which(site):
    xml = PATROL_XML.replace("/Site/MarkerA", "/Site/Nowhere")
    sim = site(rover("Rover", 0.0, BT_PROGRAM), files={"patrol.btxml": xml})
    _settle(sim)
    start = _pos(sim, "/Site/Rover")
    res = _admit(sim, EngageAutopilot(vessel="/Site/Rover"))
    assert res.ok
    (note,) = res.diagnostics
    assert note.code == "autopilot-unresolved-waypoint" and "/Site/Nowhere" in note.message
    sim.run(120)
    assert math.dist(_pos(sim, "/Site/Rover"), start) < 0.05


def test_refusals_name_what_is_wrong(site, tmp_path):
    sim = site(rover("Rover", 0.0))
    res = _admit(sim, EngageAutopilot(vessel="/Site/Crate"))
    assert not res.ok and "no command inputs" in res.diagnostics[0].message
    res = _admit(sim, EngageAutopilot(vessel="/Site/Nothing"))
    assert not res.ok and res.diagnostics[0].code == "autopilot-target"
    res = _admit(sim, EngageAutopilot(vessel="/Site/Rover", spec_json="{not json"))
    assert not res.ok and res.diagnostics[0].code == "autopilot-bad-spec"
    res = _admit(sim, EngageAutopilot(vessel="/Site/Rover", spec_json=json.dumps(
        {"kind": "sequence", "children": [{"kind": "steer_clear"}]})))
    assert not res.ok and "steer_clear" in res.diagnostics[0].message
    assert "children[0]" in res.diagnostics[0].message
    res = _admit(sim, SetAutopilotBehavior(vessel="/Site/Rover", spec_json='{"kind": "brake"}'))
    assert not res.ok and res.diagnostics[0].code == "autopilot-not-engaged"
    assert _read(sim, "/Site/Rover", "piloted") == 0.0  # nothing was claimed
    assert _admit(sim, PossessVessel(target="/Site/Rover")).ok
    res = _admit(sim, EngageAutopilot(vessel="/Site/Rover"))
    assert not res.ok and res.diagnostics[0].code == "autopilot-claim-refused"


def test_disengaging_releases_the_vessel_with_neutral_inputs(site):
    sim = site(rover("Rover", 0.0))
    _settle(sim)
    spec = {"kind": "cruise", "throttle": 0.8}
    assert _admit(sim, EngageAutopilot(vessel="/Site/Rover", spec_json=json.dumps(spec))).ok
    sim.run(60)
    assert _read(sim, "/Site/Rover", "throttle") == pytest.approx(0.8)
    assert _read(sim, "/Site/Rover", "drive_left") == pytest.approx(0.8)
    assert _admit(sim, DisengageAutopilot(vessel="/Site/Rover")).ok
    sim.run(2)
    assert _read(sim, "/Site/Rover", "throttle") == 0.0 and _read(sim, "/Site/Rover", "brake") == 1.0
    assert _read(sim, "/Site/Rover", "drive_left") == 0.0
    assert _read(sim, "/Site/Rover", "piloted") == 0.0
    assert not _admit(sim, DisengageAutopilot(vessel="/Site/Rover")).ok  # nothing left to end
    assert _admit(sim, PossessVessel(target="/Site/Rover")).ok  # the session may take it now


def test_autopilot_runs_are_deterministic(site):
    hashes = []
    for _ in range(2):
        sim = site(rover("Rover", 0.0))
        spec = {"kind": "patrol", "waypoints": [[6.0, 0.5, -8.0], [0.0, 0.5, -14.0]], "radius": 2.0}
        _admit(sim, EngageAutopilot(vessel="/Site/Rover", spec_json=json.dumps(spec)))
        sim.run(300)
        hashes.append(sim.state_hash())
    assert hashes[0] == hashes[1]
