"""Scenario lifecycle: top level once, on_start once, on_tick per tick, events a tick later,
on_stop at teardown, `this` persistent, `me` the scenario's own id, params."""

from __future__ import annotations

from scene_helpers import GROUND_AND_BOX, Recorder, scenario_prim

from luncosim_core.scripting.scenario import scenarios_of

LIFECYCLE = """
let banner = "top";
print("top level ran");
fn on_start(me) {
    this.starts = 1;
    this.ticks = 0;
    this.events = [];
    this.me = me;
    print("start " + me + " k=" + params.k);
}
fn on_tick(me) {
    this.ticks += 1;
    if this.ticks == 2 { emit("PING", 42); }
}
fn on_event(me, evt) {
    this.events.push(evt);
}
fn on_stop(me) { print("stop after " + this.ticks); }
"""


def test_hooks_run_in_order_with_persistent_this(make_scene, sims):
    scene = make_scene(GROUND_AND_BOX + scenario_prim("Mission", asset="mission.rhai", params={"k": 3}),
                       files={"mission.rhai": LIFECYCLE})
    sim = sims(scene)
    rec = Recorder(sim)
    (part,) = scenarios_of(sim)
    assert sim.run(5) == 5
    assert rec.lines[0] == "top level ran"
    assert rec.lines[1] == f"start {part.me} k=3.0"
    assert part.this["starts"] == 1 and part.this["ticks"] == 5
    assert part.this["me"] == part.me == part.runtime.id_of("/World/Mission")
    # emitted during tick 2, delivered once at the start of tick 3
    (evt,) = part.this["events"]
    assert evt["name"] == "PING" and evt["value"] == 42
    assert evt["source"] == part.me and evt["severity"] == "info"
    assert evt["timestamp"] == 1 / 60
    sim.close()
    assert rec.lines[-1] == "stop after 5"


def test_top_level_scope_and_inline_source(make_scene, sims):
    code = """
    const GAIN = 2.5;
    fn on_tick(me) { this.v = GAIN * 2.0; this.name = name(me); this.speed = params.speed; }
    """
    sim = sims(make_scene(scenario_prim("Inline", code=code, params={"speed": 0.5})))
    (part,) = scenarios_of(sim)
    sim.run(1)
    # top-level constants and the scenario parameters are visible inside hooks
    assert part.this == {"v": 5.0, "name": "Inline", "speed": 0.5}


def test_two_scenarios_share_events_and_run_in_path_order(make_scene, sims):
    a = 'fn on_tick(me) { emit("FROM_A", sim_tick()); }'
    b = 'fn on_start(me) { this.got = []; } fn on_event(me, e) { this.got.push(e.name + ":" + e.value); }'
    sim = sims(make_scene(scenario_prim("B", code=b) + scenario_prim("A", code=a)))
    parts = scenarios_of(sim)
    assert [p.prim_path for p in parts] == ["/World/A", "/World/B"]
    sim.run(3)
    # A emits in ticks 1..3 (sim_tick 0..2); B hears each one tick later
    assert parts[1].this["got"] == ["FROM_A:0", "FROM_A:1"]


def test_subscribe_filters_events(make_scene, sims):
    a = 'fn on_tick(me) { emit("x:one", 1); emit("y:two", 2); }'
    b = 'fn on_start(me) { subscribe_prefix("x:"); this.n = []; } fn on_event(me, e) { this.n.push(e.name); }'
    sim = sims(make_scene(scenario_prim("A", code=a) + scenario_prim("B", code=b)))
    sim.run(3)
    assert scenarios_of(sim)[1].this["n"] == ["x:one", "x:one"]


def test_same_scene_runs_bit_identically(make_scene, sims):
    code = """
    fn on_start(me) { this.box = find("/World/Box"); this.trace = []; }
    fn on_tick(me) {
        this.trace.push(world_pos(this.box)[1]);
        if sim_tick() == 10 { set(this.box, "force_x", 5.0 + rand()); }
    }
    """
    scene = make_scene(GROUND_AND_BOX + scenario_prim("S", code=code))
    runs = []
    for _ in range(2):
        sim = sims(scene)
        sim.run(60)
        runs.append((sim.state_hash(), list(scenarios_of(sim)[0].this["trace"])))
    assert runs[0] == runs[1]
    assert runs[0][1][-1] < runs[0][1][0]  # the box really fell


def test_which_program_prims_are_scenarios(make_scene, sims):
    body = (
        '    def Scope "Model" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {\n'
        '        string info:sourceCode = "model M Real x; equation der(x) = 1; end M;"\n    }\n'
        '    def Scope "Tagged" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {\n'
        '        uniform token info:sourceCode:language = "rhai"\n'
        '        string info:sourceCode = "fn on_tick(me) { this.n = 1; }"\n    }\n'
        '    def Scope "Tree"\n    {\n'
        '        string info:sourceCode = "<root><BehaviorTree ID=\\"Main\\"/></root>"\n    }\n'
        '    def Scope "Untagged"\n    {\n'
        '        string info:sourceCode = "fn on_tick(me) { this.n = 2; }"\n    }\n'
    )
    from pxr import Usd

    from luncosim_core.scripting.scenario import is_rhai_program

    scene = make_scene(body)
    stage = Usd.Stage.Open(str(scene))
    assert [is_rhai_program(stage.GetPrimAtPath(f"/World/{n}")) for n in ("Model", "Tree", "Tagged", "Untagged")] == \
        [False, False, True, True]
    sim = sims(scene)
    sim.run(1)
    assert [(p.prim_path, p.this) for p in scenarios_of(sim)] == [("/World/Tagged", {"n": 1}),
                                                                  ("/World/Untagged", {"n": 2})]
