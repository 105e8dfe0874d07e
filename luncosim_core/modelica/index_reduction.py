"""Index reduction for simple high-index DAEs: differentiate hidden state constraints, demote a
state to a dummy derivative.

rumoca does no index reduction. A typical index-2 case is a compliant element whose relative angle
is a state while both its ends are fixed by other states (a damper between an inertia and the
housing): the equations then imply a constraint among states, ``g(x, u, p, t) = 0``, and the Jacobian
``dF/d[xdot; z]`` is structurally singular.

The symbolic route used here (the dummy-derivative method for constraints found by elimination):

1. Solve every equation that is linear in exactly one still-unknown variable of ``[xdot; z]``
   for it, in order, substituting as we go (alias chains, explicit definitions).
2. An equation left with no unknown is a constraint ``g(x, u, p, t) = 0`` hidden in the system.
3. Add its time derivative ``dg/dx . xdot + dg/dt = 0`` (inputs are held over a step, so their
   derivative is zero) and demote one state ``x_j`` that ``g`` depends on to an algebraic variable,
   its derivative to a new algebraic *dummy derivative*. The state chosen is the first (preferring
   states without a fixed start) for which the reduced system is structurally regular.
4. Repeat while the system stays singular and a constraint is found (index 3 and above reduce one
   differentiation per pass, up to a limit).

The result is an equivalent index-1 DAE in the same :class:`~luncosim_core.modelica.dae_casadi.
DaeSystem` form. When no hidden constraint exists (a component with an unconnected connector is
under-determined, not high-index) the system is returned unchanged and the stepper reports
``modelica.index`` as before.
"""

from __future__ import annotations

import dataclasses

import casadi as ca

MAX_PASSES = 4


@dataclasses.dataclass(frozen=True)
class Reduction:
    """One demoted state: its name and the constraint differentiated for it."""

    state: str
    constraint: str


def _structurally_regular(residual: ca.SX, w: ca.SX) -> bool:
    n = residual.numel()
    if n != w.numel():
        return False
    return n == 0 or ca.sprank(ca.jacobian(residual, w).sparsity()) == n


def _hidden_constraints(system) -> list[ca.SX]:
    """Equations that, after eliminating every explicitly solvable unknown, involve no unknown."""
    w_syms = ca.vertsplit(ca.vertcat(system.xdot, system.z))
    eqs = ca.vertsplit(system.residual)
    unknown_list = list(w_syms)
    solved_sym: list[ca.SX] = []
    solved_val: list[ca.SX] = []
    used = [False] * len(eqs)
    remaining = list(range(len(unknown_list)))
    progress = True
    while progress:
        progress = False
        for i, eq in enumerate(eqs):
            if used[i]:
                continue
            e = ca.substitute([eq], solved_sym, solved_val)[0] if solved_sym else eq
            deps = [k for k in remaining if ca.depends_on(e, unknown_list[k])]
            if len(deps) != 1:
                continue
            v = unknown_list[deps[0]]
            coeff = ca.jacobian(e, v)
            if ca.depends_on(coeff, v) or coeff.is_zero():
                continue  # not linear in it
            value = ca.simplify(-ca.substitute(e, v, ca.SX(0)) / coeff)
            solved_sym.append(v)
            solved_val.append(value)
            remaining.remove(deps[0])
            used[i] = True
            progress = True
    out = []
    for i, eq in enumerate(eqs):
        if used[i]:
            continue
        e = ca.substitute([eq], solved_sym, solved_val)[0] if solved_sym else eq
        if any(ca.depends_on(e, unknown_list[k]) for k in remaining):
            continue
        if ca.depends_on(e, system.x):
            out.append(ca.simplify(e))
    return out


