"""The native task driver, vessel possession, command events, trigger zones and the default
gravity, on real scenes of our own with the real interpreter and real physics."""

from __future__ import annotations

import pytest
from scene_helpers import GROUND_AND_BOX, Recorder, scenario_prim

from luncosim_core.scripting.scenario import scenarios_of
from luncosim_core.scripting.task_tree import TaskTreeError, compile_task

TASK = """
fn bump(me) { this.bumps += 1; }
fn enough(me) { this.bumps >= 3 }
fn mark(me) { this.marked = elapsed_seconds(); }
fn on_start(me) {
    this.bumps = 0;
    this.task = #{ k: "seq", items: [
        #{ secs: 0.1 },
        #{ act: Fn("mark") },
        #{ act: Fn("bump"), done: Fn("enough") },
        #{ k: "sel", items: [ #{ check: Fn("never") }, #{ k: "invert", body: #{ check: Fn("never") } } ] },
        #{ event: "GO" },
    ] };
}
fn never(me) { false }
fn on_tick(me) { if this.bumps == 3 && this.go == () { this.go = true; emit("GO", 1); } }
"""


def test_a_task_tree_runs_its_leaves_in_order_and_reports_completion(make_scene, sims):
    scene = make_scene(GROUND_AND_BOX + scenario_prim("Mission", asset="m.rhai"), files={"m.rhai": TASK})
    sim = sims(scene)
    rec = Recorder(sim)
    (part,) = scenarios_of(sim)
    sim.run(20)
    assert part.fault is None, part.fault
    assert part.this["bumps"] == 3  # act runs every tick until done holds
    assert part.this["marked"] == pytest.approx(6 / 60)  # after the 0.1 s wait, same tick it ends
    done = [e for e in rec.events if e.name == "TASK_COMPLETE"]
    assert len(done) == 1 and done[0].source_path == "/World/Mission"


def test_a_task_tree_scene_hashes_alike_when_run_twice_in_one_process(make_scene, sims):
    """The tree's mark (``this.task.__bt``) is part of the scenario's state: it counts per driver,
    so a second run in the same process (a sequential batch, the workbench reopening) hashes alike."""
    scene = make_scene(GROUND_AND_BOX + scenario_prim("Mission", asset="m.rhai"), files={"m.rhai": TASK})
    hashes = []
    for _ in range(2):
        sim = sims(scene)
        sim.run(12)
        (part,) = scenarios_of(sim)
        assert part.this["task"]["__bt"] == 1
        hashes.append(sim.state_hash())
    assert hashes[0] == hashes[1]


def test_a_bad_task_tree_faults_the_scenario_naming_the_node(make_scene, sims):
    bad = 'fn on_start(me) { this.task = #{ k: "sometimes", items: [] }; }'
    scene = make_scene(GROUND_AND_BOX + scenario_prim("Mission", asset="m.rhai"), files={"m.rhai": bad})
    sim = sims(scene)
    (part,) = scenarios_of(sim)
    sim.run(2)
    assert part.fault is not None and "unknown task node kind `sometimes`" in part.fault.message
    with pytest.raises(TaskTreeError, match="missing integer `n`"):
        compile_task({"k": "repeat", "body": {}})


VESSEL = """
    def Cube "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        double size = 1
        double3 xformOp:translate = (0, 0.5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def "Controls"
        {
            def "forward"
            {
                uniform string lunco:port = "throttle"
            }
        }
    }
"""
PILOT = """
fn on_start(me) { this.seen = []; }
fn on_tick(me) {
    let t = sim_tick();
    if t == 1 { this.refused = cmd("PossessVessel", #{ target: find("/World/Box") }).ok; }
    if t == 2 { cmd("PossessVessel", #{ target: find("/World/Rover") }); }
    if t == 4 { this.who = controller(find("/World/Rover")); this.held = is_controlled(find("/World/Rover")); }
    if t == 5 { cmd("ReleaseVessel", #{ target: find("/World/Rover") }); }
    if t == 7 { this.after = is_controlled(find("/World/Rover")); }
}
fn on_event(me, evt) { if evt.name.starts_with("cmd:") { this.seen.push(evt.name); } }
"""


