"""Translate rumoca's event tables into CasADi expressions for the event iteration.

rumoca's DAE export describes events with tables that share one ``conditions`` arena:

- ``conditions``: ``initial``, ``always``, ``relation`` (an entry of ``relations``), ``discrete``
  (a Boolean expression such as ``edge(b)`` = ``b and not pre(b)``), ``clock`` (a periodic
  ``sample``), ``not`` / ``and`` / ``or`` and ``any_rise`` (``when {a, b}``: any element rises);
- ``discrete_value_owners`` (Integer/Boolean targets with ordered ``when``/``elsewhen`` branches or
  an ``always`` definition) and ``discrete_real_equations`` (``discrete Real`` residuals);
- ``event_actions``: ``reinitialize`` (``reinit``), ``assert`` / ``warning``, ``terminate``;
- ``clocks`` (periodic lattices from ``sample(start, interval)``), ``time_events`` (instants of
  ``time >= T``) and ``initial_discrete_values`` (``initial equation`` on discrete variables).

A branch ``{"when": {"trigger": T, "guard": G}}`` is active in an event iteration when condition
``T`` rises (true now, false at the previous iteration) and ``G`` holds; ``always`` is active in
every iteration. Everything here is symbolic in the system's ``x, z, u, p, t, d, dpre, xpre, zpre,
c`` plus the symbols of :class:`EventSystem` (``cpre``, ``ticks``, ``initial``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import casadi as ca

from luncosim_core.modelica.dae_casadi import TranslationError, _span

if TYPE_CHECKING:
    from luncosim_core.modelica.dae_casadi import _Translator

_EVENTS = "modelica.unsupported.events"
Span = tuple[int | None, tuple[int, int] | None]


@dataclass
class Action:
    """A ``reinit``, failed ``assert`` or ``terminate``: fires when ``active`` is 1."""

    kind: str  # "reinit" / "assert" / "warning" / "terminate"
    active: ca.SX
    state: int = -1  # reinit: the state slot
    value: ca.SX | None = None  # reinit: the new value
    message: str = ""
    span: Span = (None, None)


@dataclass
class EventSystem:
    """Conditions, discrete updates and actions of one model, plus its scheduled times."""

    cpre: ca.SX  # condition values after the previous event iteration
    ticks: ca.SX  # 1 for each clock ticking at this event instant
    initial: ca.SX  # initial() flag (1 only in the initialization event iteration)
    conditions: ca.SX  # every condition's value now
    update: ca.SX  # new discrete values given the current ones (one dependency sweep)
    actions: list[Action] = field(default_factory=list)
    clocks: list[tuple[float, float]] = field(default_factory=list)  # (first tick, interval) in s
    time_events: list[float] = field(default_factory=list)
    initial_values: dict[int, ca.SX] = field(default_factory=dict)  # discrete slot -> value(p)
    condition_spans: list[Span] = field(default_factory=list)


def _rational(r: dict[str, Any]) -> float:
    return float(r["num"]) / float(r["den"])


def _has_event_tables(st: dict[str, Any]) -> bool:
    keys = ("conditions", "discrete_real_equations", "discrete_value_owners", "event_actions",
            "clocks", "time_events", "initial_discrete_values")
    return any(st.get(k) for k in keys)


class _Builder:
    def __init__(self, tr: _Translator, relation_nodes: list[int]):
        self.tr = tr
        self.st = tr.st
        self.relation_nodes = relation_nodes
        self.entries = self.st.get("conditions") or []
        n = len(self.entries)
        self.cpre = ca.SX.sym("cpre", n)
        self.ticks = ca.SX.sym("ticks", len(self.st.get("clocks") or []))
        self.initial = ca.SX.sym("initial")
        self.memo: dict[int, ca.SX] = {}

    def fail(self, message: str, prov: Any = None) -> TranslationError:
        src, span = _span(prov)
        return TranslationError(message, span, src, code=_EVENTS)

    # -- conditions ----------------------------------------------------------------------
    def kind(self, k: int) -> str:
        node = self.entries[k].get("node")
        return node if isinstance(node, str) else next(iter(node))

    def cond(self, k: int) -> ca.SX:
        if k in self.memo:
            return self.memo[k]
        entry = self.entries[k]
        node = entry.get("node")
        if node is None:
            raise self.fail(f"condition #{k} is undefined in the compiler's export", entry.get("provenance"))
        if node == "initial":
            val = self.initial
        elif node == "always":
            val = ca.SX(1.0)
        elif isinstance(node, dict):
            (kind, arg), = node.items()
            if kind == "relation":
                val = self.tr.relation_value(self.relation_nodes[arg])
            elif kind == "discrete":
                val = self.tr.expr(arg)
            elif kind == "clock":
                val = self.ticks[arg]
            elif kind == "not":
                val = ca.logic_not(self.cond(arg))
            elif kind == "and":
                val = ca.logic_and(self.cond(arg["lhs"]), self.cond(arg["rhs"]))
            elif kind == "or":
                val = ca.logic_or(self.cond(arg["lhs"]), self.cond(arg["rhs"]))
            elif kind == "any_rise":
                val = ca.logic_or(self.rise(arg["lhs"]), self.rise(arg["rhs"]))
            else:
                raise self.fail(f"event condition kind '{kind}' is not supported", entry.get("provenance"))
        else:
            raise self.fail(f"event condition '{node}' is not supported", entry.get("provenance"))
        if val.numel() != 1:
            raise self.fail("vector-valued event conditions are not supported", entry.get("provenance"))
        self.memo[k] = val
        return val

    def rise(self, k: int) -> ca.SX:
        """Condition ``k`` became true in this iteration (``any_rise`` already is an edge)."""
        kind = self.kind(k)
        if kind in ("any_rise", "always"):
            return self.cond(k)
        return ca.logic_and(self.cond(k), ca.logic_not(self.cpre[k]))

    def activation(self, act: Any) -> ca.SX:
        if act == "always":
            return ca.SX(1.0)
        if isinstance(act, dict) and "when" in act:
            w = act["when"]
            return ca.logic_and(self.rise(w["trigger"]), self.cond(w["guard"]))
        raise self.fail(f"event activation '{act}' is not supported")

    # -- discrete variables --------------------------------------------------------------
    def disc_slot(self, var: int, prov: Any) -> int:
        dv = self.tr.vars[var]
        if dv.role not in ("discrete_real", "discrete_value"):
            raise self.fail(f"'{dv.name}' is assigned in a when-clause but is not discrete", prov)
        if dv.dims:
            raise self.fail(f"discrete array '{dv.name}' assigned in a when-clause is not supported", prov)
        return dv.offset

    def real_target(self, residual: int, prov: Any) -> tuple[int, ca.SX]:
        """(slot, value) of a ``discrete Real`` equation ``target - value = 0``."""
        node = self.tr.nodes[residual]
        if isinstance(node, dict) and "binary" in node and node["binary"]["operator"] == "subtract":
            lhs = self.tr.nodes[node["binary"]["lhs"]]
            if isinstance(lhs, dict) and "coordinate" in lhs and isinstance(lhs["coordinate"], dict):
                (ck, cv), = lhs["coordinate"].items()
                if ck == "discrete_real":
                    return self.disc_slot(cv, prov), self.tr.expr(node["binary"]["rhs"])
        r = self.tr.expr(residual)
        d = self.tr.d
        slots = [j for j in range(d.numel()) if ca.depends_on(r, d[j])]
        if len(slots) == 1:
            j = slots[0]
            a = ca.jacobian(r, d[j])
            if not ca.depends_on(a, d[j]):
                return j, ca.substitute(d[j] - r / a, d[j], ca.SX(0.0))
        raise self.fail("a discrete Real equation must read 'v = expression' for one discrete v", prov)

    def updates(self) -> ca.SX:
        n = self.tr.d.numel()
        chains: dict[int, list[tuple[ca.SX, ca.SX]]] = {}
        for owner in self.st.get("discrete_value_owners") or []:
            prov = owner.get("provenance")
            if owner.get("structure") is not None:
                raise self.fail("structured (array) when-assignments are not supported", prov)
            slots = [self.disc_slot(v, prov) for v in owner["targets"]]
            for branch in owner["branches"]:
                act = self.activation(branch["activation"])
                for slot, val in zip(slots, branch["values"], strict=True):
                    chains.setdefault(slot, []).append((act, self.tr.expr(val["value"])))
        for eq in self.st.get("discrete_real_equations") or []:
            slot, value = self.real_target(eq["residual"], eq.get("provenance"))
            chains.setdefault(slot, []).append((self.activation(eq["activation"]), value))
        out: list[ca.SX] = []
        for j in range(n):
            val = self.tr.dpre[j]  # not assigned in this iteration: keeps its value
            for act, v in reversed(chains.get(j, [])):
                if v.numel() != 1:
                    raise self.fail(f"vector value assigned to discrete '{self.tr.disc_names[j]}'")
                val = v if (act.is_constant() and float(ca.evalf(act)) == 1.0) else ca.if_else(act, v, val)
            out.append(val)
        return ca.vertcat(*out) if out else ca.SX(0, 1)

    # -- actions, clocks -----------------------------------------------------------------
    def actions(self) -> list[Action]:
        out: list[Action] = []
        for ea in self.st.get("event_actions") or []:
            prov = ea.get("provenance")
            span = _span(prov)
            (kind, body), = ea["kind"].items()
            trigger = self.rise(ea["trigger"]) if self.kind(ea["trigger"]) != "always" else ca.SX(1.0)
            active = ca.logic_and(trigger, self.cond(ea["guard"]))
            if kind == "reinitialize":
                dv = self.tr.vars[body["state"]]
                if dv.role != "state" or dv.dims:
                    raise self.fail(f"reinit() of '{dv.name}' (not a scalar state) is not supported", prov)
                out.append(Action("reinit", active, dv.offset, self.tr.expr(body["value"]), span=span))
            elif kind in ("assert", "terminate"):
                out.append(Action(kind, active, message=self.message(body.get("message")), span=span))
            elif kind == "warning":
                ok = self.tr.literal(body["condition"])
                out.append(Action("warning", ca.logic_and(active, ca.logic_not(ok)),
                                  message=self.message(body.get("message")), span=span))
            else:
                raise self.fail(f"event action '{kind}' is not supported", prov)
        return out

    def message(self, node_id: int | None) -> str:
        node = self.tr.nodes[node_id] if isinstance(node_id, int) else None
        if isinstance(node, dict) and "literal" in node and "string" in node["literal"]:
            return str(node["literal"]["string"])
        return ""

    def clocks(self) -> list[tuple[float, float]]:
        for own in self.st.get("clock_ownerships") or []:
            if own.get("sampled"):
                raise self.fail("clocked (synchronous) partitions (Clock, sample(u, clock), hold) "
                                "are not supported; use sample(start, interval) in a when-clause",
                                own.get("provenance"))
        out = []
        for clk in self.st.get("clocks") or []:
            kind = clk.get("kind") or {}
            periodic = kind.get("periodic") if isinstance(kind, dict) else None
            if not periodic or periodic.get("anchor", "absolute") != "absolute":
                raise self.fail("only periodic sample(start, interval) clocks are supported",
                                clk.get("provenance"))
            lat = periodic["lattice"]
            out.append((_rational(lat["phase"]), _rational(lat["period"])))
        return out

    def initial_values(self) -> dict[int, ca.SX]:
        out: dict[int, ca.SX] = {}
        for iv in self.st.get("initial_discrete_values") or []:
            dv = self.tr.vars[iv["target"]]
            if dv.role in ("discrete_real", "discrete_value") and not dv.dims:
                out[dv.offset] = self.tr.literal(iv["value"])
        return out


def build_events(tr: _Translator, relation_nodes: list[int]) -> EventSystem | None:
    """The model's :class:`EventSystem`, or None when it has no event tables."""
    if not _has_event_tables(tr.st) and not tr.d.numel():
        return None
    b = _Builder(tr, relation_nodes)
    conds = [b.cond(k) for k in range(len(b.entries))]
    return EventSystem(
        cpre=b.cpre, ticks=b.ticks, initial=b.initial,
        conditions=ca.vertcat(*conds) if conds else ca.SX(0, 1),
        update=b.updates(), actions=b.actions(), clocks=b.clocks(),
        time_events=[_rational(te["instant"]) for te in tr.st.get("time_events") or []],
        initial_values=b.initial_values(),
        condition_spans=[_span(e.get("provenance")) for e in b.entries],
    )
