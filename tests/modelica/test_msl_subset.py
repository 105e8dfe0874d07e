"""Models written against Modelica Standard Library names run on the bundled subset offline."""

from __future__ import annotations

import math

import pytest

from luncosim_core.modelica import ModelicaParticipant, compile_model

RC = """model MslRC
  parameter Real V0 = 5;
  Modelica.Electrical.Analog.Sources.ConstantVoltage src(V = V0);
  Modelica.Electrical.Analog.Basic.Resistor res(R = 100);
  Modelica.Electrical.Analog.Basic.Capacitor cap(C = 0.001, v(fixed = true));
  Modelica.Electrical.Analog.Basic.Ground gnd;
  output Real v_out(unit = "V");
equation
  connect(src.p, res.p);
  connect(res.n, cap.p);
  connect(cap.n, gnd.p);
  connect(src.n, gnd.p);
  v_out = cap.v;
end MslRC;
"""

ROTATIONAL = """model RotOsc
  import Modelica.Mechanics.Rotational;
  input Real tau_in(unit = "N.m");
  output Real angle(unit = "rad");
  Rotational.Components.Fixed fixed;
  Rotational.Sources.Torque torque(useSupport = true);
  Rotational.Components.Inertia inertia(J = 2, phi(start = 0, fixed = true), w(start = 0, fixed = true));
  Rotational.Components.Spring spring(c = 8);
equation
  torque.tau = tau_in;
  connect(torque.support, fixed.flange);
  connect(torque.flange, inertia.flange_a);
  connect(inertia.flange_b, spring.flange_a);
  connect(spring.flange_b, fixed.flange);
  angle = inertia.phi;
end RotOsc;
"""

SINE_RL = """model SineRL
  Modelica.Blocks.Sources.Sine sine(amplitude = 2, f = 0.5);
  Modelica.Electrical.Analog.Sources.SignalVoltage src;
  Modelica.Electrical.Analog.Basic.Resistor res(R = 1);
  Modelica.Electrical.Analog.Basic.Inductor ind(L = 1e-3, i(fixed = true));
  Modelica.Electrical.Analog.Basic.Ground gnd;
  output Real current(unit = "A");
equation
  connect(sine.y, src.v_in);
  connect(src.p, res.p);
  connect(res.n, ind.p);
  connect(ind.n, gnd.p);
  connect(src.n, gnd.p);
  current = ind.i;
end SineRL;
"""


def _run(write_model, name, text, seconds, inputs=None):
    cm = compile_model(write_model(name, text))
    assert cm.ok, cm.diagnostics
    p = ModelicaParticipant(cm)
    p.set_inputs(inputs or {})
    for _ in range(round(seconds * 60)):
        p.step()
    return p


def test_rc_with_msl_electrical_names(write_model):
    p = _run(write_model, "MslRC", RC, 0.5)  # RC = 0.1 s
    assert p.outputs()["v_out"] == pytest.approx(5 * (1 - math.exp(-5.0)), abs=1e-8)
    assert p.compiled.interface.output("v_out").unit == "V"


def test_rotational_inertia_spring_torque(write_model):
    p = _run(write_model, "RotOsc", ROTATIONAL, 1.0, {"tau_in": 4.0})
    # J = 2, c = 8: angle = tau/c (1 - cos(2 t))
    assert p.outputs()["angle"] == pytest.approx(0.5 * (1 - math.cos(2.0)), abs=1e-8)


def test_sine_source_drives_a_fast_rl_circuit(write_model):
    p = _run(write_model, "SineRL", SINE_RL, 0.5)  # L/R = 1 ms: the current follows the source
    assert p.substeps > 4  # fast mode detected
    assert p.outputs()["current"] == pytest.approx(2 * math.sin(2 * math.pi * 0.5 * 0.5), abs=1e-2)
