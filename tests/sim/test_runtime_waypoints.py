"""Runtime waypoints: ``AddRuntimeWaypoint`` spawns a marker bound to a running vessel; its
trigger zone is the arrival sensor, ``RuntimeWaypointStatus`` reads the route and scenarios hear
``waypoint.reached`` from the vessel. Targets that are not vessels and bad positions are refused."""

from __future__ import annotations

import math

import pytest

from luncosim_core.api import AddRuntimeWaypoint, RuntimeWaypointStatus, SpawnEntity
from luncosim_core.sim.scene_test import run_scene_test
from luncosim_core.sim.simulation import open_simulation

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "W"
{
    def Cube "Ground" (
        prepend apiSchemas = ["PhysicsCollisionAPI"]
    )
    {
        double size = 1
        double3 xformOp:scale = (60, 1, 60)
        double3 xformOp:translate = (0, -0.5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
    def Cube "Crate" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.5
        double3 xformOp:translate = (5, 0.25, 5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""

BUGGY = """#usda 1.0
(
    defaultPrim = "Buggy"
    upAxis = "Y"
    metersPerUnit = 1
)

def Cube "Buggy" (
    prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]
)
{
    uniform bool lunco:spawnable = true
    double size = 1
    def "Controls"
    {
        def "forward"
        {
            uniform string lunco:port = "throttle"
        }
    }
}
"""

WAYPOINT = """#usda 1.0
(
    defaultPrim = "Marker"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "Marker" (
    kind = "component"
)
{
    uniform bool lunco:spawnable = true
    def Sphere "Trigger" (
        prepend apiSchemas = ["PhysicsCollisionAPI"]
    )
    {
        double radius = 2
        double3 xformOp:translate = (0, 1, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        custom string lunco:triggerZone = "waypoint"
    }
}
"""

SCENARIO = """
fn on_start(me) { this.t = 0; this.heard = []; this.done = false; }
fn on_event(me, evt) {
    if evt.name == "waypoint.reached" { this.heard.push([evt.source, evt.value]); }
}
fn on_tick(me) {
    if this.done { return; }
    this.t += 1;
    if this.t == 1 {
        this.buggy = cmd("SpawnEntity", #{ entry_id: "buggy", position: [1.0, 0.5, 0.0] }).data.entity;
    }
    if this.t == 3 {
        this.near = cmd("AddRuntimeWaypoint", #{ target: this.buggy, position: [0.0, 0.0, 0.0] });
        this.far = cmd("AddRuntimeWaypoint", #{ target: this.buggy, position: [20.0, 0.0, 0.0] });
        this.crate = cmd("AddRuntimeWaypoint", #{ target: find("Crate"), position: [0.0, 0.0, 0.0] });
    }
    if this.t == 10 {
        this.done = true;
        let s = query("RuntimeWaypointStatus", #{ vessel: this.buggy });
        let ok = this.near.ok && this.near.data.index == 0 && this.far.data.index == 1
            && !this.crate.ok && this.crate.error.contains("no command inputs")
            && s.marker_count == 2 && s.reached_count == 1 && s.reached[0] == this.near.data.path
            && this.heard.len() == 1 && this.heard[0][0] == this.buggy && this.heard[0][1] == 0;
        print("status " + to_json(s) + " heard " + to_json(this.heard) + " crate " + this.crate.error);
        emit("ROUTE", if ok { "PASS" } else { "FAIL" });
    }
}
"""


@pytest.fixture
def twin(writer, tmp_path):
    root = tmp_path / "twin"
    writer(root / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "scenes/s.usda"\n')
    writer(root / "vessels" / "buggy.usda", BUGGY)
    writer(root / "markers" / "waypoint.usda", WAYPOINT)
    return root, writer(root / "scenes" / "s.usda", SCENE)


def test_a_scenario_routes_a_spawned_vessel_and_hears_it_arrive(twin, writer):
    root, scene = twin
    writer(root / "scenarios" / "route.rhai", SCENARIO)
    scene.write_text(scene.read_text().replace('    def Cube "Crate"', '''    def Scope "Test" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform asset info:sourceAsset = @twin://scenarios/route.rhai@
    }
    def Cube "Crate"'''))
    lines: list[str] = []
    report = run_scene_test(scene, max_ticks=30, out=lines.append)
    assert report.outcome == "PASS", "\n".join(lines)


def _admit(sim, cmd):
    results = []
    sim.submit(cmd, results.append)
    sim.tick()
    return results[0]


def test_refusals_name_the_target_and_the_position(twin):
    _root, scene = twin
    sim = open_simulation(scene)
    try:
        buggy = _admit(sim, SpawnEntity(entry_id="buggy", position=(0.0, 0.5, 0.0))).value["path"]
        res = _admit(sim, AddRuntimeWaypoint(target="/W/Nothing"))
        assert not res.ok and "no vessel at /W/Nothing" in res.diagnostics[0].message
        res = _admit(sim, AddRuntimeWaypoint(target=buggy, position=(0.0, math.inf, 0.0)))
        assert not res.ok and res.diagnostics[0].code == "spawn-bad-pose"
        status = sim.query(RuntimeWaypointStatus(vessel=buggy))
        assert status.ok and status.value["marker_count"] == 0  # nothing was half-made
        assert not sim.query(RuntimeWaypointStatus(vessel="/W/Nothing")).ok
    finally:
        sim.close()
