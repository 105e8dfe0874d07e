"""Autopilots: an actor that claims a vessel and drives it from a behaviour tree (LunCoSim's
``lunco-autopilot``).

``EngageAutopilot {vessel, spec_json?, throttle?}`` claims the vessel (its ``piloted`` output
becomes 1; refused for a prim without command inputs, or one the session pilots) and gives it
a behaviour, first found of: the ``spec_json`` tree (the prelude's ``engage_patrol`` sends a
``patrol``), the vessel's own behaviour program (a ``LunCoProgramAPI`` prim under it whose source
is a ``.btxml``/``.xml`` BehaviorTree.CPP file or inline XML; waypoint prims it names by path are
baked to their world positions at engage), else none: an autopilot with no route HOLDS (throttle
0, brake 1), unless the caller names a non-zero ``throttle`` to cruise at.

Every tick, after the scenarios, each autopilot ticks its tree against the vessel's simulated
pose (heading: the vessel's -Z axis in the ground plane) and writes ``throttle``/``steer``/``brake``
with one SetPorts (held, traced as ``autopilot:<vessel>``, clamped to the ports' bounds). A tree
that finishes (success or failure) holds the vessel until a new behaviour arrives.
``SetAutopilotBehavior`` swaps the tree of an engaged autopilot (a patrol that only gains
waypoints resumes at its current leg); ``ClearPatrol`` replaces it with a brake;
``DisengageAutopilot`` ends the actor: the holds are released, the command inputs are left
neutral (throttle 0, steer 0, brake 1) and ``piloted`` returns to 0. The session cannot possess
an autopiloted vessel. Autopilots are runtime state: a full re-projection drops them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from pxr import Sdf, Usd, UsdGeom

from luncosim_core.api.commands import (
    ClearPatrol,
    CommandResult,
    DisengageAutopilot,
    EngageAutopilot,
    SetAutopilotBehavior,
    SetPorts,
)
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import port_key
from luncosim_core.ports.surface import PILOTED
from luncosim_core.sim.behavior_tree import (
    FAILURE,
    HOLD,
    RUNNING,
    BehaviorError,
    DriveCtx,
    Node,
    bake_targets,
    btxml_to_spec,
    build_tree,
    has_motion,
)
from luncosim_core.usd.programs import is_program_prim

DRIVER_PATH = "/~autopilot"  # the driver participant's name (sorts after every prim: runs after the scenarios)
COMMAND_PORTS = ("throttle", "steer", "brake")
BEHAVIOR_SUFFIXES = (".btxml", ".xml")


@dataclass
class Autopilot:
    vessel: str
    tree: Node | None = None
    spec: dict | None = None
    source: str = ""  # "spec_json", the behaviour program's prim path, or "" (no route)
    throttle: float = 0.0
    steer: float = 0.0
    state: str = RUNNING  # running | success | failure (a finished tree holds)
    last: tuple[float, float, float] = field(default=HOLD)


class AutopilotDriver:
    """The simulation's autopilots as one participant (phase ``script``, after the scenarios)."""

    kind = "autopilot"
    phase = "script"

    def __init__(self) -> None:
        self.prim_path = DRIVER_PATH
        self.autopilots: dict[str, Autopilot] = {}
        self._diags: list[Diagnostic] = []

    # -- participant protocol ------------------------------------------------------------------
    def port_infos(self) -> list:
        return []

    def wait_reason(self, sim) -> str:
        return ""

    def step(self, sim) -> None:
        up = _up_axis(sim.stage)
        for path in sorted(self.autopilots):
            ap = self.autopilots[path]
            if not sim.stage.GetPrimAtPath(path):
                continue
            from luncosim_core.sim.queries import world_pose

            pos, quat = world_pose(sim, path)
            ctx = DriveCtx(tuple(pos), _heading(quat, up), up, sim.time)
            if ap.tree is None:
                held = ap.throttle == 0.0 and ap.steer == 0.0
                ctx.out = (ap.throttle, ap.steer, 1.0 if held else 0.0)
            elif ap.state != RUNNING:
                ctx.out = HOLD
            else:
                status = ap.tree.tick(ctx)
                if status != RUNNING:
                    ap.state = status
            ap.last = ctx.out
            _write_setpoint(sim, path, ctx.out)

    def reset(self, sim) -> None:
        self.autopilots.clear()

    def state_bytes(self) -> bytes:
        rows = [(p, a.source, a.state, a.throttle, a.steer, a.last, a.tree.state() if a.tree else None)
                for p, a in sorted(self.autopilots.items())]
        return repr(rows).encode()

    def take_diagnostics(self) -> list[Diagnostic]:
        out, self._diags = self._diags, []
        return out

    def close(self) -> None:
        pass

    def report(self, d: Diagnostic) -> None:
        self._diags.append(d)


