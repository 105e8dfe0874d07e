"""``LunCoEvent`` prims: a connected 0/1 model output becomes a named event on the scripts' bus.

A ``def LunCoEvent`` with ``inputs:trigger.connect = </Src.outputs:flag>`` and
``lunco:event:name`` fires when its trigger reaches 0.5 and has stayed there for
``lunco:event:qualificationTime`` seconds (0 when unauthored). It re-arms when the trigger drops
below 0.5 again, unless ``lunco:event:latched`` (then it fires once). The event reaches every
scenario runtime as an ``emit`` from the trigger's source prim, with ``lunco:event:severity``
(debug, info, warning, error, critical; info when unauthored) and the trigger value; a trigger
without a sample (NaN) is inactive. This is LunCoSim's ``EventBinding`` / ``fire_connected_events``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pxr import Usd

from luncosim_core.diagnostics import Diagnostic

SEVERITIES = ("debug", "info", "warning", "error", "critical")


@dataclass
class EventBinding:
    path: str
    name: str
    source: str  # the trigger's source prim (the event's emitter)
    severity: str = "info"
    latched: bool = False
    qualification_s: float = 0.0
    qualified_for_s: float = 0.0
    armed: bool = True

    def edge(self, value: float, dt: float) -> bool:
        """One tick of the trigger: True when the event fires now."""
        if not value >= 0.5:  # NaN is inactive too
            self.qualified_for_s = 0.0
            if not self.latched:
                self.armed = True
            return False
        if not self.armed:
            return False
        self.qualified_for_s += dt
        if self.qualified_for_s + 1e-12 >= self.qualification_s:
            self.armed = False
            return True
        return False


def _bad(path: str, why: str) -> Diagnostic:
    return Diagnostic("warning", "event-invalid", f"LunCoEvent {path} {why}; it never fires", path=path, source="ports")


def _read(prim: Usd.Prim) -> tuple[EventBinding | None, Diagnostic | None]:
    path = str(prim.GetPath())
    trig = prim.GetAttribute("inputs:trigger")
    targets = [str(t) for t in trig.GetConnections()] if trig else []
    if not targets:
        return None, _bad(path, "has no inputs:trigger connection")
    src, sep, _out = targets[0].partition(".outputs:")
    if not sep:
        return None, _bad(path, f"triggers from {targets[0]}, which is not an outputs:* property")
    values = {n: (a.Get() if (a := prim.GetAttribute(n)) and a.HasAuthoredValue() else None)
              for n in ("lunco:event:name", "lunco:event:severity", "lunco:event:latched", "lunco:event:qualificationTime")}
    name, severity = str(values["lunco:event:name"] or ""), str(values["lunco:event:severity"] or "info")
    if not name:
        return None, _bad(path, "has no lunco:event:name")
    if severity not in SEVERITIES:
        return None, _bad(path, f"has lunco:event:severity {severity!r} (one of {', '.join(SEVERITIES)})")
    qual = values["lunco:event:qualificationTime"]
    qual = 0.0 if qual is None else float(qual)
    if not math.isfinite(qual) or qual < 0:
        return None, _bad(path, f"has lunco:event:qualificationTime {qual!r} (a finite number >= 0)")
    return EventBinding(path, name, src, severity, bool(values["lunco:event:latched"]), qual), None


def read_event_bindings(stage: Usd.Stage) -> tuple[list[EventBinding], list[Diagnostic]]:
    out, diags = [], []
    for prim in stage.Traverse():
        if prim.GetTypeName() == "LunCoEvent":
            binding, diag = _read(prim)
            if binding is not None:
                out.append(binding)
            if diag is not None:
                diags.append(diag)
    return out, diags


def fire_port_events(sim, bindings: list[EventBinding]) -> None:
    """Advance every binding one tick; deliver the events that fire to every scenario runtime."""
    reg = sim.registry
    fired = []
    for b in bindings:
        i = reg.index.get(f"{b.path}.trigger")
        value = float(reg.values[i]) if i is not None else math.nan
        if b.edge(value, sim.dt):
            fired.append((b, value))
    if not fired:
        return
    runtimes = {id(rt): rt for rt in (getattr(p, "runtime", None) for p in sim.participants)
                if rt is not None and hasattr(rt, "inject")}
    for rt in runtimes.values():
        for b, value in fired:
            rt.inject(b.name, value, b.source, b.severity)
