"""Translate rumoca's flattened DAE (``Model.to_dict("dae")``) into CasADi symbols.

The DAE holds an expression DAG (``storage.expressions.nodes``) whose variadic nodes
(builtins, conditionals, arrays, calls) consume the shared ``operands`` list in node order and
whose index nodes consume ``subscripts`` the same way. Equations are residuals ``0 = r`` or
structured ``for`` domains. This module turns that into ``F(xdot, x, z, u, p, t, d, c) = 0``
with scalarized CasADi ``SX`` vectors, plus initial equations, parameter bindings and start values.
``d`` holds the discrete variables (``discrete Real``, Integer, Boolean) and ``c`` the held value of
every relation outside ``noEvent`` (Modelica keeps relations constant between events); the event
tables themselves are translated by :mod:`luncosim_core.modelica.dae_events`.
Unsupported constructs raise :class:`TranslationError` naming the construct and source span.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

# Roles rumoca assigns that we treat as continuous unknowns solved by the DAE.
_ALGEBRAIC_ROLES = ("algebraic", "output")
# DAE tables whose semantics the stepper does not implement (refused at compile).
EVENT_TABLES = {
    "model_event_transactions": "an algorithmic when-transaction",
    "previous_values": "previous() of a clocked (synchronous) partition",
    "delays": "delay()",
}
# Roles of discrete-time variables (values change only at events).
_DISCRETE_ROLES = ("discrete_real", "discrete_value")
# Relations that get a held value and a crossing function (== and <> are evaluated at events only).
_ORDERED = ("greater", "greater_equal", "less", "less_equal")
_CMP_OPS = (*_ORDERED, "equal", "not_equal")
# Built-ins whose argument is evaluated literally (no event, no held relations inside).
_NO_EVENT = ("no_event", "noEvent", "smooth")
# Continuous built-ins with a kink where these arguments cross: located to split steps there.
_KINKS = ("max", "min", "abs", "sign")


# Inside an inlined function body: (argument values, output+local values assigned so far).
FunctionEnv = tuple[list[ca.SX], list["ca.SX | None"]]


class TranslationError(Exception):
    """A DAE construct the CasADi translation does not support; ``span`` is (start, end)."""

    def __init__(self, message: str, span: tuple[int, int] | None = None, source: int | None = None,
                 code: str = "modelica.unsupported"):
        super().__init__(message)
        self.span = span
        self.source = source
        self.code = code


@dataclass
class DaeVar:
    """One declared (possibly array) variable and the scalar slots it occupies."""

    index: int
    name: str
    role: str
    dims: tuple[int, ...]
    attrs: dict[str, Any]
    scalar_names: list[str] = field(default_factory=list)
    offset: int = 0  # first slot in its role vector


@dataclass
class Relation:
    """One relation with a held value ``c[slot]``: its literal value and crossing function."""

    slot: int
    literal: ca.SX  # 0/1 at the current values (x, z, u, p, t, d, dpre, xpre, zpre)
    crossing: ca.SX  # lhs - rhs: changes sign where the relation switches
    monitored: bool  # varies during integration (depends on x, z or time): located by roots
    span: tuple[int | None, tuple[int, int] | None] = (None, None)


@dataclass
class Kink:
    """A ``max``/``min``/``abs``/``sign`` whose arguments cross during integration (``a - b``)."""

    a: ca.SX
    b: ca.SX
    span: tuple[int | None, tuple[int, int] | None] = (None, None)


@dataclass
class DaeSystem:
    """The DAE as CasADi symbols and expressions (all column vectors)."""

    t: ca.SX
    x: ca.SX
    xdot: ca.SX
    z: ca.SX
    u: ca.SX
    p: ca.SX
    residual: ca.SX  # F(xdot, x, z, u, p, t, d, c)
    initial_residual: ca.SX  # initial equations, same arguments
    state_names: list[str]
    algebraic_names: list[str]
    input_names: list[str]
    param_names: list[str]
    param_bindings: list[ca.SX | None]  # binding expr in terms of p (None: no binding)
    param_kinds: list[str]  # "real" / "integer" / "boolean"
    state_start: ca.SX  # in terms of p
    state_fixed: list[bool]
    algebraic_start: ca.SX
    input_start: ca.SX
    variables: list[DaeVar]
    d: ca.SX = field(default_factory=lambda: ca.SX(0, 1))  # discrete variables
    c: ca.SX = field(default_factory=lambda: ca.SX(0, 1))  # held relation values (0/1)
    dpre: ca.SX = field(default_factory=lambda: ca.SX(0, 1))  # pre(d)
    xpre: ca.SX = field(default_factory=lambda: ca.SX(0, 1))  # pre(x) at event entry
    zpre: ca.SX = field(default_factory=lambda: ca.SX(0, 1))  # pre(z) at event entry
    terminal: ca.SX = field(default_factory=lambda: ca.SX.sym("terminal"))  # terminal() flag
    discrete_names: list[str] = field(default_factory=list)
    discrete_kinds: list[str] = field(default_factory=list)  # "real" / "integer" / "boolean"
    discrete_start: ca.SX = field(default_factory=lambda: ca.SX(0, 1))  # in terms of p
    relations: list[Relation] = field(default_factory=list)
    kinks: list[Kink] = field(default_factory=list)
    events: Any = None  # dae_events.EventSystem when the model has event semantics
    sources: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (file name, text)

    def source_text(self, source: int | None, span: tuple[int, int] | None) -> str:
        """The source text of a span (e.g. a relation ``h <= 0``), or "" when unknown."""
        if source in self.sources and span is not None:
            return " ".join(self.sources[source][1][span[0]:span[1]].split())
        return ""

    def location(self, span: tuple[int | None, tuple[int, int] | None]) -> str:
        """`` (File.mo:line)`` for a provenance span, or ""."""
        source, rng = span
        if source in self.sources and rng is not None:
            name, text = self.sources[source]
            return f" ({name.replace(chr(92), '/').rsplit('/', 1)[-1]}:{text.count(chr(10), 0, rng[0]) + 1})"
        return ""

    @property
    def has_events(self) -> bool:
        """Discrete variables, held relations or event tables: needs the event-aware stepper."""
        return bool(self.d.numel() or self.relations or self.events is not None)

    def continuous(self, expr: ca.SX) -> ca.SX:
        """``expr`` between events: pre values equal current values, terminal() is false."""
        old = ca.vertcat(self.dpre, self.xpre, self.zpre, self.terminal)
        new = ca.vertcat(self.d, self.x, self.z, ca.SX(0.0))
        return ca.substitute(expr, old, new) if ca.depends_on(expr, old) else expr


def _span(prov: Any) -> tuple[int | None, tuple[int, int] | None]:
    if isinstance(prov, dict) and isinstance(prov.get("span"), dict):
        s = prov["span"]
        return s.get("source"), (int(s.get("start", 0)), int(s.get("end", 0)))
    return None, None


def _scalar_names(name: str, dims: tuple[int, ...]) -> list[str]:
    if not dims:
        return [name]
    return [
        f"{name}[{','.join(str(i + 1) for i in idx)}]"
        for idx in itertools.product(*(range(d) for d in dims))
    ]


def _shape(mat: ca.SX, dims: tuple[int, ...]) -> ca.SX:
    """Row-major scalar vector -> CasADi value with Modelica shape (vectors are columns)."""
    if len(dims) <= 1:
        return mat
    if len(dims) == 2:
        r, c = dims
        return ca.reshape(mat, c, r).T
    raise TranslationError(f"arrays with {len(dims)} dimensions are not supported")


def _flatten(val: ca.SX) -> list[ca.SX]:
    """Row-major scalars of a CasADi value."""
    if val.shape[1] == 1:
        return [val[i] for i in range(val.shape[0])]
    return [val[i, j] for i in range(val.shape[0]) for j in range(val.shape[1])]


def _const_int(val: ca.SX, what: str) -> int:
    if val.numel() != 1 or not val.is_constant():
        raise TranslationError(f"{what} is not a constant integer")
    return int(round(float(ca.evalf(val))))


_UNARY_FUNCS = {
    "sin": ca.sin, "cos": ca.cos, "tan": ca.tan, "asin": ca.asin, "acos": ca.acos,
    "atan": ca.atan, "sinh": ca.sinh, "cosh": ca.cosh, "tanh": ca.tanh, "exp": ca.exp,
    "log": ca.log, "log10": ca.log10, "sqrt": ca.sqrt, "abs": ca.fabs, "sign": ca.sign,
    "floor": ca.floor, "ceil": ca.ceil,
}


def _rem(a: ca.SX, b: ca.SX) -> ca.SX:
    q = a / b
    return a - ca.sign(q) * ca.floor(ca.fabs(q)) * b


def _div(a: ca.SX, b: ca.SX) -> ca.SX:
    q = a / b
    return ca.sign(q) * ca.floor(ca.fabs(q))


#: built-ins computed from their translated operands alone
_OPERAND_BUILTINS = {
    "no_event": lambda ops: ops[0], "noEvent": lambda ops: ops[0], "smooth": lambda ops: ops[-1],
    "homotopy": lambda ops: ops[0], "atan2": lambda ops: ca.atan2(ops[0], ops[1]),
    "sum": lambda ops: ca.sum1(ca.vec(ops[0])), "integer": lambda ops: ca.floor(ops[0]),
    "Integer": lambda ops: ca.floor(ops[0]),
    "mod": lambda ops: ops[0] - ca.floor(ops[0] / ops[1]) * ops[1],
    "rem": lambda ops: _rem(ops[0], ops[1]), "div": lambda ops: _div(ops[0], ops[1]),
    "promoted_cat2": lambda ops: ca.horzcat(*[o.T if o.shape[1] == 1 and o.shape[0] > 1 else o for o in ops]),
    "promoted_cat1": lambda ops: ca.vertcat(*ops),
}


class _Translator:
    def __init__(self, dae: dict[str, Any]):
        self.st = dae["storage"]
        ex = self.st["expressions"]
        self.nodes: list[dict[str, Any]] = ex["nodes"]
        self.prov: list[Any] = ex.get("provenance", [])
        operands: list[int] = ex.get("operands", [])
        subscripts: list[dict[str, Any]] = ex.get("subscripts", [])
        self.node_operands: dict[int, list[int]] = {}
        self.node_subscripts: dict[int, list[dict[str, Any]]] = {}
        oc = sc = 0
        for i, node in enumerate(self.nodes):
            payload = next(iter(node.values())) if isinstance(node, dict) else None
            if isinstance(payload, dict):
                n = payload.get("operand_count")
                if isinstance(n, int):
                    self.node_operands[i] = operands[oc : oc + n]
                    oc += n
                n = payload.get("subscript_count")
                if isinstance(n, int):
                    self.node_subscripts[i] = subscripts[sc : sc + n]
                    sc += n
        self.value_types = self.st["value_types"]
        self.domains = self.st.get("domains", [])
        self.functions = self.st.get("functions", [])
        self.t = ca.SX.sym("time")
        self.cache: dict[tuple[int, bool], ca.SX] = {}
        # Held relations: node ids whose value is c[slot] between events (``hold`` on), and
        # kink built-ins whose switching points are located; filled by scan_event_nodes().
        self.hold = True
        self.relation_nodes: set[int] = set()
        self.kink_nodes: set[int] = set()
        self.relation_slot: dict[tuple[int, tuple[tuple[Any, int], ...]], int] = {}
        self.relations: list[Relation] = []
        self.c_syms: list[ca.SX] = []
        self.kinks: list[Kink] = []
        self._kink_seen: set[tuple[int, tuple[tuple[Any, int], ...]]] = set()
        self._build_variables()

    # -- variables -----------------------------------------------------------------------
    def _build_variables(self) -> None:
        self.vars: list[DaeVar] = []
        groups: dict[str, list[DaeVar]] = {"state": [], "alg": [], "input": [], "param": [],
                                           "disc": []}
        for i, v in enumerate(self.st["variables"]):
            vt = self.value_types[v["value_type"]]
            dims = tuple(int(d) for d in vt.get("dimensions") or [])
            dv = DaeVar(i, v["name"], v["role"], dims, v.get("attributes", {}))
            dv.scalar_names = _scalar_names(dv.name, dims)
            self.vars.append(dv)
            role = v["role"]
            if role == "state":
                groups["state"].append(dv)
            elif role in _ALGEBRAIC_ROLES:
                groups["alg"].append(dv)
            elif role == "input":
                groups["input"].append(dv)
            elif role in _DISCRETE_ROLES:
                if vt.get("scalar") == "string":
                    _, span = _span(v.get("declaration"))
                    raise TranslationError(f"discrete String variable '{dv.name}' is not supported", span)
                groups["disc"].append(dv)
            elif role in ("parameter", "constant"):
                if vt.get("scalar") == "string":
                    continue  # String parameters only label things; using one in math is refused
                groups["param"].append(dv)
            else:
                _, span = _span(v.get("declaration"))
                raise TranslationError(
                    f"variable '{dv.name}' has role '{role}', which the stepper does not support",
                    span,
                )
        self.groups = groups
        sym: dict[str, ca.SX] = {}
        for key, prefix in (("state", "x"), ("alg", "z"), ("input", "u"), ("param", "p"),
                            ("disc", "d")):
            names: list[str] = []
            for dv in groups[key]:
                dv.offset = len(names)
                names.extend(dv.scalar_names)
            sym[key] = ca.SX.sym(prefix, len(names))
            setattr(self, f"{key}_names", names)
        self.x, self.z, self.u, self.p = sym["state"], sym["alg"], sym["input"], sym["param"]
        self.d = sym["disc"]
        self.xdot = ca.SX.sym("xdot", self.x.numel())
        self.dpre = ca.SX.sym("dpre", self.d.numel())
        self.xpre = ca.SX.sym("xpre", self.x.numel())
        self.zpre = ca.SX.sym("zpre", self.z.numel())
        self.terminal = ca.SX.sym("terminal")
        self.var_value: dict[int, ca.SX] = {}
        self.der_value: dict[int, ca.SX] = {}
        self.pre_value: dict[int, ca.SX] = {}
        vec = {"state": self.x, "alg": self.z, "input": self.u, "param": self.p, "disc": self.d}
        pre = {"state": self.xpre, "alg": self.zpre, "disc": self.dpre}
        for key, group in groups.items():
            for dv in group:
                n = len(dv.scalar_names)
                self.var_value[dv.index] = _shape(vec[key][dv.offset : dv.offset + n], dv.dims)
                if key in pre:
                    self.pre_value[dv.index] = _shape(pre[key][dv.offset : dv.offset + n], dv.dims)
                if key == "state":
                    self.der_value[dv.index] = _shape(
                        self.xdot[dv.offset : dv.offset + n], dv.dims
                    )

    # -- expressions ---------------------------------------------------------------------
    def _node_span(self, node_id: int) -> tuple[tuple[int, int] | None, int | None]:
        src, span = _span(self.prov[node_id]) if node_id < len(self.prov) else (None, None)
        return span, src

    def err(self, node_id: int, message: str) -> TranslationError:
        src, span = _span(self.prov[node_id]) if node_id < len(self.prov) else (None, None)
        return TranslationError(message, span, src)

    def expr(self, node_id: int, env: dict[tuple[int, int], int] | None = None,
             fenv: FunctionEnv | None = None) -> ca.SX:
        key = (node_id, self.hold)
        if not env and fenv is None and key in self.cache:
            return self.cache[key]
        val = self._expr(node_id, env or {}, fenv)
        if not env and fenv is None:
            self.cache[key] = val
        return val

    def literal(self, node_id: int) -> ca.SX:
        """The value of ``node_id`` with relations evaluated as written (no held values)."""
        hold, self.hold = self.hold, False
        try:
            return self.expr(node_id)
        finally:
            self.hold = hold

    # -- event surfaces ------------------------------------------------------------------
    def children(self, i: int) -> list[int]:
        """Operand node ids of node ``i`` (for scans of the expression DAG)."""
        node = self.nodes[i] if 0 <= i < len(self.nodes) else None
        if not isinstance(node, dict):
            return []
        kind, payload = next(iter(node.items()))
        if kind in ("binary", "runtime_quotient_owner"):
            return [payload["lhs"], payload["rhs"]]
        if kind == "unary":
            return [payload["operand"]]
        if kind == "index":
            subs = [next(iter(s["kind"].values())) for s in self.node_subscripts.get(i, [])]
            return [payload["base"], *[v for v in subs if isinstance(v, int)]]
        if kind == "call":
            return list(self.node_operands.get(i) or self.node_operands.get(payload.get("owner", i), []))
        return list(self.node_operands.get(i, []))

    def scan_event_nodes(self, roots: list[int], relations: list[int]) -> None:
        """Relations (rumoca's table plus ordered comparisons in ``roots`` outside ``noEvent``)
        get held values; ``max``/``min``/``abs``/``sign`` reached outside ``noEvent`` are kinks."""
        self.relation_nodes.update(relations)
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen or not 0 <= i < len(self.nodes):
                continue
            seen.add(i)
            node = self.nodes[i]
            if not isinstance(node, dict):
                continue
            kind, payload = next(iter(node.items()))
            if kind == "builtin" and payload.get("builtin") in _NO_EVENT:
                continue
            if kind == "binary" and payload.get("operator") in _ORDERED:
                self.relation_nodes.add(i)
            if kind == "builtin" and payload.get("builtin") in _KINKS:
                self.kink_nodes.add(i)
            stack.extend(self.children(i))

    def _continuous_time(self, e: ca.SX) -> bool:
        return bool(ca.depends_on(e, ca.vertcat(self.x, self.z, self.t)))

    def held_relation(self, i: int, env: dict[tuple[int, int], int], value: ca.SX,
                      lhs: ca.SX, rhs: ca.SX, op: str) -> ca.SX:
        """``c[slot]`` standing for relation node ``i`` (one slot per for-loop instance)."""
        key = (i, tuple(sorted(env.items())))
        slot = self.relation_slot.get(key)
        if slot is None:
            slot = len(self.relations)
            crossing = lhs - rhs
            self.relation_slot[key] = slot
            self.c_syms.append(ca.SX.sym(f"c{slot}"))
            self.relations.append(Relation(
                slot, value, crossing, op in _ORDERED and self._continuous_time(crossing),
                _span(self.prov[i]) if i < len(self.prov) else (None, None)))
        return self.c_syms[slot]

    def relation_value(self, node_id: int) -> ca.SX:
        """The held value of a relation node outside any loop (``when`` conditions)."""
        hold, self.hold = self.hold, True
        try:
            self.relation_nodes.add(node_id)
            return self.expr(node_id)
        finally:
            self.hold = hold

    def _expr(self, i: int, env: dict[tuple[int, int], int], fenv: FunctionEnv | None) -> ca.SX:
        if not 0 <= i < len(self.nodes):
            raise TranslationError(
                f"the compiler's DAE export references missing expression #{i} "
                f"(it has {len(self.nodes)}); this is a rumoca export defect for this model")
        node = self.nodes[i]
        if isinstance(node, str):
            raise self.err(i, f"unsupported expression '{node}'")
        kind, payload = next(iter(node.items()))
        handler = _EXPR_KINDS.get(kind)
        if handler is None or (kind == "function_value" and fenv is None):
            raise self.err(i, f"unsupported expression kind '{kind}'")
        return handler(self, i, payload, env, fenv)

    # one translation per expression kind (dispatched by _EXPR_KINDS)
    def _x_literal(self, i: int, payload, env, fenv) -> ca.SX:
        (lk, lv), = payload.items()
        if lk in ("real", "integer"):
            return ca.SX(float(lv))
        if lk == "boolean":
            return ca.SX(1.0 if lv else 0.0)
        raise self.err(i, f"unsupported literal of type '{lk}' (e.g. String) in an equation")

    def _x_binary(self, i: int, payload, env, fenv) -> ca.SX:
        a, b = self.expr(payload["lhs"], env, fenv), self.expr(payload["rhs"], env, fenv)
        op = payload["operator"]
        val = self._binary(i, op, a, b)
        if (self.hold and fenv is None and op in _CMP_OPS and i in self.relation_nodes
                and val.numel() == 1):
            return self.held_relation(i, env, val, a, b, op)
        return val

    def _x_unary(self, i: int, payload, env, fenv) -> ca.SX:
        a = self.expr(payload["operand"], env, fenv)
        op = payload["operator"]
        if op == "negate":
            return -a
        if op == "plus":
            return a
        if op == "not":
            return ca.logic_not(a)
        raise self.err(i, f"unsupported unary operator '{op}'")

    def _operands(self, i: int, env, fenv) -> list[ca.SX]:
        return [self.expr(j, env, fenv) for j in self.node_operands[i]]

    def _x_conditional(self, i: int, payload, env, fenv) -> ca.SX:
        ops = self._operands(i, env, fenv)
        result = ops[-1]
        for k in range(len(ops) - 3, -1, -2):
            result = ca.if_else(ops[k], ops[k + 1], result)
        return result

    def _x_builtin(self, i: int, payload, env, fenv) -> ca.SX:
        ops = self._operands(i, env, fenv)
        if self.hold and fenv is None and i in self.kink_nodes:
            self._note_kink(i, env, payload["builtin"], ops)
        return self._builtin(i, payload["builtin"], ops)

    def _x_quotient(self, i: int, payload, env, fenv) -> ca.SX:
        a, b = self.expr(payload["lhs"], env, fenv), self.expr(payload["rhs"], env, fenv)
        return self._builtin(i, payload["builtin"], [a, b])

    def _x_array(self, i: int, payload, env, fenv) -> ca.SX:
        ops = self._operands(i, env, fenv)
        if all(o.numel() == 1 for o in ops):
            return ca.vertcat(*ops)
        if all(o.shape[1] == 1 for o in ops):  # {{a,b},{c,d}} -> matrix rows
            return ca.horzcat(*ops).T
        raise self.err(i, "array constructor of matrices is not supported")

    def _x_index(self, i: int, payload, env, fenv) -> ca.SX:
        base = self.expr(payload["base"], env, fenv)
        idx = [self._subscript(i, s, env, fenv) for s in self.node_subscripts[i]]
        try:
            if len(idx) == 1:
                if base.shape[1] > 1 and base.shape[0] > 1:  # a matrix row, as a vector
                    return base[idx[0], :].T
                return base[idx[0]]
            if len(idx) == 2:
                return base[idx[0], idx[1]]
        except Exception as exc:  # casadi raises RuntimeError for out-of-range
            raise self.err(i, f"array subscript out of range: {exc}") from None
        raise self.err(i, "more than two subscripts are not supported")

    def _subscript(self, i: int, s: dict, env, fenv) -> int:
        """A constant (0-based) subscript; parameters are evaluated at their defaults."""
        sk, sv = next(iter(s["kind"].items()))
        if sk != "index":
            raise self.err(i, f"unsupported subscript kind '{sk}' (slices are not supported)")
        sval = self.expr(sv, env, fenv)
        if not sval.is_constant() and not ca.depends_on(sval, ca.vertcat(self.x, self.xdot, self.z, self.u, self.t)):
            sval = ca.substitute(sval, self.p, self.parameter_defaults())
        return _const_int(sval, "array subscript") - 1

    def _x_call(self, i: int, payload, env, fenv) -> ca.SX:
        owner = payload.get("owner", i)
        operands = self.node_operands.get(i) or self.node_operands.get(owner, [])
        return self._call(i, payload, [self.expr(j, env, fenv) for j in operands])

    def _x_function_value(self, i: int, payload, env, fenv) -> ca.SX:
        val = fenv[1][payload["value"]]
        if val is None:
            raise self.err(i, "function variable read before it is assigned")
        return val

    def _note_kink(self, i: int, env: dict[tuple[int, int], int], name: str,
                   ops: list[ca.SX]) -> None:
        key = (i, tuple(sorted(env.items())))
        if key in self._kink_seen or not ops or any(o.numel() != 1 for o in ops):
            return
        self._kink_seen.add(key)
        if name in ("max", "min") and len(ops) != 2:
            return
        a, b = ops[0], (ops[1] if len(ops) > 1 else ca.SX(0.0))
        if self._continuous_time(a - b):
            self.kinks.append(Kink(a, b, _span(self.prov[i]) if i < len(self.prov) else (None, None)))

    def parameter_defaults(self) -> ca.DM:
        """Numeric parameter values from their bindings (for structural uses like subscripts)."""
        if getattr(self, "_p_defaults", None) is None:
            vals: list[ca.SX] = []
            for dv in self.groups["param"]:
                key = "binding" if dv.attrs.get("binding") is not None else "start"
                vals.extend(self.attr_value(dv, key, 0.0))
            expr = ca.vertcat(*vals) if vals else ca.SX(0, 1)
            f = ca.Function("param_defaults", [self.p], [expr])
            p = ca.DM.zeros(self.p.numel())
            for _ in range(self.p.numel() + 1):
                new = f(p)
                if float(ca.norm_inf(new - p)) == 0.0:
                    break
                p = new
            self._p_defaults = p
        return self._p_defaults

    def _coordinate(self, i: int, payload: Any, env: dict[tuple[int, int], int],
                    fenv: FunctionEnv | None) -> ca.SX:
        if payload == "time":
            return self.t
        if not isinstance(payload, dict):
            raise self.err(i, f"unsupported reference '{payload}'")
        (ck, cv), = payload.items()
        if ck in ("state", "algebraic", "input", "parameter", "output", "constant",
                  "discrete_real", "discrete_value"):
            if cv not in self.var_value:
                name = self.st["variables"][cv]["name"] if cv < len(self.st["variables"]) else f"#{cv}"
                raise self.err(i, f"'{name}' cannot be used in an equation (String or "
                                  "unsupported variable kind)")
            return self.var_value[cv]
        if ck == "derivative":
            if cv not in self.der_value:
                name = self.vars[cv].name
                raise self.err(i, f"der({name}) of a non-state variable is not supported")
            return self.der_value[cv]
        if ck in ("pre_state", "pre_algebraic", "pre_discrete_real", "pre_discrete_value"):
            if cv not in self.pre_value:
                raise self.err(i, f"pre() of '{self.vars[cv].name}' is not supported")
            return self.pre_value[cv]
        if ck == "terminal":
            return self.terminal
        if ck == "delay":
            raise TranslationError("delay() is not supported by the stepper",
                                   *self._node_span(i), code="modelica.unsupported.events")
        if ck in ("previous", "clock_interval", "condition"):
            raise TranslationError(f"'{ck}' references (clocked, synchronous Modelica) are not "
                                   "supported by the stepper", *self._node_span(i),
                                   code="modelica.unsupported.events")
        if ck == "binder":
            key = (cv["domain"], cv["ordinal"])
            if key not in env:
                raise self.err(i, "loop index used outside its for-loop")
            return ca.SX(float(env[key]))
        if ck == "function_parameter" and fenv is not None:
            return fenv[0][cv["ordinal"]]
        raise self.err(i, f"unsupported reference kind '{ck}'")

    def _binary(self, i: int, op: str, a: ca.SX, b: ca.SX) -> ca.SX:
        if op in ("add", "elem_add", "add_elementwise"):
            return a + b
        if op in ("subtract", "elem_subtract", "subtract_elementwise"):
            return a - b
        if op == "multiply":
            if a.numel() == 1 or b.numel() == 1:
                return a * b
            if a.shape[1] == 1 and b.shape[1] == 1:
                return ca.dot(a, b)
            return ca.mtimes(a, b)
        if op in ("elem_multiply", "multiply_elementwise"):
            return a * b
        if op in ("divide", "elem_divide", "divide_elementwise"):
            return a / b
        if op in ("power", "elem_power", "power_elementwise"):
            return a**b
        cmp = {
            "greater": ca.gt, "greater_equal": ca.ge, "less": ca.lt, "less_equal": ca.le,
            "equal": ca.eq, "not_equal": ca.ne, "and": ca.logic_and, "or": ca.logic_or,
        }
        if op in cmp:
            return cmp[op](a, b)
        raise self.err(i, f"unsupported binary operator '{op}'")

    def _builtin(self, i: int, name: str, ops: list[ca.SX]) -> ca.SX:
        if name in _UNARY_FUNCS and len(ops) == 1:
            return _UNARY_FUNCS[name](ops[0])
        if name in _OPERAND_BUILTINS:
            return _OPERAND_BUILTINS[name](ops)
        if name in ("max", "min"):
            f = ca.fmax if name == "max" else ca.fmin
            if len(ops) == 1:
                vals = _flatten(ops[0])
                out = vals[0]
                for v in vals[1:]:
                    out = f(out, v)
                return out
            return f(ops[0], ops[1])
        if name in ("pre", "edge", "change", "sample", "initial", "terminal", "reinit", "delay"):
            raise TranslationError(f"{name}() in this position is not supported by the stepper",
                                   *self._node_span(i), code="modelica.unsupported.events")
        raise self.err(i, f"unsupported built-in function '{name}'")

    def _call(self, i: int, payload: dict[str, Any], args: list[ca.SX]) -> ca.SX:
        fn = self.functions[payload["function"]]
        if fn.get("external"):
            raise self.err(i, f"external function '{fn['name']}' is not supported")
        n_out = len(fn["outputs"])
        values: list[ca.SX | None] = [None] * (n_out + len(fn.get("locals", [])))
        for stmt in fn.get("statements", []):
            (sk, sv), = stmt.items()
            if sk != "assignment":
                raise self.err(i, f"function '{fn['name']}': '{sk}' statements are not supported")
            values[sv["target"]] = self.expr(sv["rhs"], None, (list(args), values))
        out = values[payload.get("output", 0) or 0]
        if out is None:
            raise self.err(i, f"function '{fn['name']}' never assigns the output used here")
        return out

    # -- equations -----------------------------------------------------------------------
    def _binder_envs(self, domain_id: int) -> list[dict[tuple[int, int], int]]:
        chain = []
        d: int | None = domain_id
        while d is not None:
            chain.append(d)
            d = self.domains[d].get("parent")
        axes: list[tuple[tuple[int, int], list[int]]] = []
        for did in reversed(chain):
            dom = self.domains[did]["domain"]
            for ordinal, b in enumerate(dom.get("binders", [])):
                step = int(b.get("step", 1) or 1)
                rng = list(range(int(b["lower"]), int(b["upper"]) + (1 if step > 0 else -1), step))
                axes.append(((did, ordinal), rng))
        envs = []
        for combo in itertools.product(*(r for _, r in axes)):
            envs.append({k: v for (k, _), v in zip(axes, combo, strict=True)})
        return envs

    def equations(self, ops: list[dict[str, Any]]) -> list[ca.SX]:
        out: list[ca.SX] = []
        for op in ops:
            (kind, body), = op.items()
            if kind == "residual":
                out.extend(_flatten(self.expr(body["residual"])))
            elif kind == "structured":
                envs = self._binder_envs(body["domain"])
                for env in envs:
                    for b in body["bodies"]:
                        val = self.expr(b, env)
                        if val.numel() == 1:
                            out.append(val)
                        else:
                            idx = [v - 1 for v in env.values()]
                            flat = _flatten(val)
                            shape = (val.shape[0],) if val.shape[1] == 1 else val.shape
                            pos = int(np.ravel_multi_index(tuple(idx[-len(shape):]), shape))
                            out.append(flat[pos])
            else:
                src, span = _span(body.get("provenance") if isinstance(body, dict) else None)
                raise TranslationError(f"unsupported equation kind '{kind}'", span, src)
        return out

    def attr_value(self, dv: DaeVar, key: str, default: float) -> list[ca.SX]:
        """Scalarized attribute expression (start/binding) broadcast to the variable size."""
        node = dv.attrs.get(key)
        n = len(dv.scalar_names)
        if node is None:
            return [ca.SX(default)] * n
        val = self.literal(node)
        flat = _flatten(val)
        if len(flat) == 1:
            return flat * n
        if len(flat) != n:
            raise TranslationError(f"{key} of '{dv.name}' has {len(flat)} values for {n} elements")
        return flat


#: expression kinds of the DAE export and their translations
_EXPR_KINDS = {
    "literal": _Translator._x_literal, "coordinate": _Translator._coordinate, "binary": _Translator._x_binary,
    "unary": _Translator._x_unary, "conditional": _Translator._x_conditional, "builtin": _Translator._x_builtin,
    "runtime_quotient_owner": _Translator._x_quotient, "array": _Translator._x_array,
    "index": _Translator._x_index, "call": _Translator._x_call, "function_value": _Translator._x_function_value,
}


def _equation_roots(ops: list[dict[str, Any]]) -> list[int]:
    roots: list[int] = []
    for op in ops:
        (kind, body), = op.items()
        if kind == "residual":
            roots.append(body["residual"])
        elif kind == "structured":
            roots.extend(body.get("bodies", []))
    return roots


def translate(dae: dict[str, Any]) -> DaeSystem:
    """Translate a rumoca DAE dict into a :class:`DaeSystem` (raises :class:`TranslationError`)."""
    from luncosim_core.modelica.dae_events import build_events

    tr = _Translator(dae)
    st = tr.st
    cont_ops = st.get("continuous_equation_operations", [])
    relation_nodes = [r["relation"]["expression"] for r in st.get("relations") or []]
    tr.scan_event_nodes(_equation_roots(cont_ops), relation_nodes)
    residual = tr.equations(cont_ops)
    initial = tr.equations(st.get("initialization_equation_operations", []))
    events = build_events(tr, relation_nodes)
    for node in relation_nodes:  # when-conditions and rumoca's discontinuity surfaces
        tr.relation_value(node)
    bindings: list[ca.SX | None] = []
    kinds: list[str] = []
    for dv in tr.groups["param"]:
        scalar = tr.value_types[st["variables"][dv.index]["value_type"]].get("scalar", "real")
        if dv.attrs.get("binding") is None:
            vals: list[ca.SX | None] = [None] * len(dv.scalar_names)
            if dv.attrs.get("start") is not None:
                vals = list(tr.attr_value(dv, "start", 0.0))
        else:
            vals = list(tr.attr_value(dv, "binding", 0.0))
        bindings.extend(vals)
        kinds.extend([scalar] * len(dv.scalar_names))
    fixed: list[bool] = []
    for dv in tr.groups["state"]:
        f = dv.attrs.get("fixed")
        flags = [bool(v) for v in f] if isinstance(f, list) else []
        n = len(dv.scalar_names)
        fixed.extend(flags * n if len(flags) == 1 else (flags + [False] * n)[:n])

    def starts(group: str) -> ca.SX:
        vals: list[ca.SX] = []
        for dv in tr.groups[group]:
            # an input's declaration equation (`input Real u = 2`) is its default value
            key = "binding" if group == "input" and dv.attrs.get("binding") is not None else "start"
            vals.extend(tr.attr_value(dv, key, 0.0))
        return ca.vertcat(*vals) if vals else ca.SX(0, 1)

    d_kinds: list[str] = []
    for dv in tr.groups["disc"]:
        scalar = tr.value_types[st["variables"][dv.index]["value_type"]].get("scalar", "real")
        d_kinds.extend([scalar if scalar in ("real", "boolean") else "integer"] * len(dv.scalar_names))
    system = DaeSystem(
        t=tr.t, x=tr.x, xdot=tr.xdot, z=tr.z, u=tr.u, p=tr.p,
        residual=ca.vertcat(*residual) if residual else ca.SX(0, 1),
        initial_residual=ca.vertcat(*initial) if initial else ca.SX(0, 1),
        state_names=tr.state_names, algebraic_names=tr.alg_names, input_names=tr.input_names,
        param_names=tr.param_names, param_bindings=bindings, param_kinds=kinds,
        state_start=starts("state"), state_fixed=fixed, algebraic_start=starts("alg"),
        input_start=starts("input"), variables=tr.vars,
        d=tr.d, c=ca.vertcat(*tr.c_syms) if tr.c_syms else ca.SX(0, 1), dpre=tr.dpre,
        xpre=tr.xpre, zpre=tr.zpre, terminal=tr.terminal, discrete_names=tr.disc_names,
        discrete_kinds=d_kinds, discrete_start=starts("disc"), relations=tr.relations,
        kinks=tr.kinks, events=events,
        sources={f[0]: (str(f[1]), str(f[2])) for f in dae.get("source_map", {}).get("files", [])
                 if len(f) >= 3},
    )
    system.residual = system.continuous(system.residual)
    system.initial_residual = system.continuous(system.initial_residual)
    return system
