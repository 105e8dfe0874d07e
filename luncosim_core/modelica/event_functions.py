"""The event iteration as one CasADi function (see :mod:`luncosim_core.modelica.dae_events`).

One call is one iteration at an event instant: with the states ``x`` (their values on entry are
``pre(x)``), the discrete values of the previous iteration ``dpre`` and the held relations ``c``
it computes

1. the algebraics ``z`` and the literal value of every relation (the new held values),
2. every condition, and which ``when`` branches fire (a trigger that rose since ``cpre``),
3. the new discrete values, sweeping the discrete equations a few times so a value assigned in
   this iteration is read by the equations that use it (``when c then a = pre(a) + 1; b = a;``),
4. the ``reinit`` values and which ``assert`` / ``terminate`` actions fire.

The stepper repeats the call until discrete values, relations and conditions stop changing.
"""

from __future__ import annotations

import casadi as ca

from luncosim_core.modelica.numerics import Numerics

_MAX_SWEEPS = 8


def event_function(num: Numerics) -> ca.Function:
    """``(x, u, p, t, wg, dpre, c, cpre, ticks, flags) -> (x_new, d_new, c_new, cond, z, fired)``.

    ``flags`` is ``[initial(), terminal()]``; ``fired`` has one 0/1 entry per event action
    (``num.system.events.actions``, in order).
    """
    key = ("event", 0)
    if key in num._cache:
        return num._cache[key]
    s = num.system
    ev = s.events
    nx, nz, nd, nc = num.n_x, num.n_z, num.n_d, num.n_c
    n_cond = ev.conditions.numel() if ev is not None else 0
    n_clk = ev.ticks.numel() if ev is not None else 0
    cpre = ev.cpre if ev is not None else ca.SX.sym("cpre", 0)
    ticks = ev.ticks if ev is not None else ca.SX.sym("ticks", 0)
    initial = ev.initial if ev is not None else ca.SX.sym("initial")
    # new held relations: literal values read with pre(.) = values on entry
    pre_old = ca.vertcat(s.xpre, s.zpre, s.d)
    pre_new = ca.vertcat(s.x, s.z, s.dpre)
    lits = [ca.substitute(r.literal, pre_old, pre_new) for r in s.relations]
    c_new = ca.vertcat(*lits) if lits else ca.SX(0, 1)

    def at(expr: ca.SX, dval: ca.SX) -> ca.SX:
        old = ca.vertcat(s.c, s.xpre, s.zpre, s.d)
        new = ca.vertcat(c_new, s.x, s.z, dval)
        return ca.substitute(expr, old, new)

    cond_expr = ev.conditions if ev is not None else ca.SX(0, 1)
    update = ev.update if ev is not None else ca.SX(0, 1)
    d = s.dpre
    for _ in range(min(nd, _MAX_SWEEPS) + 1 if nd else 0):
        d = at(update, d)
    cond = at(cond_expr, d)
    fired, x_new = [], [s.x[i] for i in range(nx)]
    for a in ev.actions if ev is not None else []:
        act = at(a.active, d)
        fired.append(act)
        if a.kind == "reinit":
            x_new[a.state] = ca.if_else(act, at(a.value, d), x_new[a.state])
    core = ca.Function(
        "event_core", [s.x, s.z, s.u, s.p, s.t, s.dpre, s.c, cpre, ticks, initial, s.terminal],
        [ca.vertcat(*x_new) if x_new else ca.SX(0, 1), d, c_new, cond,
         ca.vertcat(*fired) if fired else ca.SX(0, 1)])
    sym = ca.SX if num.explicit else ca.MX
    xm, um, pm, tm, wg, dm, cm, cpm, tkm, fm = num.sym_args(
        sym, ("wg", nx + nz), ("dpre", nd), ("c", nc), ("cpre", n_cond), ("ticks", n_clk),
        ("flags", 2))
    _, z = num.values_function()(xm, um, pm, tm, wg, dm, cm)
    x1, d1, c1, cd, fr = core(xm, z, um, pm, tm, dm, cm, cpm, tkm, fm[0], fm[1])
    fn = ca.Function("event_iteration", [xm, um, pm, tm, wg, dm, cm, cpm, tkm, fm],
                     [x1, d1, c1, cd, z, fr])
    num._cache[key] = fn
    return fn