def test_possessing_a_vessel_sets_its_pilot_and_is_heard_as_a_command_event(make_scene, sims):
    scene = make_scene(GROUND_AND_BOX + VESSEL + scenario_prim("Pilot", asset="p.rhai"), files={"p.rhai": PILOT})
    sim = sims(scene)
    (part,) = scenarios_of(sim)
    sim.run(9)
    assert part.fault is None, part.fault
    assert part.this["refused"] is False  # the box has no command inputs
    assert part.this["who"] == "session" and part.this["held"] is True
    assert part.this["after"] is False
    assert sim.read("/World/Rover", "piloted") == 0.0
    assert part.this["seen"] == ["cmd:PossessVessel", "cmd:ReleaseVessel"]


ZONE = """
    def Xform "Marker" (kind = "component")
    {
        double3 xformOp:translate = (0, 1.5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Sphere "Trigger" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 1.0
            custom string lunco:triggerZone = "pad"
        }
    }
"""
LISTEN = """
fn on_start(me) { this.got = []; }
fn on_event(me, evt) {
    if evt.name == "enter:pad" || evt.name == "exit:pad" { this.got.push([evt.name, evt.value, evt.source]); }
}
"""


def test_a_body_falling_through_a_trigger_zone_is_reported_and_not_stopped(make_scene, sims):
    scene = make_scene(GROUND_AND_BOX + ZONE + scenario_prim("Watch", asset="w.rhai"), files={"w.rhai": LISTEN})
    sim = sims(scene)
    (part,) = scenarios_of(sim)
    sim.run(120)
    rt = part.runtime
    box, trigger = rt.id_of("/World/Box"), rt.id_of("/World/Marker/Trigger")
    # the source is the trigger prim itself (LunCoSim's sensor collider), not its marker model
    assert part.this["got"][:1] == [["enter:pad", box, trigger]]
    assert sim.read("/World/Box", "position_y") == pytest.approx(0.5, abs=0.02)  # fell through onto the ground


CLIMB = """
fn drop(me) { }
fn on_start(me) {
    this.task = #{ k: "race", items: [
        #{ k: "seq", items: [ #{ act: Fn("drop"), event: "enter:pad", src: "/World/Marker" }, #{ act: Fn("by_marker") } ] },
        #{ k: "seq", items: [ #{ act: Fn("drop"), event: "enter:pad", src: "/World/Marker/Trigger" },
                              #{ act: Fn("by_trigger") } ] },
    ] };
}
fn by_marker(me) { this.marker_at = elapsed_seconds(); }
fn by_trigger(me) { this.trigger_at = elapsed_seconds(); }
"""


def test_a_task_leaf_waiting_on_a_zone_event_from_its_marker_never_hears_it(make_scene, sims):
    """A leaf ``#{ event: "enter:<zone>", src: <path> }`` matches the zone's own trigger prim, as in
    LunCoSim (the sensor collider is the event source): naming the marker that holds the trigger
    matches nothing, so such a leaf keeps running (LunCoSim's slopes tutorial climbs on)."""
    scene = make_scene(GROUND_AND_BOX + ZONE + scenario_prim("Climb", asset="c.rhai"), files={"c.rhai": CLIMB})
    sim = sims(scene)
    (part,) = scenarios_of(sim)
    sim.run(120)
    assert part.fault is None, part.fault
    assert part.this["trigger_at"] is not None and part.this["trigger_at"] < 1.0
    assert "marker_at" not in part.this


def test_a_stage_without_a_physics_scene_falls_at_lunar_gravity(make_scene, sims):
    body = GROUND_AND_BOX.split('    def Cube "Ground"')[0].split('    def PhysicsScene')[0] + \
        '    def Cube "Ground"' + GROUND_AND_BOX.split('    def Cube "Ground"')[1]
    assert "PhysicsScene" not in body
    sim = sims(make_scene(body))
    sim.run(30)
    assert sim.read("/World/Box", "acceleration_y") == pytest.approx(-1.62, rel=1e-3)
    assert any(d.code == "physics-default-gravity" for d in sim.world.diagnostics)
