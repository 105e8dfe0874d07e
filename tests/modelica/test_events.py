"""Modelica events in the stepper: when/elsewhen, reinit, pre, edge/change, sample, initial(),
terminate()/terminal(), assert, Zeno and chattering, against closed forms and rumoca."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica import ModelicaParticipant, compile_model

PERIOD = 1 / 60
G = 9.81

BALL = """model Ball "the bouncing ball: when h <= 0 then reinit(v, -e*pre(v))"
  parameter Real e = 0.8 "coefficient of restitution";
  output Real h(start = 1, fixed = true) "height";
  output Real v(start = 0, fixed = true) "velocity";
equation
  der(h) = v;
  der(v) = -9.81;
  when h <= 0 then
    reinit(v, -e * pre(v));
  end when;
end Ball;
"""

THERMOSTAT = """model Thermostat "on below T_on, off above T_off (hysteresis), counts heating cycles"
  parameter Real T_on = 19;
  parameter Real T_off = 21;
  parameter Real a = 2 "heat exchange with the room, 1/s";
  parameter Real P = 40 "heating, K/s";
  input Real T_amb = 10;
  output Real T(start = 20, fixed = true);
  output Boolean heating(start = false);
  output Integer cycles(start = 0);
equation
  der(T) = a * (T_amb - T) + (if heating then P else 0);
  when T < T_on then
    heating = true;
    cycles = pre(cycles) + 1;
  elsewhen T > T_off then
    heating = false;
    cycles = pre(cycles);
  end when;
end Thermostat;
"""

COUNTER = """model Counter "counts sample ticks; remembers when the last one happened"
  output Integer count(start = 0);
  output Real y;
  discrete output Real last(start = -1);
  output Integer at_start(start = 0);
equation
  when sample(0.1, 0.25) then
    count = pre(count) + 1;
    last = time;
  end when;
  when sample(0, 0.5) then
    at_start = pre(at_start) + 1;
  end when;
  y = 2 * count;
