"""FMU participants with typed variables: Float32, Int32, Boolean, arrays sized by a structural
parameter, fixed parameters; refusals for FMUs that cannot run here. FMUs are built in fixtures
(C compiled against fmpy's FMI 3 headers; pythonfmu for FMI 2)."""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica import FmuParticipant

from .fmu_build import build_c_fmu3, build_pythonfmu, foreign_fmu3

COUNTER2 = '''
from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real


DISCRETE = Fmi2Variability.discrete


class Counter2(Fmi2Slave):
    """count += step_by at every step while enabled; level = offset + count."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.step_by = 1
        self.enable = True
        self.offset = 0.0
        self.count = 0
        self.odd = False
        self.level = 0.0
        self.clock = 0.0
        self.register_variable(Integer("step_by", causality=Fmi2Causality.input, variability=DISCRETE))
        self.register_variable(Boolean("enable", causality=Fmi2Causality.input, variability=DISCRETE))
        self.register_variable(Real("offset", causality=Fmi2Causality.parameter,
                                    variability=Fmi2Variability.fixed))
        self.register_variable(Integer("count", causality=Fmi2Causality.output, variability=DISCRETE))
        self.register_variable(Boolean("odd", causality=Fmi2Causality.output, variability=DISCRETE))
        self.register_variable(Real("level", causality=Fmi2Causality.output))
        self.register_variable(Real("clock", causality=Fmi2Causality.output))

    def exit_initialization_mode(self):
        self.level = self.offset + self.count

    def do_step(self, current_time, step_size):
        if self.enable:
            self.count += self.step_by
        self.odd = self.count % 2 == 1
        self.level = self.offset + self.count
        self.clock = current_time + step_size
        return True
'''


@pytest.fixture(scope="session")
def typed3(tmp_path_factory) -> Path:
    return build_c_fmu3(tmp_path_factory.mktemp("typed3"), "Typed3")


@pytest.fixture(scope="session")
def counter2(tmp_path_factory) -> Path:
    return build_pythonfmu(tmp_path_factory.mktemp("counter2"), "counter2.py", COUNTER2)


def test_fmi3_typed_interface_names_arrays_element_wise(typed3):
    p = FmuParticipant(typed3, period=0.1)
    itf = p.interface
    assert [(v.name, v.type, v.start) for v in itf.inputs] == [
        ("u32", "float", 0.0), ("step_by", "int", 1.0), ("enable", "bool", 1.0),
        ("v[1]", "double", 1.0), ("v[2]", "double", 2.0), ("v[3]", "double", 3.0), ("uin", "double", 0.0)]
    assert [(v.name, v.type) for v in itf.outputs] == [
        ("y32", "float"), ("count", "int"), ("odd", "bool"), ("w[1]", "double"), ("w[2]", "double"),
        ("w[3]", "double"), ("x", "double"), ("clock", "double"),
        ("grid[1,1]", "double"), ("grid[1,2]", "double"), ("grid[2,1]", "double"), ("grid[2,2]", "double")]
    assert {v.name: v.type for v in itf.parameters} == {"gain": "float", "n": "uint64", "scale[1]": "double",
                                                        "scale[2]": "double", "stop_after": "double"}
    assert itf.output("w[2]").unit == "m"
    # outputs at initialization (before any step) are read with their own types
    assert p.outputs()["grid[2,2]"] == 20.0 and p.outputs()["w[3]"] == 6.0
    p.close()


def test_fmi3_float32_int32_boolean_and_arrays_step(typed3):
    p = FmuParticipant(typed3, period=0.1)
    p.set_inputs({"u32": 0.1, "step_by": 3, "enable": 1, "v[2]": 5.0, "uin": 2.0})
    p.step()
    out = p.outputs()
    assert out["y32"] == float(np.float32(2.0) * np.float32(0.1))  # computed in single precision
    assert out["y32"] != 0.2
    assert (out["count"], out["odd"]) == (3.0, 1.0)
    assert [out[f"w[{i}]"] for i in (1, 2, 3)] == [2.0, 10.0, 6.0]  # untouched elements keep their start
    assert out["x"] == pytest.approx(0.2) and out["clock"] == pytest.approx(0.1)
    p.set_inputs({"enable": 0})
    p.step()
    assert p.outputs()["count"] == 3.0  # disabled: the counter holds
    p.set_parameter("scale[2]", 7.0)  # tunable array element: the next step applies it
    p.step()
    out = p.outputs()
    assert (out["grid[2,1]"], out["grid[2,2]"], out["grid[1,2]"]) == (7.0, 14.0, 2.0)
    p.close()


