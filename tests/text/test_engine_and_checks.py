"""The diagnostics engine (debounced, off-thread, stale results dropped) and the language checks."""

from __future__ import annotations

import threading
import time

from luncosim_core.language import check_source
from luncosim_core.text import DiagnosticsEngine


def test_engine_debounces_and_delivers_only_the_newest_revision():
    got, ran, done = [], [], threading.Event()

    def checker(key, text):
        ran.append(text)
        return []

    def deliver(key, revision, diags):
        got.append((key, revision))
        done.set()

    engine = DiagnosticsEngine(checker, deliver, delay_s=0.05)
    main = threading.get_ident()
    try:
        for rev in range(1, 6):
            engine.submit("a.rhai", f"text {rev}", rev)
        assert done.wait(5)
        time.sleep(0.1)
        assert got == [("a.rhai", 5)] and ran == ["text 5"]  # four keystrokes coalesced away
    finally:
        engine.close()
    assert threading.get_ident() == main


def test_a_failing_checker_is_a_diagnostic():
    out = []
    done = threading.Event()
    engine = DiagnosticsEngine(lambda k, t: 1 / 0, lambda k, r, d: (out.extend(d), done.set()), delay_s=0)
    try:
        engine.submit("x.mo", "", 1)
        assert done.wait(5)
    finally:
        engine.close()
    assert out[0].code == "check-failed" and "ZeroDivisionError" in out[0].message


def test_rhai_checks_syntax_and_unknown_functions(tmp_path):
    bad = check_source(tmp_path / "s.rhai", "fn on_tick(me) {\n    let x = ;\n}\n")
    assert [(d.code, d.line, d.column) for d in bad] == [("rhai.syntax", 2, 13)]
    warn = check_source(tmp_path / "s.rhai", "fn on_tick(me) {\n    fnd(1);\n    print(1, 2);\n    let p = find(\"/A\");\n}\n")
    assert [(d.code, d.severity, d.line, d.column) for d in warn] == [
        ("rhai.unknown-function", "warning", 2, 5), ("rhai.unknown-function", "warning", 3, 5)]
    assert "takes 1" in warn[1].message


def test_modelica_checks_go_through_the_compiler(tmp_path):
    path = tmp_path / "Lag.mo"
    good = "model Lag\n  input Real u;\n  output Real y;\nequation\n  der(y) = u - y;\nend Lag;\n"
    assert check_source(path, good) == []
    bad = check_source(path, good.replace("u - y", "u - z"))
    assert [(d.code, d.line, d.column) for d in bad] == [("modelica.unresolved", 5, 16)]
    syntax = check_source(path, good.replace("u - y", "u - "))
    assert syntax[0].code == "modelica.syntax" and syntax[0].line == 5


def test_rhai_hooks_with_the_wrong_parameters_are_flagged(tmp_path):
    found = check_source(tmp_path / "s.rhai", "fn on_tick() {\n}\n\nfn on_event(me, evt) {\n}\n")
    assert [(d.code, d.line) for d in found] == [("rhai.hook-signature", 1)]
    assert "on_tick(me)" in found[0].message


def test_a_compiler_crash_while_typing_is_a_diagnostic_and_the_next_check_works(tmp_path):
    n = 20000  # rumoca's parser overflows its stack at about 8,000 nested brackets
    deep = "model Deep\n  Real x;\nequation\n  x = " + "(" * n + "1" + ")" * n + ";\nend Deep;\n"
    found = check_source(tmp_path / "Deep.mo", deep)
    assert [d.code for d in found] == ["modelica.compiler_crash"]
    assert check_source(tmp_path / "Deep.mo", "model Deep\n  Real x;\nequation\n  x = 1;\nend Deep;\n") == []