def driver_of(sim, create: bool = False) -> AutopilotDriver | None:
    for part in sim.participants:
        if isinstance(part, AutopilotDriver):
            return part
    if not create:
        return None
    driver = AutopilotDriver()
    sim.participants.append(driver)
    return driver


def autopilot_of(sim, vessel: str) -> Autopilot | None:
    """The autopilot driving ``vessel`` (None when it has none)."""
    driver = driver_of(sim)
    return driver.autopilots.get(vessel) if driver is not None else None


# ------------------------------------------------------------------------------ geometry
def _up_axis(stage) -> tuple[float, float, float]:
    return (0.0, 0.0, 1.0) if UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z else (0.0, 1.0, 0.0)


def _heading(q, up) -> tuple[float, float, float]:
    """The body's -Z axis (LunCoSim's vehicle forward), projected onto the ground plane."""
    w, x, y, z = q
    # R * (0, 0, -1) = -(third column of R)
    f = (-(2 * (x * z + w * y)), -(2 * (y * z - w * x)), -(1 - 2 * (x * x + y * y)))
    d = f[0] * up[0] + f[1] * up[1] + f[2] * up[2]
    f = (f[0] - d * up[0], f[1] - d * up[1], f[2] - d * up[2])
    n = math.sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2])
    return (f[0] / n, f[1] / n, f[2] / n) if n > 1e-9 else (0.0, 0.0, 0.0)


def _write_setpoint(sim, vessel: str, out: tuple[float, float, float]) -> None:
    reg = sim.registry
    writes = {}
    for name, value in zip(COMMAND_PORTS, out, strict=True):
        i = reg.index.get(port_key(vessel, name))
        if i is None or not reg.infos[i].writable:
            continue
        info = reg.infos[i]
        v = float(value)
        if info.minimum is not None:
            v = max(v, info.minimum)
        if info.maximum is not None:
            v = min(v, info.maximum)
        writes[name] = v
    if writes:
        sim.execute(SetPorts(target=vessel, writes=writes, correlation_id=f"autopilot:{vessel}"))


def _piloted_slot(sim, vessel: str) -> int | None:
    reg = sim.registry
    return reg.index.get(port_key(vessel, PILOTED), reg.index.get(port_key(vessel, f"outputs:{PILOTED}")))


# ------------------------------------------------------------------------------ behaviours
def _diag(severity: str, code: str, message: str, path: str = "", layer: str = "") -> Diagnostic:
    return Diagnostic(severity, code, message, path=path, layer=layer, source="autopilot")


def _refuse(code: str, message: str, tick: int, seq: int, path: str = "") -> CommandResult:
    return CommandResult(False, None, (_diag("error", code, message, path),), tick, seq)


def behavior_programs(sim, vessel: str) -> list:
    """The behaviour-tree program prims under ``vessel`` (inline XML or a ``.btxml``/``.xml``
    asset), in path order."""
    prim = sim.stage.GetPrimAtPath(vessel)
    out = []
    if not prim:
        return out
    for p in Usd.PrimRange(prim):
        if p == prim or not is_program_prim(p):
            continue
        code = p.GetAttribute("info:sourceCode")
        if code and code.HasAuthoredValue() and str(code.Get() or "").lstrip().startswith("<"):
            out.append(p)
            continue
        asset = p.GetAttribute("info:sourceAsset")
        value = asset.Get() if asset and asset.HasAuthoredValue() else None
        text = value.path if isinstance(value, Sdf.AssetPath) else str(value or "")
        if text.split("#", 1)[0].lower().endswith(BEHAVIOR_SUFFIXES):
            out.append(p)
    return sorted(out, key=lambda p: str(p.GetPath()))