def test_values_must_fit_the_variable_type(typed3):
    p = FmuParticipant(typed3, period=0.1)
    for bad, words in (({"step_by": 2.5}, "not an integer"), ({"enable": 2}, "true/false"),
                       ({"step_by": 2.0**40}, "overflows"), ({"u32": float("nan")}, "nan")):
        with pytest.raises(DiagnosticError) as exc:
            p.set_inputs({"u32": 1.0, **bad})  # all or nothing
        assert words in exc.value.diagnostics[0].message
    p.step()
    assert p.outputs()["y32"] == 0.0  # nothing of the refused batches was applied
    p.close()


def test_fixed_parameter_applies_at_initialization_and_is_refused_during_the_run(typed3):
    p = FmuParticipant(typed3, period=0.1, parameters={"gain": 3.0, "u32": 9.0})  # u32 is no parameter
    p.set_inputs({"u32": 1.5})
    p.step()
    assert p.outputs()["y32"] == 4.5
    p.reset()
    p.set_parameter("gain", 4.0)  # not stepped since the reset: initialization runs again with it
    p.set_inputs({"u32": 1.5})
    p.step()
    assert p.outputs()["y32"] == 6.0
    with pytest.raises(DiagnosticError) as exc:
        p.set_parameter("gain", 5.0)
    assert exc.value.diagnostics[0].code == "modelica.parameter.fixed"
    assert "fixed" in exc.value.diagnostics[0].message
    p.set_parameter("gain", 4.0)  # the value it already has: nothing to refuse
    p.close()


def test_structural_parameter_sizes_the_arrays(typed3):
    p = FmuParticipant(typed3, period=0.1, parameters={"n": 2, "v": [4.0, 5.0]})
    assert [v.name for v in p.interface.inputs if v.name.startswith("v[")] == ["v[1]", "v[2]"]
    p.set_inputs({"v[1]": 1.0})
    p.step()
    assert (p.outputs()["w[1]"], p.outputs()["w[2]"]) == (2.0, 4.0)
    assert "w[3]" not in p.outputs()
    with pytest.raises(DiagnosticError) as exc:
        FmuParticipant(typed3, period=0.1, parameters={"scale": [1.0, 2.0, 3.0]})
    assert exc.value.diagnostics[0].code == "modelica.parameter.shape"
    p.close()


def test_fmi2_integer_boolean_and_fixed_parameter(counter2):
    p = FmuParticipant(counter2, period=0.5, parameters={"offset": 10.0})
    assert {v.name: v.type for v in (*p.interface.inputs, *p.interface.outputs)} == {
        "step_by": "int", "enable": "bool", "count": "int", "odd": "bool", "level": "double", "clock": "double"}
    assert p.outputs()["level"] == 10.0
    p.set_inputs({"step_by": 3, "enable": 1})
    for _ in range(3):
        p.step()
    assert p.outputs() == {"count": 9.0, "odd": 1.0, "level": 19.0, "clock": 1.5}
    with pytest.raises(DiagnosticError) as exc:
        p.set_inputs({"step_by": 0.5})
    assert exc.value.diagnostics[0].code == "modelica.input.type"
    with pytest.raises(DiagnosticError):
        p.set_parameter("offset", 1.0)
    p.close()


def test_an_fmu_that_ends_the_simulation_stops_stepping(typed3):
    p = FmuParticipant(typed3, period=0.1, parameters={"stop_after": 0.25})
    p.set_inputs({"uin": 1.0})
    for _ in range(3):
        p.step()
    assert p.terminated == "at t=0.3 s" and p.outputs()["x"] == pytest.approx(0.3)
    with pytest.raises(DiagnosticError) as exc:
        p.step()
    assert exc.value.diagnostics[0].code == "fmu.terminated"
    p.reset()  # a reset starts it again
    assert p.terminated == "" and p.outputs()["x"] == 0.0
    p.close()


