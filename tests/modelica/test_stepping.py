"""Fixed-step participant: accuracy against closed forms, parameters, reset, determinism."""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys

import numpy as np
import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica import ModelicaParticipant, compile_model, open_participant

from .conftest import REPO, lib_model

SPRING = """model Spring
  parameter Real m(unit = "kg") = 2.0;
  parameter Real k(unit = "N/m") = 8.0;
  input Real F(unit = "N");
  output Real pos(unit = "m");
  output Real vel(unit = "m/s");
  Real x(start = 0.5, fixed = true);
  Real v(start = 0, fixed = true);
equation
  der(x) = v;
  m * der(v) = -k * x + F;
  pos = x;
  vel = v;
end Spring;
"""


def _participant(path, period=1 / 60, **kw):
    cm = compile_model(path)
    assert cm.ok, cm.diagnostics
    return ModelicaParticipant(cm, period, **kw)


def test_spring_mass_matches_closed_form(write_model):
    p = _participant(write_model("Spring", SPRING))
    w = math.sqrt(8.0 / 2.0)
    worst = 0.0
    for _ in range(300):  # 5 s
        p.step()
        out = p.outputs()
        worst = max(worst, abs(out["pos"] - 0.5 * math.cos(w * p.time)),
                    abs(out["vel"] + 0.5 * w * math.sin(w * p.time)))
    assert p.time == pytest.approx(5.0)
    assert worst < 1e-7


def test_constant_force_shifts_equilibrium(write_model):
    p = _participant(write_model("Spring", SPRING))
    p.set_inputs({"F": 4.0})  # equilibrium at F/k = 0.5: the mass starts there and stays
    for _ in range(120):
        p.step()
    assert p.outputs()["pos"] == pytest.approx(0.5, abs=1e-12)


def test_rc_circuit_charge_curve():
    p = _participant(lib_model("Workbench/Electrical/RCCircuit.mo"))  # R C = 1 s
    p.set_inputs({"V_supply": 10.0})
    for _ in range(180):
        p.step()
        out = p.outputs()
        expected = 10.0 * (1 - math.exp(-p.time))
        assert out["v_cap"] == pytest.approx(expected, abs=1e-8)
        assert out["current"] == pytest.approx((10.0 - expected) / 100.0, abs=1e-10)


def test_first_order_lag_step_response():
    p = _participant(lib_model("Workbench/Control/FirstOrder.mo"))  # k = 1, T = 0.5
    assert p.outputs() == {"y": 0.0}
    p.set_inputs({"u": 2.0})
    for _ in range(60):
        p.step()
    assert p.outputs()["y"] == pytest.approx(2.0 * (1 - math.exp(-1.0 / 0.5)), abs=1e-8)


def test_outputs_before_first_step_are_initial_values():
    p = _participant(lib_model("Workbench/Power/Battery.mo"))
    out = p.outputs()
    assert out["soc"] == pytest.approx(0.9)  # from the initial equation soc = soc_initial
    assert out["voltage"] == pytest.approx(24.0 + 5.4 * 0.9)


def test_parameter_change_applies_at_next_communication_point():
    p = _participant(lib_model("Workbench/Control/FirstOrder.mo"))
    p.set_inputs({"u": 1.0})
    p.step()
    y1 = p.outputs()["y"]
    p.set_parameter("k", 3.0)
    assert p.outputs()["y"] == y1  # nothing changes until the next step
    assert p.value("k") == 1.0
    p.step()
    assert p.value("k") == 3.0
    # one more period of the lag towards k*u = 3 from y1 (exact solution of the linear ODE)
    h = 1 / 60
    assert p.outputs()["y"] == pytest.approx(3.0 + (y1 - 3.0) * math.exp(-h / 0.5), abs=1e-9)


def test_dependent_parameters_follow_their_binding(write_model):
    text = """model Dep
  parameter Real a = 2;
  parameter Real b = 3 * a;
  output Real y;
equation
  y = b;
end Dep;
"""
    p = _participant(write_model("Dep", text))
    assert p.outputs()["y"] == 6.0
    p.set_parameter("a", 5.0)
    p.step()
    assert p.outputs()["y"] == 15.0


def test_reset_restores_initial_state_and_time(write_model):
    p = _participant(write_model("Spring", SPRING))
    initial = p.state_bytes()
    for _ in range(30):
        p.step()
    assert p.state_bytes() != initial
    p.reset()
    assert p.time == 0.0 and p.outputs()["pos"] == 0.5
    assert p.state_bytes() == initial


