"""`luncosim test` (run_scene_test) and `luncosim rhai` (run_rhai) back ends."""

from __future__ import annotations

from scene_helpers import GROUND_AND_BOX, scenario_prim

from luncosim_core.scripting.testrunner import run_rhai
from luncosim_core.sim.scene_test import run_scene_test

FALL_TEST = """
fn on_start(me) { this.box = find("/World/Box"); this.y0 = world_pos(this.box)[1]; print("unattended " + is_unattended()); }
fn on_tick(me) {
    if elapsed_seconds() < 1.0 { return; }
    let y = world_pos(this.box)[1];
    let f = [];
    f.push(t_present(y, "box height"));
    f.push(t_true(y < this.y0 - LIMIT, "the box did not fall"));
    f.push(t_range(y, 0.0, 3.0, "box height"));
    report_verdict(f, "FALL", "FALL");
}
"""


def _scene(make_scene, limit: float, extra: str = "", files: dict | None = None):
    src = FALL_TEST.replace("LIMIT", repr(limit))
    return make_scene(GROUND_AND_BOX + extra + scenario_prim("Test", asset="fall.rhai"),
                      files={"fall.rhai": src, **(files or {})})


def test_pass_prints_the_verdict_table(make_scene):
    lines: list[str] = []
    r = run_scene_test(_scene(make_scene, 1.0), out=lines.append)
    assert (r.exit_code, r.outcome) == (0, "PASS")
    assert [(v.channel, v.value, v.source) for v in r.verdicts] == [("FALL", "PASS", "/World/Test")]
    assert r.ticks == 61  # stops at the first verdict (elapsed_seconds() reads 1.0 in tick 61)
    assert "TESTS_OK 3" in lines and "FALL: PASS" in lines
    assert "unattended true" in lines  # a headless test run has nobody at the controls
    table = r.table()
    assert table.splitlines()[0].split() == ["channel", "verdict", "tick", "time", "s", "scenario"]
    assert "FALL" in table.splitlines()[2] and "PASS" in table.splitlines()[2]
    assert lines[-1].startswith("luncosim test PASS")


def test_fail_and_no_verdict(make_scene, tmp_path):
    lines: list[str] = []
    r = run_scene_test(_scene(make_scene, 50.0), out=lines.append)
    assert (r.exit_code, r.outcome) == (1, "FAIL")
    assert "  FAIL: the box did not fall" in lines
    r = run_scene_test(_scene(make_scene, 1.0), max_ticks=30, out=lines.append)
    assert (r.exit_code, r.outcome, r.ticks) == (2, "NO-VERDICT", 30)


def test_undeclared_runtime_fault_turns_pass_into_fail(make_scene):
    crash = scenario_prim("Crash", code="fn on_tick(me) { throw \"boom\"; }")
    r = run_scene_test(_scene(make_scene, 1.0, extra=crash), out=lambda s: None)
    assert r.verdicts[0].value == "PASS"
    assert (r.exit_code, r.outcome) == (1, "FAIL")
    assert any("undeclared runtime fault scenario-runtime-error" in x and "boom" in x for x in r.reasons)


ESCAPEE = """
    def Cube "Escapee" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        double size = 1
        double3 xformOp:translate = (0, -5000, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
"""


def test_expected_runtime_fault(make_scene, tmp_path):
    code = 'fn on_start(me) { expect_runtime_fault("physics-body-escaped"); }'
    r = run_scene_test(make_scene(GROUND_AND_BOX + ESCAPEE + scenario_prim("T", code=code)), out=lambda s: None)
    assert (r.exit_code, r.outcome) == (0, "PASS")
    assert [f.code for f in r.faults] == ["physics-body-escaped"]
    # declared but never happening is a failure of the fixture
    r = run_scene_test(make_scene(GROUND_AND_BOX + scenario_prim("T", code=code + FALL_TEST.replace("LIMIT", "1.0")
                                                                  .replace("fn on_start(me) {", "fn start2(me) {")),
                                  name="b.usda"), max_ticks=120, out=lambda s: None)
    assert r.exit_code == 1
    assert any("expect_runtime_fault(physics-body-escaped)" in x for x in r.reasons)


PANEL = """
    def Xform "Panel"
    {
        double inputs:setpoint.connect = </World/Ghost.outputs:value>
    }
"""


