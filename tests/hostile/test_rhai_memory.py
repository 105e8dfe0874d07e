"""Unbounded memory in a scenario: the growth patterns that took a scenario under ``luncosim test``
past 3 GB (1,000 pushes of a 1,000,000-element array, 1,000 strings of 16 MB, a map of arrays)
now pass the engine's memory budget (256 MB) and fault the scenario with its prim and line; the
test fails in seconds. A scenario that allocates and frees within the budget runs to its verdict."""

from __future__ import annotations

import time

import pytest

from tests.hostile.test_faults import HEAD, rhai
from tests.hostile.test_files import luncosim

HOGS = {
    "pushes": ("fn on_tick(me) {\n    let a = []; a.pad(1000000, 0);\n    let keep = [];\n"
               "    for i in 0..1000 { keep.push(#{a: a}); }\n}", 4),
    "strings": ('fn on_tick(me) {\n    let keep = [];\n    for i in 0..1000 {\n'
                '        let s = ""; s.pad(16000000, "x");\n        keep.push(s);\n    }\n}', 4),
    "map_of_arrays": ('fn on_tick(me) {\n    let m = #{};\n    for i in 0..1000 {\n'
                      '        let a = []; a.pad(1000000, i);\n        m["k" + i] = a;\n    }\n}', 5),
}

# 20 ticks of 40 MB made and dropped (800 MB in all), then the verdict
CHURN = ('fn on_start(me) { this.n = 0; }\nfn on_tick(me) {\n    let s = ""; s.pad(16000000, "x");\n'
         '    let t = s + "y";\n    let a = []; a.pad(200000, this.n);\n    this.n += 1;\n'
         '    if this.n == 20 { emit("T", if t.len() + a.len() == 16200001 { "PASS" } else { "FAIL" }); }\n}')


@pytest.mark.parametrize("name", list(HOGS))
def test_a_scenario_passing_the_memory_budget_faults_naming_its_prim_and_line(tmp_path, name):
    code, line = HOGS[name]
    scene = tmp_path / f"{name}.usda"
    scene.write_text(HEAD + rhai("Hog", code) + "}\n", encoding="utf-8")
    t = time.monotonic()
    r = luncosim("test", "--scene", str(scene), "--max-ticks", "50", timeout=300)
    assert time.monotonic() - t < 60  # seconds, where it used to fill the machine's memory
    assert r.returncode == 1, r.out + r.err
    assert "luncosim test FAIL" in r.out
    fault = next(ln for ln in r.out.splitlines() if ln.startswith("FAULT "))
    assert "scenario-runtime-error" in fault and "memory budget exceeded:" in fault
    assert "MB of 256 MB" in fault and "/W/Hog" in fault
    assert f"/W/Hog.info:sourceCode:{line}:" in fault, fault


def test_a_scenario_that_frees_what_it_allocates_runs_to_its_verdict(tmp_path):
    scene = tmp_path / "churn.usda"
    scene.write_text(HEAD + rhai("Churn", CHURN) + "}\n", encoding="utf-8")
    r = luncosim("test", "--scene", str(scene), "--max-ticks", "100", timeout=300)
    assert r.returncode == 0 and "luncosim test PASS" in r.out, r.out + r.err


# the hoard keeps 105 MB more a tick, so it passes the 256 MB budget on its third tick; the
# neighbour makes and drops 15 MB a tick, then 105 MB a tick from its sixth, which only fits
# once the hoard's values are gone
HOARD = ('fn on_tick(me) {\n    if this.keep == () { this.keep = []; }\n    for i in 0..7 {\n'
         '        let s = ""; s.pad(15000000, "x"); this.keep.push(s);\n    }\n}')
NEIGHBOUR = ('fn on_start(me) { this.n = 0; }\nfn on_tick(me) {\n    let chunks = if this.n > 5 { 7 } else { 1 };\n'
             '    let a = []; for i in 0..chunks { let s = ""; s.pad(15000000, "x"); a.push(s); }\n'
             '    this.n += 1;\n}')


def test_a_scenario_faulted_by_the_budget_lets_its_values_go_and_the_others_run_on(tmp_path):
    from luncosim_core.sim.simulation import open_simulation

    scene = tmp_path / "two.usda"
    scene.write_text(HEAD + rhai("Hoard", HOARD) + rhai("Neighbour", NEIGHBOUR) + "}\n", encoding="utf-8")
    sim = open_simulation(scene)
    try:
        sim.run(40)
        state = {p.prim_path: p for p in sim.participants}
        hoard, neighbour = state["/W/Hoard"], state["/W/Neighbour"]
        assert hoard.state == "faulted" and "memory budget exceeded" in hoard.fault.message
        assert neighbour.state != "faulted", neighbour.fault  # its room came back with the hoard's values
        assert sim.tick_count == 40
    finally:
        sim.close()