def test_start_at_a_later_communication_point(typed3):
    p = FmuParticipant(typed3, period=0.1, start_tick=30)
    assert p.time == pytest.approx(3.0) and p.outputs()["clock"] == pytest.approx(3.0)
    p.step()
    assert p.ticks == 31 and p.outputs()["clock"] == pytest.approx(3.1)
    p.reset(5)
    assert p.outputs()["clock"] == pytest.approx(0.5)
    p.close()


def test_missing_platform_names_platforms_and_extracts_nothing(tmp_path, monkeypatch):
    fmu = foreign_fmu3(tmp_path, "Typed3", ("x86_64-windows", "aarch64-darwin"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with pytest.raises(DiagnosticError) as exc:
        FmuParticipant(fmu)
    d = exc.value.diagnostics[0]
    assert d.code == "fmu.platform" and d.layer == str(fmu)
    assert "aarch64-darwin, x86_64-windows" in d.message
    assert "x86_64-linux" in d.message and "binaries/x86_64-linux/Typed3.so" in d.message
    assert list(scratch.iterdir()) == []


def test_a_binary_that_does_not_load_leaves_no_extraction_folder(tmp_path, monkeypatch):
    fmu = tmp_path / "Broken.fmu"
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("modelDescription.xml", (Path(__file__).parent / "fmus" / "Typed3.xml").read_text())
        z.writestr("binaries/x86_64-linux/Typed3.so", b"not an ELF file")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    cwd = Path.cwd()
    with pytest.raises(DiagnosticError) as exc:
        FmuParticipant(fmu)
    assert exc.value.diagnostics[0].code == "fmu.instantiate"
    assert list(scratch.iterdir()) == [] and Path.cwd() == cwd


@pytest.mark.parametrize(("element", "offered"), [
    ('<ModelExchange modelIdentifier="Typed3"/>', "model exchange only"),
    ('<ScheduledExecution modelIdentifier="Typed3"/>', "scheduled execution only"),
])
def test_interfaces_other_than_co_simulation_are_refused_by_name(tmp_path, element, offered):
    xml = (Path(__file__).parent / "fmus" / "Typed3.xml").read_text()
    xml = xml.replace('<CoSimulation modelIdentifier="Typed3" canHandleVariableCommunicationStepSize="true"/>', element)
    fmu = tmp_path / "Other.fmu"
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("modelDescription.xml", xml)
    with pytest.raises(DiagnosticError) as exc:
        FmuParticipant(fmu)
    d = exc.value.diagnostics[0]
    assert d.code == "fmu.unsupported" and offered in d.message and "no co-simulation interface" in d.message


SEEDED2 = '''
from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class Seeded2(Fmi2Slave):
    """x starts at the input u (initialization reads it), then follows dx/dt = u - x."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.u = 0.0
        self.x = 0.0
        self.register_variable(Real("u", causality=Fmi2Causality.input))
        self.register_variable(Real("x", causality=Fmi2Causality.output))

    def exit_initialization_mode(self):
        self.x = 2.0 * self.u

    def do_step(self, current_time, step_size):
        self.x += step_size * (self.u - self.x)
        return True
'''


def test_first_inputs_reach_the_fmu_in_initialization_mode_as_in_fmpy(tmp_path):
    """fmpy applies its input signal between entering and leaving initialization mode; an FMU
    whose initial state depends on an input starts from the same place with us."""
    from fmpy import simulate_fmu

    fmu = build_pythonfmu(tmp_path, "seeded2.py", SEEDED2)
    period, n = 0.1, 8
    signal = np.array([(0.0, 3.0), (10.0, 3.0)], dtype=[("time", np.float64), ("u", np.float64)])
    ref = simulate_fmu(str(fmu), stop_time=n * period, output_interval=period, input=signal,
                       output=["x"])
    p = FmuParticipant(fmu, period=period)
    ours = []
    for _ in range(n):
        p.set_inputs({"u": 3.0})
        p.step()
        ours.append(p.outputs()["x"])
    assert ours == pytest.approx(list(ref["x"][1:n + 1]), abs=1e-12)
    assert ours[0] == pytest.approx(6.0 + period * (3.0 - 6.0))  # started at 2 * u, not at 0
    p.reset()  # a reset goes back to the start values: the next first input seeds it again
    p.set_inputs({"u": 1.0})
    p.step()
    assert p.outputs()["x"] == pytest.approx(2.0 + period * (1.0 - 2.0))
    p.close()
