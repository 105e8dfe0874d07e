"""Scenarios drive autopilots through ``cmd``: the vessel is named by entity id, the claim is
heard as ``cmd:EngageAutopilot`` and ``cmd:PossessVessel``, ``is_controlled`` follows it, and
LunCoSim's patrol prelude (``engage_patrol``) builds the spec the command takes."""

from __future__ import annotations

import pytest
from scene_helpers import GROUND_AND_BOX, scenario_prim

from luncosim_core.scripting.scenario import scenarios_of

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
            def "turn"
            {
                uniform string lunco:port = "steer"
            }
            def "stop"
            {
                uniform string lunco:port = "brake"
            }
        }
    }
"""
PILOT = """
fn on_start(me) { this.seen = []; }
fn on_tick(me) {
    let rover = find("/World/Rover");
    let t = sim_tick();
    if t == 1 {
        let spec = #{ kind: "patrol", waypoints: [#{ pos: [0.0, 0.5, -30.0] }], speed: 0.5, radius: 2.0 };
        this.engaged = cmd("EngageAutopilot", #{ vessel: rover, spec_json: to_json(spec) });
        this.refused = cmd("EngageAutopilot", #{ vessel: find("/World/Box") }).ok;
        this.unknown_kind = cmd("EngageAutopilot", #{ vessel: rover, spec_json: to_json(#{ kind: "warp" }) });
    }
    if t == 3 {
        this.held = is_controlled(rover);
        this.throttle = get(rover, "throttle");
        this.brake = get(rover, "brake");
    }
    if t == 4 { this.off = cmd("DisengageAutopilot", #{ vessel: rover }).ok; }
    if t == 6 { this.after = is_controlled(rover); this.brake_after = get(rover, "brake"); }
}
fn on_event(me, evt) { if evt.name.starts_with("cmd:") { this.seen.push(evt.name); } }
"""


def test_a_scenario_engages_and_disengages_an_autopilot(make_scene, sims):
    scene = make_scene(GROUND_AND_BOX + VESSEL + scenario_prim("Pilot", asset="p.rhai"), files={"p.rhai": PILOT})
    sim = sims(scene)
    (part,) = scenarios_of(sim)
    sim.run(8)
    assert part.fault is None, part.fault
    this = part.this
    assert this["engaged"]["ok"] is True and this["engaged"]["data"]["source"] == "spec_json"
    assert this["refused"] is False  # the box has no command inputs
    assert this["unknown_kind"]["ok"] is False and "unknown behaviour kind `warp`" in this["unknown_kind"]["error"]
    assert this["held"] is True
    assert this["throttle"] == pytest.approx(0.5) and this["brake"] == 0.0  # straight ahead at the patrol's speed
    assert this["off"] is True and this["after"] is False and this["brake_after"] == 1.0
    assert this["seen"][:2] == ["cmd:EngageAutopilot", "cmd:PossessVessel"]
    assert "cmd:DisengageAutopilot" in this["seen"]
