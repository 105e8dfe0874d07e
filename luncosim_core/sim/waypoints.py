"""Runtime waypoints: a route a running vessel gains without an authored document edit of its own.

``AddRuntimeWaypoint`` spawns the catalog entry ``waypoint`` (a marker whose collider authors
``lunco:triggerZone``: its arrival sensor) at the requested place, bound to the vessel by
``lunco:waypoint:vessel`` and ``lunco:waypoint:index`` on the marker (so the route lives in the
scene and survives re-projection). When the vessel's body enters a bound marker's zone the
waypoint is reached: ``RuntimeWaypointStatus`` lists it and scenarios hear ``waypoint.reached``
(source: the vessel; value: the index), as LunCoSim's collision-backed arrival does. Reached
waypoints are runtime state: they reset with the simulation."""

from __future__ import annotations

from luncosim_core.api.commands import (
    AddRuntimeWaypoint,
    CommandResult,
    RuntimeWaypointStatus,
    SpawnEntity,
)
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import port_key
from luncosim_core.ports.surface import PILOTED

MARKER_ENTRY = "waypoint"
VESSEL_ATTR = "lunco:waypoint:vessel"
INDEX_ATTR = "lunco:waypoint:index"


def _refuse(code: str, message: str, tick: int, seq: int, path: str = "") -> CommandResult:
    return CommandResult(False, None, (Diagnostic("error", code, f"AddRuntimeWaypoint: {message}", path=path or None,
                                                  source="runtime"),), tick, seq)


def markers_of(sim, vessel: str) -> list[tuple[int, str]]:
    """(index, marker path) of the vessel's runtime waypoints, by index."""
    out = []
    for prim in sim.stage.Traverse():
        a = prim.GetAttribute(VESSEL_ATTR)
        if a and a.Get() == vessel:
            out.append((int(prim.GetAttribute(INDEX_ATTR).Get() or 0), str(prim.GetPath())))
    return sorted(out)


def execute_add_waypoint(sim, cmd: AddRuntimeWaypoint, tick: int, seq: int) -> CommandResult:
    from luncosim_core.sim.spawn import execute_spawn

    target = cmd.target
    reg = sim.registry
    if not target or not sim.stage.GetPrimAtPath(target):
        return _refuse("waypoint-target", f"no vessel at {target or '(no target)'}", tick, seq, target)
    if reg.index.get(port_key(target, PILOTED)) is None and reg.index.get(port_key(target, f"outputs:{PILOTED}")) is None:
        return _refuse("waypoint-target", f"{target} has no command inputs (no Controls binding): it is not a "
                       "vessel that can follow a route", tick, seq, target)
    index = len(markers_of(sim, target))
    res = execute_spawn(sim, SpawnEntity(entry_id=MARKER_ENTRY, position=cmd.position), tick, seq,
                        extra=((VESSEL_ATTR, "string", target), (INDEX_ATTR, "int", index)))
    if not res.ok:
        return res
    return CommandResult(True, {"path": res.value["path"], "index": index, "vessel": target}, (), tick, seq)


def note_arrivals(sim, events: list[tuple[str, str, str]]) -> list[tuple[str, int, str]]:
    """Mark waypoints whose bound vessel's body entered their zone; (vessel, index, marker) each."""
    out = []
    reached = sim.reached_waypoints
    for name, entrant, source in events:
        if not name.startswith("enter:"):
            continue
        prim = sim.stage.GetPrimAtPath(source)
        a = prim.GetAttribute(VESSEL_ATTR) if prim else None
        vessel = a.Get() if a else None
        if not vessel or not (entrant == vessel or entrant.startswith(vessel + "/")):
            continue
        if source in reached.setdefault(vessel, set()):
            continue
        reached[vessel].add(source)
        out.append((vessel, int(prim.GetAttribute(INDEX_ATTR).Get() or 0), source))
    return out


def waypoint_status(sim, q: RuntimeWaypointStatus) -> CommandResult:
    if not q.vessel or not sim.stage.GetPrimAtPath(q.vessel):
        return CommandResult.error(Diagnostic("error", "query-not-found", f"RuntimeWaypointStatus: no vessel at "
                                              f"{q.vessel or '(no vessel)'}", path=q.vessel or None, source="runtime"))
    reached = sorted(sim.reached_waypoints.get(q.vessel, ()))
    return CommandResult(True, {"vessel": q.vessel, "marker_count": len(markers_of(sim, q.vessel)),
                                "reached": reached, "reached_count": len(reached)})