end Counter;
"""


def _run(text: str, name: str, write_model, **kw) -> ModelicaParticipant:
    cm = compile_model(write_model(name, text))
    assert cm.ok, cm.diagnostics
    return ModelicaParticipant(cm, PERIOD, **kw)


def _ball_exact(t: float, e: float = 0.8, h0: float = 1.0) -> tuple[float, float, list[float]]:
    """Height and velocity of the ideal bouncing ball at ``t``, and the bounce times so far."""
    t_hit = math.sqrt(2 * h0 / G)
    if t < t_hit:
        return h0 - G * t * t / 2, -G * t, []
    bounces, v_up = [t_hit], e * G * t_hit
    while bounces[-1] + 2 * v_up / G <= t:
        bounces.append(bounces[-1] + 2 * v_up / G)
        v_up *= e
    s = t - bounces[-1]
    return v_up * s - G * s * s / 2, v_up - G * s, bounces


def test_bouncing_ball_bounces_at_the_analytic_times_and_never_sinks(write_model):
    p = _run(BALL, "Ball", write_model)
    seen, prev_v = [], 0.0
    for _ in range(210):  # 3.5 s: nine bounces
        p.step()
        h, v = p.value("h"), p.value("v")
        h_ex, v_ex, bounces = _ball_exact(p.time)
        assert h >= -1e-9  # never below the floor at a communication point
        assert h == pytest.approx(h_ex, abs=1e-9) and v == pytest.approx(v_ex, abs=1e-8)
        if prev_v < 0 < v:
            seen.append(p.time)
        prev_v = v
    assert len(seen) == len(bounces) >= 8
    for tick_time, exact in zip(seen, bounces, strict=True):
        assert 0 <= tick_time - exact < PERIOD  # each bounce shows at the first tick after it


def test_zeno_ball_is_reported_and_leaves_the_last_good_state(write_model):
    p = _run(BALL, "Ball", write_model)
    for _ in range(240):  # 4.0 s; the bounces accumulate at t = 4.064 s
        p.step()
    with pytest.raises(DiagnosticError) as exc:
        for _ in range(12):
            p.step()
    d = exc.value.diagnostics[0]
    assert d.code == "modelica.events.zeno"
    assert "'h <= 0'" in d.message and "Zeno" in d.message
    assert 4.04 < p.time < 4.07  # the period that failed was not committed
    assert p.value("h") >= -1e-9
    with pytest.raises(DiagnosticError):  # stepping on keeps reporting instead of hanging
        p.step()


def _thermostat_exact(t: float) -> tuple[float, bool, int]:
    """Piecewise exponential solution of THERMOSTAT (a = 2, P = 40, T_amb = 10)."""
    T, heating, cycles, t0 = 20.0, False, 0, 0.0
    while True:
        target = 30.0 if heating else 10.0
        switch_at = 21.0 if heating else 19.0
        dt = math.log((T - target) / (switch_at - target)) / 2.0
        if t0 + dt > t:
            return target + (T - target) * math.exp(-2.0 * (t - t0)), heating, cycles
        t0, T, heating = t0 + dt, switch_at, not heating
        cycles += heating


def test_thermostat_with_when_elsewhen_and_pre(write_model):
    p = _run(THERMOSTAT, "Thermostat", write_model)
    assert (p.value("heating"), p.value("cycles")) == (0.0, 0.0)
    for _ in range(60):  # ten switches in one second
        p.step()
        T, heating, cycles = _thermostat_exact(p.time)
        # each switch is located to 1e-10 s (dT/dt up to 40 K/s): a few 1e-9 K per switch
        assert p.outputs() == pytest.approx({"T": T, "heating": float(heating),
                                             "cycles": float(cycles)}, abs=5e-8)
    assert p.value("cycles") == 5


def test_sample_counter_ticks_exactly_on_schedule(write_model):
    p = _run(COUNTER, "Counter", write_model)
    # sample(0, 0.5) ticks at the start: the initialization event
    assert p.outputs() == {"count": 0.0, "y": 0.0, "last": -1.0, "at_start": 1.0}
    for i in range(1, 121):
        p.step()
        t = i * PERIOD
        ticks = [0.1 + k * 0.25 for k in range(9) if 0.1 + k * 0.25 <= t + 1e-12]
        out = p.outputs()
        assert out["count"] == len(ticks) and out["y"] == 2 * len(ticks)
        assert out["last"] == (pytest.approx(ticks[-1], abs=1e-12) if ticks else -1.0)
        assert out["at_start"] == 1 + math.floor(t / 0.5 + 1e-9)


def test_initial_terminate_and_terminal(write_model):
    text = """model Run
  output Real x(start = 0, fixed = true);
  discrete Real rate(start = 0);
  discrete output Real t_end(start = -1);
equation
  der(x) = rate;
  when initial() then
    rate = 2;
  end when;
  when x > 1 then
    terminate("reached one");
  end when;
  when terminal() then
    t_end = time;
  end when;
end Run;
"""
    p = _run(text, "Run", write_model)
    assert p.value("rate") == 2.0  # set by the initialization event
    for _ in range(60):
        p.step()
    assert p.terminated == "reached one"
    assert p.value("t_end") == pytest.approx(0.5, abs=1e-9)
    assert p.value("x") == pytest.approx(1.0, abs=1e-8)  # frozen where the model stopped
    assert p.time == pytest.approx(1.0)  # while the co-simulation goes on
    notes = p.take_diagnostics()
    assert [d.code for d in notes] == ["modelica.terminated"] and "reached one" in notes[0].message
    assert p.take_diagnostics() == []


def test_edge_and_change_count_switches_of_a_boolean(write_model):
    text = """model Edges
  Real x(start = 0, fixed = true);
  output Boolean b;
  output Integer rises(start = 0);
  output Integer changes(start = 0);
equation
  der(x) = 1;
  b = sin(2 * 3.141592653589793 * x) > 0;
  when edge(b) then
    rises = pre(rises) + 1;
  end when;
  when change(b) then
    changes = pre(changes) + 1;
  end when;
end Edges;
"""
    p = _run(text, "Edges", write_model)
    for _ in range(45):  # 0.75 s: rose just after 0, fell at 0.5
        p.step()
    assert p.outputs() == {"b": 0.0, "rises": 1.0, "changes": 2.0}
    for _ in range(87):  # 2.2 s: rose at 1 and 2, fell at 1.5
        p.step()
    assert p.outputs() == {"b": 1.0, "rises": 3.0, "changes": 5.0}


def test_input_moving_a_relation_is_an_event_at_the_communication_point(write_model):
    text = """model Gate
  input Real u;
  output Boolean on;
  output Integer presses(start = 0);
  output Real y;
