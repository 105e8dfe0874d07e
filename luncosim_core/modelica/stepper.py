"""Advancing a compiled model over one communication step: error control, events, iteration.

:class:`Stepper` is the engine behind :class:`~luncosim_core.modelica.participant.
ModelicaParticipant` (which owns the public interface and the model's values). Per period:

**Fast path** (every period without events): one buffered CasADi call runs ``N`` Dormand–Prince
substeps and reports the error estimate and whether any held relation / kink changed
(:mod:`luncosim_core.modelica.integrators`). An error above 1 redoes the period with more
substeps (at least what the spectral radius needs for stability; beyond ``max_substeps`` the
model switches to implicit Euler); after 30 periods whose error would stay small with fewer
substeps, ``N`` steps down one rung (never below the stability floor measured at the last raise,
which is re-measured one second later).

**Event path** (a crossing was seen, a ``sample``/time event falls in the period, or inputs
moved a relation): adaptive single Dormand–Prince substeps driven from Python. A crossing is
bracketed on the dense output and located to ``EVENT_TIME_TOL`` seconds (Illinois on the crossing
functions, bisection otherwise); the step is cut there
(the state taken just past the crossing) and the event iteration runs:
:func:`luncosim_core.modelica.event_functions.event_function` is repeated until discrete values,
held relations and conditions reach a fixed point (at most ``MAX_EVENT_ITERATIONS``). Scheduled
events (``sample`` ticks, ``time >= T`` instants) end a substep exactly at their time. More than
``max_events`` state events in one period is reported as chattering / Zeno
(``modelica.events.zeno``) instead of stepping on forever. Kinks (``max``/``min``/``abs``/
``sign``) are located the same way but only split the step (no event iteration), up to
``_MAX_KINKS`` per period.

Everything a period computes is committed only at its end, so a failed period leaves the
participant at its last communication point.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import casadi as ca
import numpy as np

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.modelica.event_functions import event_function
from luncosim_core.modelica.integrators import (
    dense_function,
    relation_check_function,
    step_function,
    substep_function,
)
from luncosim_core.modelica.numerics import CASADI_LOCK

if TYPE_CHECKING:
    from luncosim_core.modelica.numerics import Numerics

EVENT_TIME_TOL = 1e-10  # s: events are located to within this time
MAX_EVENT_ITERATIONS = 50
_NEWTON_TOL = 1e-6  # max |residual| accepted after a Newton solve
_DOPRI_STABLE = 3.0  # |lambda| * h kept for Dormand–Prince (real-axis limit ~3.3)
_STEP_DOWN_AFTER = 30  # periods with a small predicted error before using fewer substeps
_MAX_KINKS = 16  # kink locations per period (they only improve accuracy)
_DENSE_SPAN = 1e-7  # s: below this the dense output is trusted for the state at a switch
ZENO_SPAN = 1e-6  # s: this many seconds holding _ZENO_COUNT state events is Zeno / chattering
_ZENO_COUNT = 10
_ZENO_SWITCHES = 4
_RUNGS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256)
_GRID = (0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)


def _err(code: str, message: str, path: str = "") -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", code, message, path=path, source="modelica"))


def rung_at_least(n: int) -> int:
    """The smallest substep count of the ladder that is >= n (or n beyond the ladder)."""
    return next((r for r in _RUNGS if r >= n), n)


def rung_below(n: int) -> int:
    return next((r for r in reversed(_RUNGS) if r < n), 1)


class _Call:
    """A CasADi function evaluated through preallocated numpy buffers (no per-call allocation)."""

    def __init__(self, fn: ca.Function):
        self.args = [np.zeros(fn.nnz_in(i)) for i in range(fn.n_in())]
        self.res = [np.zeros(fn.nnz_out(i)) for i in range(fn.n_out())]
        buf, self.ev = fn.buffer()
        for i, a in enumerate(self.args):
            buf.set_arg(i, memoryview(a))
        for i, r in enumerate(self.res):
            buf.set_res(i, memoryview(r))
        self._buf = buf

    def __call__(self, *values: Any) -> list[np.ndarray]:
        for a, v in zip(self.args, values, strict=True):
            a[:] = v
        self.ev()
        return self.res

    def again(self, index: int, value: float) -> list[np.ndarray]:
        """Re-evaluate with only the scalar argument ``index`` changed (bisection probes)."""
        self.args[index][0] = value
        self.ev()
        return self.res


class Stepper:
    """Time stepping of one :class:`ModelicaParticipant` (uses its arrays and settings)."""

    # set by the participant
    _num: Numerics
    period: float
    name: str
    method: str
    substeps: int
    method_requested: str
    min_substeps: int
    max_substeps: int
    max_events: int
    ticks: int
    time: float

    # -- setup ---------------------------------------------------------------------------
    def _init_events(self) -> None:
        num = self._num
        s = num.system
        ev = s.events
        self._has_events = s.has_events or bool(s.kinks)
        self._explicit, self._nx = num.explicit, num.n_x
        self._n_cond = ev.conditions.numel() if ev is not None else 0
        self._clocks = list(ev.clocks) if ev is not None else []
        self._time_events = sorted(ev.time_events) if ev is not None else []
        self._scheduled = bool(self._clocks or self._time_events)
        self._actions = list(ev.actions) if ev is not None else []
        self._reinit_idx = [i for i, a in enumerate(self._actions) if a.kind == "reinit"]
        self._warning_idx = [i for i, a in enumerate(self._actions) if a.kind == "warning"]
        self._calls: dict[str, _Call] = {}

    def _call(self, key: str) -> _Call:
        c = self._calls.get(key)
        if c is None:
            with CASADI_LOCK:
                fn = {
                    "event": lambda: event_function(self._num),
                    "relcheck": lambda: relation_check_function(self._num),
                    "substep": lambda: substep_function(self._num),
                    "dense": lambda: dense_function(self._num),
                    "implicit1": lambda: step_function(self._num, "implicit", 1),
                    "values": lambda: self._num.values_function(),
                }[key]()
                c = _Call(fn)
            self._calls[key] = c
        return c

    def _bind(self, method: str, substeps: int) -> None:
        """Point the zero-copy evaluation buffer at the step function for this method."""
        self.method, self.substeps = method, substeps
        with CASADI_LOCK:
            fn = step_function(self._num, method, substeps)
            buf, self._eval = fn.buffer()
        for i, arr in enumerate((self.x, self.u, self.p, self._t, self._h, self._wg, self.d,
                                 self.c, self.mag)):
            buf.set_arg(i, memoryview(arr))
        for i, arr in enumerate((self._x1, self._xdot1, self._z1, self._rinf, self._errv,
                                 self._cross, self._total)):
            buf.set_res(i, memoryview(arr))
        self._buffer = buf  # keeps the bound memory alive
        self._adaptive = method == "dopri"

    # -- substep choice ------------------------------------------------------------------
    def _spectral_radius(self, x: np.ndarray) -> float:
        if not np.all(np.isfinite(x)):
            return 0.0
        try:
            with CASADI_LOCK:
                jac = self._num.state_jacobian()
            A = np.array(jac(x, self.u, self.p, self.time, self._guess(), self.d, self.c).full(), dtype=float)
        except (RuntimeError, SystemError):  # Newton inside the Jacobian failed: no estimate
            return 0.0
        if not (A.size and np.all(np.isfinite(A))):
            return 0.0
        return float(np.max(np.abs(np.linalg.eigvals(A))))

    def _stable_substeps(self, *states: np.ndarray) -> int:
        rho = max((self._spectral_radius(x) for x in states), default=0.0)
        return math.ceil(rho * self.period / _DOPRI_STABLE) if rho > 0 else 1

    def _choose_method(self, x: np.ndarray | None = None) -> None:
        """Pick the method and substeps from the stiffness at ``x`` (default: now)."""
        num = self._num
        x = self.x if x is None else x
        self._good = 0
        if self.method_requested == "implicit":
            self._bind("implicit", self.min_substeps)
        elif self.method_requested == "rk4":
            self._bind("rk4", self.min_substeps)
        elif num.n_x == 0:
            self._n_floor = 1
            self._bind("dopri", 1)
        else:
            need = self._stable_substeps(x)
            if need > self.max_substeps:
                self._bind("implicit", 4)
            else:
                self._n_floor = need
                self._bind("dopri", rung_at_least(max(self.min_substeps, need)))

    def _raise_substeps(self, err: float) -> bool:
        """After a rejected period: more substeps (True: redo) or accept what we have."""
        factor = 8.0 if not math.isfinite(err) else min(8.0, max(1.5, 1.2 * err ** 0.2))
        x1 = self._x1.copy()
        stab = self._stable_substeps(self.x, x1)
        need = max(math.ceil(self.substeps * factor), stab)
        self._raised_at = self.ticks
        if need > self.max_substeps:
            if stab > self.max_substeps:
                self._bind("implicit", 4)
                return True
            if self.substeps >= self.max_substeps:
                return False
            need = self.max_substeps
        self._n_floor = max(stab, 1)
        self._good = 0
        self._bind("dopri", min(rung_at_least(need), self.max_substeps))
        return True

    def _after_commit(self, err: float) -> None:
        """Step down when the error would stay small; re-measure stiffness a second after a
        raise (a contact spring that opened again)."""
        if self.substeps == 1 and self._raised_at is None:
            return
        if self._raised_at is not None and self.ticks - self._raised_at >= round(1 / self.period):
            self._raised_at = None
            if self.method == "implicit":
                self._choose_method()
                return
            self._n_floor = self._stable_substeps(self.x)
        if self.method != "dopri" or self.substeps <= max(self.min_substeps, 1):
            return
        lower = max(rung_below(self.substeps), self.min_substeps)
        if lower < self._n_floor:
            return
        predicted = err * (self.substeps / lower) ** 5
        self._good = self._good + 1 if predicted <= 0.25 else 0
        if self._good >= _STEP_DOWN_AFTER:
            self._good = 0
            self._bind("dopri", lower)

    # -- scheduled events ----------------------------------------------------------------
    def _tol(self, t: float) -> float:
        return 1e-12 * max(1.0, abs(t))

    def _next_scheduled(self, t: float) -> float:
        """The first sample tick or time event strictly after ``t`` (inf if none)."""
        best = math.inf
        eps = self._tol(t)
        for phase, interval in self._clocks:
            if t < phase - eps:
                tk = phase
            else:
                k = math.floor((t - phase) / interval) + 1
                tk = phase + k * interval
                while tk <= t + eps:
                    k += 1
                    tk = phase + k * interval
                while k > 0 and phase + (k - 1) * interval > t + eps:
                    k -= 1
                    tk = phase + k * interval
            best = min(best, tk)
        for te in self._time_events:
            if te > t + eps:
                best = min(best, te)
                break
        return best

    def _ticks_at(self, t: float) -> np.ndarray:
        eps = self._tol(t)
        out = np.zeros(len(self._clocks))
        for i, (phase, interval) in enumerate(self._clocks):
            k = round((t - phase) / interval)
            if k >= 0 and abs(phase + k * interval - t) <= eps:
                out[i] = 1.0
        return out

    # -- the event iteration -------------------------------------------------------------
    def _relation_text(self, slot: int) -> str:
        s = self._num.system
        src, span = s.relations[slot].span
        return s.source_text(src, span)

    def _iterate(self, st: dict[str, Any], t: float, ticks: np.ndarray | None = None,
                 initial: bool = False, terminal: bool = False) -> None:
        """Run the event iteration at ``t`` on the working values ``st`` to a fixed point."""
        call = self._call("event")
        ticks = np.zeros(len(self._clocks)) if ticks is None else ticks
        flags = np.array([1.0 if initial else 0.0, 1.0 if terminal else 0.0])
        x, d, c, cpre = st["x"], st["d"], st["c"], st["cpre"]
        for _ in range(MAX_EVENT_ITERATIONS):
            x1, d1, c1, cond, z, fired = call(x, self.u, self.p, t, st["wg"], d, c, cpre, ticks,
                                              flags)
            reinit = any(fired[i] for i in self._reinit_idx)
            self._act(fired, t, st)
            flipped = c1 != c
            if flipped.any():
                st["flips"][flipped] += 1
            done = (np.array_equal(d1, d) and np.array_equal(c1, c)
                    and np.array_equal(cond, cpre) and not reinit)
            x, d, c, cpre = x1.copy(), d1.copy(), c1.copy(), cond.copy()
            st["wg"][self._num.n_x:] = z
            if done:
                break
        else:
            raise _err("modelica.events.iteration",
                       f"model {self.name}: the event iteration at t={t:.9g} s found no fixed "
                       f"point in {MAX_EVENT_ITERATIONS} iterations (discrete equations that "
                       "keep changing each other)")
        if ticks.any() or initial or terminal:  # leave the instant: sample()/initial() drop
            cpre = call(x, self.u, self.p, t, st["wg"], d, c, cpre, np.zeros_like(ticks),
                        np.zeros(2))[3].copy()
        st.update(x=x, d=d, c=c, cpre=cpre)
        self._refresh(st, t)

    def _act(self, fired: np.ndarray, t: float, st: dict[str, Any]) -> None:
        for i, a in enumerate(self._actions):
            if a.kind == "reinit":
                continue
            if not fired[i]:
                self._warned.discard(i)
                continue
            where = self._num.system.location(a.span)
            if a.kind == "assert":
                raise _err("modelica.assert", f"model {self.name}: assertion failed at "
                           f"t={t:.9g} s{where}: {a.message or 'assert()'}")
            if a.kind == "warning" and i not in self._warned:
                self._warned.add(i)
                self._diags.append(Diagnostic(
                    "warning", "modelica.assert.warning", f"model {self.name}: at t={t:.9g} s"
                    f"{where}: {a.message or 'assert()'}", source="modelica"))
            if a.kind == "terminate" and st.get("terminate") is None:
                st["terminate"] = (t, a.message or "terminate()")

    def _check_warnings(self) -> None:
        """Warning-level asserts (``noEvent`` conditions: no event) at the communication point."""
        if not self._warning_idx:
            return
        fired = self._call("event")(self.x, self.u, self.p, self.time, self._guess(), self.d,
                                    self.c, self.cpre, np.zeros(len(self._clocks)),
                                    np.zeros(2))[5]
        mask = np.zeros_like(fired)
        mask[self._warning_idx] = fired[self._warning_idx]
        self._act(mask, self.time, {})

    def _refresh(self, st: dict[str, Any], t: float) -> None:
        """Derivatives and algebraics at the working point (after an event)."""
        num = self._num
        if num.n_x + num.n_z == 0:
            return
        xdot, z = self._call("values")(st["x"], self.u, self.p, t, st["wg"], st["d"], st["c"])
        st["wg"][: num.n_x] = xdot
        st["wg"][num.n_x:] = z

    # -- one communication step ----------------------------------------------------------
    def _working(self) -> dict[str, Any]:
        return {"x": self.x.copy(), "d": self.d.copy(), "c": self.c.copy(),
                "cpre": self.cpre.copy(), "wg": np.concatenate([self.xdot, self.z]),
                "flips": np.zeros(self._num.n_c), "terminate": None}

    def _advance(self, t0: float) -> str:
        """Compute the period from the committed state; 'fast' (results in the step buffers)
        or 'events' (results in ``self._work``)."""
        t1 = t0 + self.period
        if ((self._scheduled and self._next_scheduled(t0) <= t1 + self._tol(t1))
                or self._params_moved):
            return self._advance_events(t0, t1)
        self._t[0] = t0
        if not self._explicit:  # Newton seeds: the previous point's derivatives and algebraics
            self._wg[: self._nx] = self.xdot
            self._wg[self._nx:] = self.z
        while True:
            self._eval()
            if self._cross[0] > 0:  # a switch inside the period: locate it (no substep raise)
                return self._advance_events(t0, t1)
            if self._rinf[0] > _NEWTON_TOL:
                self._retry_newton()
            if not self._adaptive or self._errv[0] <= 1.0:
                break
            if not self._raise_substeps(float(self._errv[0])):
                break
        return "fast"

    def _retry_newton(self) -> None:
        """A Newton failure is retried from the start values, then (implicit path) with 4x the
        substeps up to ``max_substeps``; what still fails is reported by ``step``."""
        nx = self._num.n_x
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

    def _advance_events(self, t0: float, t1: float) -> str:
        st = self._work = self._working()
        num = self._num
        t = t0
        if self._params_moved or (num.n_c and self._call("relcheck")(
                st["x"], self.u, self.p, t, st["wg"], st["d"], st["c"])[0][0] > 0):
            self._iterate(st, t)  # inputs or parameters moved a relation or a discrete value
        implicit = self.method == "implicit"
        h = min(self._h_slow, self.period) if not implicit else self.period / self.substeps
        events = kinks = 0
        while t < t1 and st["terminate"] is None:
            t_next = self._next_scheduled(t)
            if abs(t_next - t1) <= self._tol(t1):
                t_next = t1
            t_end = min(t1, t_next)
            last = h >= (t_end - t) * (1 - 1e-9)
            hh = (t_end - t) if last else h
            out = self._substep(st, t, hh, implicit)
            x1, err, cross = out["x1"], out["err"], out["cross"]
            if not np.all(np.isfinite(x1)) or err > 1.0:
                h = self._retry_size(st, out, t, hh, implicit)
                continue
            if cross > 0 and (kinks < _MAX_KINKS or self._relation_flip(st, out, t + hh)):
                theta = self._locate(st, out, t, hh, implicit)
                if theta is None and hh > EVENT_TIME_TOL:
                    # switched and back within one grid cell of the dense output: look closer
                    h = hh / len(_GRID)
                    continue
                if theta is not None:
                    te = t_end if (last and theta >= 1.0) else t + hh * theta
                    switched = self._cut(st, out, t, hh, theta, implicit)
                    t = te
                    if not switched:  # stopped just short of the switch: look again from here
                        h = hh * theta
                        continue
                    tick = last and theta >= 1.0 and t == t_next
                    if self._relation_flip(st, None, t):
                        events += 1
                        before = st["c"].copy()
                        self._iterate(st, t, ticks=self._ticks_at(t) if tick else None)
                        self._check_zeno(st, events, t0, t, np.nonzero(st["c"] != before)[0])
                    else:
                        kinks += 1
                        if tick:
                            self._iterate(st, t, ticks=self._ticks_at(t))
                    continue
            st["x"] = x1.copy()
            st["wg"][: num.n_x] = out["xdot1"]
            st["wg"][num.n_x:] = out["z1"]
            t = t_end if last else t + hh
            if last and t == t_next and t_next != math.inf:
                self._iterate(st, t, ticks=self._ticks_at(t))
            if not implicit:
                h = hh * (min(5.0, max(0.2, 0.9 * err ** -0.2)) if err > 0 else 5.0)
                self._h_slow = max(h, self.period / self.max_substeps) if not last else self._h_slow
        if st["terminate"] is not None:
            self._iterate(st, st["terminate"][0], terminal=True)
        return "events"

    def _retry_size(self, st: dict[str, Any], out: dict[str, Any], t: float, hh: float, implicit: bool) -> float:
        """The size of the next try after a rejected substep of ``hh`` from ``t``."""
        err, cross = out["err"], out["cross"]
        if hh <= self.period * 1e-9:
            raise _err("modelica.step.unsolved",
                       f"model {self.name}: the step size fell below "
                       f"{self.period * 1e-9:.3g} s at t={t:.9g} s without meeting the "
                       "error tolerance (a discontinuity the stepper cannot resolve)")
        # a non-finite state (whatever the estimate says: the implicit step reports 0) or a
        # non-finite estimate shrinks tenfold; an estimate over 1 by the usual rule
        finite = math.isfinite(err) and err > 0 and bool(np.all(np.isfinite(out["x1"])))
        h = hh * (max(0.1, 0.9 * err ** -0.2) if finite else 0.1)
        if cross > 0 and math.isfinite(err) and not implicit:
            # the error comes from a switch inside the step: end the next try just past
            # where the (rough) dense output puts it
            hi = next((th for th in _GRID if self._changed(st, out, t, hh, th, False)), 1.0)
            if hi < 1.0:
                h = max(h, hh * hi)
        return h

    def _substep(self, st: dict[str, Any], t: float, h: float, implicit: bool) -> dict[str, Any]:
        wg = st["wg"]
        mag = self.mag
        if implicit:
            r = self._call("implicit1")(st["x"], self.u, self.p, t, h, wg, st["d"], st["c"], mag)
            if r[3][0] > _NEWTON_TOL:
                raise _err("modelica.step.unsolved",
                           f"model {self.name}: the implicit step to t={t + h:.6g} s did not "
                           f"converge (residual {r[3][0]:.3g})")
            return {"x1": r[0].copy(), "xdot1": r[1].copy(), "z1": r[2].copy(), "err": 0.0,
                    "cross": float(r[5][0])}
        r = self._call("substep")(st["x"], self.u, self.p, t, h, wg, st["d"], st["c"], mag)
        if r[3][0] > _NEWTON_TOL:
            raise _err("modelica.algebraic.unsolved",
                       f"model {self.name}: Newton did not solve the nonlinear equations for "
                       f"{', '.join(self._num.nonlinear_unknowns())} at t={t + h:.6g} s "
                       f"(residual {r[3][0]:.3g})")
        return {"x1": r[0].copy(), "xdot1": r[1].copy(), "z1": r[2].copy(),
                "err": float(r[4][0]) if np.isfinite(r[4][0]) else math.inf,
                "cross": float(r[5][0]), "k": r[7].copy()}

    def _relation_flip(self, st: dict[str, Any], out: dict[str, Any] | None, t: float) -> bool:
        if not self._num.n_c:
            return False
        x = st["x"] if out is None else out["x1"]
        wg = st["wg"] if out is None else np.concatenate([out["xdot1"], out["z1"]])
        return self._call("relcheck")(x, self.u, self.p, t, wg, st["d"], st["c"])[0][0] > 0

    def _changed(self, st: dict[str, Any], out: dict[str, Any], t: float, h: float, theta: float,
                 implicit: bool) -> bool:
        return self._probe(st, out, t, h, theta, implicit)[0]

    def _probe(self, st: dict[str, Any], out: dict[str, Any], t: float, h: float, theta: float,
               implicit: bool) -> tuple[bool, np.ndarray | None]:
        """(a located switch happened by ``theta``, crossing function values there). The dense
        output's other arguments are loaded once per substep (``out["dense_loaded"]``)."""
        if implicit:
            r = self._substep(st, t, h * theta, True)
            return r["cross"] > 0, None
        call = self._call("dense")
        if out.get("dense_loaded") is not call:
            r = call(st["x"], out["x1"], out["k"], h, theta, self.u, self.p, t, st["wg"],
                     st["d"], st["c"])
            out["dense_loaded"] = call
        else:
            r = call.again(4, theta)
        return r[1][0] > 0, r[2].copy()

    def _locate(self, st: dict[str, Any], out: dict[str, Any], t: float, h: float,
                implicit: bool) -> float | None:
        """The first point of the substep where a switch has happened (fraction of ``h``):
        bracketed on a grid of the dense output, then narrowed to ``EVENT_TIME_TOL`` by the
        Illinois method on the crossing functions that changed sign (bisection otherwise)."""
        lo, hi = 0.0, None
        g_lo = self._probe(st, out, t, h, 0.0, implicit)[1]
        g_hi = None
        changed, g_end = self._probe(st, out, t, h, 1.0, implicit)
        if changed and g_lo is not None and np.any(np.sign(g_lo) * np.sign(g_end) < 0):
            hi, g_hi = 1.0, g_end  # a switch between the ends: narrow it directly
        else:
            for theta in _GRID:  # switched and back (or no crossing values): scan the substep
                changed, g = self._probe(st, out, t, h, theta, implicit)
                if changed:
                    hi, g_hi = theta, g
                    break
                lo, g_lo = theta, g
        if hi is None:
            return None
        if g_lo is not None and g_hi is not None:
            roots = [self._illinois(st, out, t, h, i, lo, hi, g_lo[i], g_hi[i])
                     for i in np.nonzero(np.sign(g_lo) * np.sign(g_hi) < 0)[0]]
            first = min((r for r in roots if r is not None), default=None, key=lambda r: r[1])
            # the predicate must agree: no switch just before, a switch at the returned point
            if (first is not None and self._changed(st, out, t, h, first[1], False)
                    and (first[0] <= lo or not self._changed(st, out, t, h, first[0], False))):
                return first[1]
        while (hi - lo) * h > EVENT_TIME_TOL:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if self._changed(st, out, t, h, mid, implicit):
                hi = mid
            else:
                lo = mid
        return hi

    def _illinois(self, st: dict[str, Any], out: dict[str, Any], t: float, h: float, i: int,
                  a: float, b: float, ga: float, gb: float) -> tuple[float, float] | None:
        """Bracket ``(a, b)`` narrower than ``EVENT_TIME_TOL`` around the root of crossing
        function ``i`` in ``[a, b]`` (signs differ); ``b`` is on the switched side."""
        side = 0
        for _ in range(40):
            if (b - a) * h <= EVENT_TIME_TOL:
                return a, b
            m = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
            if not a < m < b:
                m = 0.5 * (a + b)
            step = 0.4 * EVENT_TIME_TOL / h  # keep probes apart: the bracket closes from both sides
            m = min(max(m, a + step), b - step)
            gm = self._probe(st, out, t, h, m, False)[1][i]
            if gm == 0.0 or np.sign(gm) == np.sign(gb):
                b, gb = m, gm
                if side == 1:
                    ga *= 0.5
                side = 1
            else:
                a, ga = m, gm
                if side == -1:
                    gb *= 0.5
                side = -1
        return None

    def _cut(self, st: dict[str, Any], out: dict[str, Any], t: float, h: float, theta: float,
             implicit: bool) -> bool:
        """Move the working state to the located crossing (just past it).

        A fresh step of length ``theta * h`` (smooth: it ends at the switch) gives the state.
        The dense output of the step that straddled the switch is inaccurate across it, so
        when the fresh step stops short of the switch that shorter step is simply taken (False:
        no switch yet; the next substep finds it close by). Only within ``_DENSE_SPAN`` of the
        start is the dense point itself used (it is exact to rounding there)."""
        num = self._num
        r = out
        if theta < 1.0:
            r = self._substep(st, t, h * theta, implicit)
            if not implicit and (r["cross"] <= 0 or r["err"] > 1.0):
                if h * theta > _DENSE_SPAN and r["err"] <= 1.0:
                    st["x"] = r["x1"].copy()
                    st["wg"][: num.n_x] = r["xdot1"]
                    st["wg"][num.n_x:] = r["z1"]
                    return False
                d = self._call("dense")(st["x"], out["x1"], out["k"], h, theta, self.u, self.p,
                                        t, st["wg"], st["d"], st["c"])
                st["x"] = d[0].copy()
                self._refresh(st, t + h * theta)
                return True
        st["x"] = r["x1"].copy()
        st["wg"][: num.n_x] = r["xdot1"]
        st["wg"][num.n_x:] = r["z1"]
        return True

    def _check_zeno(self, st: dict[str, Any], events: int, t0: float, t: float,
                    flipped: np.ndarray) -> None:
        """Too many state events in this period, or one relation switching ``_ZENO_SWITCHES``
        times within the last ``_ZENO_COUNT`` events spanning less than ``ZENO_SPAN`` seconds:
        the event times accumulate (report instead of stepping on). Distinct relations crossing
        at nearly the same time (parallel components) do not count."""
        recent = self._recent_events
        recent.append((t, tuple(int(i) for i in flipped)))
        del recent[:-_ZENO_COUNT]
        if events > self.max_events:
            self._zeno(st, t0, t, f"more than {self.max_events} events between t={t0:.9g} s "
                                  f"and t={t:.9g} s")
        if len(recent) == _ZENO_COUNT and recent[-1][0] - recent[0][0] < ZENO_SPAN:
            counts: dict[int, int] = {}
            for _, slots in recent:
                for i in slots:
                    counts[i] = counts.get(i, 0) + 1
            if max(counts.values(), default=0) >= _ZENO_SWITCHES:
                self._zeno(st, t0, t, f"{_ZENO_COUNT} events within "
                                      f"{recent[-1][0] - recent[0][0]:.3g} s before t={t:.9g} s")

    def _zeno(self, st: dict[str, Any], t0: float, t: float, what_happened: str) -> None:
        flips = st["flips"]
        worst = [int(i) for i in np.argsort(-flips, kind="stable")[:2] if flips[i] > 0]
        what = "; ".join(f"'{self._relation_text(i)}' switched {int(flips[i])} times"
                         for i in worst)
        raise _err("modelica.events.zeno",
                   f"model {self.name}: {what_happened}: the event times accumulate "
                   f"(chattering or Zeno behaviour){': ' + what if what else ''}. The model "
                   "needs a rest condition (e.g. stop bouncing below a speed) or a smoother "
                   "switch")
