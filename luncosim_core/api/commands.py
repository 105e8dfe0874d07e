"""Commands change the simulation (admitted at the next tick, in arrival order, stamped with tick
and sequence); queries read it (answered between ticks). All are immutable values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from luncosim_core.diagnostics import Diagnostic


@dataclass(frozen=True)
class Command:
    """Base of commands: admitted at the next tick."""

    name: ClassVar[str] = "Command"
    correlation_id: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Query:
    """Base of queries: answered immediately from the current state."""

    name: ClassVar[str] = "Query"


@dataclass(frozen=True)
class SetPorts(Command):
    """Write ports of one prim; validated as a whole, nothing applied on any error; values hold."""

    name: ClassVar[str] = "SetPorts"
    target: str = ""
    writes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReleasePorts(Command):
    """Stop holding SetPorts values (all of the prim's, or ``names``)."""

    name: ClassVar[str] = "ReleasePorts"
    target: str = ""
    names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ApplyOp(Command):
    """A typed document op to apply between ticks (the projection is rebuilt)."""

    name: ClassVar[str] = "ApplyOp"
    op: Any = None


@dataclass(frozen=True)
class SyncStage(Command):
    """Replace the simulation's copy of the scene with ``text`` (the document's composed stage,
    flattened) between ticks, keeping the clock, the motion of bodies outside ``changed`` (prim
    paths the edit touched: those take their authored pose), port values, holds and the state of
    untouched participants. Structural edits, new references and undo/redo reach a running world
    this way; ``changed`` property paths of ports make their new authored value the sample."""

    name: ClassVar[str] = "SyncStage"
    text: str = ""
    changed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SetEnvironmentLight(Command):
    """Aim the scene sun at runtime (not an authored edit): ``sun_yaw`` / ``sun_pitch`` in radians,
    yaw about +Y then pitch about +X (pitch < 0 lowers the light toward the horizon); an omitted
    angle keeps its current value."""

    name: ClassVar[str] = "SetEnvironmentLight"
    sun_yaw: float | None = None
    sun_pitch: float | None = None


@dataclass(frozen=True)
class PossessVessel(Command):
    """Take the controls of a vessel (one session pilots one vessel): its ``piloted`` output
    becomes 1 and the previously piloted vessel's 0. Refused for a prim without command inputs
    (a ``Controls`` binding)."""

    name: ClassVar[str] = "PossessVessel"
    target: str = ""


@dataclass(frozen=True)
class ReleaseVessel(Command):
    """Give up the controls of a vessel: its ``piloted`` output returns to 0."""

    name: ClassVar[str] = "ReleaseVessel"
    target: str = ""


@dataclass(frozen=True)
class SpawnEntity(Command):
    """Add a catalog entry to the running scene: a prim referencing the asset whose file stem is
    ``entry_id`` (an asset that declares ``lunco:spawnable = true``), authored on the runtime layer
    under the scene's default prim at ``position`` (metres, the scene frame) and ``rotation`` (an
    ``(x, y, z, w)`` unit quaternion; omitted = identity). The result's value names the new prim
    (``path``) and the catalog entry; the simulation keeps its clock and the motion of the rest."""

    name: ClassVar[str] = "SpawnEntity"
    entry_id: str = ""
    position: tuple[float, ...] = (0.0, 0.0, 0.0)
    rotation: tuple[float, ...] | None = None


@dataclass(frozen=True)
class AddRuntimeWaypoint(Command):
    """Append a waypoint to a vessel's runtime route: a waypoint marker (the catalog entry
    ``waypoint``, whose trigger zone is its arrival sensor) spawned at ``position`` and bound to
    ``target`` (a vessel with command inputs). The vessel's body entering the marker's zone marks
    the waypoint reached (``RuntimeWaypointStatus``) and raises ``waypoint.reached`` (source: the
    vessel, value: the waypoint's index). The value names the marker (``path``) and ``index``."""

    name: ClassVar[str] = "AddRuntimeWaypoint"
    target: str = ""
    position: tuple[float, ...] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class EngageAutopilot(Command):
    """Put an autopilot in charge of a vessel (its ``piloted`` output becomes 1; refused for a prim
    without command inputs or one the session pilots). Its behaviour: the ``spec_json`` tree (a
    behaviour spec, e.g. ``{"kind": "patrol", "waypoints": [{"pos": [x, y, z]}], "speed": 0.6,
    "radius": 3}``), else the vessel's behaviour-tree program (a ``.btxml`` under it), else none:
    it holds the vessel braked, or cruises at ``throttle`` when that is not 0. ``index`` is
    LunCoSim's actor index (accepted, unused). The value names the behaviour's ``source``."""

    name: ClassVar[str] = "EngageAutopilot"
    vessel: str = ""
    index: int = 0
    throttle: float = 0.0
    spec_json: str = ""


@dataclass(frozen=True)
class SetAutopilotBehavior(Command):
    """Replace the behaviour of an engaged autopilot with the ``spec_json`` tree (a patrol that
    only gains waypoints resumes at the leg it was on)."""

    name: ClassVar[str] = "SetAutopilotBehavior"
    vessel: str = ""
    spec_json: str = ""


@dataclass(frozen=True)
class ClearPatrol(Command):
    """Replace an engaged autopilot's behaviour with a brake (the vessel holds where it is)."""

    name: ClassVar[str] = "ClearPatrol"
    vessel: str = ""


@dataclass(frozen=True)
class DisengageAutopilot(Command):
    """End a vessel's autopilot: its setpoint holds are released, the command inputs are left
    neutral (throttle 0, steer 0, brake 1) and ``piloted`` returns to 0."""

    name: ClassVar[str] = "DisengageAutopilot"
    vessel: str = ""


@dataclass(frozen=True)
class RuntimeWaypointStatus(Query):
    """A vessel's runtime route: ``{vessel, marker_count, reached, reached_count}`` (``reached``:
    the marker paths its body has entered, sorted)."""

    name: ClassVar[str] = "RuntimeWaypointStatus"
    vessel: str = ""


@dataclass(frozen=True)
class ReadPorts(Query):
    name: ClassVar[str] = "ReadPorts"
    target: str = ""
    names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ModelVariables(Query):
    """The values of a Modelica program prim's model variables (states, algebraics, outputs,
    inputs, parameters, discrete values) at its participant's last communication point, by their
    Modelica names (``resistor.p.v``, ``x[2]``; an array's name stands for its elements);
    ``names`` omitted: every variable. Value: ``{prim, model, time, tick, variables: {name:
    {value, unit, kind, description, min?, max?, port?}}}`` (``kind``: state, algebraic, output,
    input, parameter or discrete; ``port``: ``{name, direction, writable, authority}`` when the
    variable is one of the prim's ports; a non-finite value is null). A member of a component
    network is read from its network's model. Refused, saying why, for a prim that is not a
    running Modelica program (no such prim, another kind of program, an FMU, still compiling, a
    failed compile) and for an unknown name (with the nearest names)."""

    name: ClassVar[str] = "ModelVariables"
    prim: str = ""
    names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ListPorts(Query):
    name: ClassVar[str] = "ListPorts"
    target: str | None = None


@dataclass(frozen=True)
class QueryUsdPrim(Query):
    name: ClassVar[str] = "QueryUsdPrim"
    path: str = ""
    attrs: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ListConnections(Query):
    name: ClassVar[str] = "ListConnections"
    target: str | None = None


@dataclass(frozen=True)
class GetBrokenConnections(Query):
    name: ClassVar[str] = "GetBrokenConnections"


@dataclass(frozen=True)
class CausalTrace(Query):
    name: ClassVar[str] = "CausalTrace"
    target: str = ""
    correlation_id: str | None = None


@dataclass(frozen=True)
class LintReport(Query):
    """Run the lint policies over the live scene (wires judged against the running ports); the
    value is the ``#{findings, errors, warnings, infos}`` report."""

    name: ClassVar[str] = "LintReport"


@dataclass(frozen=True)
class PhysicsDebugInfo(Query):
    """Joint frames, colliders, contacts and centres of mass of the physics world right now
    (plain frozen records: what the viewport overlays draw)."""

    name: ClassVar[str] = "PhysicsDebugInfo"


@dataclass(frozen=True)
class StateHash(Query):
    """The SHA-256 over everything that determines the future (the ``luncosim run --hash-every``
    checkpoint hash) and the tick it was taken at: ``{"tick", "hash"}``."""

    name: ClassVar[str] = "StateHash"


@dataclass(frozen=True)
class Links(Query):
    """The connectivity graph now: ``{nodes, adj, edges, groups, owners, severed, unplaced}`` over
    the ``lunco:linkNode`` prims (see docs/scripting.md, "Links")."""

    name: ClassVar[str] = "Links"


@dataclass(frozen=True)
class WifiLinks(Query):
    """The short-range radio graph over the ``lunco:wifiNode`` link nodes: ``{nodes, adj, edges}``
    (geometry verdicts and both radios' ``lunco:wifi:maxRangeM``; no class policy)."""

    name: ClassVar[str] = "WifiLinks"


@dataclass(frozen=True)
class SolarPose(Query):
    """A prim's solar-frame position (ICRF axes, barycentric, metres): ``{found, pos}``."""

    name: ClassVar[str] = "SolarPose"
    entity: str = ""


@dataclass(frozen=True)
class BodyPosition(Query):
    """A body's (NAIF id) solar-frame centre and mean radius: ``{found, pos, radius}``."""

    name: ClassVar[str] = "BodyPosition"
    body: int = 301


@dataclass(frozen=True)
class EvalRhai(Query):
    """Evaluate Rhai ``code`` against the running simulation's host API (what scenarios call:
    ``find``, ``get``, ``world_pos``, ``query`` ...), read only: a command the code issues (``set``,
    ``cmd``) is refused, not applied. Top-level variables and functions persist per ``session``
    until the simulation is replaced. Value: ``{ok, type, display, value, printed, refused,
    warnings}`` or ``{ok: false, error: {kind, message, line, column}, printed, refused, warnings}``."""

    name: ClassVar[str] = "EvalRhai"
    code: str = ""
    session: str = "console"


@dataclass(frozen=True)
class RunRhai(Command):
    """:class:`EvalRhai` with writes: admitted at the next tick like any command (a paused
    simulation keeps it queued); the commands the code issues apply in that tick, traced to
    ``console:<session>``. The result's value has the same shape as EvalRhai's."""

    name: ClassVar[str] = "RunRhai"
    code: str = ""
    session: str = "console"


@dataclass(frozen=True)
class CommandResult:
    """What a command or query returned: ``ok`` with a value, or diagnostics saying why not."""

    ok: bool
    value: Any = None
    diagnostics: tuple[Diagnostic, ...] = ()
    tick: int | None = None  # admission tick (commands)
    sequence: int | None = None  # admission sequence (commands)

    @staticmethod
    def error(*diags: Diagnostic) -> CommandResult:
        return CommandResult(False, None, tuple(diags))


_BY_NAME = {c.name: c for c in (SetPorts, ReleasePorts, SetEnvironmentLight, PossessVessel, ReleaseVessel, SpawnEntity,
                                 AddRuntimeWaypoint, RuntimeWaypointStatus,
                                 EngageAutopilot, SetAutopilotBehavior, ClearPatrol, DisengageAutopilot,
                                 ReadPorts, ListPorts, QueryUsdPrim, ModelVariables,
                                 ListConnections, GetBrokenConnections, CausalTrace, LintReport, PhysicsDebugInfo,
                                 StateHash, Links, WifiLinks, SolarPose, BodyPosition, EvalRhai, RunRhai)}


def from_name(name: str, params: dict[str, Any]) -> Command | Query:
    """Build a command/query from its name and a parameter map (for scripts and the CLI)."""
    cls = _BY_NAME.get(name)
    if cls is None:
        raise KeyError(f"unknown command or query '{name}' (known: {', '.join(sorted(_BY_NAME))})")
    params = dict(params)
    for key in ("names", "attrs", "position", "rotation"):
        if key in params and params[key] is not None:
            params[key] = tuple(params[key])
    if cls is SetPorts:
        # a networked client stamps its own sequence and tick; admission stamps ours
        params.pop("seq", None)
        params.pop("tick", None)
        if "writes" not in params:
            target = params.pop("target", "")
            cid = params.pop("correlation_id", None)
            return SetPorts(target=target, writes=params, correlation_id=cid)
        writes = params["writes"]
        if isinstance(writes, (list, tuple)):  # [[name, value], ...]
            pairs = {}
            for item in writes:
                if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)):
                    raise ValueError(f"SetPorts writes: expected [name, value] pairs, got {item!r}")
                pairs[item[0]] = item[1]
            params["writes"] = pairs
    return cls(**params)