equation
  on = u > 1;
  when on then
    presses = pre(presses) + 1;
  end when;
  y = if u > 0 then 2 * u else 0;
end Gate;
"""
    p = _run(text, "Gate", write_model)
    for u, on, presses, y in ((0.5, 0, 0, 1.0), (2.0, 1, 1, 4.0), (3.0, 1, 1, 6.0),
                              (-1.0, 0, 1, 0.0), (1.5, 1, 2, 3.0)):
        p.set_inputs({"u": u})
        p.step()
        assert p.outputs() == {"on": on, "presses": presses, "y": y}


def test_time_events_and_reinit_from_a_sample(write_model):
    text = """model Timed
  output Real x(start = 0, fixed = true);
  discrete Real rate(start = 1);
equation
  der(x) = rate;
  when time >= 0.3 then
    rate = -1;
  end when;
  when sample(0.5, 0.5) then
    reinit(x, 10);
  end when;
end Timed;
"""
    p = _run(text, "Timed", write_model)
    for i in range(1, 61):
        p.step()
        t = i * PERIOD
        if t < 0.3:
            exact = t
        elif t < 0.5 - 1e-12:
            exact = 0.3 - (t - 0.3)
        else:
            exact = 10 - (t - 0.5 * math.floor(t / 0.5 + 1e-9))
        assert p.value("x") == pytest.approx(exact, abs=1e-9)


def test_chattering_switch_is_reported(write_model):
    text = """model Chatter
  output Real x(start = 0.5, fixed = true);
equation
  der(x) = if x > 0 then -1 else 1;
end Chatter;
"""
    p = _run(text, "Chatter", write_model)
    with pytest.raises(DiagnosticError) as exc:
        for _ in range(60):
            p.step()
    d = exc.value.diagnostics[0]
    assert d.code == "modelica.events.zeno" and "'x > 0'" in d.message
    assert p.time == pytest.approx(0.5)


def test_discrete_equations_without_fixed_point_are_reported(write_model):
    text = """model Flip
  Real x(start = 0, fixed = true);
  Boolean b(start = false);
  Integer k(start = 0);
equation
  der(x) = 1;
  when x > 0.5 then
    k = pre(k) + 1;
  end when;
  b = if k > 0 then not pre(b) else false;
end Flip;
"""
    p = _run(text, "Flip", write_model)
    with pytest.raises(DiagnosticError) as exc:
        for _ in range(60):
            p.step()
    assert exc.value.diagnostics[0].code == "modelica.events.iteration"


def test_failed_assert_is_an_error_and_a_warning_level_assert_a_diagnostic(write_model):
    text = """model Checked
  output Real x(start = 0, fixed = true);
equation
  der(x) = 1;
  assert(x < 0.25, "x above a quarter", AssertionLevel.warning);
  assert(x < 0.5, "x above a half");
end Checked;
"""
    p = _run(text, "Checked", write_model)
    for _ in range(20):
        p.step()
    warnings = p.take_diagnostics()
    assert [d.code for d in warnings] == ["modelica.assert.warning"]
    assert "x above a quarter" in warnings[0].message
    with pytest.raises(DiagnosticError) as exc:
        for _ in range(20):
            p.step()
    d = exc.value.diagnostics[0]
    assert d.code == "modelica.assert" and "x above a half" in d.message and "t=0.5" in d.message


def _trace(p: ModelicaParticipant, n: int) -> list[bytes]:
    out = []
    for i in range(n):
        p.set_inputs({"T_amb": 10 + 5 * math.sin(i / 7)})
        p.step()
        out.append(p.state_bytes())
    return out


def test_events_are_deterministic_and_resume_bit_identically(write_model):
    a = _trace(_run(THERMOSTAT, "Thermostat", write_model), 90)
    b = _trace(_run(THERMOSTAT, "Thermostat", write_model), 90)
    assert hashlib.sha256(b"".join(a)).digest() == hashlib.sha256(b"".join(b)).digest()
    p = _run(THERMOSTAT, "Thermostat", write_model)
    _trace(p, 45)
    saved = p.save_state()
    first = _trace(p, 45)
    p.restore_state(saved)
    assert _trace(p, 45) == first


GATED = """model Gated "a ball on a compliant floor switched on by a continuous min/max gate"
  parameter Real k = 2000;
  parameter Real d = 5;
  parameter Real band = 1e-5;
  output Real h(start = 2, fixed = true);
  output Real v(start = 0, fixed = true);
  Real gate;