def test_unknown_input_and_parameter_are_diagnostics(write_model):
    p = _participant(write_model("Spring", SPRING))
    with pytest.raises(DiagnosticError) as exc:
        p.set_inputs({"Force": 1.0})
    assert exc.value.diagnostics[0].code == "modelica.input.unknown"
    assert "F" in exc.value.diagnostics[0].message
    with pytest.raises(DiagnosticError) as exc:
        p.set_parameter("mass", 1.0)
    assert exc.value.diagnostics[0].code == "modelica.parameter.unknown"
    with pytest.raises(DiagnosticError):
        p.set_inputs({"F": float("nan")})


def test_participant_refuses_a_failed_compile(write_model):
    cm = compile_model(write_model("Bad", "model Bad\n  Real x\nend Bad;\n"))
    with pytest.raises(DiagnosticError):
        ModelicaParticipant(cm)


def _run_drive(n: int = 240) -> bytes:
    p = open_participant(lib_model("Workbench/Rover/DriveController.mo"))
    h = hashlib.sha256()
    for i in range(n):
        p.set_inputs({"throttle": math.sin(i * 0.05), "steer": math.cos(i * 0.031) * 0.7})
        p.step()
        h.update(p.state_bytes())
    return h.digest()


def test_deterministic_bit_for_bit_across_runs_and_processes():
    a = _run_drive()
    assert a == _run_drive()
    code = (
        "import sys; sys.path.insert(0, {!r}); sys.path.insert(0, {!r})\n"
        "from tests.modelica.test_stepping import _run_drive\n"
        "print(_run_drive().hex())\n".format(str(REPO), str(REPO / "tests"))
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == a.hex()


def test_linear_algebraic_loop_is_solved(write_model):
    text = """model Loop
  input Real u;
  output Real a;
  output Real b;
equation
  a = u - 0.5 * b;
  b = 2 * a + 1;
end Loop;
"""
    p = _participant(write_model("Loop", text))
    p.set_inputs({"u": 3.0})
    p.step()
    out = p.outputs()
    assert out["a"] == pytest.approx(1.25) and out["b"] == pytest.approx(3.5)


def test_nonlinear_algebraic_loop_uses_newton(write_model):
    text = """model Cubic
  input Real u;
  output Real z(start = 1);
  Real x(start = 0, fixed = true);
equation
  z + z^3 = u + x;
  der(x) = 1;
end Cubic;
"""
    p = _participant(write_model("Cubic", text))
    assert not p.compiled.numerics.explicit
    p.set_inputs({"u": 10.0})
    for _ in range(30):
        p.step()
    z = p.outputs()["z"]
    assert z + z**3 == pytest.approx(10.0 + 0.5, abs=1e-8)


def test_stiff_model_switches_to_implicit_and_stays_stable(write_model):
    text = """model Stiff
  parameter Real T = 1e-5;
  input Real u;
  output Real y(start = 0, fixed = true);
  output Real slow(start = 0, fixed = true);
equation
  T * der(y) = u - y;
  der(slow) = y;
end Stiff;
"""
    p = _participant(write_model("Stiff", text))
    assert p.method == "implicit"
    p.set_inputs({"u": 1.0})
    for _ in range(60):
        p.step()
    out = p.outputs()
    assert out["y"] == pytest.approx(1.0, abs=1e-9)
    assert out["slow"] == pytest.approx(1.0, abs=1e-3)
    forced = _participant(write_model("Stiff", text), method="rk4")
    forced.set_inputs({"u": 1.0})
    with pytest.raises(DiagnosticError) as exc:  # plain RK4 at 1/240 s blows up
        for _ in range(60):
            forced.step()
    assert exc.value.diagnostics[0].code == "modelica.step.diverged"


def test_moderately_fast_mode_gets_more_substeps(write_model):
    text = """model Fast
  parameter Real T = 0.001;
  input Real u;
  output Real y(start = 0, fixed = true);
equation
  T * der(y) = u - y;
end Fast;
"""
    p = _participant(write_model("Fast", text))
    # stable Dormand-Prince substeps for |lambda| = 1000 1/s: |lambda| h <= 3
    assert p.method == "dopri" and p.substeps >= math.ceil(1000 / 60 / 3)
    p.set_inputs({"u": 1.0})
    p.step()  # the input step needs more substeps for accuracy: redone with more
    assert p.substeps > math.ceil(1000 / 60 / 3)
    assert p.outputs()["y"] == pytest.approx(1.0 - math.exp(-1000 / 60), rel=1e-9)


def test_rc_ladder_arrays_reach_steady_state_monotonically():
    p = _participant(lib_model("Workbench/Electrical/RCLadder.mo"))
    p.set_inputs({"V_in": 5.0})
    last = 0.0
    for _ in range(600):
        p.step()
        v = p.outputs()["v_out"]
        assert v >= last - 1e-12
        last = v
    assert last == pytest.approx(5.0, abs=0.05)
    states = np.array([p.value(f"v[{i}]") for i in range(1, 5)])
    assert np.all(np.diff(states) <= 1e-12)  # voltage falls along the ladder


def test_configurable_period(write_model):
    p = _participant(write_model("Spring", SPRING), period=0.01)
    for _ in range(100):
        p.step()
    assert p.time == pytest.approx(1.0)
    assert p.outputs()["pos"] == pytest.approx(0.5 * math.cos(2.0), abs=1e-8)


def test_noevent_if_expressions_and_plain_if_expressions(write_model):
    text = """model Sat
  input Real u;
  output Real y;
  output Real z;
equation
  y = noEvent(if u > 1 then 1 else if u < -1 then -1 else u);
  z = if u > 0 then 2 * u else 0;
end Sat;
"""
    p = _participant(write_model("Sat", text))
    assert p.compiled.diagnostics == ()
    # the plain `if` is a held relation (switches at events); noEvent is evaluated as written
    assert len(p.compiled.numerics.system.relations) == 1
    for u, y, z in ((3.0, 1.0, 6.0), (0.25, 0.25, 0.5), (-7.0, -1.0, 0.0)):
        p.set_inputs({"u": u})
        p.step()
        assert p.outputs() == {"y": y, "z": z}


def test_initial_equation_determines_a_state_from_a_parameter(write_model):
    text = """model Init
  parameter Real x0 = 3;
  output Real x;
initial equation
  x = 2 * x0;
equation
  der(x) = -x;
end Init;
"""
    p = _participant(write_model("Init", text))
    assert p.outputs()["x"] == pytest.approx(6.0)
    p.step()
    assert p.outputs()["x"] == pytest.approx(6.0 * math.exp(-1 / 60), abs=1e-9)
    p.set_parameter("x0", 1.0)
    p.reset()  # reset re-solves the initial equations with the new parameter
    assert p.outputs()["x"] == pytest.approx(2.0)


def test_parameter_propagates_through_component_modifiers():
    p = _participant(lib_model("Workbench/Electrical/RCCircuit.mo"))
    p.set_parameter("R", 50.0)  # resistor(R = R): RC becomes 0.5 s
    p.set_inputs({"V_supply": 1.0})
    for _ in range(60):
        p.step()
    assert p.value("resistor.R") == 50.0
    assert p.outputs()["v_cap"] == pytest.approx(1 - math.exp(-2.0), abs=1e-8)


def test_structural_parameter_needs_a_recompile():
    p = _participant(lib_model("Workbench/Electrical/RCLadder.mo"))
    with pytest.raises(DiagnosticError) as exc:
        p.set_parameter("n", 6)
    assert exc.value.diagnostics[0].code == "modelica.parameter.structural"


def test_matrix_parameter_times_state_vector_matches_matrix_exponential(write_model):
    text = """model M
  parameter Real A[2,2] = [1, 2; 3, 4];
  Real x[2](each start = 1, each fixed = true);
  output Real y[2];
equation
  der(x) = -A * x;
  y = x;
end M;
"""
    p = _participant(write_model("M", text), period=0.01)
    for _ in range(100):
        p.step()
    w, V = np.linalg.eig(-np.array([[1.0, 2.0], [3.0, 4.0]]))
    exact = (V @ np.diag(np.exp(w)) @ np.linalg.solve(V, np.ones(2))).real
    out = p.outputs()
    assert [out["y[1]"], out["y[2]"]] == pytest.approx(exact.tolist(), abs=1e-8)
    assert {v.name for v in p.compiled.interface.parameters} == {"A[1,1]", "A[1,2]", "A[2,1]", "A[2,2]"}


def test_shrinking_a_time_constant_at_runtime_keeps_the_step_stable():
    p = _participant(lib_model("Workbench/Control/FirstOrder.mo"))
    assert p.method == "dopri" and p.substeps == 1
    p.set_inputs({"u": 1.0})
    p.step()
    p.set_parameter("T", 1e-5)  # far too fast for RK4 at 1/240 s: re-chosen at the next step
    for _ in range(10):
        p.step()
    assert p.method == "implicit"
    assert p.outputs()["y"] == pytest.approx(1.0, abs=1e-9)


def test_user_functions_with_locals_and_two_outputs_are_inlined(write_model):
    text = """model F
  function g
    input Real a;
    input Real b;
    output Real s;
    output Real d;
  protected
    Real t;
  algorithm
    t := a * 2;
    s := t + b;
    d := t - b;
  end g;
  input Real u;
  output Real y1;
  output Real y2;
  output Real y3;
equation
  (y1, y2) = g(u, 1.0);
  y3 = g(u + 1, 0.5);
end F;
"""
    p = _participant(write_model("F", text))
    p.set_inputs({"u": 3.0})
    p.step()
    assert p.outputs() == {"y1": 7.0, "y2": 5.0, "y3": 8.5}


BALL = """model Ball "falls onto a stiff, damped contact spring switched on by an if-expression"
  parameter Real m = 1;
  parameter Real k = {k};
  parameter Real d = {d};
  output Real h(start = 0.5, fixed = true);
  output Real v(start = 0, fixed = true);
  output Real contact;
equation
  contact = noEvent(if h < 0 then -k * h - d * v else 0);
  der(h) = v;
  m * der(v) = -9.81 * m + contact;
end Ball;
"""


@pytest.mark.parametrize("k, d, method", [(1e6, 2e3, "dopri"), (1e9, 0, "implicit")])
def test_stiff_contact_gate_switched_on_mid_run_stays_stable(write_model, k, d, method):
    p = _participant(write_model("Ball", BALL.format(k=k, d=d)))
    assert p.method == "dopri" and p.substeps == 1  # no contact at the start: not stiff
    for _ in range(240):  # falls 0.5 m (0.32 s), then rests on the spring
        p.step()
    out = p.outputs()
    # k = 1e6: |lambda| = 1000 1/s -> at least ceil(1000/60/3) Dormand-Prince substeps;
    # k = 1e9: too stiff for max_substeps -> implicit Euler
    assert p.method == method
    if method == "dopri":
        assert 6 <= p.substeps <= 24
    assert out["h"] == pytest.approx(-9.81 / k, rel=1e-6)  # static deflection m g / k
    assert out["contact"] == pytest.approx(9.81, rel=1e-6)


def test_implicit_step_that_cannot_converge_is_reported_not_frozen(write_model):
    # damping that jumps from 0 to d*v at h = 0 has no backward-Euler solution at the crossing
    p = _participant(write_model("Ball", BALL.format(k=1e9, d=6e4)))
    with pytest.raises(DiagnosticError) as exc:
        for _ in range(60):
            p.step()
    assert exc.value.diagnostics[0].code == "modelica.step.unsolved"
    assert p.outputs()["h"] > 0  # the failed period was not committed


def test_save_and_restore_state_resume_bit_identically():
    p = open_participant(lib_model("Workbench/Rover/DriveController.mo"))
    p.set_inputs({"throttle": 0.7, "steer": -0.2})
    for _ in range(30):
        p.step()
    saved = p.save_state()
    trace = []
    for i in range(30):
        p.set_inputs({"throttle": math.sin(i / 5)})
        p.step()
        trace.append(p.state_bytes())
    p.restore_state(saved)
    assert p.time == pytest.approx(0.5)
    for i in range(30):
        p.set_inputs({"throttle": math.sin(i / 5)})
        p.step()
        assert p.state_bytes() == trace[i]


def test_set_inputs_is_all_or_nothing(write_model):
    p = _participant(write_model("Spring", SPRING))
    with pytest.raises(DiagnosticError):
        p.set_inputs({"F": 3.0, "nope": 1.0})
    assert p.value("F") == 0.0


def test_unsolvable_initial_equations_are_reported(write_model):
    text = """model BadInit
  output Real x;
initial equation
  x * x = -1;
equation
  der(x) = -x;
end BadInit;
"""
    cm = compile_model(write_model("BadInit", text))
    assert cm.ok
    with pytest.raises(DiagnosticError) as exc:
        ModelicaParticipant(cm)
    assert exc.value.diagnostics[0].code == "modelica.initialization"
