"""Our model library (assets/models/Workbench): contracts the demo twins rely on."""

from __future__ import annotations

import math
import re

import pytest

from luncosim_core.modelica import ModelicaParticipant, check_interface, compile_model

from .conftest import LIBRARY, lib_model

STANDALONE = [
    "Workbench/Rover/DriveController.mo",
    "Workbench/Power/Battery.mo",
    "Workbench/Thermal/RadiatorMass.mo",
    "Workbench/Thermal/Thermostat.mo",
    "Workbench/Control/FirstOrder.mo",
    "Workbench/Control/PIDAxis.mo",
    "Workbench/Pointing/ReactionWheel.mo",
    "Workbench/Electrical/RCCircuit.mo",
    "Workbench/Electrical/RCLadder.mo",
]


@pytest.mark.parametrize("rel", STANDALONE)
def test_standalone_models_compile_and_every_port_has_a_unit(rel):
    cm = compile_model(lib_model(rel))
    assert cm.ok and cm.diagnostics == (), cm.diagnostics
    ports = cm.interface.inputs + cm.interface.outputs
    assert ports, rel
    assert all(v.unit for v in ports), [v.name for v in ports if not v.unit]
    p = ModelicaParticipant(cm)
    for _ in range(10):
        p.step()
    assert all(math.isfinite(v) for v in p.outputs().values())


@pytest.mark.parametrize("rel", STANDALONE)
def test_ports_carry_placement_annotations(rel):
    text = lib_model(rel).read_text()
    cm = compile_model(lib_model(rel))
    for v in cm.interface.inputs + cm.interface.outputs:
        decl = re.search(rf"(input|output)[^;]*\b{re.escape(v.name.split('[')[0])}\b[^;]*;", text, re.S)
        assert decl and "Placement(" in decl.group(0), v.name
    assert "Icon(" in text


def test_drive_controller_contract_for_the_demo_twin():
    cm = compile_model(lib_model("Workbench/Rover/DriveController.mo"))
    itf = cm.interface
    assert {v.name: v.unit for v in itf.inputs} == {"throttle": "1", "steer": "1"}
    assert {v.name: v.unit for v in itf.outputs} == {
        "torque_left": "N.m", "torque_right": "N.m", "speed_cmd": "m/s"}
    assert check_interface(itf, {"throttle": "1", "steer": "1"},
                           {"torque_left": "N.m", "torque_right": "N.m"}, "/Rover/Drive") == []
    p = ModelicaParticipant(cm)
    p.set_inputs({"throttle": 1.0, "steer": 0.0})
    for _ in range(120):  # 2 s = 13 time constants
        p.step()
    out = p.outputs()
    assert out["torque_left"] == pytest.approx(40.0, rel=1e-5)
    assert out["torque_right"] == pytest.approx(out["torque_left"])
    assert out["speed_cmd"] == pytest.approx(1.2)
    p.set_inputs({"throttle": 0.0, "steer": 0.5})  # turn right in place: left forward
    for _ in range(120):
        p.step()
    out = p.outputs()
    assert out["torque_left"] == pytest.approx(20.0, rel=1e-4)
    assert out["torque_right"] == pytest.approx(-20.0, rel=1e-4)


def test_reaction_wheel_keeps_rotor_speed_private():
    cm = compile_model(lib_model("Workbench/Pointing/ReactionWheel.mo"))
    names = {v.name for v in cm.interface.outputs}
    assert names == {"torque_out", "momentum", "power"}
    assert "omega" not in names and "omega" in {v.name for v in cm.interface.states}
    p = ModelicaParticipant(cm)
    p.set_inputs({"torque_cmd": 0.1})
    for _ in range(60):
        p.step()
    # momentum = integral of applied torque; fade factor barely matters at low speed
    assert p.outputs()["momentum"] == pytest.approx(0.1, rel=2e-2)
    assert p.value("omega") == pytest.approx(p.outputs()["momentum"] / 0.02)
    diags = check_interface(cm.interface, declared_outputs={"omega": "rad/s"})
    assert [d.code for d in diags] == ["modelica.interface.missing"]


def test_battery_discharges_linearly_with_constant_current():
    p = ModelicaParticipant(compile_model(lib_model("Workbench/Power/Battery.mo")))
    p.set_inputs({"current": 40.0})  # 1 C
    for _ in range(600):  # 10 s
        p.step()
    assert p.outputs()["soc"] == pytest.approx(0.9 - 10.0 / 3600.0, abs=1e-12)


def test_radiator_cools_towards_radiative_equilibrium():
    p = ModelicaParticipant(compile_model(lib_model("Workbench/Thermal/RadiatorMass.mo")))
    p.set_parameter("heat_capacity", 10.0)  # fast for the test
    p.set_inputs({"heat_in": 100.0})
    for _ in range(60 * 120):
        p.step()
    sigma = 5.670374419e-8
    t_eq = (100.0 / (0.85 * sigma * 0.5) + 3.0**4) ** 0.25
    assert p.outputs()["temperature"] == pytest.approx(t_eq, rel=1e-4)
    assert p.outputs()["heat_rejected"] == pytest.approx(100.0, rel=1e-3)


def test_pid_axis_drives_error_to_zero_on_a_double_integrator():
    p = ModelicaParticipant(compile_model(lib_model("Workbench/Control/PIDAxis.mo")))
    angle, rate, inertia = 0.0, 0.0, 1.0
    p.set_inputs({"setpoint": 0.5, "measurement": angle})
    for _ in range(60 * 20):
        p.step()
        torque = p.outputs()["command"]
        rate += torque / inertia / 60
        angle += rate / 60
        p.set_inputs({"measurement": angle})
    assert angle == pytest.approx(0.5, abs=1e-3)


def test_package_order_lists_every_class():
    for order in LIBRARY.joinpath("Workbench").rglob("package.order"):
        listed = order.read_text().split()
        present = sorted(p.stem if p.is_file() else p.name
                         for p in order.parent.iterdir()
                         if (p.suffix == ".mo" and p.name != "package.mo") or (p.is_dir() and (p / "package.mo").exists()))
        assert sorted(listed) == present, order


def test_thermostat_keeps_a_radiating_mass_in_its_band():
    """Two participants exchanging ports at communication points: the heater switches with
    hysteresis (when/elsewhen) and holds the temperature between T_on and T_off."""
    mass = ModelicaParticipant(compile_model(lib_model("Workbench/Thermal/RadiatorMass.mo")))
    mass.set_parameter("heat_capacity", 20.0)
    mass.set_parameter("T_initial", 290.0)
    mass.reset()
    ctrl = ModelicaParticipant(compile_model(lib_model("Workbench/Thermal/Thermostat.mo")))
    ctrl.set_parameter("P_heater", 300.0)
    temps = []
    for _ in range(60 * 60):
        ctrl.set_inputs({"temperature": mass.outputs()["temperature"]})
        ctrl.step()
        mass.set_inputs({"heat_in": ctrl.outputs()["heater_power"]})
        mass.step()
        temps.append(mass.outputs()["temperature"])
    settled = temps[len(temps) // 2:]
    assert 283.0 < min(settled) and max(settled) < 288.5  # T_on = 283.15, T_off = 288.15
    assert ctrl.outputs()["switch_ons"] >= 3