equation
  gate = min(max(-h / band, 0), 1);
  der(h) = v;
  der(v) = -9.81 + (-k * h - d * v) * gate;
end Gated;
"""


def test_kinks_of_a_min_max_gate_are_located_and_match_a_tight_reference(write_model):
    import rumoca

    path = write_model("Gated", GATED)
    p = _run(GATED, "Gated", write_model)
    assert len(p.compiled.numerics.system.kinks) == 2
    ref = rumoca.Session(roots=[]).load(str(path), model="Gated").simulate(
        (0.0, 2.0), dt=PERIOD, config=rumoca.SimConfig(solver="rk-like", rtol=1e-12, atol=1e-12))
    t_ref = np.asarray(ref.time)
    worst = 0.0
    for i in range(1, 121):
        p.step()
        row = np.nonzero(np.abs(t_ref - i * PERIOD) <= 1e-9)[0][-1]
        worst = max(worst, abs(p.value("h") - ref["h"][row]) / 2.0,
                    abs(p.value("v") - ref["v"][row]) / 6.3)
    assert worst < 2e-5  # relative to the largest |h| and |v| of the run


def test_fast_lag_is_accurate_at_the_first_point_after_each_input_step(write_model):
    text = """model Lag
  parameter Real T = 0.005;
  input Real u;
  output Real y(start = 0, fixed = true);
equation
  T * der(y) = u - y;
end Lag;
"""
    p = _run(text, "Lag", write_model)
    y, worst = 0.0, 0.0
    for i in range(60):
        u = [1.0, -0.5, 2.0][(i // 10) % 3]
        p.set_inputs({"u": u})
        p.step()
        y = u + (y - u) * math.exp(-PERIOD / 0.005)
        worst = max(worst, abs(p.outputs()["y"] - y) / 2.0)
    assert worst < 1e-6


def test_parameter_change_reevaluates_discrete_values_at_the_next_step(write_model):
    text = """model Mode
  parameter Real threshold = 1;
  input Real u;
  output Boolean high;
equation
  high = u > threshold;
end Mode;
"""
    p = _run(text, "Mode", write_model)
    p.set_inputs({"u": 0.5})
    p.step()
    assert p.outputs() == {"high": 0.0}
    p.set_parameter("threshold", 0.25)
    p.step()
    assert p.outputs() == {"high": 1.0}


def test_many_relations_switching_together_are_not_taken_for_zeno(write_model):
    n = 12  # parallel cells emptying within nanoseconds of each other: 12 separate events
    decl = "\n".join(f"  Real x{i}(start = 0, fixed = true);\n  output Boolean full{i};"
                     for i in range(n))
    eqs = "\n".join(f"  der(x{i}) = 1 + {i} * 1e-9;\n  full{i} = x{i} > 0.5;" for i in range(n))
    p = _run(f"model Cells\n{decl}\nequation\n{eqs}\nend Cells;\n", "Cells", write_model)
    for _ in range(60):
        p.step()
    assert all(v == 1.0 for v in p.outputs().values())


def test_reset_at_a_later_tick_keeps_sample_on_its_absolute_schedule(write_model):
    p = _run(COUNTER, "Counter", write_model)
    p.reset(start_tick=60)  # joins a running simulation at t = 1 s
    assert p.time == pytest.approx(1.0)
    assert p.outputs()["at_start"] == 1.0  # t = 1 is a tick of sample(0, 0.5): initialization
    for _ in range(6):  # to t = 1.1: the next tick of sample(0.1, 0.25)
        p.step()
    assert (p.outputs()["count"], p.outputs()["last"]) == (1.0, pytest.approx(1.1, abs=1e-12))