def test_wire_that_never_connects_fails_unless_declared(make_scene):
    r = run_scene_test(_scene(make_scene, 1.0, extra=PANEL), out=lambda s: None)
    assert r.verdicts[0].value == "PASS" and r.exit_code == 1
    assert any("a wire never connected: /World/Panel.setpoint <- /World/Ghost.value" in x for x in r.reasons)
    declare = FALL_TEST.replace("LIMIT", "1.0").replace(
        "fn on_start(me) {", 'fn on_start(me) { expect_fault("/World/Panel.setpoint");')
    r = run_scene_test(make_scene(GROUND_AND_BOX + PANEL + scenario_prim("Test", asset="d.rhai"),
                                  files={"d.rhai": declare}, name="d.usda"), out=lambda s: None)
    assert (r.exit_code, r.expected_faults) == (0, ["/World/Panel.setpoint"])


def test_scene_that_does_not_open(tmp_path):
    lines: list[str] = []
    r = run_scene_test(tmp_path / "missing.usda", out=lines.append)
    assert r.exit_code == 2 and "did not open" in r.reasons[0]


def test_run_rhai_file_and_eval(tmp_path):
    f = tmp_path / "hello.rhai"
    f.write_text('print("hello " + r2(1.23456));\nlet x = 40 + 2;\nx\n')
    out: list[str] = []
    assert run_rhai(file=f, out=out.append) == 0
    assert out == ["hello 1.23"]  # a file's final value is not printed
    out.clear()
    assert run_rhai(code='print("p"); [1, 2.0, "s"]', out=out.append) == 0
    assert out == ["p", '[1, 2.0, "s"]']
    out.clear()
    # Rhai compares floats with a relative epsilon, so this is true as in Rhai itself
    assert run_rhai(code="0.1 + 0.2 == 0.3", out=out.append) == 0 and out == ["true"]


def test_run_rhai_error_is_positioned(tmp_path):
    f = tmp_path / "bad.rhai"
    f.write_text("let a = 1;\nlet b = a +;\n")
    errs: list[str] = []
    assert run_rhai(file=f, out=lambda s: None, err=errs.append) == 1
    assert errs[0].startswith("error: ") and f"{f}:2:" in errs[0]
    errs.clear()
    assert run_rhai(code="let v = [1]; v[3]", out=lambda s: None, err=errs.append) == 1
    assert "<eval>:1:" in errs[0]


def test_cli_verbs_parse_and_run(make_scene, tmp_path, capsys):
    import argparse

    from luncosim_core.scripting.cli_verbs import add_scripting_verbs
    from luncosim_core.sim.scene_test import add_test_verb

    parser = argparse.ArgumentParser(prog="luncosim")
    sub = parser.add_subparsers(dest="verb", required=True)
    add_test_verb(sub)
    add_scripting_verbs(sub)
    args = parser.parse_args(["test", "--scene", str(_scene(make_scene, 1.0)), "--max-ticks", "100"])
    assert args.func(args) == 0
    assert "luncosim test PASS" in capsys.readouterr().out
    args = parser.parse_args(["rhai", "--eval", '`${40 + 2}`'])
    assert args.func(args) == 0 and capsys.readouterr().out == "42\n"
    args = parser.parse_args(["rhai", "--eval", "throw 7"])
    assert args.func(args) == 1 and "7" in capsys.readouterr().err


def test_scenario_waiting_for_an_input_stalls_visibly(make_scene):
    code = """
    fn simulation_dependencies(me, ctx) {
        #{ modelica_entities: [], entity_reads: [], entity_writes: [], query_reads: [],
           required_inputs: [#{ owner: find("/World/Panel"), identity: "setpoint" }] }
    }
    fn on_start(me) { emit("T", "PASS"); }
    """
    panel = '    def Xform "Panel"\n    {\n        double inputs:setpoint\n    }\n'
    r = run_scene_test(make_scene(panel + scenario_prim("S", code=code)), out=lambda s: None)
    assert (r.exit_code, r.ticks) == (2, 0)
    assert r.reasons == ["stalled waiting: /World/S: waiting for required input /World/Panel.setpoint (no sample yet)"]


def test_scenario_that_does_not_compile_is_named(make_scene):
    lines: list[str] = []
    r = run_scene_test(make_scene(GROUND_AND_BOX + scenario_prim("S", code="fn on_tick(me) { let = 1; }")),
                       max_ticks=20, out=lines.append)
    assert r.exit_code == 2
    assert any(x.startswith("scenario /World/S never ran: [error] rhai.syntax") for x in r.reasons)
    assert any(x.startswith("diagnostic: [error] rhai.syntax") for x in lines)
