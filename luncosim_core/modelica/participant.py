"""A compiled Modelica model as a fixed-step co-simulation participant.

Each :meth:`ModelicaParticipant.step` advances one communication period (default 1/60 s) and
then publishes outputs; ports are exchanged only at communication points. Inside the period the
:class:`~luncosim_core.modelica.stepper.Stepper` chooses substeps for accuracy (an error-controlled
Dormand–Prince 5(4) pair, implicit Euler for stiff models) and handles Modelica events: relations
are held between events, crossings are located inside the period, ``when``/``reinit``/``pre``/
``edge``/``change``/``sample``/``initial()``/``terminal()`` run in an event iteration to a fixed
point. Inputs set between steps are held constant over the period (zero-order hold); parameter
changes apply at the next communication point; ``reset`` restores the initial state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import numpy as np

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.modelica.compiler import CompiledModel
from luncosim_core.modelica.interface import ModelInterface
from luncosim_core.modelica.numerics import CASADI_LOCK
from luncosim_core.modelica.stepper import Stepper

Method = Literal["auto", "rk4", "implicit"]
_NEWTON_TOL = 1e-6  # max |residual| accepted after a Newton solve


def _err(code: str, message: str, path: str = "") -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", code, message, path=path, source="modelica"))


class ModelicaParticipant(Stepper):
    """Steps one compiled model; single-threaded (owned by the simulation thread).

    ``method="auto"`` (default) uses error-controlled Dormand–Prince substeps (``substeps`` is
    then the minimum, default 1) and switches to implicit Euler when the model is too stiff for
    ``max_substeps``; ``"rk4"`` forces fixed RK4 substeps and ``"implicit"`` backward Euler
    (``substeps`` default 4 for both). ``max_events`` caps the state events in one period
    (more is reported as chattering / Zeno).
    """

    def __init__(self, compiled: CompiledModel, period: float = 1 / 60, *,
                 method: Method = "auto", substeps: int | None = None, max_substeps: int = 64,
                 name: str = "", max_events: int = 100):
        if not compiled.ok or compiled.numerics is None:
            raise DiagnosticError(list(compiled.diagnostics) or [Diagnostic(
                "error", "modelica.compile", "model did not compile", source="modelica")])
        if not period > 0:
            raise _err("modelica.period", f"communication period must be > 0 (got {period})")
        self.compiled = compiled
        self.name = name or compiled.model_name
        self.period = float(period)
        self.method_requested: Method = method
        default = 1 if method == "auto" else 4
        self.min_substeps = max(1, int(substeps if substeps is not None else default))
        self.max_substeps = max(self.min_substeps, int(max_substeps))
        self.max_events = max(1, int(max_events))
        num = compiled.numerics
        sysm = num.system
        self._num = num
        self._state_index = {n: i for i, n in enumerate(sysm.state_names)}
        self._alg_index = {n: i for i, n in enumerate(sysm.algebraic_names)}
        self._input_index = {n: i for i, n in enumerate(sysm.input_names)}
        self._param_index = {n: i for i, n in enumerate(sysm.param_names)}
        self._disc_index = {n: i for i, n in enumerate(sysm.discrete_names)}
        self._outputs = [v.name for v in compiled.interface.outputs]
        self._overrides: dict[int, float] = {}
        self._pending: dict[int, float] = {}
        self._diags: list[Diagnostic] = []
        self.method, self.substeps = "dopri", self.min_substeps
        self._init_events()
        self.reset()

    # -- lifecycle -----------------------------------------------------------------------
    def _allocate(self) -> None:
        """Fixed arrays the step function reads and writes in place (zero-copy buffers)."""
        num = self._num
        nx, nz = num.n_x, num.n_z
        self.x, self.xdot, self.z = np.zeros(nx), np.zeros(nx), np.zeros(nz)
        self.u, self.p = np.zeros(num.n_u), np.zeros(num.n_p)
        self.d, self.c = np.zeros(num.n_d), np.zeros(num.n_c)
        self.cpre = np.zeros(self._n_cond)
        self.mag = np.zeros(nx)  # largest |x_i| so far: the scale of the error estimate
        self._t, self._h = np.zeros(1), np.array([self.period])
        self._wg = np.zeros(nx + nz)
        self._x1, self._xdot1, self._z1 = np.zeros(nx), np.zeros(nx), np.zeros(nz)
        self._rinf, self._errv, self._cross = np.zeros(1), np.zeros(1), np.zeros(1)
        self._total = np.zeros(1)

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
        xs, zs, us, ds = (np.asarray(v, dtype=float).ravel() for v in num.start_function()(self.p))
        self._z_start = zs
        self.u[:] = us
        self.d[:] = ds
        self.c[:] = 0.0
        self.ticks = start_tick
        self.time = start_tick * self.period
        self.terminated: str | None = None
        self._warned: set[int] = set()
        self._recent_events: list[tuple[float, tuple[int, ...]]] = []
        self._params_moved = False
        self._good, self._n_floor, self._raised_at = 0, 1, None
        self._h_slow = self.period
        for _ in range(8):  # held relations consistent with the initial point
            self._solve_initial(xs, zs)
            if not num.n_c:
                break
            st = self._working()
            lit = self._call("relcheck")
            if lit(st["x"], self.u, self.p, self.time, st["wg"], self.d, self.c)[0][0] == 0:
                break
            out = self._call("event")(self.x, self.u, self.p, self.time, st["wg"], self.d, self.c,
                                      self.cpre, np.zeros(len(self._clocks)), np.zeros(2))
            self.c[:] = out[2]
        if self._has_events and self._num.system.events is not None:
            self._initial_event(xs, zs)
        self._check_initial()
        self.mag[:] = np.abs(self.x)
        self._h_slow = self.period / max(1, self.substeps)
        self._choose_method()
        self._h_slow = self.period / max(1, self.substeps)

    def _solve_initial(self, xs: np.ndarray, zs: np.ndarray) -> None:
        num = self._num
        free = num.free_states_for_init()
        if num.system.initial_residual.numel():
            guess = np.concatenate([xs[list(free)], np.zeros(num.n_x), zs])
            x0, _, z0 = num.init_function(free)(xs, self.u, self.p, self.time, guess, self.d,
                                                self.c)
            self.x[:] = np.asarray(x0, dtype=float).ravel()
            self.z[:] = np.asarray(z0, dtype=float).ravel()
        else:
            self.x[:] = xs
            self.z[:] = zs
        self.xdot[:] = 0.0
        self._refresh_algebraics()

    def _initial_event(self, xs: np.ndarray, zs: np.ndarray) -> None:
        """The initialization event: ``initial()`` is true, ``sample`` ticks at its start."""
        call = self._call("event")
        ticks0 = np.zeros(len(self._clocks))
        for _ in range(4):
            st = self._working()
            # conditions already true at the start do not fire (their pre value is the same)
            st["cpre"] = call(st["x"], self.u, self.p, self.time, st["wg"], st["d"], st["c"],
                              st["cpre"], ticks0, np.zeros(2))[3].copy()
            d_before = st["d"].copy()
            self._iterate(st, self.time, ticks=self._ticks_at(self.time), initial=True)
            self.x[:], self.d[:], self.c[:], self.cpre[:] = st["x"], st["d"], st["c"], st["cpre"]
            if np.array_equal(d_before, self.d) or not self._num.system.initial_residual.numel():
                break
            self._solve_initial(xs, zs)  # discrete values set at initial() feed the equations
        self._refresh_algebraics()
        if st["terminate"] is not None:
            self.terminated = st["terminate"][1]

    def _check_initial(self) -> None:
        num = self._num
        if num.system.initial_residual.numel():
            r = np.asarray(num.initial_residual_function()(self.x, self.u, self.p, self.time,
                                                           self.xdot, self.z, self.d, self.c),
                           dtype=float).ravel()
            if not float(np.max(np.abs(r))) <= _NEWTON_TOL:
                raise _err("modelica.initialization",
                           f"model {self.name}: the initial equations could not be solved "
                           f"(residual {float(np.max(np.abs(r))):.3g})")

    def _guess(self) -> np.ndarray:
        return np.concatenate([self.xdot, self.z])

    def _refresh_algebraics(self) -> None:
        num = self._num
        if num.n_x + num.n_z == 0:
            return
        xdot, z = num.values_function()(self.x, self.u, self.p, self.time, self._guess(), self.d,
                                        self.c)
        self.xdot[:] = np.asarray(xdot, dtype=float).ravel()
        self.z[:] = np.asarray(z, dtype=float).ravel()
        if not num.explicit:
            r = np.asarray(num.residual_function()(self.x, self.u, self.p, self.time,
                                                     self.xdot, self.z, self.d, self.c),
                           dtype=float).ravel()
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

    def input_positions(self, names: Sequence[str]) -> np.ndarray | None:
        """Where these inputs sit in the input vector (for :meth:`set_input_vector`); None when
        one is not an input of the model."""
        if any(n not in self._input_index for n in names):
            return None
        return np.array([self._input_index[n] for n in names], dtype=np.intp)

    def set_input_vector(self, positions: np.ndarray, values: np.ndarray) -> None:
        """:meth:`set_inputs` for values already known finite, by :meth:`input_positions`."""
        self.u[positions] = values

    def output_gather(self, names: Sequence[str]) -> Callable[[], np.ndarray] | None:
        """A function returning these outputs' current values as one array (in ``names``
        order), or None when one is not an output with a value."""
        parts: dict[str, tuple[list[int], list[int]]] = {"z": ([], []), "x": ([], []), "d": ([], [])}
        for k, n in enumerate(names):
            where = next(((attr, idx[n]) for attr, idx in (("z", self._alg_index), ("x", self._state_index),
                                                           ("d", self._disc_index)) if n in idx), None)
            if n not in self._outputs or where is None:
                return None
            parts[where[0]][0].append(k)
            parts[where[0]][1].append(where[1])
        plan = [(attr, np.array(dst, dtype=np.intp), np.array(src, dtype=np.intp))
                for attr, (dst, src) in parts.items() if dst]
        out = np.empty(len(names))

        def gather() -> np.ndarray:
            for attr, dst, src in plan:
                out[dst] = getattr(self, attr)[src]
            return out

        return gather

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
            elif n in self._disc_index:
                out[n] = float(self.d[self._disc_index[n]])
        return out

    def value(self, name: str) -> float:
        """Any state, algebraic, discrete, input or parameter value by scalar name."""
        for idx, vec in ((self._state_index, self.x), (self._alg_index, self.z),
                         (self._disc_index, self.d), (self._input_index, self.u),
                         (self._param_index, self.p)):
            if name in idx:
                return float(vec[idx[name]])
        raise _err("modelica.variable.unknown", f"model {self.name} has no variable '{name}'", name)

    def take_diagnostics(self) -> list[Diagnostic]:
        """Warnings raised while stepping (``assert(..., AssertionLevel.warning)``,
        ``terminate()``) since the last call."""
        out, self._diags = self._diags, []
        return out

    # -- stepping ------------------------------------------------------------------------
    def step(self) -> None:
        """Advance one communication period and publish outputs."""
        if self._pending:
            self._overrides.update(self._pending)
            self._pending.clear()
            self.p[:] = self._num.default_parameters(self._overrides)
            self._raised_at = None
            self._params_moved = self._has_events  # discrete values may depend on them
            with CASADI_LOCK:
                self._choose_method()  # a changed time constant may change the substeps needed
        t0 = self.ticks * self.period
        t1 = (self.ticks + 1) * self.period
        if self.terminated is not None:  # the model ended itself: outputs stay as they were
            self.ticks += 1
            self.time = t1
            return
        mode = self._advance(t0)
        self._params_moved = False
        if mode == "fast":
            if not math.isfinite(self._total[0]):
                self._diverged(self._x1, t1)
            if self._rinf[0] > _NEWTON_TOL:
                self._check_residual(float(self._rinf[0]), t1, stepping=True)
            self.x[:] = self._x1
            self.xdot[:] = self._xdot1
            self.z[:] = self._z1
            err = float(self._errv[0])
        else:
            st = self._work
            if not np.all(np.isfinite(st["x"])):
                self._diverged(st["x"], t1)
            nx = self._num.n_x
            self.x[:] = st["x"]
            self.xdot[:] = st["wg"][:nx]
            self.z[:] = st["wg"][nx:]
            self.d[:] = st["d"]
            self.c[:] = st["c"]
            self.cpre[:] = st["cpre"]
            err = 1.0  # no step-down decision from a period with events
            if st["terminate"] is not None:
                te, message = st["terminate"]
                self.terminated = message
                self._diags.append(Diagnostic(
                    "info", "modelica.terminated", f"model {self.name} terminated at "
                    f"t={te:.9g} s: {message}; its outputs keep their last values",
                    source="modelica"))
        if not self.ticks & 7:  # the error scale follows the states' magnitudes (every 8 ticks)
            np.maximum(self.mag, np.abs(self.x), out=self.mag)
        self.ticks += 1
        self.time = t1
        if self._warning_idx:
            self._check_warnings()
        if self.method_requested == "auto":
            self._after_commit(err)

    def _diverged(self, x: np.ndarray, t1: float) -> None:
        bad = [n for n, v in zip(self._num.system.state_names, x, strict=True)
               if not math.isfinite(v)]
        raise _err("modelica.step.diverged",
                   f"model {self.name} diverged at t={t1:.6g} s "
                   f"(non-finite states: {', '.join(bad)})")

    def save_state(self) -> dict[str, object]:
        """Everything needed to resume exactly here (for runtime snapshots / rewind)."""
        return {
            "ticks": self.ticks, "x": self.x.copy(), "xdot": self.xdot.copy(), "z": self.z.copy(),
            "u": self.u.copy(), "p": self.p.copy(), "d": self.d.copy(), "c": self.c.copy(),
            "cpre": self.cpre.copy(), "mag": self.mag.copy(), "overrides": dict(self._overrides),
            "pending": dict(self._pending), "method": (self.method, self.substeps),
            "adapt": (self._good, self._n_floor, self._raised_at, self._h_slow),
            "terminated": self.terminated, "warned": set(self._warned),
            "recent_events": list(self._recent_events),
        }

    def restore_state(self, state: dict[str, object]) -> None:
        """Resume from :meth:`save_state`; later steps are bit-identical to the original run."""
        self.ticks = int(state["ticks"])  # type: ignore[arg-type]
        self.time = self.ticks * self.period
        for name in ("x", "xdot", "z", "u", "p", "d", "c", "cpre", "mag"):
            getattr(self, name)[:] = state[name]  # in place: the step buffers point at them
        self._overrides = dict(state["overrides"])  # type: ignore[arg-type]
        self._pending = dict(state["pending"])  # type: ignore[arg-type]
        self._good, self._n_floor, self._raised_at, self._h_slow = state["adapt"]  # type: ignore[misc]
        self.terminated = state["terminated"]  # type: ignore[assignment]
        self._warned = set(state["warned"])  # type: ignore[arg-type]
        self._recent_events = list(state["recent_events"])  # type: ignore[arg-type]
        self._bind(*state["method"])  # type: ignore[misc]

    def state_bytes(self) -> bytes:
        """Exact bytes of time, states, algebraics, inputs, parameters, discrete values and held
        relations (determinism hash)."""
        return b"".join(np.ascontiguousarray(a, dtype="<f8").tobytes()
                        for a in (np.array([self.time]), self.x, self.z, self.u, self.p, self.d,
                                  self.c))
