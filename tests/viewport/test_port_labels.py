"""The Labels overlay's text: which ports, grouped on which prim, formatted how (pure)."""

from __future__ import annotations

import numpy as np

from luncosim_workbench.viewport.model.port_labels import (
    format_value,
    port_labels,
    pretty_unit,
    wire_end_key,
)

KEYS = ("/Y/Rover.speed", "/Y/Rover.steer", "/Y/Rover.throttle", "/Y/Rover/Chassis.position_x",
        "/Y/Rover/Controller.torque_left", "/Y/Rover/Controller.max_torque", "/Y/Rover/Joints/Axle_FL.velocity",
        "/Y/Rover/Joints/Axle_FL.effort", "/Y/Rover/Odometer.speed")
VALUES = np.array([1.23456, 0.0, 0.5, -12.5, 3.25, 40.0, -3.98123, 3.25, np.nan])
UNITS = {"/Y/Rover.speed": "m/s", "/Y/Rover/Chassis.position_x": "m", "/Y/Rover/Controller.torque_left": "N*m",
         "/Y/Rover/Joints/Axle_FL.velocity": "rad/s", "/Y/Rover/Odometer.speed": "m/s"}
WIRES = [("/Y/Rover/Odometer.outputs:speed", "/Y/Rover.outputs:speed"),
         ("/Y/Rover.inputs:throttle", "/Y/Rover/Controller.inputs:throttle"),
         ("/Y/Rover/Controller.outputs:torque_left", "/Y/Rover/Joints/Axle_FL.inputs:effort"),
         ("/Y/Rover/Joints/Axle_FL.outputs:velocity", "/Y/Rover/Odometer.inputs:wheel_rate")]
SOURCES = {wire_end_key(a) for a, _b in WIRES}
WIRED = SOURCES | {wire_end_key(b) for _a, b in WIRES}
DRAWN = {"/Y/Rover", "/Y/Rover/Chassis"}  # programs, joints and the odometer draw nothing


def drawn(path):
    return any(d == path or d.startswith(path + "/") for d in DRAWN)


def test_nothing_selected_labels_what_flows_on_the_wires_on_the_drawn_prims():
    labels = port_labels(KEYS, VALUES, units=UNITS, wired=WIRED, wire_sources=SOURCES, is_drawn=drawn)
    assert labels == {"/Y/Rover": "\n".join([
        "throttle = 0.5",
        "Controller.torque_left = 3.25 N·m",
        "Axle_FL.velocity = -3.981 rad/s",
        "Odometer.speed = —",  # no sample yet
    ])}


def test_a_selected_prim_shows_its_own_ports_wired_first_and_a_selected_assembly_its_wires():
    labels = port_labels(KEYS, VALUES, selection=["/Y/Rover/Chassis", "/Y/Rover"], units=UNITS, wired=WIRED,
                         directions={"/Y/Rover.steer": "in", "/Y/Rover.speed": "out"}, is_drawn=drawn)
    assert labels["/Y/Rover/Chassis"] == "position_x = -12.5 m"
    assert labels["/Y/Rover"].split("\n") == ["speed = 1.235 m/s", "throttle = 0.5", "steer = 0"]
    program = port_labels(KEYS, VALUES, selection=["/Y/Rover/Controller"], units=UNITS, wired=WIRED, is_drawn=drawn)
    assert program == {"/Y/Rover": "Controller.torque_left = 3.25 N·m\nController.max_torque = 40"}


def test_long_labels_are_cut_with_a_count():
    keys = tuple(f"/P.p{i:02d}" for i in range(10))
    text = port_labels(keys, np.arange(10.0), selection=["/P"], max_lines=4)["/P"]
    assert text.split("\n") == ["p00 = 0", "p01 = 1", "p02 = 2", "+7 more"]


def test_values_and_units_print_compactly():
    assert format_value(12345.678, "N") == "1.235e+04 N"
    assert format_value(float("nan")) == "—" and format_value(-0.0) == "0"
    assert pretty_unit("kg*m^2") == "kg·m²" and pretty_unit("m/s^2") == "m/s²" and pretty_unit("1") == ""
    assert wire_end_key("/A/B.outputs:speed") == "/A/B.speed" and wire_end_key("/A.inputs:x") == "/A.x"
