"""``PortRegistry``: every live port, its one owner, and its current value (f64; NaN = pending)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace

import numpy as np

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.bounds import bound_problem, carry_sink_bounds
from luncosim_core.ports.model import PortDecl, PortInfo, port_key
from luncosim_core.ports.types import resolve, value_problem
from luncosim_core.ports.units import UnitError, conversion


def _unit_problem(authored: str, owner: str) -> str:
    """Why two unit strings cannot describe one port ("" when they can, or either is absent)."""
    if not authored or not owner:
        return ""
    try:
        conversion(authored, owner)
    except UnitError as exc:
        return str(exc)
    return ""


class PortWriteError(ValueError):
    """A write that cannot be applied; ``diagnostics`` names each problem."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("; ".join(d.message for d in diagnostics))



def _declarations_by_key(decls: Iterable[PortDecl], diags: list[Diagnostic]) -> dict[str, PortDecl]:
    """Authored signal declarations by key; ``inputs:x`` and ``outputs:x`` on one prim: the output wins."""
    decl_by_key: dict[str, PortDecl] = {}
    for d in decls:
        if d.namespace == "connectors":
            continue
        if d.key in decl_by_key and decl_by_key[d.key].namespace != d.namespace:
            diags.append(Diagnostic("warning", "port-name-clash",
                                    f"{d.prim_path} declares both inputs:{d.name} and outputs:{d.name}; the output wins",
                                    path=d.prim_path, source="ports"))
            if d.namespace == "inputs":
                continue
        decl_by_key[d.key] = d
    return decl_by_key


def _typed_by_declaration(info: PortInfo, decl: PortDecl, diags: list[Diagnostic]) -> PortInfo:
    """A backend port joined with its authored declaration: units and types checked, limits and
    description filled in from the declaration where the backend has none."""
    problem = _unit_problem(decl.unit, info.unit)
    if problem:
        diags.append(Diagnostic("error", "port-unit-mismatch",
                                f"{info.key}: authored unit '{decl.unit}' does not fit the {info.source} "
                                f"unit '{info.unit}': {problem}", path=info.prim_path, source="ports"))
    live, carries, type_problem = resolve(decl.type, info.type, info.direction)
    if type_problem:
        diags.append(Diagnostic("error", "port-type-narrowing", f"{info.key}: {type_problem}",
                                path=info.prim_path, source="ports"))
    min_from, max_from = _decl_origins(decl)
    return PortInfo(info.prim_path, info.name, info.direction, live, info.unit or decl.unit,
                    info.minimum if info.minimum is not None else decl.minimum,
                    info.maximum if info.maximum is not None else decl.maximum,
                    info.source, info.authority, info.writable, True, info.description or decl.description,
                    carries or info.carries,
                    info.min_from if info.minimum is not None else min_from,
                    info.max_from if info.maximum is not None else max_from)


def _decl_origins(decl: PortDecl) -> tuple[str, str]:
    """The words naming an authored declaration's ``customData`` bounds."""
    where = f"{decl.prim_path}.{decl.attribute}"
    return (f"customData min of {where}" if decl.minimum is not None else "",
            f"customData max of {where}" if decl.maximum is not None else "")


def _give_wired_sinks_to_wires(by_key: dict[str, tuple[PortInfo, float]], wired_sinks: Mapping[str, str],
                               diags: list[Diagnostic]) -> None:
    """A wired sink belongs to its wire (not writable); a produced output that is also wired is an
    owner conflict."""
    for key, source in wired_sinks.items():
        if key not in by_key:
            continue
        info, _initial = by_key[key]
        if info.source == "usd":
            by_key[key] = (replace(info, source="wire", authority=f"wire:{source}", writable=False), math.nan)
        elif info.direction == "out":
            diags.append(Diagnostic("error", "port-owner-conflict",
                                    f"{key} is produced by {info.authority} and also wired from {source}",
                                    path=info.prim_path, source="ports"))
        else:
            by_key[key] = (replace(info, writable=False), math.nan)


