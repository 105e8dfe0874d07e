"""Numerical form of a translated DAE: explicit ODE where possible, Newton where not.

Given ``F(xdot, x, z, u, p, t, d, c) = 0`` the unknowns ``w = [xdot; z]`` are solved once,
symbolically, block by block along the block-triangular form of ``dF/dw`` when ``F`` is linear in
``w`` (the common case: the result is a pure ``SX`` expression, fast to call). When some block is
nonlinear in ``w`` (a nonlinear algebraic loop) a CasADi Newton ``rootfinder`` solves ``w`` each
call. ``d`` (discrete variables) and ``c`` (held relation values) are constant between events and
enter every function as trailing arguments. The integrators live in
:mod:`luncosim_core.modelica.integrators`, the event iteration in
:mod:`luncosim_core.modelica.event_functions`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from luncosim_core.modelica.dae_casadi import DaeSystem

# CasADi's symbolic graphs share reference-counted nodes (cached constants among them), so
# building expressions or Functions from two threads at once is unsafe. Every symbolic
# construction (compile in a worker, step functions built on the simulation thread) holds this
# lock; numeric evaluation through prepared buffers does not need it.
CASADI_LOCK = threading.RLock()


class NumericsError(Exception):
    """The DAE cannot be put in a steppable form; ``code`` is the diagnostic code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


_NEWTON = {"abstol": 1e-10, "max_iter": 50, "error_on_fail": False, "show_eval_warnings": False}


@dataclass
class Block:
    """Equations ``rows`` solved for unknowns ``cols`` given the ``known`` unknowns."""

    rows: list[int]
    cols: list[int]
    known: list[int]
    linear: bool


def plan_blocks(F: ca.SX, w: ca.SX) -> list[Block]:
    """Order the block-triangular decomposition of ``dF/dw`` so each block's inputs are known."""
    n = w.numel()
    if n == 0:
        return []
    J = ca.jacobian(F, w)
    sp = J.sparsity()
    nb, rowperm, colperm, rowblock, colblock, _, _ = sp.btf()
    deps_of: list[set[int]] = [set() for _ in range(F.numel())]
    colind, row = sp.colind(), sp.row()
    for c in range(n):
        for r in row[colind[c] : colind[c + 1]]:
            deps_of[r].add(c)
    pending = [
        ([rowperm[k] for k in range(rowblock[b], rowblock[b + 1])],
         [colperm[k] for k in range(colblock[b], colblock[b + 1])])
        for b in range(nb)
    ]
    solved: set[int] = set()
    out: list[Block] = []
    while pending:
        ready = next((k for k, (rows, cols) in enumerate(pending)
                      if all(c in solved or c in cols
                             for c in set().union(*(deps_of[r] for r in rows)))), None)
        if ready is None:
            raise NumericsError("modelica.numerics", "block-triangular ordering failed")
        rows, cols = pending.pop(ready)
        deps = set().union(*(deps_of[r] for r in rows))
        known = sorted(deps - set(cols))
        Jb = ca.jacobian(F[rows], w[cols])
        out.append(Block(rows, cols, known, not ca.depends_on(Jb, w[cols])))
        solved.update(cols)
    return out


def _linear_block_solution(rb: ca.SX, wb: ca.SX) -> ca.SX:
    A = ca.jacobian(rb, wb)
    b0 = ca.substitute(rb, wb, ca.SX.zeros(wb.numel()))
    return -b0 / A if wb.numel() == 1 else ca.solve(A, -b0)


def _solve_blocks(F: ca.SX, w: ca.SX, blocks: list[Block]) -> ca.SX:
    """Explicit ``w`` when every block is linear in its own unknowns."""
    sol: list[ca.SX | None] = [None] * w.numel()
    for b in blocks:
        rb = F[b.rows]
        if b.known:
            rb = ca.substitute(rb, w[b.known], ca.vertcat(*[sol[k] for k in b.known]))
        xb = _linear_block_solution(rb, w[b.cols])
        for j, c in enumerate(b.cols):
            sol[c] = xb[j]
    return ca.vertcat(*sol) if sol else ca.SX(0, 1)