def program_spec(sim, prim) -> dict:
    """The behaviour spec of one BT program prim (``BehaviorError`` naming the file when not)."""
    from luncosim_core.scripting.scenario import scenario_source

    text, label, _file, diags = scenario_source(prim, getattr(sim, "roots", None))
    if text is None:
        raise BehaviorError("; ".join(d.message for d in diags) or f"{prim.GetPath()}: the behaviour source cannot be read")
    try:
        return btxml_to_spec(text)
    except BehaviorError as exc:
        raise BehaviorError(f"{label}: {exc}") from None


def _position_of(sim, path: str) -> list[float] | None:
    from luncosim_core.sim.queries import world_pose

    prim = sim.stage.GetPrimAtPath(path) if Sdf.Path.IsValidPathString(path) else None
    if not prim:
        return None
    return world_pose(sim, path)[0]


@dataclass
class _Behavior:
    tree: Node | None
    spec: dict | None
    source: str
    state: str = RUNNING
    notes: tuple[Diagnostic, ...] = ()


def _compile(sim, vessel: str, spec: dict, source: str) -> _Behavior:
    """Bake the spec's prim targets and compile it; unresolved waypoints leave it braked and
    failed (LunCoSim pauses such a route) with a warning; a tree that cannot compile raises."""
    baked, missing = bake_targets(spec, lambda p: _position_of(sim, p))
    if missing:
        note = _diag("warning", "autopilot-unresolved-waypoint",
                     f"{vessel}: the behaviour from {source} names waypoint prim(s) that do not exist: "
                     f"{', '.join(sorted(set(missing)))}; the autopilot holds the vessel", vessel)
        return _Behavior(build_tree({"kind": "brake"}), baked, source, FAILURE, (note,))
    return _Behavior(build_tree(baked), baked, source)


def _behavior_of(sim, vessel: str, spec_json: str) -> _Behavior:
    """The behaviour an engage names: ``spec_json``, else the vessel's program, else none."""
    if spec_json.strip():
        try:
            spec = json.loads(spec_json)
        except ValueError as exc:
            raise BehaviorError(f"spec_json is not JSON: {exc}") from None
        return _compile(sim, vessel, spec, "spec_json")
    programs = behavior_programs(sim, vessel)
    if len(programs) > 1:
        names = ", ".join(str(p.GetPath()) for p in programs)
        note = _diag("warning", "autopilot-several-behaviors",
                     f"{vessel} carries {len(programs)} behaviour-tree programs ({names}); none is used "
                     "(choosing one by order would hide which controller drives)", vessel)
        return _Behavior(None, None, "", notes=(note,))
    if programs:
        path = str(programs[0].GetPath())
        b = _compile(sim, vessel, program_spec(sim, programs[0]), path)
        return b
    return _Behavior(None, None, "")


def _resume_cursor(old: dict | None, new: dict, tree: Node | None) -> int | None:
    """A patrol that only gains waypoints (same tuning) resumes at the leg it was on."""
    if not (isinstance(old, dict) and old.get("kind") == "patrol" and new.get("kind") == "patrol" and tree is not None):
        return None
    ow, nw = old.get("waypoints") or [], new.get("waypoints") or []
    same = all(old.get(k) == new.get(k) for k in ("speed", "radius", "dwell"))
    if not same or len(nw) <= len(ow) or nw[:len(ow)] != ow:
        return None
    return tree.cursor()


# ------------------------------------------------------------------------------ commands
def execute_autopilot(sim, cmd, tick: int, seq: int) -> CommandResult:
    vessel = cmd.vessel
    if not vessel or not Sdf.Path.IsValidPathString(vessel) or not sim.stage.GetPrimAtPath(vessel):
        return _refuse("autopilot-target", f"{cmd.name}: no vessel at {vessel or '(no vessel)'}", tick, seq, vessel)
    if isinstance(cmd, EngageAutopilot):
        return _engage(sim, cmd, tick, seq)
    ap = autopilot_of(sim, vessel)
    if ap is None:
        return _refuse("autopilot-not-engaged", f"{cmd.name}: no autopilot drives {vessel} (EngageAutopilot first)",
                       tick, seq, vessel)
    if isinstance(cmd, SetAutopilotBehavior):
        return _set_behavior(sim, ap, cmd, tick, seq)
    if isinstance(cmd, ClearPatrol):
        ap.tree, ap.spec, ap.state = build_tree({"kind": "brake"}), {"kind": "brake"}, RUNNING
        return CommandResult(True, {"vessel": vessel}, (), tick, seq)
    if isinstance(cmd, DisengageAutopilot):
        return _disengage(sim, ap, tick, seq)
    return _refuse("command-unknown", f"unknown autopilot command {cmd!r}", tick, seq, vessel)