class PortRegistry:
    """The port surface: metadata by key, values in one dense float64 array."""

    def __init__(self) -> None:
        self.infos: list[PortInfo] = []
        self.index: dict[str, int] = {}
        self.values = np.zeros(0, dtype=np.float64)
        self.diagnostics: list[Diagnostic] = []
        self.held: dict[int, float] = {}  # SetPorts holds: index -> value, re-applied every tick

    # -- building --------------------------------------------------------------------
    def build(self, decls: Iterable[PortDecl], backend: Iterable[tuple[PortInfo, float]], wired_sinks: Mapping[str, str]) -> list[Diagnostic]:
        """Merge authored declarations with live backend ports; one owner per port.

        ``backend`` yields ``(info, initial value)`` from physics, Modelica and scripts.
        ``wired_sinks`` maps a sink key to its wire source (a wired port is owned by the wire).
        """
        diags: list[Diagnostic] = []
        by_key: dict[str, tuple[PortInfo, float]] = {}
        decl_by_key = _declarations_by_key(decls, diags)
        for info, initial in backend:
            if info.key in by_key:
                other = by_key[info.key][0]
                diags.append(Diagnostic("error", "port-owner-conflict",
                                        f"port {info.key} is claimed by {other.authority} and {info.authority}; {other.authority} keeps it",
                                        path=info.prim_path, source="ports"))
                continue
            decl = decl_by_key.get(info.key)
            by_key[info.key] = (_typed_by_declaration(info, decl, diags) if decl is not None else info, initial)
        for key, d in decl_by_key.items():
            if key in by_key:
                continue
            direction = "in" if d.namespace == "inputs" else "out"
            initial = d.default if d.default is not None else math.nan
            by_key[key] = (PortInfo(d.prim_path, d.name, direction, d.type, d.unit, d.minimum, d.maximum,
                                    source="usd", authority="user" if direction == "in" else "imperative",
                                    writable=True, declared=True, description=d.description,
                                    min_from=_decl_origins(d)[0], max_from=_decl_origins(d)[1]), initial)
        _give_wired_sinks_to_wires(by_key, wired_sinks, diags)
        carry_sink_bounds(by_key, wired_sinks)  # an interface port is held to what it drives
        keys = sorted(by_key)
        self.infos = [by_key[k][0] for k in keys]
        self.index = {k: i for i, k in enumerate(keys)}
        self.values = np.array([by_key[k][1] for k in keys], dtype=np.float64)
        self.held = {}
        self.diagnostics = diags
        return diags

    # -- access ----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.infos)

    def keys(self) -> list[str]:
        return list(self.index)

    def info(self, key: str) -> PortInfo | None:
        i = self.index.get(key)
        return self.infos[i] if i is not None else None

    def ports_of(self, prim_path: str) -> list[PortInfo]:
        return [p for p in self.infos if p.prim_path == prim_path]

    def value(self, key: str) -> float | None:
        """The current sample, or None while pending."""
        i = self.index.get(key)
        if i is None:
            raise KeyError(key)
        v = float(self.values[i])
        return None if math.isnan(v) else v

    # -- writes ----------------------------------------------------------------------
    def check_writes(self, prim_path: str, writes: Mapping[str, object], *, writer: str = "user") -> list[tuple[int, float]]:
        """Validate a whole SetPorts; raise :class:`PortWriteError` naming every bad entry."""
        problems: list[Diagnostic] = []
        ok: list[tuple[int, float]] = []
        for name in sorted(writes):
            value = writes[name]
            key = port_key(prim_path, name)
            i = self.index.get(key)
            where = key

            def bad(code: str, msg: str, _where: str = where) -> None:
                problems.append(Diagnostic("error", code, msg, path=_where, source="ports"))

            if i is None:
                known = ", ".join(p.name for p in self.ports_of(prim_path)) or "none"
                bad("port-unknown", f"{prim_path} has no port '{name}' (ports: {known})")
                continue
            info = self.infos[i]
            if not info.writable:
                bad("port-not-writable", f"{key} is not writable (owned by {info.authority})")
                continue
            if isinstance(value, bool):
                number = 1.0 if value else 0.0
            elif isinstance(value, (int, float)):
                number = float(value)
            else:
                bad("port-type", f"{key} needs a number, got {type(value).__name__}")
                continue
            if not math.isfinite(number):
                bad("port-non-finite", f"{key}: {value} is not finite")
                continue
            problem = value_problem(info.type, number)
            if problem:
                bad("port-type", f"{key} is {info.type}; {problem}")
                continue
            problem = value_problem(info.carries, number) if info.carries else ""
            if problem:
                bad("port-type", f"{key} feeds an {info.carries} value of its {info.source} owner; {problem}")
                continue
            problem = bound_problem(key, number, info)
            if problem:
                bad("port-out-of-bounds", problem)
                continue
            ok.append((i, number))
        if problems:
            raise PortWriteError(problems)
        return ok

    def hold(self, writes: list[tuple[int, float]]) -> None:
        """Apply and hold values (until changed or released)."""
        for i, v in writes:
            self.held[i] = v
            self.values[i] = v

    def release(self, prim_path: str, names: Iterable[str] | None = None) -> list[str]:
        released = []
        for i in list(self.held):
            info = self.infos[i]
            if info.prim_path == prim_path and (names is None or info.name in names):
                del self.held[i]
                released.append(info.name)
        return released

    def apply_holds(self) -> None:
        for i, v in self.held.items():
            self.values[i] = v
