"""An FMU (FMI 2 or 3, co-simulation) as a fixed-step participant, run through fmpy."""

from __future__ import annotations

import math
import shutil
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.modelica.interface import ModelInterface, Variable

_REAL_TYPES = ("Real", "Float64", "Float32")


def _err(code: str, message: str, path: str = "") -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", code, message, path=path, source="modelica"))


def _num(v: object) -> float | None:
    try:
        return None if v in (None, "") else float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


class FmuParticipant:
    """Co-simulates one FMU: inputs, outputs and parameters by name, ``doStep`` per period."""

    def __init__(self, fmu_path: Path | str, period: float = 1 / 60, *, name: str = ""):
        from fmpy import extract, read_model_description

        self.path = Path(fmu_path)
        if not period > 0:
            raise _err("modelica.period", f"communication period must be > 0 (got {period})")
        self.period = float(period)
        try:
            md = read_model_description(str(self.path))
        except Exception as exc:  # noqa: BLE001 - fmpy raises many types on bad archives
            raise DiagnosticError(Diagnostic("error", "fmu.invalid", f"cannot read FMU: {exc}",
                                             layer=str(self.path), source="modelica")) from None
        if md.coSimulation is None:
            raise DiagnosticError(Diagnostic(
                "error", "fmu.unsupported", "FMU has no co-simulation interface (model exchange "
                "only FMUs are not supported)", layer=str(self.path), source="modelica"))
        self.md = md
        self.fmi_version = md.fmiVersion
        self.name = name or md.modelName
        self._vars = {v.name: v for v in md.modelVariables}
        unit_of = {}
        for v in md.modelVariables:
            unit = getattr(v, "unit", None) or (v.declaredType.unit if getattr(v, "declaredType", None) else None)
            unit_of[v.name] = unit
        self._unit = unit_of

        def var(v: object) -> Variable:
            return Variable(v.name, unit_of[v.name], _num(getattr(v, "min", None)),  # type: ignore[attr-defined]
                            _num(getattr(v, "max", None)), v.description or None,  # type: ignore[attr-defined]
                            _num(v.start))  # type: ignore[attr-defined]

        reals = [v for v in md.modelVariables if v.type in _REAL_TYPES]
        self.interface = ModelInterface(
            inputs=tuple(var(v) for v in reals if v.causality == "input"),
            outputs=tuple(var(v) for v in reals if v.causality == "output"),
            parameters=tuple(var(v) for v in reals if v.causality == "parameter"),
            states=(),
        )
        self._unzip = extract(str(self.path))
        self._fmu = self._instantiate()
        self._pending: dict[str, float] = {}
        self._params: dict[str, float] = {}
        self._inputs: dict[str, float] = {}
        self.reset()

    def _instantiate(self):  # noqa: ANN202 - fmpy slave type depends on the FMI version
        md = self.md
        ident = md.coSimulation.modelIdentifier
        if self.fmi_version.startswith("3"):
            from fmpy.fmi3 import FMU3Slave

            fmu = FMU3Slave(guid=md.guid, unzipDirectory=self._unzip, modelIdentifier=ident,
                            instanceName=self.name)
        else:
            from fmpy.fmi2 import FMU2Slave

            fmu = FMU2Slave(guid=md.guid, unzipDirectory=self._unzip, modelIdentifier=ident,
                            instanceName=self.name)
        fmu.instantiate()
        return fmu

    def _set(self, names_values: Mapping[str, float]) -> None:
        if not names_values:
            return
        refs = [self._vars[n].valueReference for n in names_values]
        vals = [float(v) for v in names_values.values()]
        if self.fmi_version.startswith("3"):
            self._fmu.setFloat64(refs, vals)
        else:
            self._fmu.setReal(refs, vals)

    def _get(self, names: list[str]) -> list[float]:
        if not names:
            return []
        refs = [self._vars[n].valueReference for n in names]
        if self.fmi_version.startswith("3"):
            return list(self._fmu.getFloat64(refs))
        return list(self._fmu.getReal(refs))

    # -- lifecycle -----------------------------------------------------------------------
    def reset(self) -> None:
        """Re-initialise the FMU at t = 0 keeping parameter values set so far; inputs go back
        to the FMU's start values (as :meth:`ModelicaParticipant.reset` does)."""
        self._params.update(self._pending)
        self._pending.clear()
        self._inputs.clear()
        fmu = self._fmu
        if getattr(self, "_initialized", False):
            fmu.reset()
        if self.fmi_version.startswith("3"):
            self._set(self._params)
            fmu.enterInitializationMode(startTime=0.0)
            self._set(self._inputs)
            fmu.exitInitializationMode()
        else:
            fmu.setupExperiment(startTime=0.0)
            self._set(self._params)
            fmu.enterInitializationMode()
            self._set(self._inputs)
            fmu.exitInitializationMode()
        self._initialized = True
        self.ticks = 0
        self.time = 0.0
        self._out = self._read_outputs()

    def close(self) -> None:
        """Free the FMU instance and its unpacked files."""
        if getattr(self, "_fmu", None) is not None:
            try:
                self._fmu.terminate()
                self._fmu.freeInstance()
            finally:
                self._fmu = None
                shutil.rmtree(self._unzip, ignore_errors=True)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter teardown
            pass

    # -- I/O -----------------------------------------------------------------------------
    def set_inputs(self, values: Mapping[str, float]) -> None:
        names = {v.name for v in self.interface.inputs}
        for n, v in values.items():
            if n not in names:
                raise _err("modelica.input.unknown", f"FMU {self.name} has no input '{n}' "
                           f"(inputs: {', '.join(sorted(names)) or 'none'})", n)
            if not math.isfinite(float(v)):
                raise _err("modelica.input.value", f"input '{n}' of {self.name} got {v!r}", n)
            self._inputs[n] = float(v)

    def set_parameter(self, name: str, value: float) -> None:
        """Takes effect at the next communication point (tunable parameters only)."""
        var = self._vars.get(name)
        if var is None or var.causality != "parameter":
            raise _err("modelica.parameter.unknown", f"FMU {self.name} has no parameter '{name}'", name)
        if var.variability not in ("tunable",):
            raise _err("modelica.parameter.structural", f"parameter '{name}' of FMU {self.name} is "
                       f"{var.variability}, not tunable: it applies at reset", name)
        self._pending[name] = float(value)

    def _read_outputs(self) -> dict[str, float]:
        names = [v.name for v in self.interface.outputs]
        return dict(zip(names, self._get(names), strict=True))

    def outputs(self) -> dict[str, float]:
        return dict(self._out)

    def step(self) -> None:
        if self._pending:
            self._set(self._pending)
            self._params.update(self._pending)
            self._pending.clear()
        self._set(self._inputs)
        t0 = self.ticks * self.period
        status = self._fmu.doStep(currentCommunicationPoint=t0, communicationStepSize=self.period)
        if self.fmi_version.startswith("3"):
            early = status[0] if isinstance(status, tuple) else False
            if early:
                raise _err("fmu.step", f"FMU {self.name} requested event handling at t={t0}")
        self.ticks += 1
        self.time = self.ticks * self.period
        self._out = self._read_outputs()

    def state_bytes(self) -> bytes:
        outs = [self._out[k] for k in sorted(self._out)]
        ins = [self._inputs[k] for k in sorted(self._inputs)]
        return np.asarray([self.time, *outs, *ins], dtype="<f8").tobytes()
