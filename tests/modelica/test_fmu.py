"""FMU participant: an FMI 2 co-simulation FMU built offline with pythonfmu, run through fmpy."""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path

import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica import FmuParticipant, check_interface, open_participant

SLAVE = '''
from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real


class MotorLag(Fmi2Slave):
    """Torque follows gain * command with a first-order lag (exact discretisation)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.command = 0.0
        self.gain = 2.0
        self.tau = 0.5
        self.torque = 0.0
        self.register_variable(Real("command", causality=Fmi2Causality.input,
                                    description="normalised command"))
        self.register_variable(Real("gain", causality=Fmi2Causality.parameter,
                                    variability=Fmi2Variability.tunable))
        self.register_variable(Real("tau", causality=Fmi2Causality.parameter,
                                    variability=Fmi2Variability.tunable))
        self.register_variable(Real("torque", causality=Fmi2Causality.output,
                                    description="shaft torque"))

    def do_step(self, current_time, step_size):
        import math
        target = self.gain * self.command
        self.torque = target + (self.torque - target) * math.exp(-step_size / self.tau)
        return True
'''

UNITS = {"command": "1", "gain": "N.m", "tau": "s", "torque": "N.m"}


def _add_units(fmu: Path) -> None:
    """Declare units in modelDescription.xml (pythonfmu has no unit argument)."""
    with zipfile.ZipFile(fmu) as z:
        items = {n: z.read(n) for n in z.namelist()}
    xml = items["modelDescription.xml"].decode()
    defs = "".join(f'<Unit name="{u}"/>' for u in sorted(set(UNITS.values())))
    xml = re.sub(r"(<CoSimulation[^>]*/>)", rf"\1<UnitDefinitions>{defs}</UnitDefinitions>", xml, count=1)
    for name, unit in UNITS.items():
        xml = re.sub(rf'(<ScalarVariable[^>]*name="{name}"[^>]*>\s*<Real)', rf'\1 unit="{unit}"', xml)
    items["modelDescription.xml"] = xml.encode()
    with zipfile.ZipFile(fmu, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in items.items():
            z.writestr(n, data)


@pytest.fixture(scope="module")
def motor_fmu(tmp_path_factory) -> Path:
    from pythonfmu import FmuBuilder

    folder = tmp_path_factory.mktemp("fmu")
    script = folder / "motor_lag.py"
    script.write_text(SLAVE)
    fmu = FmuBuilder.build_FMU(script, dest=folder)
    _add_units(fmu)
    return fmu


def test_fmi2_round_trip_inputs_outputs_parameters_with_units(motor_fmu):
    p = open_participant(motor_fmu, period=1 / 60)
    assert isinstance(p, FmuParticipant) and p.fmi_version == "2.0"
    itf = p.interface
    assert [(v.name, v.unit) for v in itf.inputs] == [("command", "1")]
    assert [(v.name, v.unit, v.description) for v in itf.outputs] == [("torque", "N.m", "shaft torque")]
    assert {v.name: (v.unit, v.start) for v in itf.parameters} == {"gain": ("N.m", 2.0), "tau": ("s", 0.5)}
    assert check_interface(itf, {"command": "1"}, {"torque": "N.m"}, "/Rover/Motor") == []
    p.set_inputs({"command": 0.5})
    for _ in range(60):
        p.step()
    assert p.time == pytest.approx(1.0)
    assert p.outputs()["torque"] == pytest.approx(1.0 * (1 - math.exp(-1.0 / 0.5)), abs=1e-12)
    p.close()


def test_fmu_parameter_applies_at_next_step_and_reset(motor_fmu):
    p = FmuParticipant(motor_fmu, period=0.1)
    p.set_inputs({"command": 1.0})
    p.step()
    y1 = p.outputs()["torque"]
    p.set_parameter("gain", 4.0)
    assert p.outputs()["torque"] == y1
    p.step()
    assert p.outputs()["torque"] == pytest.approx(4.0 + (y1 - 4.0) * math.exp(-0.1 / 0.5), abs=1e-12)
    p.reset()  # back to t = 0, initial torque and input start values; the changed gain is kept
    assert p.time == 0.0 and p.outputs()["torque"] == 0.0
    p.step()
    assert p.outputs()["torque"] == 0.0  # command is back at its start value 0
    p.reset()
    p.set_inputs({"command": 1.0})
    p.step()
    assert p.outputs()["torque"] == pytest.approx(4.0 * (1 - math.exp(-0.1 / 0.5)), abs=1e-12)
    p.close()


def test_fmu_runs_are_deterministic(motor_fmu):
    def run() -> bytes:
        p = FmuParticipant(motor_fmu)
        out = b""
        for i in range(100):
            p.set_inputs({"command": math.sin(i / 7)})
            p.step()
            out += p.state_bytes()
        p.close()
        return out

    assert run() == run()


def test_fmu_bad_names_are_diagnostics(motor_fmu, tmp_path):
    p = FmuParticipant(motor_fmu)
    with pytest.raises(DiagnosticError) as exc:
        p.set_inputs({"cmd": 1.0})
    assert exc.value.diagnostics[0].code == "modelica.input.unknown"
    with pytest.raises(DiagnosticError):
        p.set_parameter("torque", 1.0)
    p.close()
    broken = tmp_path / "broken.fmu"
    broken.write_bytes(b"not a zip")
    with pytest.raises(DiagnosticError) as exc:
        FmuParticipant(broken)
    assert exc.value.diagnostics[0].code == "fmu.invalid"
