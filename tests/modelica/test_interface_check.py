"""The prim contract: declared inputs/outputs must exist on the model with compatible units."""

from __future__ import annotations

import pytest

from luncosim_core.modelica import check_interface, compile_model

from .conftest import lib_model

PRIM = "/Rover/DriveController"


def _drive():
    cm = compile_model(lib_model("Workbench/Rover/DriveController.mo"))
    assert cm.ok, cm.diagnostics
    return cm.interface


def test_matching_declaration_has_no_diagnostics():
    diags = check_interface(
        _drive(),
        declared_inputs={"throttle": "1", "steer": None},
        declared_outputs={"torque_left": "N.m", "torque_right": "J", "speed_cmd": "km/h"},
        prim_path=PRIM,
    )
    assert diags == []  # J has the dimension of N.m; km/h that of m/s


def test_missing_output_names_both_sides():
    diags = check_interface(_drive(), declared_outputs={"torque_middle": "N.m"}, prim_path=PRIM)
    assert len(diags) == 1
    d = diags[0]
    assert d.severity == "error" and d.code == "modelica.interface.missing"
    assert d.path == f"{PRIM}.outputs:torque_middle"
    assert "torque_middle" in d.message and "torque_left" in d.message  # lists model outputs


def test_input_declared_as_output_is_an_error_with_a_hint():
    diags = check_interface(_drive(), declared_outputs={"throttle": "1"}, prim_path=PRIM)
    assert [d.code for d in diags] == ["modelica.interface.missing"]
    assert "is a model input" in diags[0].message


def test_incompatible_units_name_both_units():
    diags = check_interface(_drive(), declared_inputs={"throttle": "m/s"},
                            declared_outputs={"torque_left": "N"}, prim_path=PRIM)
    assert sorted(d.code for d in diags) == ["modelica.interface.unit", "modelica.interface.unit"]
    msg = {d.data["port"]: d.message for d in diags}
    assert "'N'" in msg["torque_left"] and "'N.m'" in msg["torque_left"]
    assert "'m/s'" in msg["throttle"] and "'1'" in msg["throttle"]


def test_unknown_unit_is_reported():
    diags = check_interface(_drive(), declared_outputs={"torque_left": "furlongs.blorp"})
    assert len(diags) == 1 and "unknown unit" in diags[0].message


def test_unit_on_one_side_only_is_a_warning(write_model):
    text = "model NoUnit\n  input Real u;\n  output Real y;\nequation\n  y = u;\nend NoUnit;\n"
    cm = compile_model(write_model("NoUnit", text))
    diags = check_interface(cm.interface, {"u": "N"}, {"y": None}, "/P")
    assert [(d.severity, d.code) for d in diags] == [("warning", "modelica.interface.unit_unchecked")]
    assert "'N'" in diags[0].message


def test_modelica_unit_strings_convert_through_pint():
    from luncosim_core.modelica.units import dimensionality
    from luncosim_core.ports.units import conversion

    def factor(a, b):
        return conversion(a, b)[0]

    assert factor("km/h", "m/s") == pytest.approx(1 / 3.6)
    assert factor("N.m", "J") == pytest.approx(1.0)
    assert factor("kg.m2/s", "N.m.s") == pytest.approx(1.0)
    assert factor("m/s2", "m.s-2") == pytest.approx(1.0)
    assert factor("rad/s", "rpm") == pytest.approx(60 / (2 * 3.141592653589793))
    assert dimensionality("W/(m2.K4)")[0] == dimensionality("kg/(s3.K4)")[0]
    assert dimensionality("1") == ("dimensionless", "")
    assert dimensionality("blorp")[1].startswith("unknown unit")