def _demote(system, j: int, g: ca.SX):
    """A copy of ``system`` with state ``j`` an algebraic variable and ``d/dt g = 0`` added."""
    name = system.state_names[j]
    dummy = ca.SX.sym(f"der_{j}")
    xj, xdotj = system.x[j], system.xdot[j]
    keep = [i for i in range(system.x.numel()) if i != j]
    dg = ca.mtimes(ca.jacobian(g, system.x), system.xdot) + ca.jacobian(g, system.t)
    dg = ca.substitute(dg, xdotj, dummy)
    residual = ca.vertcat(ca.substitute(system.residual, xdotj, dummy), dg)
    initial = ca.substitute(system.initial_residual, xdotj, dummy) if system.initial_residual.numel() else \
        system.initial_residual
    start = system.state_start[j] if system.state_start.numel() else ca.SX(0)
    variables = []
    for dv in system.variables:
        dv = dataclasses.replace(dv)
        if dv.role == "state" and dv.offset == j and len(dv.scalar_names) == 1:
            dv.role = "algebraic"
            dv.offset = system.z.numel()
        elif dv.role == "state" and dv.offset > j:
            dv.offset -= 1
        variables.append(dv)
    relations = [dataclasses.replace(r, literal=ca.substitute(r.literal, xdotj, dummy),
                                     crossing=ca.substitute(r.crossing, xdotj, dummy)) for r in system.relations]
    kinks = [dataclasses.replace(k, a=ca.substitute(k.a, xdotj, dummy), b=ca.substitute(k.b, xdotj, dummy))
             for k in system.kinks]
    pre = {}
    if system.xpre.numel() == system.x.numel() and system.zpre.numel() == system.z.numel() and system.xpre.numel():
        # the pre(.) symbols follow x and z
        pre = {"xpre": system.xpre[keep] if keep else ca.SX(0, 1),
               "zpre": ca.vertcat(system.zpre, system.xpre[j], ca.SX.sym(f"pre_der_{j}"))}
    return dataclasses.replace(
        system,
        relations=relations,
        kinks=kinks,
        **pre,
        x=system.x[keep] if keep else ca.SX(0, 1),
        xdot=system.xdot[keep] if keep else ca.SX(0, 1),
        z=ca.vertcat(system.z, xj, dummy),
        residual=residual,
        initial_residual=initial,
        state_names=[n for i, n in enumerate(system.state_names) if i != j],
        algebraic_names=[*system.algebraic_names, name, f"der({name})"],
        state_start=system.state_start[keep] if keep else ca.SX(0, 1),
        state_fixed=[f for i, f in enumerate(system.state_fixed) if i != j],
        algebraic_start=ca.vertcat(system.algebraic_start, start, ca.SX(0)),
        variables=variables,
    )


def reduce_index(system):
    """``(system, reductions)``: an index-1 equivalent of a simple high-index DAE (see the module
    doc), or the system unchanged with no reductions."""
    reductions: list[Reduction] = []
    for _ in range(MAX_PASSES):
        if _structurally_regular(system.residual, ca.vertcat(system.xdot, system.z)):
            return system, reductions
        best = None
        for g in _hidden_constraints(system):
            candidates = [j for j in range(system.x.numel()) if ca.depends_on(g, system.x[j])
                          and _scalar_state(system, j)]
            candidates.sort(key=lambda j: (bool(system.state_fixed[j]), -j))
            for j in candidates:
                trial = _demote(system, j, g)
                if _structurally_regular(trial.residual, ca.vertcat(trial.xdot, trial.z)):
                    best = (trial, Reduction(system.state_names[j], _readable(system, g)))
                    break
            if best is None and candidates:
                best = (_demote(system, candidates[0], g),
                        Reduction(system.state_names[candidates[0]], _readable(system, g)))
            if best is not None:
                break
        if best is None:
            return system, reductions
        system = best[0]
        reductions.append(best[1])
    return system, reductions


def _readable(system, g: ca.SX) -> str:
    """The constraint with states, inputs and parameters by name (for diagnostics)."""
    syms, names = [], []
    for vec, labels in ((system.x, system.state_names), (system.u, system.input_names), (system.p, system.param_names)):
        for i, label in enumerate(labels):
            syms.append(vec[i])
            names.append(ca.SX.sym(label))
    return str(ca.substitute([g], syms, names)[0]) if syms else str(g)


def _scalar_state(system, j: int) -> bool:
    for dv in system.variables:
        if dv.role == "state" and dv.offset <= j < dv.offset + len(dv.scalar_names):
            return len(dv.scalar_names) == 1
    return False
