"""LunCoSim's public Modelica library through our participant (needs LUNCOSIM_EXTERNAL_ASSETS)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica import ModelicaParticipant, compile_model

pytestmark = pytest.mark.external

ASSETS = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
MODELS = Path(ASSETS) / "models" if ASSETS else None

BRANCH_FREE = [
    "LunCo/Mobility/RoverDrivetrain.mo",
    "LunCo/Mobility/RoverAckermannDrivetrain.mo",
    "LunCo/Electrical/Battery.mo",
    "LunCo/GNC/PIDAxis.mo",
    "LunCo/Thermal/ThermalMass.mo",
    "LunCo/Pointing/SunTracker.mo",
    "Oscillator.mo",
    "SpringMass.mo",
    "QuarterCar.mo",
    "Lander.mo",
    "RocketEngine.mo",
    "Balloon.mo",
    "RC_Circuit.mo",  # MSL electrical names, served by the bundled subset
    "CascadedRCFilter.mo",
]


def _need_assets() -> Path:
    if MODELS is None or not MODELS.is_dir():
        pytest.skip("LUNCOSIM_EXTERNAL_ASSETS is not set to a LunCoSim assets folder")
    return MODELS


@pytest.mark.parametrize("rel", BRANCH_FREE)
def test_branch_free_models_compile_and_step(rel):
    root = _need_assets()
    cm = compile_model(root / rel)
    assert cm.ok, cm.diagnostics
    p = ModelicaParticipant(cm)
    for _ in range(120):
        p.step()
    assert all(math.isfinite(v) for v in p.outputs().values())


def test_rover_drivetrain_first_order_lag():
    root = _need_assets()
    p = ModelicaParticipant(compile_model(root / "LunCo/Mobility/RoverDrivetrain.mo"))
    p.set_inputs({"throttle": 0.8, "steer": 0.1})
    for _ in range(60):
        p.step()
    lag = 1 - math.exp(-1.0 / 0.15)
    out = p.outputs()
    assert out["drive_left"] == pytest.approx(0.9 * lag, abs=1e-6)
    assert out["drive_right"] == pytest.approx(0.7 * lag, abs=1e-6)


def test_rc_circuit_with_msl_components_matches_closed_form():
    root = _need_assets()
    p = ModelicaParticipant(compile_model(root / "RC_Circuit.mo"))  # 5 V, R C = 0.1 s
    for _ in range(30):
        p.step()
    assert p.value("C1.v") == pytest.approx(5 * (1 - math.exp(-5.0)), abs=1e-8)


def test_damped_spring_mass_matches_closed_form():
    root = _need_assets()
    p = ModelicaParticipant(compile_model(root / "SpringMass.mo"))
    m, k, d = 1.0, 10.0, 0.5
    alpha, wd = d / (2 * m), math.sqrt(k / m - (d / (2 * m)) ** 2)
    for _ in range(180):
        p.step()
    t = p.time
    x = math.exp(-alpha * t) * (math.cos(wd * t) + alpha / wd * math.sin(wd * t))
    assert p.value("x") == pytest.approx(x, abs=1e-7)


@pytest.mark.parametrize("rel, note", [
    ("LunCo/Sensors/IMUSensor.mo", "modelica.input-default-dropped"),
    ("LunCo/Sensors/Altimeter.mo", "modelica.input-default-dropped"),
    ("LunCo/Sensors/AttitudeReference.mo", "modelica.input-default-dropped"),
    ("LunCo/GNC/LanderNavigation.mo", "modelica.input-default-dropped"),  # and in library classes
    ("SpringDamperRepro.mo", "modelica.index-reduced"),  # damper state: index 2 -> 1
])
def test_models_needing_input_defaults_or_index_reduction_step(rel, note):
    root = _need_assets()
    cm = compile_model(root / rel)
    assert cm.ok, cm.diagnostics
    assert note in {d.code for d in cm.diagnostics}
    p = ModelicaParticipant(cm)
    for _ in range(120):
        p.step()
    assert all(math.isfinite(v) for v in p.outputs().values())


@pytest.mark.parametrize("rel, code", [
    ("LunCo/Mechanics/Torque.mo", "modelica.index"),  # a component: its flange is free alone
    ("LunCo/Electrical/DCMotor.mo", "modelica.index"),
    ("LunCo/Actuation/WrenchAllocator.mo", "modelica.compiler_crash"),
    ("LunCo/Pointing/ReactionWheel.mo", None),  # compiles; its unconnected pin stops stepping
])
def test_models_we_cannot_run_fail_with_a_clear_diagnostic(rel, code):
    root = _need_assets()
    cm = compile_model(root / rel)
    if code is None:
        assert cm.ok
        with pytest.raises(DiagnosticError) as exc:
            ModelicaParticipant(cm)
        assert exc.value.diagnostics[0].code == "modelica.algebraic.unsolved"
        assert "p.v" in exc.value.diagnostics[0].message
        return
    assert not cm.ok
    assert cm.diagnostics[0].code == code
