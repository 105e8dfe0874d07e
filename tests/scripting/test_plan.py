"""Dependency plans: validated once per revision, enforced at the call, required inputs wait."""

from __future__ import annotations

from scene_helpers import GROUND_AND_BOX, scenario_prim

from luncosim_core.api import SetPorts
from luncosim_core.scripting.scenario import scenarios_of

INPUT_PRIM = """
    def Xform "Panel"
    {
        double inputs:setpoint (customData = {string unit = "m"})
    }
"""


def _diags(sim):
    return sim.snapshot().diagnostics


def test_plan_is_resolved_and_checked(make_scene, sims):
    code = """
    fn simulation_dependencies(me, ctx) {
        #{ modelica_entities: [], entity_reads: [find("/World/Box")], entity_writes: [],
           query_reads: [], required_inputs: [] }
    }
    fn on_tick(me) {
        this.y = world_pos(find("/World/Box"))[1];
        this.m = get(find("/World/Box"), "mass");
        if sim_tick() == 2 { set(find("/World/Box"), "force_x", 1.0); }
    }
    """
    sim = sims(make_scene(GROUND_AND_BOX + scenario_prim("S", code=code)))
    (part,) = scenarios_of(sim)
    sim.run(5)
    assert part.plan is not None and part.plan.reads == {"/World/Box"}
    assert part.this["m"] == 2.0
    # the write was not declared: the scenario faults at the call, visibly, and the sim goes on
    assert part.state == "faulted"
    assert "not in this scenario's dependency plan" in part.fault.message
    assert "entity_writes" in part.fault.message
    assert part.fault.line == 8 and part.fault.layer.endswith("info:sourceCode")
    assert sim.tick_count == 5


def test_plan_missing_keys_and_unresolved_ids_fail_the_revision(make_scene, sims):
    missing = 'fn simulation_dependencies(me, ctx) { #{ entity_reads: [] } } fn on_tick(me) { this.ran = true; }'
    bad_id = """
    fn simulation_dependencies(me, ctx) {
        #{ modelica_entities: [], entity_reads: [987654], entity_writes: [], query_reads: ["NoSuchQuery"],
           required_inputs: [] }
    }
    fn on_tick(me) { this.ran = true; }
    """
    not_modelica = """
    fn simulation_dependencies(me, ctx) {
        #{ modelica_entities: [find("/World/Box")], entity_reads: [], entity_writes: [], query_reads: [],
           required_inputs: [] }
    }
    """
    sim = sims(make_scene(GROUND_AND_BOX + scenario_prim("A", code=missing) + scenario_prim("B", code=bad_id)
                          + scenario_prim("C", code=not_modelica)))
    sim.run(2)
    a, b, c = scenarios_of(sim)
    assert a.state == b.state == c.state == "failed" and a.this == {} and b.this == {}
    msgs = [d.message for d in _diags(sim) if d.code == "scenario-plan-invalid"]
    assert any("missing modelica_entities, entity_writes, query_reads, required_inputs" in m for m in msgs)
    assert any("id 987654 does not resolve" in m for m in msgs)
    assert any("unknown query 'NoSuchQuery'" in m for m in msgs)
    assert any("/World/Box is not a live Modelica program" in m for m in msgs)


def test_planning_cannot_touch_ports_or_emit(make_scene, sims):
    code = """
    fn simulation_dependencies(me, ctx) {
        emit("NOPE", 1);
        #{ modelica_entities: [], entity_reads: [], entity_writes: [], query_reads: [], required_inputs: [] }
    }
    """
    sim = sims(make_scene(scenario_prim("S", code=code)))
    sim.run(1)
    (part,) = scenarios_of(sim)
    assert part.state == "failed"
    (d,) = [d for d in _diags(sim) if d.path == "/World/S" and d.is_error]
    assert "emit is not allowed in simulation_dependencies" in d.message and d.line == 2


def test_required_input_waits_with_a_visible_reason(make_scene, sims):
    code = """
    fn simulation_dependencies(me, ctx) {
        let p = find("/World/Panel");
        #{ modelica_entities: [], entity_reads: [p], entity_writes: [], query_reads: [],
           required_inputs: [#{ owner: p, identity: "setpoint" }] }
    }
    fn on_start(me) { this.seen = get(find("/World/Panel"), "setpoint"); }
    """
    sim = sims(make_scene(INPUT_PRIM + scenario_prim("S", code=code)))
    (part,) = scenarios_of(sim)
    assert sim.run(3) == 0
    assert sim.status(True) == ("waiting", "/World/S: waiting for required input /World/Panel.setpoint (no sample yet)")
    assert not part.started
    sim.submit(SetPorts(target="/World/Panel", writes={"setpoint": 4.0}))
    sim.tick()  # admits the write, still waiting this tick
    assert sim.run(2) == 2
    assert part.this["seen"] == 4.0


def test_required_input_without_producer_is_terminal(make_scene, sims):
    code = """
    fn simulation_dependencies(me, ctx) {
        #{ modelica_entities: [], entity_reads: [], entity_writes: [], query_reads: [],
           required_inputs: [#{ owner: find("/World/Box"), identity: "warp_drive" }] }
    }
    """
    sim = sims(make_scene(GROUND_AND_BOX + scenario_prim("S", code=code)))
    assert sim.run(3) == 3  # the failed scenario does not hold the simulation
    assert scenarios_of(sim)[0].state == "failed"
    assert any(d.code == "scenario-input-missing" and "/World/Box.warp_drive" in d.message for d in _diags(sim))
