"""Compiling survives the compiler: crashes, timeouts and memory limits are diagnostics; sub-component
input defaults overridden by an equation are dropped; simple index-2 DAEs are reduced."""

from __future__ import annotations

import math

import pytest

from luncosim_core.modelica import ModelicaParticipant, compile_model
from luncosim_core.modelica.compile_server import CompileServer
from luncosim_core.modelica.compiler import BUNDLED_LIBRARY
from luncosim_core.modelica.input_defaults import drop_overridden_input_defaults

ROOTS = (str(BUNDLED_LIBRARY),)
DECAY = "model Decay\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend Decay;\n"


def test_a_compiler_crash_is_a_diagnostic_and_the_next_compile_works():
    server = CompileServer()
    try:
        n = 20000  # rumoca's parser overflows its stack at about 8,000 nested brackets
        deep = "model Deep\n  Real x;\nequation\n  x = " + "(" * n + "1" + ")" * n + ";\nend Deep;\n"
        result = server.front_end(deep, "Deep", "<deep>", None, ROOTS)
        assert not result.ok
        assert [d.code for d in result.diagnostics] == ["modelica.compiler_crash"]
        assert "SIGSEGV" in result.diagnostics[0].message
        again = server.front_end(DECAY, "Decay", "<decay>", None, ROOTS)
        assert again.ok and server.started == 2  # a fresh child took over
    finally:
        server.close()


def test_a_compile_past_its_time_limit_is_stopped_and_reported():
    server = CompileServer(timeout_s=0.001)
    try:
        result = server.front_end(DECAY, "Decay", "<decay>", None, ROOTS)
        assert [d.code for d in result.diagnostics] == ["modelica.compiler_timeout"]
        assert server.pid is None  # the stuck child was killed
        server.timeout_s = 180.0
        assert server.front_end(DECAY, "Decay", "<decay>", None, ROOTS).ok
    finally:
        server.close()


def test_a_memory_limit_the_compiler_cannot_live_in_is_a_diagnostic():
    server = CompileServer(memory_mb=64)
    try:
        result = server.front_end(DECAY, "Decay", "<decay>", None, ROOTS)
        assert not result.ok
        assert result.diagnostics[0].code in ("modelica.compiler_crash", "modelica.compiler_memory")
    finally:
        server.close()


SUB_TOP = """
model Top
  model Sub
    input Real u = 1 "default used when nobody drives u";
    output Real y;
  equation
    y = 2*u;
  end Sub;
  Sub driven;
  Sub idle;
  output Real a;
  output Real b;
equation
  driven.u = sin(time);
  a = driven.y;
  b = idle.y;
end Top;
"""


def test_an_input_default_overridden_by_the_parent_is_dropped(tmp_path):
    text, moved = drop_overridden_input_defaults(SUB_TOP, None, ROOTS)
    assert moved == ["Top.driven.u"]
    assert "Sub driven(u = sin(time));" in text and "driven.u = sin(time);" not in text
    assert text.count("\n") == SUB_TOP.count("\n")  # lines kept: diagnostics still point right
    path = tmp_path / "Top.mo"
    path.write_text(SUB_TOP)
    cm = compile_model(path)
    assert cm.ok, cm.diagnostics
    assert any(d.code == "modelica.input-default-dropped" for d in cm.diagnostics)
    p = ModelicaParticipant(cm, 0.1)
    for _ in range(5):
        p.step()
    out = p.outputs()
    assert out["a"] == pytest.approx(2 * math.sin(0.5), abs=1e-9)  # driven by the parent's equation
    assert out["b"] == pytest.approx(2.0)  # the undriven instance keeps its default


def test_library_classes_with_the_same_pattern_are_rewritten_through_an_overlay(tmp_path):
    pkg = tmp_path / "Lib"
    pkg.mkdir()
    (pkg / "package.mo").write_text("package Lib\nend Lib;\n")
    (pkg / "Gain.mo").write_text("within Lib;\nblock Gain\n  input Real u = 0;\n  output Real y;\n"
                                 "equation\n  y = 3*u;\nend Gain;\n")
    (pkg / "Stage.mo").write_text("within Lib;\nblock Stage\n  input Real u = 0;\n  output Real y;\n  Gain g;\n"
                                  "equation\n  g.u = u + 1;\n  y = g.y;\nend Stage;\n")
    top = tmp_path / "Plant.mo"
    top.write_text("model Plant\n  Lib.Stage s;\n  output Real y;\nequation\n  s.u = 2;\n  y = s.y;\nend Plant;\n")
    cm = compile_model(top, library_roots=[tmp_path])
    assert cm.ok, cm.diagnostics
    p = ModelicaParticipant(cm, 0.1)
    p.step()
    assert p.outputs()["y"] == pytest.approx(9.0)  # 3 * (2 + 1)


