"""Integrators as CasADi functions: one call advances a whole communication step.

- ``dopri``: Dormand–Prince 5(4) with ``N`` equal substeps, first-same-as-last, propagating the
  5th-order solution; the embedded 4th-order solution gives an error estimate, reported as the
  largest scaled error ``|e_i| / (ATOL + RTOL * max(|x0_i|, |x1_i|, mag_i))`` over the substeps
  (``mag`` is the largest magnitude each state has had, so a state passing through zero is judged
  against its own scale). The participant redoes a period whose error exceeds 1 with more
  substeps, and lowers ``N`` again when the error stays small.
- ``rk4``: classic RK4 with fixed substeps (``method="rk4"``); ``implicit``: backward Euler on
  the DAE with Newton per substep (stiff models).

Every step function has the signature ``(x, u, p, t0, h, w_guess, d, c, mag) -> (x1, xdot1, z1,
residual_inf, err, cross, total)`` (``total``: the sum of ``x1``, a one-number finiteness check). ``cross`` counts how many held relations (``c``) no longer match
their literal value at the start or at any stage point, and how many kinks (``max``/``min``/
``abs``/``sign`` arguments) changed sign: a nonzero count sends the period to the event-locating
path (:mod:`luncosim_core.modelica.stepper`). The single-substep function and the dense output
(Hairer's continuous extension of order 4) serve that path.
"""

from __future__ import annotations

import casadi as ca

from luncosim_core.modelica.numerics import _NEWTON, Numerics