def _engage(sim, cmd: EngageAutopilot, tick: int, seq: int) -> CommandResult:
    vessel = cmd.vessel
    slot = _piloted_slot(sim, vessel)
    if slot is None:
        return _refuse("autopilot-refused", f"EngageAutopilot: {vessel} has no command inputs (no Controls binding), "
                       "so nothing can drive it", tick, seq, vessel)
    if getattr(sim, "piloted", None) == vessel:
        return _refuse("autopilot-claim-refused", f"EngageAutopilot: {vessel} is piloted by the session; "
                       "ReleaseVessel first", tick, seq, vessel)
    if not math.isfinite(cmd.throttle):
        return _refuse("autopilot-bad-spec", "EngageAutopilot: throttle is not finite", tick, seq, vessel)
    try:
        b = _behavior_of(sim, vessel, cmd.spec_json)
    except BehaviorError as exc:
        return _refuse("autopilot-bad-spec", f"EngageAutopilot {vessel}: {exc}", tick, seq, vessel)
    driver = driver_of(sim, create=True)
    ap = driver.autopilots.get(vessel) or Autopilot(vessel)
    ap.tree, ap.spec, ap.source, ap.state = b.tree, b.spec, b.source, b.state
    ap.throttle, ap.steer = float(cmd.throttle), 0.0
    driver.autopilots[vessel] = ap
    sim.registry.values[slot] = 1.0
    notes = list(b.notes)
    if b.tree is None and not notes:
        what = (f"cruising blind at throttle {cmd.throttle:g} on its current heading, as asked" if cmd.throttle
                else "holding it (throttle 0, brake on); give it a route with spec_json or a behaviour-tree program")
        notes.append(_diag("info", "autopilot-no-route", f"{vessel} has no route: the autopilot is engaged and {what}",
                           vessel))
    for d in notes:
        driver.report(d)
    value = {"vessel": vessel, "source": b.source, "route": b.spec is not None and has_motion(b.spec)}
    return CommandResult(True, value, tuple(notes), tick, seq)


def _set_behavior(sim, ap: Autopilot, cmd: SetAutopilotBehavior, tick: int, seq: int) -> CommandResult:
    if not cmd.spec_json.strip():
        return _refuse("autopilot-bad-spec", "SetAutopilotBehavior: spec_json is empty", tick, seq, cmd.vessel)
    try:
        b = _behavior_of(sim, cmd.vessel, cmd.spec_json)
    except BehaviorError as exc:
        return _refuse("autopilot-bad-spec", f"SetAutopilotBehavior {cmd.vessel}: {exc}", tick, seq, cmd.vessel)
    cursor = _resume_cursor(ap.spec, b.spec, ap.tree) if b.state == RUNNING else None
    if cursor is not None and b.tree is not None:
        b.tree.set_cursor(cursor)
    ap.tree, ap.spec, ap.source, ap.state = b.tree, b.spec, b.source, b.state
    driver = driver_of(sim)
    for d in b.notes:
        driver.report(d)
    return CommandResult(True, {"vessel": cmd.vessel, "resumed_at": cursor}, b.notes, tick, seq)


def _disengage(sim, ap: Autopilot, tick: int, seq: int) -> CommandResult:
    vessel = ap.vessel
    driver_of(sim).autopilots.pop(vessel, None)
    reg = sim.registry
    reg.release(vessel, COMMAND_PORTS)
    for name, value in zip(COMMAND_PORTS, HOLD, strict=True):
        i = reg.index.get(port_key(vessel, name))
        if i is not None:
            reg.values[i] = value
    slot = _piloted_slot(sim, vessel)
    if slot is not None and getattr(sim, "piloted", None) != vessel:
        reg.values[slot] = 0.0
    return CommandResult(True, {"vessel": vessel}, (), tick, seq)