@dataclass
class Numerics:
    """CasADi functions for one model; shared read-only by its participants."""

    system: DaeSystem
    explicit: bool  # w solved symbolically (no Newton at run time)
    w_explicit: ca.SX | None
    blocks: list[Block]
    _cache: dict[tuple[str, int], ca.Function] = field(default_factory=dict, repr=False)

    # -- sizes and names -----------------------------------------------------------------
    @property
    def n_x(self) -> int:
        return self.system.x.numel()

    @property
    def n_z(self) -> int:
        return self.system.z.numel()

    @property
    def n_u(self) -> int:
        return self.system.u.numel()

    @property
    def n_p(self) -> int:
        return self.system.p.numel()

    @property
    def n_d(self) -> int:
        return self.system.d.numel()

    @property
    def n_c(self) -> int:
        return self.system.c.numel()

    def _args(self) -> list[ca.SX]:
        s = self.system
        return [s.x, s.u, s.p, s.t]

    def _dc(self) -> list[ca.SX]:
        return [self.system.d, self.system.c]

    def sym_args(self, sym: type, *extra: tuple[str, int]) -> list:
        """Fresh ``sym`` symbols for ``x, u, p, t`` followed by ``extra`` (name, size) pairs."""
        sizes = [("x", self.n_x), ("u", self.n_u), ("p", self.n_p), ("t", 1), *extra]
        return [sym.sym(n, k) for n, k in sizes]

    # -- functions -----------------------------------------------------------------------
    def values_function(self) -> ca.Function:
        """``(x, u, p, t, w_guess, d, c) -> (xdot, z)``; the guess seeds Newton on nonlinear
        blocks, ``d`` and ``c`` are the discrete values and held relations (constant between
        events; empty for smooth models)."""
        key = ("values", 0)
        if key not in self._cache:
            n_w = self.n_x + self.n_z
            if self.explicit:
                wg = ca.SX.sym("wg", n_w)
                w = self.w_explicit
                f = ca.Function("values", [*self._args(), wg, *self._dc()],
                                [w[: self.n_x, 0], w[self.n_x :, 0]])
            else:
                f = self._values_mx()
            self._cache[key] = f
        return self._cache[key]

    def _values_mx(self) -> ca.Function:
        """Block-wise solve: linear blocks symbolic, nonlinear blocks by Newton."""
        s = self.system
        w = ca.vertcat(s.xdot, s.z)
        F = s.residual
        xm, um, pm, tm, wgm, dm, cm = self.sym_args(ca.MX, ("wg", w.numel()), ("d", self.n_d),
                                                     ("c", self.n_c))
        sol: list[ca.MX | None] = [None] * w.numel()
        for bi, b in enumerate(self.blocks):
            wk = ca.SX.sym("wk", len(b.known))
            rb = ca.substitute(F[b.rows], w[b.known], wk) if b.known else F[b.rows]
            known_mx = ca.vertcat(*[sol[k] for k in b.known]) if b.known else ca.MX(0, 1)
            if b.linear:
                xb = _linear_block_solution(rb, w[b.cols])
                fb = ca.Function(f"block{bi}", [*self._args(), wk, *self._dc()], [xb])
                out = fb(xm, um, pm, tm, known_mx, dm, cm)
            else:
                q = ca.vertcat(s.x, s.u, s.p, s.t, wk, s.d, s.c)
                g = ca.Function(f"g{bi}", [w[b.cols], q], [rb])
                rf = ca.rootfinder(f"newton{bi}", "newton", g, _NEWTON)
                out = rf(wgm[b.cols], ca.vertcat(xm, um, pm, tm, known_mx, dm, cm))
            for j, c in enumerate(b.cols):
                sol[c] = out[j]
        wv = ca.vertcat(*sol) if sol else ca.MX(0, 1)
        return ca.Function("values", [xm, um, pm, tm, wgm, dm, cm],
                           [wv[: self.n_x, 0], wv[self.n_x :, 0]])

    def residual_function(self) -> ca.Function:
        """``(x, u, p, t, xdot, z, d, c) -> F`` to verify Newton solutions."""
        key = ("residual", 0)
        if key not in self._cache:
            s = self.system
            self._cache[key] = ca.Function("residual", [*self._args(), s.xdot, s.z, *self._dc()],
                                           [s.residual])
        return self._cache[key]

    def initial_residual_function(self) -> ca.Function:
        """``(x, u, p, t, xdot, z, d, c) -> initial-equation residuals``."""
        key = ("initial_residual", 0)
        if key not in self._cache:
            s = self.system
            self._cache[key] = ca.Function("initial_residual",
                                           [*self._args(), s.xdot, s.z, *self._dc()],
                                           [s.initial_residual])
        return self._cache[key]

    def nonlinear_unknowns(self) -> list[str]:
        """Names of the unknowns solved by Newton (nonlinear blocks)."""
        s = self.system
        names = [f"der({n})" for n in s.state_names] + list(s.algebraic_names)
        return [names[c] for b in self.blocks if not b.linear for c in b.cols]

    def state_jacobian(self) -> ca.Function:
        """``(x, u, p, t, w_guess, d, c) -> d xdot / d x``."""
        key = ("jac", 0)
        if key not in self._cache:
            sym = ca.SX if self.explicit else ca.MX
            xm, um, pm, tm, wg, dm, cm = self.sym_args(sym, ("wg", self.n_x + self.n_z),
                                                        ("d", self.n_d), ("c", self.n_c))
            xdot = self.values_function()(xm, um, pm, tm, wg, dm, cm)[0]
            self._cache[key] = ca.Function("state_jac", [xm, um, pm, tm, wg, dm, cm],
                                           [ca.jacobian(xdot, xm)])
        return self._cache[key]

    def parameter_function(self) -> ca.Function:
        """``p -> bindings(p)`` (parameters without binding map to themselves)."""
        key = ("params", 0)
        if key not in self._cache:
            s = self.system
            out = [b if b is not None else s.p[i] for i, b in enumerate(s.param_bindings)]
            self._cache[key] = ca.Function("params", [s.p], [ca.vertcat(*out) if out else ca.SX(0, 1)])
        return self._cache[key]

    def start_function(self) -> ca.Function:
        """``p -> (x_start, z_start, u_start, d_start)``; ``d_start`` includes the discrete
        values set by initial equations."""
        key = ("start", 0)
        if key not in self._cache:
            s = self.system
            d0 = s.discrete_start
            if s.events is not None and s.events.initial_values:
                d0 = ca.vertcat(*[s.events.initial_values.get(j, d0[j]) for j in range(self.n_d)])
            self._cache[key] = ca.Function("start", [s.p], [s.state_start, s.algebraic_start,
                                                             s.input_start, d0])
        return self._cache[key]

    def init_function(self, free: tuple[int, ...]) -> ca.Function:
        """``(x_start, u, p, t, guess, d, c) -> (x0, xdot0, z0)`` solving the initial equations."""
        key = ("init", hash(free))
        if key not in self._cache:
            s = self.system
            xs = ca.SX.sym("xs", self.n_x)
            fixed_idx = [i for i in range(self.n_x) if i not in free]
            xfree = ca.SX.sym("xf", len(free))
            xfull = [None] * self.n_x
            for j, i in enumerate(free):
                xfull[i] = xfree[j]
            for i in fixed_idx:
                xfull[i] = xs[i]
            xv = ca.vertcat(*xfull) if xfull else ca.SX(0, 1)
            q = ca.vertcat(xs, s.u, s.p, s.t, s.d, s.c)
            nf = len(free)
            n_guess = nf + self.n_x + self.n_z
            xm, um, pm, tm, gm, dm, cm = self.sym_args(ca.MX, ("g", n_guess),
                                                        ("d", self.n_d), ("c", self.n_c))
            if self.explicit:
                # [xdot; z] are explicit in x: Newton only on the free states
                w = ca.substitute(self.w_explicit, s.x, xv)
                eqs = ca.substitute(s.initial_residual, ca.vertcat(s.x, s.xdot, s.z),
                                    ca.vertcat(xv, w))
                g = ca.Function("g", [xfree, q], [eqs])
                rf = ca.rootfinder("init", "newton", g, _NEWTON)
                sol_x = rf(gm[:nf], ca.vertcat(xm, um, pm, tm, dm, cm))
            else:
                eqs = ca.substitute(ca.vertcat(s.residual, s.initial_residual), s.x, xv)
                unknown = ca.vertcat(xfree, s.xdot, s.z)
                g = ca.Function("g", [unknown, q], [eqs])
                rf = ca.rootfinder("init", "newton", g, _NEWTON)
                sol = rf(gm, ca.vertcat(xm, um, pm, tm, dm, cm))
                sol_x = sol[:nf]
            xout = [None] * self.n_x
            for j, i in enumerate(free):
                xout[i] = sol_x[j]
            for i in fixed_idx:
                xout[i] = xm[i]
            x0 = ca.vertcat(*xout) if xout else ca.MX(0, 1)
            if self.explicit:
                xdot0, z0 = self.values_function()(x0, um, pm, tm, gm[nf:], dm, cm)
            else:
                xdot0, z0 = sol[nf : nf + self.n_x, 0], sol[nf + self.n_x :, 0]
            f = ca.Function("init", [xm, um, pm, tm, gm, dm, cm], [x0, xdot0, z0])
            self._cache[key] = f
        return self._cache[key]

    def free_states_for_init(self) -> tuple[int, ...]:
        """States the initial equations determine (non-``fixed`` ones they refer to)."""
        s = self.system
        n_ie = s.initial_residual.numel()
        if n_ie == 0:
            return ()
        candidates = [i for i in range(self.n_x) if not s.state_fixed[i]]
        if len(candidates) == n_ie:
            return tuple(candidates)
        used = [i for i in candidates
                if ca.depends_on(s.initial_residual, s.x[i]) or ca.depends_on(s.initial_residual, s.xdot[i])]
        if len(used) == n_ie:
            return tuple(used)
        raise NumericsError(
            "modelica.initialization",
            f"{n_ie} initial equation(s) for {len(candidates)} non-fixed state(s) "
            f"({', '.join(s.state_names[i] for i in candidates) or 'none'}): cannot tell which "
            "states they determine",
        )

    def default_starts(self) -> dict[str, float]:
        """Start values (and parameter values) at default parameters, by scalar name."""
        s = self.system
        p = self.default_parameters()
        xs, zs, us, ds = (np.asarray(v, dtype=float).ravel() for v in self.start_function()(p))
        out = dict(zip(s.param_names, p.tolist(), strict=True))
        out.update(zip(s.state_names, xs.tolist(), strict=True))
        out.update(zip(s.algebraic_names, zs.tolist(), strict=True))
        out.update(zip(s.input_names, us.tolist(), strict=True))
        out.update(zip(s.discrete_names, ds.tolist(), strict=True))
        return out

    def default_parameters(self, overrides: dict[int, float] | None = None) -> np.ndarray:
        """Parameter vector with bindings evaluated to a fixed point; overrides are pinned."""
        overrides = overrides or {}
        n = self.n_p
        p = np.zeros(n)
        for i, v in overrides.items():
            p[i] = v
        f = self.parameter_function()
        for _ in range(n + 1):
            new = np.asarray(f(p), dtype=float).ravel() if n else p
            for i, v in overrides.items():
                new[i] = v
            if np.array_equal(new, p):
                break
            p = new
        return p


