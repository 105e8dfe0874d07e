"""The editor's checks without Qt: the fast and full passes, the interface contract against the
program prims, the simulation_dependencies shape, a folder with a non-UTF-8 sibling model."""

from __future__ import annotations

import threading
import time

from pxr import Usd

from luncosim_core.language import check_source
from luncosim_core.language.analysis import analyze, full_check
from luncosim_core.language.contracts import (
    Contract,
    check_contracts,
    model_interface,
    program_contracts,
)
from luncosim_core.language.rhai import check_rhai
from luncosim_core.text import DiagnosticsEngine

LAG = ('model Lag\n  input Real u(unit = "m");\n  output Real y(start = 0, fixed = true, unit = "m");\n'
       '  parameter Modelica.Units.SI.Time T = 1;\n  Modelica.Blocks.Interfaces.RealOutput w;\nequation\n'
       '  der(y) = (u - y) / T;\n  w = y;\nend Lag;\n')


def _codes(diags):
    return sorted((d.code, d.line, d.column) for d in diags)


def test_the_fast_pass_finds_syntax_with_our_parser_and_the_full_pass_the_rest(tmp_path):
    path = tmp_path / "Lag.mo"
    path.write_text(LAG)
    bad_op = LAG.replace("(u - y) / T;", "(u - y) / ;")
    assert _codes(analyze(path, bad_op).diagnostics) == [("modelica.syntax", 7, 22)]  # "unexpected `;`"
    two = LAG.replace("w = y;", "w = y 2;")
    assert _codes(analyze(path, two).diagnostics) == [("modelica.syntax", 8, 9)]
    unresolved = LAG.replace("w = y;", "w = yy;")
    fast = analyze(path, unresolved)
    assert fast.diagnostics == [] and [s.name for s in fast.outline][:2] == ["Lag", "u"]  # one parse, both
    assert [d.code for d in full_check(path, unresolved)] == ["modelica.unresolved"]
    assert full_check(tmp_path / "x.rhai", "let x = 1;") is None  # Rhai has no slow pass


def test_a_non_utf8_sibling_does_not_hide_the_real_diagnostics(tmp_path):
    (tmp_path / "Bad.mo").write_bytes(b"model Bad\n  // caf\xe9 \xff\nend Bad;\n")
    path = tmp_path / "Lag.mo"
    path.write_text(LAG)  # the compiler reads the folder of a file that exists
    # a clean model: no line-less compile error, a warning naming the file left out
    assert [(d.code, d.severity) for d in check_source(path, LAG)] == [("modelica.sibling-unreadable", "warning")]
    for broken, code in ((LAG.replace("equation\n", "equation\n  y = 1;\n"), "modelica.unbalanced"),
                         (LAG.replace("w = y;", "w = yy;"), "modelica.unresolved")):
        found = check_source(path, broken)
        assert [d.code for d in found if d.is_error] == [code]  # the real finding, with its line
        assert all(d.line for d in found if d.is_error) and all(d.layer == str(path) for d in found)
        assert not any(d.code == "modelica.compile" for d in found)


def test_the_model_interface_is_read_from_the_syntax_layer(tmp_path):
    path = tmp_path / "Lag.mo"
    interface, where, name, at = model_interface(LAG, path)
    assert [(v.name, v.unit) for v in interface.inputs] == [("u", "m")]
    assert [(v.name, v.unit) for v in interface.outputs] == [("y", "m"), ("w", None)]  # RealOutput is an output
    assert [(v.name, v.unit) for v in interface.parameters] == [("T", "s")]  # the unit of SI.Time
    assert name == "Lag" and LAG[at:at + 3] == "Lag" and LAG[where["w"]:where["w"] + 1] == "w"


def test_the_contract_against_the_prims_that_use_the_file(tmp_path):
    path = (tmp_path / "Lag.mo").resolve()
    contracts = {path: [Contract("/W/Setpoint", {"u": "s", "T": None}, {"y": None, "yy": None, "w": "kg"})]}
    found = check_contracts(LAG, path, None, contracts)
    assert [(d.severity, d.code, d.line, d.column) for d in found] == [
        ("error", "modelica.interface.unit", 2, 14),  # at the input's declaration
        ("warning", "modelica.interface.unit_unchecked", 5, 41),
        ("error", "modelica.interface.missing", 1, 7)]  # at the model's name
    assert found[2].message.startswith("/W/Setpoint: prim declares output 'yy' but Lag has no output 'yy'")
    assert check_contracts(LAG, tmp_path / "Other.mo", None, contracts) == []  # another file's prims


