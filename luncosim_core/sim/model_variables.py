"""Answering :class:`~luncosim_core.api.commands.ModelVariables`: a Modelica program's model
variables by their Modelica names, at its participant's last communication point.

Nothing runs per tick: the variables' table (name, kind, unit, description, bounds) is made on the
first query of a compiled model and kept with it (a recompile is a new model, so a new table);
each answer reads the values the participant holds (its state, algebraic, input, parameter and
discrete vectors, as :meth:`ModelicaParticipant.value` does) for the names asked.
"""

from __future__ import annotations

import difflib
import math
import weakref
from dataclasses import dataclass

from luncosim_core.api.commands import CommandResult, ModelVariables
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import port_key

_KIND = {"state": "state", "algebraic": "algebraic", "input": "input", "parameter": "parameter",
         "constant": "parameter", "discrete": "discrete"}


@dataclass(frozen=True, slots=True)
class _Var:
    kind: str
    unit: str
    description: str
    min: float | None
    max: float | None


@dataclass(frozen=True, slots=True)
class _Table:
    variables: dict[str, _Var]  # scalar name -> what it is, in declaration order
    arrays: dict[str, tuple[str, ...]]  # an array variable's name -> its elements' names


_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model participant -> _Table


def _error(code: str, message: str, path: str, **data) -> CommandResult:
    return CommandResult.error(Diagnostic("error", code, message, path=path, source="modelica", data=data))


def _table(model) -> _Table:
    """The model's variables, read once per compiled model from its DAE."""
    table = _TABLES.get(model)
    if table is not None:
        return table
    iface = model.compiled.interface
    bounds = {v.name: v for v in (*iface.inputs, *iface.outputs, *iface.parameters, *iface.states)}
    variables: dict[str, _Var] = {}
    arrays: dict[str, tuple[str, ...]] = {}
    for dv in model.compiled.system.variables:
        attrs = dv.attrs
        kind = "output" if attrs.get("causality") == "output" else _KIND.get(dv.role, dv.role)
        kept = []
        for n in dv.scalar_names:
            try:
                model.value(n)
            except Exception:  # noqa: BLE001 - a name without a numeric slot (a String parameter)
                continue
            b = bounds.get(n)
            variables[n] = _Var(kind, str(attrs.get("unit") or ""), str(attrs.get("description") or ""),
                                b.min if b is not None else None, b.max if b is not None else None)
            kept.append(n)
        if dv.dims and kept:
            arrays[dv.name] = tuple(kept)
    table = _Table(variables, arrays)
    _TABLES[model] = table
    return table


def _program(sim, prim: str) -> tuple[object | None, str, CommandResult | None]:
    """The program participant running ``prim``'s model and the prefix of ``prim``'s variables in
    it ("" for its own program; ``inst.`` for a member of a component network), or a refusal."""
    from luncosim_core.sim.program_modelica import ModelicaProgram

    for part in sim.participants:
        if part.prim_path == prim:
            if not isinstance(part, ModelicaProgram):
                return None, "", _error("model-variables-not-modelica",
                                        f"{prim} runs a {part.kind} program, not a Modelica model", prim)
            return part, "", None
        network = getattr(part, "network", None)  # a component network (an actuator-wrench one has no members)
        if network is not None and any(m.path == prim for m in getattr(network, "members", ())):
            from luncosim_core.usd.networks import instance_name

            return part, instance_name(network.root, prim) + ".", None
    if not prim.startswith("/") or not sim.stage.GetPrimAtPath(prim):
        return None, "", _error("query-not-found", f"no prim at {prim!r}", prim)
    return None, "", _error("model-variables-not-modelica",
                            f"{prim} is not a Modelica program (no model runs there)", prim)


def _running_model(part, prim: str) -> tuple[object | None, CommandResult | None]:
    if part.kind == "fmu":
        return None, _error("model-variables-not-modelica",
                            f"{prim} runs an FMU: its variables are read as its ports (ReadPorts), not by name", prim)
    model = part.participant
    if model is not None and getattr(model, "compiled", None) is not None:
        return model, None
    if part.error:
        return None, _error("model-variables-unavailable", f"{prim}: no model runs ({part.error})", prim)
    return None, _error("model-variables-pending",
                        f"{prim}: the model is not compiled yet (its values exist once it runs)", prim)


def _ports(sim, part, prim: str) -> dict[str, dict]:
    """The prim's ports that are model variables, by variable name."""
    if part.prim_path != prim or sim.registry is None:
        return {}
    out = {}
    from luncosim_core.sim.program_modelica import _model_name

    for name in (*part.declared_in, *part.declared_out, *part.implicit_out):
        info = sim.registry.info(port_key(prim, name))
        if info is not None:
            out.setdefault(_model_name(name), {"name": name, "direction": info.direction,
                                               "writable": bool(info.writable), "authority": info.authority})
    return out


def _asked(table: _Table, prefix: str, names: tuple[str, ...] | None) -> tuple[list[str], list[str]]:
    """(the scalar names asked, in order; the names that are not variables)."""
    if names is None:
        return [n for n in table.variables if n.startswith(prefix)], []
    asked, unknown = [], []
    for n in names:
        full = prefix + n
        if full in table.variables:
            asked.append(full)
        elif full in table.arrays:
            asked.extend(table.arrays[full])
        else:
            unknown.append(n)
    return asked, unknown


def answer_model_variables(sim, q: ModelVariables) -> CommandResult:
    """The current values of ``q.prim``'s model variables (see :class:`ModelVariables`)."""
    part, prefix, refused = _program(sim, q.prim)
    if refused is not None:
        return refused
    model, refused = _running_model(part, q.prim)
    if refused is not None:
        return refused
    table = _table(model)
    asked, unknown = _asked(table, prefix, q.names)
    if unknown:
        own = [n[len(prefix):] for n in table.variables if n.startswith(prefix)]
        near = list(dict.fromkeys(m for n in unknown for m in difflib.get_close_matches(n, own, n=3, cutoff=0.6)))
        hint = f" (nearest: {', '.join(near)})" if near else ""
        return _error("model-variable-unknown",
                      f"the model of {q.prim} has no variable {', '.join(repr(n) for n in unknown)}{hint}",
                      q.prim, unknown=unknown, nearest=near)
    ports = _ports(sim, part, q.prim)
    out = {}
    for full in asked:
        var = table.variables[full]
        value = model.value(full)
        entry = {"value": value if math.isfinite(value) else None, "unit": var.unit, "kind": var.kind,
                 "description": var.description}
        if var.min is not None:
            entry["min"] = var.min
        if var.max is not None:
            entry["max"] = var.max
        name = full[len(prefix):]
        if name in ports:
            entry["port"] = ports[name]
        out[name] = entry
    return CommandResult(True, {"prim": q.prim, "model": model.compiled.model_name, "time": float(model.time),
                                "tick": sim.tick_count, "variables": out})
