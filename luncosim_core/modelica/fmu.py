"""An FMU (FMI 2 or 3, co-simulation) as a fixed-step participant, run through fmpy.

It runs the way ``fmpy.simulate_fmu`` runs a co-simulation FMU: parameters are set in the
instantiated state (FMI 2: after ``setupExperiment``), then initialization at the start time,
then ``doStep(t_k, t_{k+1} - t_k)`` with ``t_k = k * period``; no event mode, no early return.
Variables are typed (:mod:`luncosim_core.modelica.fmu_description`): every numeric input, output
and parameter is reachable by its scalar name (array elements as ``name[i]``).

Parameters: a value given before the first step applies at initialization, whatever its
variability (a ``fixed`` parameter authored in the scene is set between instantiation and
initialization). During the run only ``tunable`` parameters change (at the next step); a fixed
or structural parameter is refused then.
"""

from __future__ import annotations

import math
import os
import shutil
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica.fmu_access import FmiCallError, Reader, Stepper, Writer
from luncosim_core.modelica.fmu_description import (
    PARAMETER_CAUSALITIES,
    FmuVariable,
    check_platform,
    fmu_error,
    read_description,
)
from luncosim_core.ports.types import REAL_TYPES, value_problem


class FmuParticipant:
    """Co-simulates one FMU: typed inputs, outputs and parameters by name, ``doStep`` per period."""

    def __init__(self, fmu_path: Path | str, period: float = 1 / 60, *, name: str = "",
                 parameters: Mapping[str, float | Sequence[float]] | None = None, start_tick: int = 0):
        """``parameters``: values applied at initialization, by variable name (a sequence for a
        whole array, flattened row-major) or element name; names that are not parameters are
        ignored (the caller checks its ports against :attr:`interface`)."""
        self.path = Path(fmu_path)
        if not period > 0:
            raise fmu_error("modelica.period", f"communication period must be > 0 (got {period})")
        self.period = float(period)
        desc = read_description(self.path, structural=parameters)
        check_platform(self.path, desc)
        self.desc = desc
        self.md = desc.md
        self.fmi_version = desc.fmi_version
        self._fmi3 = desc.fmi3
        self.name = name or self.md.modelName
        self._vars = desc.by_name()
        self._element: dict[str, tuple[FmuVariable, int]] = {
            e: (v, i) for v in desc.variables if v.port_type for i, e in enumerate(v.elements)}
        self.interface = desc.interface()
        self._in_slots = {e: hit for e, hit in self._element.items() if hit[0].causality == "input"}
        self._params: dict[str, list[float]] = {}  # by variable: values applied at initialization
        self._pending: dict[str, list[float]] = {}  # tunable changes for the next step
        for key, value in (parameters or {}).items():
            self._stage_start(key, value)
        self.log: deque[str] = deque(maxlen=20)  # the FMU's newest log messages
        self.terminated = ""
        self._unzip: str | None = None
        self._fmu = None
        self._initialized = False
        try:
            self._open()
            self._stepper = Stepper(self._fmu, self._fmi3)
            self._writer = Writer(self._fmu, self._fmi3)
            self._reader = Reader(self._fmu, self._fmi3, [v for v in desc.variables
                                                          if v.causality == "output" and v.port_type])
            self.reset(start_tick)
        except DiagnosticError:
            self._discard()
            raise
        except Exception as exc:  # noqa: BLE001 - fmpy and the FMU raise plain Exceptions
            self._discard()
            raise fmu_error("fmu.instantiate", f"FMU {self.name} cannot start: {exc}{self._log_tail()}",
                            str(self.path)) from None

    # -- opening ---------------------------------------------------------------------------
    def _open(self) -> None:
        from fmpy import extract

        cwd = os.getcwd()  # fmpy changes directory to load the library and may not change back
        try:
            self._unzip = extract(str(self.path))
            self._fmu = self._instantiate()
        finally:
            os.chdir(cwd)

    def _instantiate(self):  # noqa: ANN202 - fmpy slave type depends on the FMI version
        ident = self.desc.model_identifier
        log = self.log

        if self._fmi3:
            from fmpy.fmi3 import FMU3Slave

            def log3(env, status, category, message):  # noqa: ANN001 - ctypes callback
                log.append(_text(message))

            fmu = FMU3Slave(guid=self.md.guid, unzipDirectory=self._unzip, modelIdentifier=ident,
                            instanceName=self.name)
            return _instantiated(fmu, logMessage=log3)
        from ctypes import byref

        from fmpy import calloc, free
        from fmpy.fmi2 import (
            FMU2Slave,
            fmi2CallbackAllocateMemoryTYPE,
            fmi2CallbackFreeMemoryTYPE,
            fmi2CallbackFunctions,
            fmi2CallbackLoggerTYPE,
        )

        def log2(env, instance, status, category, message):  # noqa: ANN001 - ctypes callback
            log.append(_text(message))

        callbacks = fmi2CallbackFunctions()
        callbacks.logger = fmi2CallbackLoggerTYPE(log2)
        callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        try:
            from fmpy.logging import addLoggerProxy

            addLoggerProxy(byref(callbacks))  # formats the variadic message in C
        except Exception:  # noqa: BLE001 - no proxy for this platform: messages stay unformatted
            pass
        fmu = FMU2Slave(guid=self.md.guid, unzipDirectory=self._unzip, modelIdentifier=ident,
                        instanceName=self.name)
        return _instantiated(fmu, callbacks=callbacks)

    def _log_tail(self) -> str:
        return f" (FMU log: {' | '.join(list(self.log)[-3:])})" if self.log else ""

    # -- parameters ------------------------------------------------------------------------
    def _param_var(self, key: str) -> tuple[FmuVariable, int | None] | None:
        """The parameter ``key`` names (a variable, or one element of an array) and the index."""
        var = self._vars.get(key)
        if var is not None and var.causality in PARAMETER_CAUSALITIES and var.port_type:
            return var, None
        hit = self._element.get(key)
        if hit is not None and hit[0].causality in PARAMETER_CAUSALITIES:
            return hit
        return None

    def _staged(self, var: FmuVariable, index: int | None, value: float | Sequence[float]) -> list[float]:
        base = list(self._pending.get(var.name) or self._params.get(var.name) or var.start or [0.0] * var.size)
        if index is None:
            values = [float(x) for x in (value if isinstance(value, (list, tuple)) else [value])]
            if len(values) != var.size:
                raise fmu_error("modelica.parameter.shape", f"parameter '{var.name}' of FMU {self.name} has "
                                f"{var.size} element(s); got {len(values)} value(s)", str(self.path), var.name)
            base = values
        else:
            base[index] = float(value)  # type: ignore[arg-type]
        for x in base:
            problem = value_problem(var.port_type, x)
            if problem:
                raise fmu_error("modelica.parameter.value", f"parameter '{var.name}' of FMU {self.name} is "
                                f"{var.fmi_type}: {problem}", str(self.path), var.name)
        return base

    def _stage_start(self, key: str, value: float | Sequence[float]) -> None:
        hit = self._param_var(key)
        if hit is not None:
            self._params[hit[0].name] = self._staged(hit[0], hit[1], value)

    def set_parameter(self, name: str, value: float) -> None:
        """Before the first step: applies at (re-)initialization. After: tunable ones only, at
        the next step; a fixed or structural parameter is refused."""
        hit = self._param_var(name)
        if hit is None:
            known = ", ".join(v.name for v in self.interface.parameters) or "none"
            raise fmu_error("modelica.parameter.unknown", f"FMU {self.name} has no parameter '{name}' "
                            f"(parameters: {known})", path=name)
        var, index = hit
        values = self._staged(var, index, value)
        if values == (self._pending.get(var.name) or self._params.get(var.name) or list(var.start)):
            return
        if self.ticks == self.start_tick:  # not stepped yet: initialize again with it
            self._params[var.name] = values
            self._reinit = True
            return
        if var.causality == "structuralParameter" or var.variability != "tunable":
            kind = "structural" if var.causality == "structuralParameter" else var.variability or "fixed"
            raise fmu_error("modelica.parameter.fixed", f"parameter '{name}' of FMU {self.name} is {kind}: "
                            "it applies at initialization, so it can be set in the scene or before the "
                            "first step, not during the run", path=name)
        self._pending[var.name] = values

    # -- lifecycle -------------------------------------------------------------------------
    def reset(self, start_tick: int = 0, inputs: Mapping[str, list[float]] | None = None) -> None:
        """Initialize at ``t = start_tick * period`` with the parameter values set so far; inputs
        go back to the FMU's start values (as :meth:`ModelicaParticipant.reset` does), or take
        ``inputs`` (by variable) in initialization mode, as ``fmpy.simulate_fmu`` applies its
        input signal at the start time."""
        self._params.update(self._pending)
        self._pending.clear()
        fmu = self._fmu
        t0 = start_tick * self.period
        params = [(self._vars[n], v) for n, v in sorted(self._params.items())]
        held = [(self._vars[n], v) for n, v in sorted((inputs or {}).items())]
        try:
            if self._initialized:
                fmu.reset()
            self._initialized = False
            if self._fmi3:
                self._writer.write(params)
                fmu.enterInitializationMode(startTime=t0)
            else:
                fmu.setupExperiment(startTime=t0)
                self._writer.write(params)
                fmu.enterInitializationMode()
            if held:
                self._writer.write(held)
            fmu.exitInitializationMode()
            self._initialized = True
            self._out = self._reader.read()
        except Exception as exc:  # noqa: BLE001 - fmpy raises FMICallException
            raise fmu_error("fmu.initialization", f"FMU {self.name} failed to initialize at t={t0:.6g} s: "
                            f"{exc}{self._log_tail()}", str(self.path)) from None
        self.start_tick = self.ticks = int(start_tick)
        self.time = t0
        self.terminated = ""
        self._reinit = False
        self._inputs: dict[str, list[float]] = {k: list(v) for k, v in (inputs or {}).items()}
        self._dirty: set[str] = set()  # inputs changed since the FMU last received them
        self._inputs_at_init = bool(held)  # the FMU initialized with its first inputs

    def _discard(self) -> None:
        fmu, self._fmu = self._fmu, None
        if fmu is not None and getattr(fmu, "component", None):
            try:
                fmu.freeInstance()
            except Exception:  # noqa: BLE001 - best effort on a failed start
                pass
        if self._unzip:
            shutil.rmtree(self._unzip, ignore_errors=True)
            self._unzip = None

    def close(self) -> None:
        """Free the FMU instance and its unpacked files."""
        if getattr(self, "_fmu", None) is not None:
            try:
                if self._initialized:
                    self._fmu.terminate()
            except Exception:  # noqa: BLE001 - an FMU in an error state may refuse to terminate
                pass
            finally:
                self._discard()
        elif getattr(self, "_unzip", None):
            self._discard()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter teardown
            pass

    # -- I/O -------------------------------------------------------------------------------
    def set_inputs(self, values: Mapping[str, float]) -> None:
        """Hold these input values from the next step on; all or nothing. Each value must fit the
        input's type: an integral value for an integer input, 0 or 1 for a Boolean."""
        staged: list[tuple[FmuVariable, int, float]] = []
        for n, v in values.items():
            slot = self._in_slots.get(n)
            if slot is None:
                raise fmu_error("modelica.input.unknown", f"FMU {self.name} has no input '{n}' "
                                f"(inputs: {', '.join(sorted(self._in_slots)) or 'none'})", path=n)
            var, index = slot
            x = float(v)
            if not math.isfinite(x):
                raise fmu_error("modelica.input.value", f"input '{n}' of {self.name} got {v!r}", path=n)
            if var.port_type not in REAL_TYPES:
                problem = value_problem(var.port_type, x)
                if not problem and var.minimum is not None and x < var.minimum:  # C integers wrap around
                    problem = f"{x:g} is below its minimum {var.minimum:g}"
                elif not problem and var.maximum is not None and x > var.maximum:
                    problem = f"{x:g} is above its maximum {var.maximum:g}"
                if problem:
                    raise fmu_error("modelica.input.type", f"input '{n}' of FMU {self.name} is "
                                    f"{var.fmi_type}: {problem}", path=n)
            staged.append((var, index, x))
        for var, index, x in staged:
            held = self._inputs.get(var.name)
            if held is None:  # the FMU holds its start values since initialization
                held = self._inputs[var.name] = list(var.start) if len(var.start) == var.size else [0.0] * var.size
                if len(var.start) != var.size:
                    self._dirty.add(var.name)
            if held[index] != x:
                held[index] = x
                self._dirty.add(var.name)

    def outputs(self) -> dict[str, float]:
        return dict(zip(self._reader.names, self._out.tolist(), strict=True))

    def step(self) -> None:
        """Advance one communication period: tunable parameters, inputs, ``doStep``, outputs."""
        if self.terminated:
            raise fmu_error("fmu.terminated", f"FMU {self.name} ended the simulation ({self.terminated}); "
                            "it cannot step further", str(self.path))
        if self._reinit or (self._dirty and self.ticks == self.start_tick and not self._inputs_at_init):
            # a fixed parameter changed, or the first inputs arrived, before the first step:
            # initialize again with them (an initial state may depend on an input, as in fmpy)
            self.reset(self.start_tick, inputs=self._inputs)
        t0 = self.ticks * self.period
        t1 = (self.ticks + 1) * self.period
        try:
            changed = [(self._vars[n], v) for n, v in sorted(self._pending.items())]
            if self._dirty:
                changed += [(self._vars[n], self._inputs[n]) for n in sorted(self._dirty)]
            if changed:
                self._writer.write(changed)
                self._params.update(self._pending)
                self._pending.clear()
                self._dirty.clear()
            ended = self._stepper.step(t0, t1 - t0)
        except FmiCallError as exc:
            if self._fmi2_terminated(exc):
                self.terminated = f"at t={t0:.6g} s"
                return
            raise fmu_error("fmu.step", f"FMU {self.name} failed to step from t={t0:.6g} s: {exc}"
                            f"{self._log_tail()}", str(self.path)) from None
        if ended:
            self.terminated = f"at t={t1:.6g} s"
        self.ticks += 1
        self.time = t1
        self._out = self._reader.read()

    def _fmi2_terminated(self, exc: FmiCallError) -> bool:
        """An FMI 2 ``doStep`` that returns discard because the FMU wants to stop."""
        if self._fmi3 or exc.status != 2:
            return False
        try:
            from fmpy.fmi2 import fmi2Terminated

            return bool(self._fmu.getBooleanStatus(fmi2Terminated))
        except Exception:  # noqa: BLE001 - the status query is optional for FMUs
            return False

    def state_bytes(self) -> bytes:
        ins = [x for k in sorted(self._inputs) for x in self._inputs[k]]
        return np.asarray([self.time, *self._out.tolist(), *ins], dtype="<f8").tobytes()


def _instantiated(fmu, **kwargs):  # noqa: ANN001, ANN202 - an fmpy FMU2Slave / FMU3Slave
    """Instantiate; on failure unload the library fmpy loaded before re-raising."""
    try:
        fmu.instantiate(**kwargs)
    except Exception:
        fmu.freeLibrary()
        raise
    return fmu


def _text(message: object) -> str:
    if isinstance(message, bytes):
        return message.decode("utf-8", "replace")
    return str(message)