def test_program_contracts_are_read_from_the_stage(tmp_path):
    (tmp_path / "Lag.mo").write_text(LAG)
    scene = tmp_path / "s.usda"
    scene.write_text('#usda 1.0\n(defaultPrim = "W")\ndef Xform "W" {\n'
                     '  def Scope "P" (prepend apiSchemas = ["LunCoProgramAPI"]) {\n'
                     '    uniform token info:implementationSource = "sourceAsset"\n'
                     '    uniform asset info:sourceAsset = @./Lag.mo@\n'
                     '    float inputs:u = 1.0 (customData = {string unit = "m"})\n'
                     '    float outputs:y\n    double[] outputs:arr\n  }\n}\n')
    found = program_contracts(Usd.Stage.Open(str(scene)), None)
    assert found == {(tmp_path / "Lag.mo").resolve(): [Contract("/W/P", {"u": "m"}, {"y": None})]}


def test_the_simulation_dependencies_shape_is_checked_where_it_is_a_map_literal():
    src = ('fn simulation_dependencies(me, ctx) {\n    let r = find("x");\n'
           '    #{ modelica_entities: [], entity_reads: [r], query_reads: ["Foo", "Links"],\n'
           '       required_inputs: [#{owner: r}], extra: 1 }\n}\n')
    found = [(d.line, d.column, d.message) for d in check_rhai(src, "/tmp/s.rhai") if d.code == "rhai.plan-shape"]
    assert [(ln, col) for ln, col, _m in found] == [(3, 5), (3, 5), (3, 64), (4, 26)]
    assert "missing entity_writes" in found[0][2] and "unknown key(s) extra" in found[1][2]
    assert "unknown query 'Foo'" in found[2][2] and "#{owner, identity}" in found[3][2]
    ok = ('fn simulation_dependencies(me, ctx) {\n    let r = find("x");\n'
          '    if r < 0 { return #{ modelica_entities: [], entity_reads: [], entity_writes: [], query_reads: [],'
          ' required_inputs: [] }; }\n'
          '    #{ modelica_entities: [], entity_reads: [r], entity_writes: [r], query_reads: ["Links"],'
          ' required_inputs: [#{owner: r, identity: "x"}] }\n}\n')
    assert check_rhai(ok, "/tmp/s.rhai") == []
    built = 'fn simulation_dependencies(me, ctx) {\n    let plan = #{};\n    plan\n}\n'
    assert check_rhai(built, "/tmp/s.rhai") == []  # not a literal: the runtime judges it


def test_the_engine_runs_the_full_pass_on_a_pause_and_never_delays_the_fast_one():
    got: list[tuple[str, int, str, float]] = []
    done = threading.Event()
    slow_running = threading.Event()

    def fast(_key, text):
        return []

    def full(_key, text):
        slow_running.set()
        time.sleep(0.4)
        return []

    def deliver(key, revision, _diags, phase):
        got.append((key, revision, phase, time.monotonic()))
        if phase == "full" and revision == 3:
            done.set()

    engine = DiagnosticsEngine(fast, deliver, delay_s=0.02, full_checker=full, full_delay_s=0.1)
    try:
        t0 = time.monotonic()
        engine.submit("a.mo", "x", 1)
        assert slow_running.wait(2)  # the pause ran the full pass for revision 1 ...
        engine.submit("a.mo", "xy", 2)  # ... and typing goes on while it runs
        time.sleep(0.06)
        engine.submit("a.mo", "xyz", 3)
        assert done.wait(5)
        fast_2 = next(t for k, r, p, t in got if p == "fast" and r == 2)
        assert fast_2 - t0 < 0.35  # not queued behind the 0.4 s full pass
        assert ("a.mo", 2, "full") not in [(k, r, p) for k, r, p, _t in got]  # typing went on: no pause at 2
        assert [p for _k, r, p, _t in got if r == 3] == ["fast", "full"]
    finally:
        engine.close()


def test_the_fast_pass_runs_in_a_child_process_that_survives_its_own_death(tmp_path):
    import os
    import signal

    from luncosim_core.language.check_process import CheckProcess

    path = tmp_path / "s.rhai"
    text = "fn on_tick(me) {\n    fnd(1);\n}\n"
    checks = CheckProcess(timeout_s=20)
    try:
        got = checks.analyze(path, text)
        here = analyze(path, text)
        assert _codes(got.diagnostics) == _codes(here.diagnostics) == [("rhai.unknown-function", 2, 5)]
        assert got.outline == here.outline and got.functions == ("on_tick",)
        os.kill(checks._proc.pid, signal.SIGKILL)  # the child dies (a crash, the OOM killer)
        checks._proc.wait()
        dead = checks.analyze(path, text)
        assert [d.code for d in dead.diagnostics] == ["check-failed"] or _codes(dead.diagnostics) == _codes(
            here.diagnostics)
        again = checks.analyze(path, text)  # a new child answers the next check
        assert _codes(again.diagnostics) == _codes(here.diagnostics) and checks.started == 2
    finally:
        checks.close()