# Dormand & Prince (1980) 5(4) tableau; E = b5 - b4; D: dense-output coefficients (Hairer,
# Norsett & Wanner, "Solving ODEs I", DOPRI5 contd5).
_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_A = (
    (),
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
    (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
)
_E = (71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40)
_D = (-12715105075 / 11282082432, 0.0, 87487479700 / 32700410799, -10690763975 / 1880347072,
      701980252875 / 199316789632, -1453857185 / 822651844, 69997945 / 29380423)

# Local error tolerance per substep (relative to each state's scale, absolute floor).
RTOL = 3e-8
ATOL = 1e-12
# Kink arguments closer than this (relative to their size) count as equal: no sign, no crossing.
_KINK_DEADZONE = 1e-12


def point_functions(num: Numerics) -> tuple[ca.Function, ca.Function, ca.DM]:
    """``rel_lit(x, z, u, p, t, d, c)`` (literal relation values), ``kink_sign(...)`` (-1/0/1
    per kink) and the 0/1 mask of relations located during integration."""
    key = ("points", 0)
    if key not in num._cache:
        s = num.system
        args = [s.x, s.z, s.u, s.p, s.t, s.d, s.c]
        lits = [s.continuous(r.literal) for r in s.relations]
        signs = []
        for k in s.kinks:
            a, b = s.continuous(k.a), s.continuous(k.b)
            g, eps = a - b, _KINK_DEADZONE * (ca.fabs(a) + ca.fabs(b))
            signs.append(ca.if_else(g > eps, 1.0, ca.if_else(g < -eps, -1.0, 0.0)))
        lit = ca.Function("rel_lit", args, [ca.vertcat(*lits) if lits else ca.SX(0, 1)])
        ks = ca.Function("kink_sign", args, [ca.vertcat(*signs) if signs else ca.SX(0, 1)])
        mask = ca.DM([1.0 if r.monitored else 0.0 for r in s.relations])
        num._cache[key] = (lit, ks, mask)  # type: ignore[assignment]
    return num._cache[key]  # type: ignore[return-value]


class _Point:
    """Symbolic monitoring of held relations and kinks at points of one period."""

    def __init__(self, num: Numerics, um, pm, dm, cm):
        self.num = num
        self.lit, self.ks, self.mask = point_functions(num)
        self.active = bool(num.system.relations or num.system.kinks)
        self.u, self.p, self.d, self.c = um, pm, dm, cm
        self.s0 = None

    def start(self, x, z, t):
        """Count of all relations (located or not) off their held value at the start point."""
        if not self.active:
            return 0.0
        self.s0 = self.ks(x, z, self.u, self.p, t, self.d, self.c)
        if not self.num.n_c:
            return 0.0
        lits = self.lit(x, z, self.u, self.p, t, self.d, self.c)
        return ca.sum1(lits != self.c)

    def changed(self, x, z, t):
        """Located relations that flipped plus kinks whose sign reversed since the start."""
        if not self.active:
            return 0.0
        out = 0.0
        if self.num.n_c:
            lits = self.lit(x, z, self.u, self.p, t, self.d, self.c)
            out = out + ca.dot(self.mask, lits != self.c)
        if self.num.system.kinks:
            s = self.ks(x, z, self.u, self.p, t, self.d, self.c)
            out = out + ca.sum1(self.s0 * s < 0)
        return out


def _one_substep(num: Numerics, sym) -> ca.Function:
    """One Dormand–Prince substep as a function, called symbolically ``N`` times per period:
    ``(x, k1, t, hs, t1, u, p, wg, d, c, mag, s0) -> (x1, k7, z7, err, cross, k)`` with ``k1``
    the derivative at ``(x, t)`` (first same as last), ``t1 = t + hs`` exactly, ``s0`` the kink
    signs at the start of the period and ``k`` the seven stages (dense output)."""
    key = ("dopri_one", 0)
    if key not in num._cache:
        nx, nz = num.n_x, num.n_z
        xm, um, pm, tm, wg, dm, cm, mag = num.sym_args(
            sym, ("wg", nx + nz), ("d", num.n_d), ("c", num.n_c), ("mag", nx))
        k1m, hs, t1m = sym.sym("k1", nx), sym.sym("hs"), sym.sym("t1")
        s0m = sym.sym("s0", len(num.system.kinks))
        vals = num.values_function()
        mon = _Point(num, um, pm, dm, cm)
        mon.s0 = s0m
        ks = [k1m]
        xs, z, cross = xm, None, sym(0.0)
        for i in range(1, 7):
            xs = xm + hs * sum(a * ks[j] for j, a in enumerate(_A[i]) if a != 0.0)
            ts = tm + _C[i] * hs if i < 6 else t1m
            k, z = vals(xs, um, pm, ts, wg, dm, cm)
            ks.append(k)
            cross = cross + mon.changed(xs, z, ts)
        err = sym(0.0)
        if nx:
            e = hs * sum(c * ks[j] for j, c in enumerate(_E) if c != 0.0)
            scale = ATOL + RTOL * ca.fmax(ca.fmax(ca.fabs(xm), ca.fabs(xs)), mag)
            err = ca.mmax(ca.fabs(e) / scale)
        num._cache[key] = ca.Function(
            "dopri_one", [xm, k1m, tm, hs, t1m, um, pm, wg, dm, cm, mag, s0m],
            [xs, ks[6], z, err, cross, ca.vertcat(*ks)])
    return num._cache[key]


def _dopri(num: Numerics, sym, substeps: int, with_stages: bool = False) -> ca.Function:
    nx, nz = num.n_x, num.n_z
    xm, um, pm, tm, hm, wg, dm, cm, mag = num.sym_args(
        sym, ("h", 1), ("wg", nx + nz), ("d", num.n_d), ("c", num.n_c), ("mag", nx))
    one = _one_substep(num, sym)
    mon = _Point(num, um, pm, dm, cm)
    x, t, hs = xm, tm, hm / substeps
    k1, z = num.values_function()(x, um, pm, t, wg, dm, cm)
    cross = sym(0.0) + mon.start(x, z, t)
    s0 = mon.s0 if mon.s0 is not None else sym(0, 1)
    err = sym(0.0)
    k = None
    for n in range(substeps):
        t1 = tm + hm * (n + 1) / substeps
        x, k1, z, e, cr, k = one(x, k1, t, hs, t1, um, pm, wg, dm, cm, mag, s0)
        err = ca.fmax(err, e)
        cross = cross + cr
        t = t1
    xdot1, z1 = k1, z
    rinf = _residual_inf(num, sym, x, um, pm, tm + hm, xdot1, z1, dm, cm)
    outs = [x, xdot1, z1, rinf, err, cross, _total(x)]
    names = ["x1", "xdot1", "z1", "rinf", "err", "cross", "total"]
    if with_stages:
        outs.append(k)
        names.append("k")
    return ca.Function(f"dopri{substeps}", [xm, um, pm, tm, hm, wg, dm, cm, mag], outs,
                       ["x", "u", "p", "t", "h", "wg", "d", "c", "mag"], names)


def _total(x):
    """Sum of the new states: not finite exactly when some state is not (one cheap check)."""
    return ca.sum1(x) if x.numel() else type(x)(0.0)


def _residual_inf(num: Numerics, sym, x, u, p, t, xdot, z, d, c):
    """max |F| at the new point for Newton-solved models (0 when solved symbolically)."""
    if num.explicit:
        return sym(0.0)
    r = num.residual_function()(x, u, p, t, xdot, z, d, c)
    return ca.norm_inf(r) if r.numel() else sym(0.0)


def _rk4(num: Numerics, sym, substeps: int) -> ca.Function:
    nx, nz = num.n_x, num.n_z
    xm, um, pm, tm, hm, wg, dm, cm, mag = num.sym_args(
        sym, ("h", 1), ("wg", nx + nz), ("d", num.n_d), ("c", num.n_c), ("mag", nx))
    vals = num.values_function()
    mon = _Point(num, um, pm, dm, cm)

    def f(xx, tt):
        return vals(xx, um, pm, tt, wg, dm, cm)

    x, t, hs = xm, tm, hm / substeps
    k1, z = f(x, t)
    cross = sym(0.0) + mon.start(x, z, t)
    for n in range(substeps):
        k2 = f(x + hs / 2 * k1, t + hs / 2)[0]
        k3 = f(x + hs / 2 * k2, t + hs / 2)[0]
        k4 = f(x + hs * k3, t + hs)[0]
        x = x + hs / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = tm + hm * (n + 1) / substeps
        k1, z = f(x, t)
        cross = cross + mon.changed(x, z, t)
    rinf = _residual_inf(num, sym, x, um, pm, t, k1, z, dm, cm)
    return ca.Function(f"rk4_{substeps}", [xm, um, pm, tm, hm, wg, dm, cm, mag],
                       [x, k1, z, rinf, sym(0.0), cross, _total(x)])


def implicit_function(num: Numerics, substeps: int) -> ca.Function:
    """``(x, u, p, t0, h, z_guess, d, c) -> (x1, z1, residual_inf)``: backward Euler on the DAE;
    ``residual_inf`` is the largest Newton residual left over the substeps."""
    key = ("implicit", substeps)
    if key not in num._cache:
        s = num.system
        x0s, hs = ca.SX.sym("x0", num.n_x), ca.SX.sym("hs")
        unknown = ca.vertcat(s.x, s.z)
        res = ca.substitute(s.residual, s.xdot, (s.x - x0s) / hs)
        q = ca.vertcat(x0s, s.u, s.p, s.t, hs, s.d, s.c)
        g = ca.Function("g", [unknown, q], [res])
        rf = ca.rootfinder("be", "newton", g, _NEWTON)
        xm, um, pm, tm, hm, zm, dm, cm = num.sym_args(ca.MX, ("h", 1), ("z", num.n_z),
                                                      ("d", num.n_d), ("c", num.n_c))
        x, z, hsub = xm, zm, hm / substeps
        worst = ca.MX(0.0)
        for k in range(substeps):
            qk = ca.vertcat(x, um, pm, tm + hm * (k + 1) / substeps, hsub, dm, cm)
            sol = rf(ca.vertcat(x, z), qk)
            worst = ca.fmax(worst, ca.norm_inf(g(sol, qk)))
            x, z = sol[: num.n_x, 0], sol[num.n_x :, 0]
        num._cache[key] = ca.Function("implicit", [xm, um, pm, tm, hm, zm, dm, cm], [x, z, worst])
    return num._cache[key]


def _implicit(num: Numerics, substeps: int) -> ca.Function:
    nx, nz = num.n_x, num.n_z
    xm, um, pm, tm, hm, wg, dm, cm, mag = num.sym_args(
        ca.MX, ("h", 1), ("wg", nx + nz), ("d", num.n_d), ("c", num.n_c), ("mag", nx))
    vals = num.values_function()
    mon = _Point(num, um, pm, dm, cm)
    _, z0 = vals(xm, um, pm, tm, wg, dm, cm)
    cross = ca.MX(0.0) + mon.start(xm, z0, tm)
    x1, zi, be_res = implicit_function(num, substeps)(xm, um, pm, tm, hm, wg[nx:, 0], dm, cm)
    xdot1, z1 = vals(x1, um, pm, tm + hm, ca.vertcat(wg[:nx, 0], zi), dm, cm)
    cross = cross + mon.changed(x1, z1, tm + hm)
    rinf = ca.fmax(_residual_inf(num, ca.MX, x1, um, pm, tm + hm, xdot1, z1, dm, cm), be_res)
    return ca.Function(f"implicit{substeps}", [xm, um, pm, tm, hm, wg, dm, cm, mag],
                       [x1, xdot1, z1, rinf, ca.MX(0.0), cross, _total(x1)])


def step_function(num: Numerics, method: str, substeps: int) -> ca.Function:
    """One communication step, ``(x, u, p, t0, h, wg, d, c, mag) -> (x1, xdot1, z1,
    residual_inf, err, cross)`` with ``method`` in ``dopri`` / ``rk4`` / ``implicit``."""
    key = (f"step_{method}", substeps)
    if key not in num._cache:
        sym = ca.SX if num.explicit else ca.MX
        if num.n_x == 0:
            fn = _rk4(num, sym, 1) if method != "implicit" or num.explicit else _rk4(num, ca.MX, 1)
        elif method == "dopri":
            fn = _dopri(num, sym, substeps)
        elif method == "rk4":
            fn = _rk4(num, sym, substeps)
        else:
            fn = _implicit(num, substeps)
        num._cache[key] = fn
    return num._cache[key]


def substep_function(num: Numerics) -> ca.Function:
    """One Dormand–Prince step with its stages: ``(..same inputs..) -> (x1, xdot1, z1,
    residual_inf, err, cross, k)``, ``k`` the seven stage derivatives stacked (dense output)."""
    key = ("substep", 1)
    if key not in num._cache:
        num._cache[key] = _dopri(num, ca.SX if num.explicit else ca.MX, 1, with_stages=True)
    return num._cache[key]


def dense_function(num: Numerics) -> ca.Function:
    """``(x0, x1, k, h, theta, u, p, t0, wg, d, c) -> (x(theta), changed, g)``: the continuous
    extension inside one Dormand–Prince step, the count of located switches at that point and
    the crossing functions there (:func:`crossing_function`)."""
    key = ("dense", 0)
    if key not in num._cache:
        nx, nz = num.n_x, num.n_z
        sym = ca.SX if num.explicit else ca.MX
        x0, x1, km, hm, th, um, pm, tm, wg, dm, cm = (sym.sym(n, k) for n, k in (
            ("x0", nx), ("x1", nx), ("k", 7 * nx), ("h", 1), ("theta", 1), ("u", num.n_u),
            ("p", num.n_p), ("t", 1), ("wg", nx + nz), ("d", num.n_d), ("c", num.n_c)))
        k = [km[i * nx:(i + 1) * nx] for i in range(7)]
        ydiff = x1 - x0
        bspl = hm * k[0] - ydiff
        r4 = ydiff - hm * k[6] - bspl
        r5 = hm * sum(c * k[j] for j, c in enumerate(_D) if c != 0.0)
        xt = x0 + th * (ydiff + (1 - th) * (bspl + th * (r4 + (1 - th) * r5)))
        vals = num.values_function()
        mon = _Point(num, um, pm, dm, cm)
        _, z0 = vals(x0, um, pm, tm, wg, dm, cm)
        mon.start(x0, z0, tm)
        _, zt = vals(xt, um, pm, tm + th * hm, wg, dm, cm)
        changed = sym(0.0) + mon.changed(xt, zt, tm + th * hm)
        g = crossing_function(num)(xt, zt, um, pm, tm + th * hm, dm, cm)
        num._cache[key] = ca.Function("dense", [x0, x1, km, hm, th, um, pm, tm, wg, dm, cm],
                                      [xt, changed, g])
    return num._cache[key]


def crossing_function(num: Numerics) -> ca.Function:
    """``(x, z, u, p, t, d, c) -> g``: the continuous functions whose sign changes where a
    located relation (``lhs - rhs``; others 0) or a kink (``a - b``) switches, in that order."""
    key = ("crossings", 0)
    if key not in num._cache:
        s = num.system
        gs = [s.continuous(r.crossing) if r.monitored else ca.SX(0.0) for r in s.relations]
        gs += [s.continuous(k.a - k.b) for k in s.kinks]
        num._cache[key] = ca.Function("crossings", [s.x, s.z, s.u, s.p, s.t, s.d, s.c],
                                      [ca.vertcat(*gs) if gs else ca.SX(0, 1)])
    return num._cache[key]


def relation_check_function(num: Numerics) -> ca.Function:
    """``(x, u, p, t, wg, d, c) -> count`` of relations whose literal value differs from the
    held one (inputs or parameters changed at a communication point)."""
    key = ("relcheck", 0)
    if key not in num._cache:
        sym = ca.SX if num.explicit else ca.MX
        xm, um, pm, tm, wg, dm, cm = num.sym_args(sym, ("wg", num.n_x + num.n_z),
                                                  ("d", num.n_d), ("c", num.n_c))
        _, z = num.values_function()(xm, um, pm, tm, wg, dm, cm)
        lit = point_functions(num)[0](xm, z, um, pm, tm, dm, cm)
        count = ca.sum1(lit != cm) if num.n_c else sym(0.0)
        num._cache[key] = ca.Function("relcheck", [xm, um, pm, tm, wg, dm, cm], [count])
    return num._cache[key]