def build_numerics(system: DaeSystem) -> Numerics:
    """Check the DAE is square and index-1 in ``[xdot; z]`` and prepare its solve."""
    n_eq = system.residual.numel()
    w = ca.vertcat(system.xdot, system.z)
    if n_eq != w.numel():
        raise NumericsError(
            "modelica.unbalanced",
            f"{n_eq} equations for {w.numel()} unknowns ({system.x.numel()} derivatives, "
            f"{system.z.numel()} algebraics)",
        )
    if n_eq:
        J = ca.jacobian(system.residual, w)
        rank = ca.sprank(J.sparsity())
        if rank < n_eq:
            names = [f"der({n})" for n in system.state_names] + list(system.algebraic_names)
            sp = J.sparsity()
            colind = sp.colind()
            unused = [names[c] for c in range(n_eq) if colind[c + 1] == colind[c]]
            hint = (f"; not determined by any equation: {', '.join(unused[:8])}"
                    + (" ..." if len(unused) > 8 else "")) if unused else ""
            raise NumericsError(
                "modelica.index",
                f"the equations cannot be solved for the derivatives and algebraic variables "
                f"(structural rank {rank} of {n_eq}){hint}. A model with an unconnected physical "
                "connector is a component, not a standalone model; otherwise this is a "
                "high-index DAE or conflicting equations",
            )
    blocks = plan_blocks(system.residual, w)
    explicit = all(b.linear for b in blocks)
    w_exp = _solve_blocks(system.residual, w, blocks) if explicit else None
    numerics = Numerics(system, explicit, w_exp, blocks)
    numerics.free_states_for_init()  # initial equations that cannot be matched to states: refused here, at compile
    return numerics
