"""Malformed scripts give positioned diagnostics; a runtime error faults only its scenario;
hot reload keeps the running version on a compile error and restarts on a good one."""

from __future__ import annotations

from scene_helpers import GROUND_AND_BOX, scenario_prim

from luncosim_core.scripting.scenario import reload_changed_sources, scenarios_of

COUNTER = """
fn on_start(me) { this.n = 0; this.version = 1; }
fn on_tick(me) { this.n += 1; }
fn on_stop(me) { emit("STOPPED", this.n); }
"""


def test_syntax_error_is_positioned_and_the_sim_runs_on(make_scene, sims, tmp_path):
    bad = "fn on_tick(me) {\n    let x = ;\n}\n"
    sim = sims(make_scene(GROUND_AND_BOX + scenario_prim("Bad", asset="bad.rhai")
                          + scenario_prim("Good", asset="good.rhai"),
                          files={"bad.rhai": bad, "good.rhai": COUNTER}))
    assert sim.run(4) == 4
    bad_part, good_part = scenarios_of(sim)
    assert bad_part.state == "failed"
    (d,) = [d for d in sim.snapshot().diagnostics if d.path == "/World/Bad"]
    assert d.code == "rhai.syntax" and d.layer == str(tmp_path / "bad.rhai")
    assert (d.line, d.column) == (2, 13)
    assert good_part.this["n"] == 4


def test_runtime_error_faults_only_that_scenario(make_scene, sims, tmp_path):
    crash = "fn on_tick(me) {\n    if sim_tick() == 2 {\n        let a = [1, 2];\n        this.v = a[5];\n    }\n}\n"
    sim = sims(make_scene(GROUND_AND_BOX + scenario_prim("Crash", asset="crash.rhai")
                          + scenario_prim("Good", asset="good.rhai"),
                          files={"crash.rhai": crash, "good.rhai": COUNTER}))
    assert sim.run(6) == 6
    crash_part, good_part = scenarios_of(sim)
    assert crash_part.state == "faulted"
    f = crash_part.fault
    assert f.code == "scenario-runtime-error" and f.path == "/World/Crash"
    assert (f.layer, f.line, f.column) == (str(tmp_path / "crash.rhai"), 4, 19)
    assert "out of bounds" in f.message.lower()
    assert good_part.this["n"] == 6
    assert sim.fault is None and sim.status(True)[0] == "running"


def test_endless_loop_is_stopped(make_scene, sims):
    sim = sims(make_scene(scenario_prim("Spin", code="fn on_tick(me) { loop { } }")))
    assert sim.run(2) == 2
    (part,) = scenarios_of(sim)
    assert part.state == "faulted" and "operations" in part.fault.message.lower()


def test_hot_reload(make_scene, sims, tmp_path):
    sim = sims(make_scene(scenario_prim("S", asset="s.rhai"), files={"s.rhai": COUNTER}))
    events = []
    (part,) = scenarios_of(sim)
    part.runtime.listeners.append(events.append)
    sim.run(3)
    assert part.this == {"n": 3, "version": 1}

    # a broken save keeps the running version and reports where it is broken
    (tmp_path / "s.rhai").write_text("fn on_tick(me) { this.n += ; }\n")
    diags = reload_changed_sources(sim)
    assert [(d.code, d.line, d.column) for d in diags] == [("rhai.syntax", 1, 28)]
    assert "kept the running version" in diags[0].message
    sim.run(2)
    assert part.this == {"n": 5, "version": 1}

    # a good save: the old version stops, the new one starts from an empty `this`
    (tmp_path / "s.rhai").write_text(COUNTER.replace("this.version = 1", "this.version = 2")
                                     .replace("this.n += 1", "this.n += 10"))
    assert reload_changed_sources(sim) == []
    assert [(e.name, e.value) for e in events] == [("STOPPED", 5)]
    sim.run(2)
    assert part.this == {"n": 20, "version": 2}
    assert not part.source_changed()


def test_reload_revives_a_faulted_scenario(make_scene, sims):
    sim = sims(make_scene(scenario_prim("S", code="fn on_tick(me) { this.x = undefined_fn(); }")))
    sim.run(1)
    (part,) = scenarios_of(sim)
    assert part.state == "faulted"
    assert part.reload_source("fn on_tick(me) { this.x = 1; }") == []
    sim.run(1)
    assert part.fault is None and part.this == {"x": 1}
