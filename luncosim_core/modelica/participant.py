"""A compiled Modelica model as a fixed-step co-simulation participant.

Each :meth:`ModelicaParticipant.step` advances one communication period (default 1/60 s) with
internal substeps, then publishes outputs. Inputs set between steps are held constant over the
period (zero-order hold); parameter changes apply at the next communication point; ``reset``
restores the initial state. The integrator is chosen per model: RK4 with enough substeps to be
stable at the initial operating point, or backward Euler on the DAE when that would take more
than ``max_substeps`` (stiff), or whatever ``method`` forces.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

import numpy as np

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.modelica.compiler import CompiledModel
from luncosim_core.modelica.interface import ModelInterface
from luncosim_core.modelica.numerics import CASADI_LOCK

Method = Literal["auto", "rk4", "implicit"]
_NEWTON_TOL = 1e-6  # max |residual| accepted after a Newton solve
_RK4_STABLE = 1.0  # |lambda| * h kept for RK4: stable (limit ~2.785) and accurate per substep
_RK4_LIMIT = 2.5  # ||J|| * h beyond which a step just taken may be unstable: re-choose, redo


def _err(code: str, message: str, path: str = "") -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", code, message, path=path, source="modelica"))


class ModelicaParticipant:
    """Steps one compiled model; single-threaded (owned by the simulation thread)."""

    def __init__(self, compiled: CompiledModel, period: float = 1 / 60, *,
                 method: Method = "auto", substeps: int = 4, max_substeps: int = 64,
                 name: str = ""):
        if not compiled.ok or compiled.numerics is None:
            raise DiagnosticError(list(compiled.diagnostics) or [Diagnostic(
                "error", "modelica.compile", "model did not compile", source="modelica")])
        if not period > 0:
            raise _err("modelica.period", f"communication period must be > 0 (got {period})")
        self.compiled = compiled
        self.name = name or compiled.model_name
        self.period = float(period)
        self.method_requested: Method = method
        self.min_substeps = max(1, int(substeps))
        self.max_substeps = max(self.min_substeps, int(max_substeps))
        num = compiled.numerics
        sysm = num.system
        self._num = num
        self._state_index = {n: i for i, n in enumerate(sysm.state_names)}
        self._alg_index = {n: i for i, n in enumerate(sysm.algebraic_names)}
        self._input_index = {n: i for i, n in enumerate(sysm.input_names)}
        self._param_index = {n: i for i, n in enumerate(sysm.param_names)}
        self._outputs = [v.name for v in compiled.interface.outputs]
        self._overrides: dict[int, float] = {}
        self._pending: dict[int, float] = {}
        self.method, self.substeps = "rk4", self.min_substeps
        self.reset()

    # -- lifecycle -----------------------------------------------------------------------
    def _allocate(self) -> None:
        """Fixed arrays the step function reads and writes in place (zero-copy buffers)."""
        num = self._num
        nx, nz = num.n_x, num.n_z
        self.x, self.xdot, self.z = np.zeros(nx), np.zeros(nx), np.zeros(nz)
        self.u, self.p = np.zeros(num.n_u), np.zeros(num.n_p)
        self._t, self._h = np.zeros(1), np.array([self.period])
        self._wg = np.zeros(nx + nz)
        self._x1, self._xdot1, self._z1 = np.zeros(nx), np.zeros(nx), np.zeros(nz)
        self._rinf, self._stiff, self._x_stiff = np.zeros(1), np.zeros(1), np.zeros(nx)

    def reset(self, start_tick: int = 0) -> None:
        """Initial state at t = ``start_tick * period`` (0 by default) with the current parameter
        values; inputs back to start."""
        with CASADI_LOCK:  # may build CasADi functions (first use, initial equations)
            self._reset(int(start_tick))

    def _reset(self, start_tick: int = 0) -> None:
        num = self._num
        if not hasattr(self, "_t"):
            self._allocate()
        self._overrides.update(self._pending)
        self._pending.clear()
        self.p[:] = num.default_parameters(self._overrides)
        xs, zs, us = (np.asarray(v, dtype=float).ravel() for v in num.start_function()(self.p))
        self._z_start = zs
        self.u[:] = us
        self.ticks = start_tick
        self.time = start_tick * self.period
        free = num.free_states_for_init()
        if num.system.initial_residual.numel():
            guess = np.concatenate([xs[list(free)], np.zeros(num.n_x), zs])
            x0, _, z0 = num.init_function(free)(xs, self.u, self.p, self.time, guess)
            self.x[:] = np.asarray(x0, dtype=float).ravel()
            self.z[:] = np.asarray(z0, dtype=float).ravel()
        else:
            self.x[:] = xs
            self.z[:] = zs
        self.xdot[:] = 0.0
        self._refresh_algebraics()
        if num.system.initial_residual.numel():
            r = np.asarray(num.initial_residual_function()(self.x, self.u, self.p, self.time, self.xdot,
                                                           self.z), dtype=float).ravel()
            if not float(np.max(np.abs(r))) <= _NEWTON_TOL:
                raise _err("modelica.initialization",
                           f"model {self.name}: the initial equations could not be solved "
                           f"(residual {float(np.max(np.abs(r))):.3g})")
        self._checked_bound, self._raised_at = 0.0, None
        self._choose_method()

    def _choose_method(self, x: np.ndarray | None = None) -> None:
        """Pick RK4 substeps (or implicit Euler) from the stiffness at ``x`` (default: now)."""
        with CASADI_LOCK:
            self._choose_method_locked(x)

    def _choose_method_locked(self, x: np.ndarray | None) -> None:
        num = self._num
        x = self.x if x is None else x
        if self.method_requested == "implicit":
            self.method, self.substeps = "implicit", self.min_substeps
        elif self.method_requested == "rk4" or num.n_x == 0:
            self.method, self.substeps = "rk4", self.min_substeps
        else:
            try:
                A = np.asarray(num.state_jacobian()(x, self.u, self.p, self.time,
                                                    self._guess()), dtype=float)
            except RuntimeError:  # Newton inside the Jacobian failed: no stiffness estimate
                A = np.zeros((0, 0))
            finite = A.size and np.all(np.isfinite(A))
            rho = float(np.max(np.abs(np.linalg.eigvals(A)))) if finite else 0.0
            need = math.ceil(rho * self.period / _RK4_STABLE) if rho > 0 else 1
            if need <= self.max_substeps:
                self.method, self.substeps = "rk4", max(self.min_substeps, need)
            else:
                self.method, self.substeps = "implicit", self.min_substeps
        self._bind(self.method, self.substeps)

    def _bind(self, method: str, substeps: int) -> None:
        """Point the zero-copy evaluation buffer at the step function for this method."""
        self.method, self.substeps = method, substeps
        with CASADI_LOCK:
            fn = self._num.step_function(method, substeps)
            buf, self._eval = fn.buffer()
        for i, arr in enumerate((self.x, self.u, self.p, self._t, self._h, self._wg)):
            buf.set_arg(i, memoryview(arr))
        for i, arr in enumerate((self._x1, self._xdot1, self._z1, self._rinf, self._stiff,
                                 self._x_stiff)):
            buf.set_res(i, memoryview(arr))
        self._buffer = buf  # keeps the bound memory alive

    def _guess(self) -> np.ndarray:
        return np.concatenate([self.xdot, self.z])

    def _refresh_algebraics(self) -> None:
        num = self._num
        if num.n_x + num.n_z == 0:
            return
        xdot, z = num.values_function()(self.x, self.u, self.p, self.time, self._guess())
        self.xdot[:] = np.asarray(xdot, dtype=float).ravel()
        self.z[:] = np.asarray(z, dtype=float).ravel()
        if not num.explicit:
            r = np.asarray(num.residual_function()(self.x, self.u, self.p, self.time,
                                                     self.xdot, self.z), dtype=float).ravel()
            self._check_residual(float(np.max(np.abs(r))) if r.size else 0.0, self.time)

    def _check_residual(self, rinf: float, t: float, stepping: bool = False) -> None:
        if rinf <= _NEWTON_TOL:
            return
        if stepping and self.method == "implicit" and self._num.n_x:
            raise _err("modelica.step.unsolved",
                       f"model {self.name}: the implicit step to t={t:.6g} s did not converge "
                       f"with {self.substeps} substeps (residual {rinf:.3g}); a discontinuous "
                       "right-hand side (an if-gate without a continuous transition) is the "
                       "usual cause")
        raise _err("modelica.algebraic.unsolved",
                   f"model {self.name}: Newton did not solve the nonlinear equations for "
                   f"{', '.join(self._num.nonlinear_unknowns())} at t={t:.6g} s "
                   f"(residual {rinf:.3g})")

    @property
    def interface(self) -> ModelInterface:
        """The compiled model's interface (same shape as :attr:`FmuParticipant.interface`)."""
        return self.compiled.interface

    def close(self) -> None:
        """Nothing to release (CasADi functions are shared); present for symmetry with FMUs."""

    # -- I/O -----------------------------------------------------------------------------
    def set_inputs(self, values: Mapping[str, float]) -> None:
        """Hold these input values from now until changed (applies from the next step)."""
        staged: list[tuple[int, float]] = []  # all or nothing: validate every value first
        for name, value in values.items():
            i = self._input_index.get(name)
            if i is None:
                known = ", ".join(self._input_index) or "none"
                raise _err("modelica.input.unknown",
                           f"model {self.name} has no input '{name}' (inputs: {known})", name)
            v = float(value)
            if not math.isfinite(v):
                raise _err("modelica.input.value", f"input '{name}' of {self.name} got {value!r}", name)
            staged.append((i, v))
        for i, v in staged:
            self.u[i] = v

    def set_parameter(self, name: str, value: float) -> None:
        """Change a parameter; it takes effect at the next communication point."""
        i = self._param_index.get(name)
        if i is None:
            known = ", ".join(self._param_index) or "none"
            raise _err("modelica.parameter.unknown",
                       f"model {self.name} has no parameter '{name}' (parameters: {known})", name)
        if name in self.compiled.structural_parameters:
            raise _err("modelica.parameter.structural",
                       f"parameter '{name}' of {self.name} is structural (it sizes arrays or "
                       "selects equations); changing it needs a recompile", name)
        self._pending[i] = float(value)

    def outputs(self) -> dict[str, float]:
        """Output values at the current communication point."""
        out: dict[str, float] = {}
        for n in self._outputs:
            if n in self._alg_index:
                out[n] = float(self.z[self._alg_index[n]])
            elif n in self._state_index:
                out[n] = float(self.x[self._state_index[n]])
        return out

    def value(self, name: str) -> float:
        """Any state, algebraic, input or parameter value by scalar name (for inspection)."""
        for idx, vec in ((self._state_index, self.x), (self._alg_index, self.z),
                         (self._input_index, self.u), (self._param_index, self.p)):
            if name in idx:
                return float(vec[idx[name]])
        raise _err("modelica.variable.unknown", f"model {self.name} has no variable '{name}'", name)

    # -- stepping ------------------------------------------------------------------------
    def step(self) -> None:
        """Advance one communication period and publish outputs."""
        if self._pending:
            self._overrides.update(self._pending)
            self._pending.clear()
            self.p[:] = self._num.default_parameters(self._overrides)
            self._checked_bound, self._raised_at = 0.0, None
            self._choose_method()  # a changed time constant may change the substeps needed
        t1 = (self.ticks + 1) * self.period
        self._t[0] = self.ticks * self.period
        self._advance()
        if self.method_requested == "auto":
            self._adapt()
        if not np.all(np.isfinite(self._x1)):
            bad = [n for n, v in zip(self._num.system.state_names, self._x1, strict=True)
                   if not math.isfinite(v)]
            raise _err("modelica.step.diverged",
                       f"model {self.name} diverged at t={t1:.6g} s "
                       f"(non-finite states: {', '.join(bad)})")
        self._check_residual(float(self._rinf[0]), t1, stepping=True)
        self.x[:] = self._x1
        self.xdot[:] = self._xdot1
        self.z[:] = self._z1
        self.ticks += 1
        self.time = t1

    def _adapt(self) -> None:
        """Follow stiffness that appears mid-run (a contact spring switched on by ``if``).

        The step function reports the largest ||J||_inf met during the period (an upper bound
        of the spectral radius) and where. When it exceeds what the current RK4 substeps can
        take, the exact spectral radius there decides new substeps (or the implicit path) and
        the period is redone from the same start state. Once a second after a raise, the choice is re-made at the current
        point so the participant returns to cheaper stepping when the gate opens again.
        """
        bound = float(self._stiff[0])
        if (self.method == "rk4" and bound * self.period / self.substeps > _RK4_LIMIT
                and bound > 2.0 * self._checked_bound):
            self._checked_bound = bound
            before = (self.method, self.substeps)
            self._choose_method(self._x_stiff.copy())
            if (self.method, self.substeps) != before:
                self._raised_at = self.ticks
                self._advance()
        elif self._raised_at is not None and self.ticks - self._raised_at >= round(1 / self.period):
            self._raised_at = None
            self._checked_bound = 0.0
            self._choose_method(self._x1.copy())

    def _advance(self) -> None:
        """Evaluate one communication period from the current state into the result buffers.

        A Newton failure is retried from the start values, then (implicit path) with 4x the
        substeps up to ``max_substeps``; what still fails is reported by :meth:`step`.
        """
        nx = self._num.n_x
        self._wg[:nx] = self.xdot
        self._wg[nx:] = self.z
        self._eval()
        if self._rinf[0] <= _NEWTON_TOL:
            return
        if not self._num.explicit:
            self._wg[:nx] = 0.0
            self._wg[nx:] = self._z_start
            self._eval()
        while (self.method == "implicit" and not self._rinf[0] <= _NEWTON_TOL
               and self.substeps < self.max_substeps):
            self._bind(self.method, min(self.substeps * 4, self.max_substeps))
            self._raised_at = self.ticks
            self._wg[:nx] = self.xdot
            self._wg[nx:] = self.z
            self._eval()

    def save_state(self) -> dict[str, object]:
        """Everything needed to resume exactly here (for runtime snapshots / rewind)."""
        return {
            "ticks": self.ticks, "x": self.x.copy(), "xdot": self.xdot.copy(), "z": self.z.copy(),
            "u": self.u.copy(), "p": self.p.copy(), "overrides": dict(self._overrides),
            "pending": dict(self._pending), "method": (self.method, self.substeps),
            "adapt": (self._checked_bound, self._raised_at),
        }

    def restore_state(self, state: dict[str, object]) -> None:
        """Resume from :meth:`save_state`; later steps are bit-identical to the original run."""
        self.ticks = int(state["ticks"])  # type: ignore[arg-type]
        self.time = self.ticks * self.period
        for name in ("x", "xdot", "z", "u", "p"):
            getattr(self, name)[:] = state[name]  # in place: the step buffers point at them
        self._overrides = dict(state["overrides"])  # type: ignore[arg-type]
        self._pending = dict(state["pending"])  # type: ignore[arg-type]
        self._checked_bound, self._raised_at = state["adapt"]  # type: ignore[misc]
        self._bind(*state["method"])  # type: ignore[misc]

    def state_bytes(self) -> bytes:
        """Exact bytes of time, states, algebraics, inputs and parameters (determinism hash)."""
        return b"".join(np.ascontiguousarray(a, dtype="<f8").tobytes()
                        for a in (np.array([self.time]), self.x, self.z, self.u, self.p))