INDEX_TWO = """
model RelativeDamper "An inertia braked by a damper whose relative angle is its own state"
  parameter Real J = 2.0;
  parameter Real d = 1.0;
  Real phi(start = 0, fixed = true);
  Real w(start = 1, fixed = true);
  Real phi_rel "housing minus inertia angle";
  Real w_rel;
  Real tau;
equation
  der(phi) = w;
  J * der(w) = tau;
  phi_rel = 0 - phi;
  w_rel = der(phi_rel);
  tau = d * w_rel;
end RelativeDamper;
"""


def test_a_simple_index_two_dae_is_reduced_and_matches_the_closed_form(tmp_path):
    path = tmp_path / "RelativeDamper.mo"
    path.write_text(INDEX_TWO)
    cm = compile_model(path)
    assert cm.ok, cm.diagnostics
    notes = [d for d in cm.diagnostics if d.code == "modelica.index-reduced"]
    assert len(notes) == 1 and notes[0].data["state"] == "phi_rel"
    assert "phi_rel" in notes[0].message and "phi" in notes[0].message
    p = ModelicaParticipant(cm, 1 / 60)
    for _ in range(60):
        p.step()
    # J w' = -d w  ->  w = exp(-t d / J); phi = (J/d)(1 - exp(-t d / J)); phi_rel = -phi
    assert p.value("w") == pytest.approx(math.exp(-0.5), rel=1e-8)
    assert p.value("phi") == pytest.approx(2 * (1 - math.exp(-0.5)), rel=1e-8)
    assert p.value("phi_rel") == pytest.approx(-p.value("phi"), abs=1e-12)


def test_an_unconnected_component_is_still_reported_not_reduced(tmp_path):
    path = tmp_path / "Loose.mo"
    path.write_text("model Loose\n  Real a;\n  Real b;\nequation\n  a + b = 1;\nend Loose;\n")
    cm = compile_model(path)
    assert not cm.ok
    assert cm.diagnostics[0].code in ("modelica.unbalanced", "modelica.index")


def test_a_switch_reading_a_derivative_is_refused_at_its_place(write_model):
    """A relation over der(x) (found by the fuzz suite: it raised out of CasADi at the first step)
    is a positioned compile diagnostic."""
    from luncosim_core.modelica import compile_model

    src = ("model SwitchOnRate\n  Real x(start = 0);\n  output Real y;\nequation\n  der(x) = time;\n"
           "  y = if time < der(x) then 1 else 0;\nend SwitchOnRate;\n")
    cm = compile_model(write_model("SwitchOnRate", src))
    assert not cm.ok
    (d,) = cm.diagnostics
    assert d.code == "modelica.unsupported.der-in-switch" and d.line == 6 and "der(" in d.message


def test_a_relation_over_a_demoted_derivative_runs(write_model):
    """``y = if time < der(y) ...``: index reduction makes ``y`` an algebraic variable and its
    derivative a dummy one; the relation reads the dummy (found by the fuzz suite: the relation
    kept the removed der(y) symbol and the event function's pre(.) vectors kept the old sizes)."""
    src = ("model RateSwitch\n  Real x(start = 0);\n  output Real y;\nequation\n  der(x) = time;\n"
           "  y = (if time < der(y) then time else time);\nend RateSwitch;\n")
    cm = compile_model(write_model("RateSwitch", src))
    assert cm.ok, cm.diagnostics
    assert any(d.code == "modelica.index-reduced" for d in cm.diagnostics)
    part = ModelicaParticipant(cm, name="/RateSwitch")
    for _ in range(30):
        part.step()
    assert part.outputs()["y"] == pytest.approx(part.time, abs=1e-9)
    assert part.time > 0.4
