"""``Simulation``: the deterministic core of the runtime, one tick at a time, one thread.

Tick order (the design's section 4):
  1. admit queued commands in arrival order, stamped (tick, sequence);
  2. scenario participants (Rhai hooks);
  3. wires propagate, then model participants (Modelica, FMU) step and publish;
  4. wires propagate again (model outputs reach their sinks in the same tick);
  5. physics substeps (drives read their ports), then body/joint ports read back;
  6. a frozen :class:`WorkbenchSnapshot` is made.
Nothing here reads the wall clock; everything is ordered by prim path.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pxr import Sdf, Usd

from luncosim_core.api.attachments import AttachBodies, DetachBodies
from luncosim_core.api.commands import (
    AddRuntimeWaypoint,
    ApplyOp,
    ClearPatrol,
    Command,
    CommandResult,
    DisengageAutopilot,
    EngageAutopilot,
    PossessVessel,
    Query,
    ReleasePorts,
    ReleaseVessel,
    RunRhai,
    SetAutopilotBehavior,
    SetEnvironmentLight,
    SetPorts,
    SpawnEntity,
    SyncStage,
)
from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.stdio import native_stdout_to_stderr

with native_stdout_to_stderr():
    from luncosim_core.physics import PhysicsWorld
    from luncosim_core.physics.ports import BODY_BLOCK, BODY_STATE_PORTS, CONTACT_PORTS
from luncosim_core.api.events import SimEvent
from luncosim_core.api.snapshot import WorkbenchSnapshot, frozen
from luncosim_core.ports.declarations import connector_diagnostics, read_declarations, read_wires
from luncosim_core.ports.fabric import Fabric
from luncosim_core.ports.model import PortInfo, port_key
from luncosim_core.ports.registry import PortRegistry, PortWriteError
from luncosim_core.ports.surface import PILOTED, command_surface_ports, ports_policy, wire_demand
from luncosim_core.sim.attachments import execute_attachment
from luncosim_core.sim.autopilot import autopilot_of, execute_autopilot
from luncosim_core.sim.environment_state import EnvironmentState, set_environment_light
from luncosim_core.sim.faults import ParticipantFailed, fault_of
from luncosim_core.sim.host import MAX_PENDING_EVENTS, SimulationHost
from luncosim_core.sim.participants import Participant
from luncosim_core.sim.port_events import fire_port_events, read_event_bindings
from luncosim_core.sim.queries import answer_query, world_pose
from luncosim_core.sim.spawn import execute_spawn
from luncosim_core.sim.trace import TraceBuffer
from luncosim_core.sim.waypoints import execute_add_waypoint, note_arrivals


@dataclass(frozen=True)
class SimulationConfig:
    tick_hz: float = 60.0
    substeps: int = 4
    world_bounds: float = 1.0e5
    max_queue: int = 4096
    #: gravity (m/s^2, along -up) of a stage with no PhysicsScene: the Moon's, as in LunCoSim
    default_gravity: float = 1.62


class Simulation:
    """The runtime projection of one composed stage."""

    def __init__(self, stage: Usd.Stage, config: SimulationConfig | None = None, *, roots=None,
                 document=None, participant_factory=None, scene: str = "") -> None:
        self.stage = stage
        self.config = config or SimulationConfig()
        self.roots = roots
        self.document = document  # optional UsdDocument owned by this thread (headless edits)
        self.participant_factory = participant_factory
        self.scene = scene or (stage.GetRootLayer().realPath or stage.GetRootLayer().identifier)
        self.dt = 1.0 / self.config.tick_hz
        self.tick_count = 0
        self.generation = 0
        self.sequence = 0
        self.pending: deque[tuple[int, Command, object]] = deque()
        self.trace = TraceBuffer()
        self.fault: Diagnostic | None = None
        self.status_reason = ""
        self._new_diags: list[Diagnostic] = []
        self._new_events: deque[SimEvent] = deque(maxlen=MAX_PENDING_EVENTS)
        self.host = SimulationHost(self)  # what scenarios, lint and test runners act through
        self.world: PhysicsWorld | None = None
        self.registry: PortRegistry | None = None
        self.participants: list[Participant] = []
        self.in_tick = False  # scripts are running: structural edits re-project at the tick's end
        self.deferred_changed: list[str] = []
        self.reached_waypoints: dict[str, set[str]] = {}  # vessel -> runtime waypoint markers entered
        self.environment = EnvironmentState()  # runtime-only environment changes (SetEnvironmentLight)
        self.build()

    # ------------------------------------------------------------------ building
    def build(self, keep_participants: list | None = None, add_new: bool = False) -> None:
        """Project the stage: physics world, ports, wires, participants. A clean slate, except
        for ``keep_participants`` (carried over, with their state, across an edit); with
        ``add_new``, participants of programs the kept ones do not cover join them (a spawn)."""
        kept = list(keep_participants or [])
        self.teardown(keep=kept)
        self.generation += 1
        self.host.forget_paths()
        diags: list[Diagnostic] = []
        with native_stdout_to_stderr():
            self.world = PhysicsWorld(self.stage, tick_hz=self.config.tick_hz, substeps=self.config.substeps,
                                      world_bounds=self.config.world_bounds,
                                      default_gravity=self.config.default_gravity)
        diags += self.world.diagnostics
        if kept and add_new:
            self.participants = self._with_new_participants(kept)
        elif kept:
            self.participants = kept
        else:
            self.participants = list(self.participant_factory(self) if self.participant_factory else [])
        for part in self.participants:
            diags += part.take_diagnostics()
        diags += self._build_ports()
        self.port_events, event_diags = read_event_bindings(self.stage)
        diags += event_diags
        self.diagnostics = diags
        self._new_diags = list(diags)
        self.fault = self.world.fault
        if self.fault:
            self._new_diags.append(self.fault)

    def _with_new_participants(self, kept: list) -> list:
        """``kept`` plus fresh participants for the prims none of them runs (in prim-path order)."""
        have = {p.prim_path for p in kept}
        fresh = list(self.participant_factory(self) if self.participant_factory else [])
        for part in fresh:
            if part.prim_path in have:
                part.close()
        return sorted(kept + [p for p in fresh if p.prim_path not in have], key=lambda p: p.prim_path)

    def _build_ports(self) -> list[Diagnostic]:
        """(Re)build the port registry and the wire fabric; existing port values carry over."""
        diags: list[Diagnostic] = []
        previous = {}
        if getattr(self, "registry", None) is not None and len(self.registry):
            previous = {k: float(self.registry.values[i]) for k, i in self.registry.index.items()}
            held = {self.registry.infos[i].key: v for i, v in self.registry.held.items()}
        else:
            held = {}
        decls, decl_diags = read_declarations(self.stage)
        diags += decl_diags
        declared = {f"{d.prim_path}.{d.attribute}": d for d in decls}
        wires = read_wires(self.stage, declared, strict=ports_policy(self.roots).strict_public_outputs)
        command_decls, backend = command_surface_ports(self.stage, set(declared))
        decls += command_decls
        for spec in self.world.port_specs():
            readable = spec.direction == "out" or spec.name in ("angle", "displacement")
            initial = self.world.read_port(spec.prim_path, spec.name) if readable else math.nan
            backend.append((PortInfo(spec.prim_path, spec.name, spec.direction, spec.type, spec.unit, None, None,
                                     "physics", "physics" if not spec.writable else "user", spec.writable, False,
                                     spec.description), initial))
        demand, implicit = wire_demand(wires), wire_demand(wires, implicit_only=True)
        for part in self.participants:
            tell = getattr(part, "wire_demand", None)
            if tell is not None:  # which outputs wires read (implicit outputs, probe values)
                tell(demand.get(part.prim_path, frozenset()), implicit.get(part.prim_path, frozenset()))
            backend += part.port_infos()
        self.registry = PortRegistry()
        wired = {w.sink_key: w.source_key for w in wires if not w.broken}
        diags += self.registry.build(decls, backend, wired)
        for key, value in previous.items():
            i = self.registry.index.get(key)
            if i is not None and not math.isnan(value):
                self.registry.values[i] = value
        for key, value in held.items():
            i = self.registry.index.get(key)
            if i is not None and self.registry.infos[i].writable:
                self.registry.held[i] = value
        self.fabric = Fabric()
        units = {i.key: i.unit for i in self.registry.infos}
        diags += self.fabric.compile(wires, self.registry.index, units)
        diags += connector_diagnostics(self.stage)
        self._bind_physics_ports()
        self.waits: dict[str, str] = {}
        return diags

    def rebind_participant(self, part) -> None:
        """A participant's interface became known (compile committed): rebuild ports and wires."""
        diags = self._build_ports() + part.take_diagnostics()
        known = {(d.code, d.path, d.message) for d in self.diagnostics}
        fresh = [d for d in diags if (d.code, d.path, d.message) not in known]
        self.diagnostics += fresh
        self._new_diags += fresh

    def report(self, diagnostic: Diagnostic) -> None:
        """A diagnostic found outside the tick (a source poll, the worker): in the next snapshot."""
        self._new_diags.append(diagnostic)

    def publish(self, event: SimEvent) -> None:
        """An event for the next snapshot (bounded: the oldest go first when nobody reads)."""
        self._new_events.append(event)

    def note_wait(self, prim_path: str, reason: str) -> None:
        """A participant did not step this tick (e.g. a pending input); shown in the snapshot."""
        self.waits[prim_path] = reason

    def poll_sources(self) -> list[str]:
        """Hot reload: ask every participant whether its source changed; names those reloading."""
        changed = []
        for part in self.participants:
            poll = getattr(part, "poll_source", None)
            if poll is not None and poll(self):
                changed.append(part.prim_path)
        from luncosim_core.scripting.scenario import reload_changed_sources

        for d in reload_changed_sources(self):
            self._new_diags.append(d)
            if d.path and d.path not in changed:
                changed.append(d.path)
        return changed

    def wait_until_ready(self, timeout: float | None = 60.0) -> str:
        """Block until every participant has committed its first compile; the remaining reason."""
        for part in self.participants:
            waiter = getattr(part, "wait_for_compile", None)
            if waiter is not None:
                waiter(timeout)
        return self.wait_reason()

    def _bind_physics_ports(self) -> None:
        """Index arrays mapping the world's pose/velocity arrays onto registry slots."""
        reg = self.registry
        world = self.world
        n = len(world.body_paths)

        def idx(path: str, name: str) -> int:
            return reg.index.get(port_key(path, name), -1)

        def scatter(slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            mask = slots >= 0
            return slots[mask], mask

        vectorised = {"position", "orientation", "velocity", "angvel", "force", "torque"}
        state_cols = set(BODY_STATE_PORTS)
        contact_names = set(CONTACT_PORTS)
        # one gather a tick: the world's (bodies, BODY_BLOCK) read-back onto the slots it feeds
        block = np.array([[idx(p, name) for name in BODY_BLOCK] for p in world.body_paths],
                         dtype=np.intp).reshape(n, len(BODY_BLOCK))
        self._block_contacts = bool((block[:, -len(CONTACT_PORTS):] >= 0).any())
        if not self._block_contacts:
            block = block[:, :-len(CONTACT_PORTS)]
        self._block_src = np.flatnonzero(block.ravel() >= 0)
        self._block_dst = block.ravel()[self._block_src]
        jpaths = world.joint_table()[0]
        self._joint_slots = [
            np.array([idx(p, "angle") if idx(p, "angle") >= 0 else idx(p, "displacement") for p in jpaths], dtype=np.intp),
            np.array([idx(p, "velocity") for p in jpaths], dtype=np.intp),
            np.array([idx(p, "torque") if idx(p, "torque") >= 0 else idx(p, "force") for p in jpaths], dtype=np.intp),
        ]
        joint_names = {"angle", "displacement", "velocity", "torque", "force"}
        jset = set(jpaths)
        self._scalar_reads: list[tuple[int, str, str]] = []
        self._commands: list[tuple[int, str, str]] = []
        for spec in world.port_specs():
            i = reg.index.get(port_key(spec.prim_path, spec.name))
            if i is None:
                continue
            is_body_vec = spec.prim_path in world.body_paths and (
                spec.name.rpartition("_")[0] in vectorised or spec.name in state_cols)
            if spec.writable:
                self._commands.append((i, spec.prim_path, spec.name))
            is_contact = spec.prim_path in world.body_paths and spec.name in contact_names
            is_joint_vec = spec.prim_path in jset and spec.name in joint_names
            if (spec.direction == "out" or spec.name in ("angle", "displacement")) and not is_body_vec \
                    and not is_contact and not is_joint_vec and not _constant_body_port(spec.name):
                self._scalar_reads.append((i, spec.prim_path, spec.name))
        self._joint_scatter = [scatter(v) for v in self._joint_slots] if len(jpaths) else []
        # commanded inputs: written to the world when held or wired and changed since last written
        self._cmd_slots = np.array([i for i, _p, _n in self._commands], dtype=np.intp)
        self._cmd_wired = np.isin(self._cmd_slots, self.fabric.sinks)
        self._cmd_last = np.full(len(self._commands), np.nan)
        self._cmd_held: tuple[int, ...] | None = None
        self._cmd_live = self._cmd_wired
        self._bind_vehicles()

    def _bind_vehicles(self) -> None:
        """Registry slots of every vessel's drive allocation and of the wheels' inputs."""
        reg, world = self.registry, self.world

        def slot(path: str, *names: str) -> int:
            for name in names:
                i = reg.index.get(port_key(path, name))
                if i is not None:
                    return i
            return -1

        self._mixes = []
        for v in world.vehicles.vessels:
            if v.mix is None:
                continue
            ins = [slot(v.path, n) for n in ("throttle", "steer", "brake")]
            names = v.mix.ports or [e.port for e in v.mix.entries]
            outs = {n: slot(v.path, f"outputs:{n}", n) for n in names}
            self._mixes.append((v.mix, ins, {n: i for n, i in outs.items() if i >= 0}))
        self._vehicle_slots = [(k, reg.index.get(k, -1)) for k in world.vehicles.input_keys()]

    def _mix_drives(self) -> None:
        """Each vessel's throttle/steer/brake to its actuator ports (before wires propagate)."""
        values = self.registry.values
        for mix, ins, outs in self._mixes:
            t, s, b = (float(values[i]) if i >= 0 else 0.0 for i in ins)
            writes = mix.allocate(0.0 if t != t else t, 0.0 if s != s else s, 0.0 if b != b else b)
            for name, i in outs.items():
                if name in writes:
                    values[i] = writes[name]

    def teardown(self, keep: list | None = None) -> None:
        """Drop everything projected from the last stage: physics client, participants, traces."""
        if self.world is not None:
            self.world.close()
            self.world = None
        for part in self.participants:
            if not keep or part not in keep:
                part.close()
        self.participants = []
        self.trace.clear()
        self.refuse_pending("simulation-reset", "the simulation was reset or rebuilt before the command was admitted")
        self.fault = None
        self.registry = None

    def refuse_pending(self, code: str, why: str) -> int:
        """Resolve every queued command's ticket with an error (a reset, a fault, a close): no
        sender waits forever on a command that will never be admitted. Returns how many."""
        n = 0
        while self.pending:
            seq, cmd, ticket = self.pending.popleft()
            n += 1
            if ticket is not None:
                ticket(CommandResult(False, None, (Diagnostic("error", code, f"{cmd.name}: {why}", source="runtime"),),
                                     self.tick_count, seq))
        return n

    def close(self) -> None:
        self.teardown()

    # ------------------------------------------------------------------ commands
    def submit(self, command: Command, ticket=None) -> int:
        """Queue a command for admission at the next tick; returns its sequence number."""
        if len(self.pending) >= self.config.max_queue:
            raise OverflowError(f"command queue is full ({self.config.max_queue} pending)")
        self.sequence += 1
        self.pending.append((self.sequence, command, ticket))
        if self.fault is not None:  # nothing will be admitted again: answer now
            self.refuse_pending("simulation-faulted", f"the simulation is faulted ({self.fault.code}); reset it first")
        return self.sequence

    def _admit(self) -> None:
        while self.pending:
            seq, cmd, ticket = self.pending.popleft()
            try:
                result = self.execute(cmd, seq)
            except Exception as exc:  # a bad command never kills the tick
                result = CommandResult.error(Diagnostic("error", "command-failed", f"{cmd.name}: {exc}", source="runtime"))
            if ticket is not None:
                ticket(result)

    def execute(self, cmd: Command, seq: int = 0) -> CommandResult:
        """Apply one command now (the scheduler calls this at admission)."""
        tick = self.tick_count + 1
        if isinstance(cmd, SetPorts):
            try:
                writes = self.registry.check_writes(cmd.target, cmd.writes)
            except PortWriteError as err:
                self.trace.record_rejected(cmd, tick, seq, err.diagnostics)
                return CommandResult(False, None, tuple(err.diagnostics), tick, seq)
            self.registry.hold(writes)
            self.trace.record(cmd, tick, seq, [(self.registry.infos[i], v) for i, v in writes])
            return CommandResult(True, {self.registry.infos[i].name: v for i, v in writes}, (), tick, seq)
        if isinstance(cmd, SetEnvironmentLight):
            return set_environment_light(self, cmd, tick, seq)
        if isinstance(cmd, (PossessVessel, ReleaseVessel)):
            return self._possess(cmd, tick, seq)
        if isinstance(cmd, (EngageAutopilot, SetAutopilotBehavior, ClearPatrol, DisengageAutopilot)):
            return execute_autopilot(self, cmd, tick, seq)
        if isinstance(cmd, ReleasePorts):
            released = self.registry.release(cmd.target, cmd.names)
            return CommandResult(True, released, (), tick, seq)
        if isinstance(cmd, ApplyOp):
            return self._apply_op(cmd, tick, seq)
        if isinstance(cmd, SpawnEntity):
            return execute_spawn(self, cmd, tick, seq)
        if isinstance(cmd, AddRuntimeWaypoint):
            return execute_add_waypoint(self, cmd, tick, seq)
        if isinstance(cmd, SyncStage):
            return self._sync_stage(cmd, tick, seq)
        if isinstance(cmd, (AttachBodies, DetachBodies)):
            return execute_attachment(self, cmd, tick, seq)
        if isinstance(cmd, RunRhai):
            from luncosim_core.sim.rhai_console import execute_run_rhai

            return execute_run_rhai(self, cmd, tick, seq)
        return CommandResult.error(Diagnostic("error", "command-unknown", f"unknown command {cmd!r}", source="runtime"))

    def _apply_op(self, cmd: ApplyOp, tick: int, seq: int) -> CommandResult:
        """A typed document op, applied to this simulation's document; the projection follows."""
        if self.document is None:
            return CommandResult.error(Diagnostic("error", "no-document", "this simulation has no document to edit", source="runtime"))
        problem = self.preflight(cmd.op)
        if problem is not None:
            return CommandResult(False, None, (problem,), tick, seq)
        try:
            self.document.apply(cmd.op)
        except DiagnosticError as err:
            return CommandResult(False, None, tuple(err.diagnostics), tick, seq)
        if _ports_only(cmd.op):
            fresh = self._build_ports()
            self._apply_authored_values(cmd.op)
            self.diagnostics += [d for d in fresh if d.is_error]
            self._new_diags += [d for d in fresh if d.is_error]
        else:
            self.rebuild_keep_time(changed=_touched_paths(cmd.op))
        return CommandResult(True, cmd.op.label(), (), tick, seq)

    def _possess(self, cmd: PossessVessel | ReleaseVessel, tick: int, seq: int) -> CommandResult:
        """One session pilots one vessel: ``piloted`` moves from the previous vessel to this one
        (PossessVessel) or back to 0 (ReleaseVessel)."""
        reg = self.registry
        slot = reg.index.get(port_key(cmd.target, PILOTED), reg.index.get(port_key(cmd.target, f"outputs:{PILOTED}")))
        if slot is None:
            return CommandResult(False, None, (Diagnostic(
                "error", "possess-refused",
                f"PossessVessel: {cmd.target or '(no target)'} has no command inputs (no Controls binding), so it "
                "cannot be piloted", path=cmd.target, source="runtime"),), tick, seq)
        previous = getattr(self, "piloted", None)
        if autopilot_of(self, cmd.target) is not None:  # the vessel is the autopilot's, not the session's
            if isinstance(cmd, ReleaseVessel):
                return CommandResult(True, {"target": cmd.target}, (), tick, seq)
            return CommandResult(False, None, (Diagnostic(
                "error", "possess-refused", f"PossessVessel: {cmd.target} is driven by its autopilot; "
                "DisengageAutopilot first", path=cmd.target, source="runtime"),), tick, seq)
        if isinstance(cmd, ReleaseVessel):
            reg.values[slot] = 0.0
            if previous == cmd.target:
                self.piloted = None
            return CommandResult(True, {"target": cmd.target}, (), tick, seq)
        if previous and previous != cmd.target:
            old = reg.index.get(port_key(previous, PILOTED))
            if old is not None:
                reg.values[old] = 0.0
        reg.values[slot] = 1.0
        self.piloted = cmd.target
        return CommandResult(True, {"target": cmd.target, "previous": previous}, (), tick, seq)

    def _sync_stage(self, cmd: SyncStage, tick: int, seq: int) -> CommandResult:
        """Swap in a new copy of the scene and re-project it keeping time (see :class:`SyncStage`)."""
        from luncosim_core.sim.mirror import StageDocument, stage_from_text

        stage = stage_from_text(cmd.text)
        if stage is None:
            return CommandResult.error(Diagnostic("error", "sync-stage", "the scene text sent to the simulation does not parse",
                                                  source="runtime"))
        prims = tuple(sorted({str(Sdf.Path(p).GetPrimPath()) for p in cmd.changed if Sdf.Path.IsValidPathString(p)}))
        self.stage = stage
        self.document = StageDocument(stage, self.roots)
        self.rebuild_keep_time(changed=prims)
        self._take_authored_ports(cmd.changed)
        return CommandResult(True, prims, (), tick, seq)

    def _take_authored_ports(self, changed: tuple[str, ...]) -> None:
        """A port whose authored value an edit changed takes that value as its sample."""
        for text in changed:
            path = Sdf.Path(text) if Sdf.Path.IsValidPathString(text) else None
            if path is None or not path.IsPropertyPath() or ":" not in path.name:
                continue
            prefix, _, name = path.name.partition(":")
            attr = self.stage.GetAttributeAtPath(path)
            if prefix not in ("inputs", "outputs") or not attr:
                continue
            value = attr.Get()
            i = self.registry.index.get(port_key(str(path.GetPrimPath()), name))
            if i is None or not self.registry.infos[i].writable or not isinstance(value, (int, float)):
                continue
            if math.isfinite(float(value)):
                self.registry.values[i] = float(value)
                if i in self.registry.held:
                    self.registry.held[i] = float(value)

    def _apply_authored_values(self, op) -> None:
        """A newly authored port value becomes the port's sample (unless a wire or solver owns it)."""
        from luncosim_core.usd.ops import Batch, SetAttribute

        ops = op.ops if isinstance(op, Batch) else (op,)
        for o in ops:
            if not isinstance(o, SetAttribute):
                continue
            name = o.name.partition(":")[2]
            i = self.registry.index.get(port_key(o.path, name))
            if i is None or not self.registry.infos[i].writable or isinstance(o.value, (str, list, tuple)):
                continue
            value = float(o.value)
            if math.isfinite(value):
                self.registry.values[i] = value
                if i in self.registry.held:
                    self.registry.held[i] = value

    def preflight(self, op) -> Diagnostic | None:
        """Check an op against the live registry (runtime-owned endpoints) before it applies."""
        from luncosim_core.usd.ops import SetConnection

        if isinstance(op, SetConnection) and self.registry is not None:
            name = op.name.partition(":")[2] or op.name
            info = self.registry.info(port_key(op.path, name))
            if info is not None and info.direction == "out" and info.source not in ("usd", "wire"):
                return Diagnostic("error", "op-set-connection",
                                  f"{op.path}.{op.name} is produced by {info.authority}; it cannot also be a wire sink",
                                  path=op.path, source="ports")
        return None

    def rebuild_keep_time(self, changed: tuple[str, ...] = ()) -> None:
        """Re-project after a document edit between ticks, keeping the clock and the motion.

        Bodies and joints that still exist keep their simulated state; those under a ``changed``
        prim path take their newly authored pose. Port values and SetPorts holds carry over.
        """
        tick, pending = self.tick_count, list(self.pending)
        self.pending.clear()  # carried over to the new projection (not refused by the teardown)
        state = self.world.export_state() if self.world is not None else None
        values = self._port_memory()
        def touches(prim: str) -> bool:
            return any(prim == c or prim.startswith(c.rstrip("/") + "/") or c.startswith(prim + "/") for c in changed)

        from luncosim_core.usd.programs import program_prims

        new_programs = [str(p.GetPath()) for p in program_prims(self.stage)] if changed else []
        old_touched = any(touches(p.prim_path) for p in self.participants)
        added = not old_touched and any(touches(p) for p in new_programs)
        keep = [] if old_touched else self.participants
        self.build(keep_participants=keep, add_new=added)
        if state is not None:
            self.world.import_state(state, skip=changed)
        self._restore_ports(values)
        self.tick_count = tick
        self.pending.extend(pending)

    def _port_memory(self) -> tuple[dict[str, float], dict[str, float]]:
        if self.registry is None:
            return {}, {}
        values = {k: float(self.registry.values[i]) for k, i in self.registry.index.items()}
        held = {self.registry.infos[i].key: v for i, v in self.registry.held.items()}
        return values, held

    def _restore_ports(self, memory: tuple[dict[str, float], dict[str, float]]) -> None:
        values, held = memory
        reg = self.registry
        for key, value in values.items():
            i = reg.index.get(key)
            if i is not None and not math.isnan(value) and reg.infos[i].source not in ("physics",):
                reg.values[i] = value
        for key, value in held.items():
            i = reg.index.get(key)
            if i is not None and reg.infos[i].writable:
                reg.held[i] = value
                reg.values[i] = value

    # ------------------------------------------------------------------ queries
    def query(self, q: Query) -> CommandResult:
        """Answer a query from the current state (between ticks)."""
        if q.name == "ModelVariables":  # a Modelica program's variables by name (sim/model_variables.py)
            from luncosim_core.sim.model_variables import answer_model_variables

            return answer_model_variables(self, q)
        return answer_query(self, q)

    def world_pose(self, path: str) -> tuple[list[float], list[float]]:
        """A body's simulated pose, or a prim's composed world transform (metres, w-x-y-z)."""
        return world_pose(self, path)

    def read(self, prim_path: str, name: str) -> float | None:
        """The current value of a port (measured for physics ports); None while pending."""
        return self.registry.value(port_key(prim_path, name))

    # ------------------------------------------------------------------ the tick
    def wait_reason(self) -> str:
        for part in self.participants:
            reason = part.wait_reason(self)
            if reason:
                return f"{part.prim_path}: {reason}"
        return ""

    def tick(self) -> bool:
        """Advance one fixed tick. Returns False when nothing advanced (faulted or waiting)."""
        if self.fault is not None:
            self.refuse_pending("simulation-faulted", f"the simulation is faulted ({self.fault.code}); reset it first")
            return False
        reason = self.wait_reason()
        if reason:
            self.status_reason = reason
            self._admit()
            return False
        self.status_reason = ""
        self._admit()
        self.waits = {}
        reg = self.registry
        self.in_tick = True
        try:
            self._step_phase("script")
            reg.apply_holds()
            self._mix_drives()
            self.fabric.propagate(reg.values)
            self._step_phase("model")
            reg.apply_holds()
            self.fabric.propagate(reg.values)
            if self.port_events:
                fire_port_events(self, self.port_events)
            self._physics_step()
        except ParticipantFailed as failed:
            self.fault = fault_of(failed.error, failed.participant)
            self._new_diags.append(self.fault)
            return False
        except Exception as exc:
            self.fault = fault_of(exc)
            self._new_diags.append(self.fault)
            return False
        finally:
            self.in_tick = False
        for part in self.participants:
            self._new_diags += part.take_diagnostics()
        self.tick_count += 1
        if self.deferred_changed:  # structural edits a script made inside the tick: re-project now
            changed, self.deferred_changed = tuple(self.deferred_changed), []
            self.rebuild_keep_time(changed=changed)
        if self.world.fault is not None and self.fault is None:
            self.fault = self.world.fault
            self._new_diags.append(self.fault)
        return True

    def _step_phase(self, phase: str) -> None:
        """Step the participants of one phase; an exception leaving one names it (``participant``)."""
        for part in self.participants:
            if part.phase == phase:
                try:
                    part.step(self)
                except Exception as exc:
                    raise ParticipantFailed(part.prim_path, exc) from exc

    def participant_faults(self) -> list[Diagnostic]:
        """Faults that stopped one participant while the simulation went on (a scenario that
        threw or ran out of operations), by prim path."""
        return [f for p in self.participants if (f := getattr(p, "fault", None)) is not None]

    def _physics_step(self) -> None:
        world = self.world
        values = self.registry.values
        if len(self._commands):
            held = tuple(self.registry.held)
            if held != self._cmd_held:  # a hold came or went: which commands may be written
                self._cmd_held = held
                self._cmd_live = self._cmd_wired | np.isin(self._cmd_slots, np.array(held, dtype=np.intp))
            v = values[self._cmd_slots]
            last = self._cmd_last
            # held or wired, a sample (NaN is none) and changed since it was last written
            for k in np.flatnonzero(self._cmd_live & (v != last) & (v == v)).tolist():
                _i, path, name = self._commands[k]
                world.write_port(path, name, float(v[k]))
                last[k] = v[k]
        if self._vehicle_slots:
            world.vehicles.set_inputs({k: float(values[i]) if i >= 0 else 0.0 for k, i in self._vehicle_slots})
        world.step()
        self._deliver_zone_events(world.take_zone_events())
        if len(self._block_dst):
            values[self._block_dst] = world.body_block(self._block_contacts).ravel()[self._block_src]
        if self._joint_scatter:
            for (dst, mask), column in zip(self._joint_scatter, world.joint_table()[1:], strict=True):
                values[dst] = column[mask]
        for i, path, name in self._scalar_reads:
            values[i] = world.read_port(path, name)

    def _deliver_zone_events(self, events: list[tuple[str, str, str]]) -> None:
        """Trigger-zone crossings reach every scenario runtime (value: the entrant's entity id;
        source: the trigger prim itself, as LunCoSim's sensor collider is the event's source)."""
        if not events:
            return
        arrivals = note_arrivals(self, events)
        runtimes = {id(rt): rt for rt in (getattr(p, "runtime", None) for p in self.participants)
                    if rt is not None and hasattr(rt, "inject")}
        for rt in runtimes.values():
            for ev in events:
                name, entrant, model = ev
                rt.inject(name, rt.id_of(entrant), getattr(ev, "zone", model))
            for vessel, index, _marker in arrivals:
                rt.inject("waypoint.reached", index, vessel)

    def run(self, ticks: int) -> int:
        """Advance ``ticks`` ticks (headless: blocks while a compile holds admission).

        Returns how many advanced; fewer only on a fault or a wait that cannot clear.
        """
        done = 0
        while done < ticks:
            if self.tick():
                done += 1
                continue
            if self.fault is not None:
                break
            if self.wait_until_ready():  # still waiting after the compile finished: stop
                break
        return done

    # ------------------------------------------------------------------ observing
    @property
    def time(self) -> float:
        return self.tick_count * self.dt

    def status(self, running: bool) -> tuple[str, str]:
        if self.fault is not None:
            return "faulted", self.fault.message
        if self.status_reason:
            return "waiting", self.status_reason
        if not running:
            busy = self.compiling()
            if busy:  # paused, but the next tick would wait on it: say so
                return "waiting", busy
        return ("running" if running else "paused"), ""

    def compiling(self) -> str:
        """A compile still running that the next tick would wait on ("" when none); read-only."""
        for part in self.participants:
            future = getattr(part, "future", None)
            if future is not None and not future.done() and getattr(part, "participant", None) is None:
                source = getattr(part, "source_path", None)
                return f"{part.prim_path}: compiling {source.name if source else 'inline source'}"
        return ""

    def snapshot(self, *, running: bool = False, real_time_factor: float = 0.0) -> WorkbenchSnapshot:
        world = self.world
        status, reason = self.status(running)
        diags, self._new_diags = tuple(self._new_diags), []
        events = tuple(self._new_events)
        self._new_events.clear()
        return WorkbenchSnapshot(
            tick=self.tick_count, time=self.time, status=status, reason=reason,
            body_paths=world.body_paths,
            positions=frozen(world.positions()), orientations=frozen(world.orientations()),
            linear_velocities=frozen(world.linear_velocities()), angular_velocities=frozen(world.angular_velocities()),
            port_keys=tuple(self.registry.index), port_values=frozen(self.registry.values),
            diagnostics=diags, events=events, faults=(self.fault,) if self.fault else (),
            scene=str(self.scene), generation=self.generation, real_time_factor=real_time_factor,
            extra={"waits": dict(self.waits)} if self.waits else {},
        )

    def state_hash(self) -> str:
        """SHA-256 over everything that determines the future: clock, physics, ports, participants."""
        h = hashlib.sha256()
        h.update(struct.pack("<q", self.tick_count))
        h.update(self.world.state_bytes())
        h.update(np.ascontiguousarray(self.registry.values, dtype="<f8").tobytes())
        for part in self.participants:
            h.update(part.prim_path.encode())
            h.update(part.state_bytes())
        return h.hexdigest()


def _constant_body_port(name: str) -> bool:
    """Body ports fixed at build (mass properties): read once, never per tick."""
    return name == "mass" or name.startswith(("com_", "inertia_"))


def _touched_paths(op) -> tuple[str, ...]:
    """Prim paths an op edits (their bodies take the new authored state on rebuild)."""
    from luncosim_core.usd.ops import Batch, MovePrim

    if isinstance(op, Batch):
        return tuple(p for o in op.ops for p in _touched_paths(o))
    paths = [getattr(op, "path", "")]
    if isinstance(op, MovePrim):
        paths.append(op.new_path)
    return tuple(p for p in paths if p)


def _ports_only(op) -> bool:
    """Ops that change only the port surface or wires (no re-projection of physics needed)."""
    from luncosim_core.usd.ops import Batch, SetAttribute, SetConnection

    if isinstance(op, Batch):
        return all(_ports_only(o) for o in op.ops)
    if isinstance(op, SetConnection):
        return True
    return isinstance(op, SetAttribute) and op.name.startswith(("inputs:", "outputs:")) and "physics" not in op.name


def open_simulation(scene: str | Path, *, lunco_root: Path | None = None, config: SimulationConfig | None = None,
                    edits: tuple = ()) -> Simulation:
    """Compose a scene with its twin's rules and build a headless simulation over it.

    ``edits`` are typed document ops applied before the projection is built (batch parameter
    overrides on the runtime layer); one that fails raises :class:`DiagnosticError`."""
    from luncosim_core.sim.programs import program_participants
    from luncosim_core.twin.twin import open_path
    from luncosim_core.usd.document import UsdDocument

    opened = open_path(scene, lunco_root)
    if opened.scene is None:
        raise FileNotFoundError(opened.reason)
    twin = opened.twin
    doc = UsdDocument(opened.scene, twin.roots, policy=twin.composition_policy,
                      runtime_sidecar=twin.runtime_sidecar(opened.scene), persist_runtime=twin.runtime_persistence,
                      register=False)  # a headless run's private document
    for op in edits:
        doc.apply(op, author="api")
    sim = Simulation(doc.stage, config, roots=twin.roots, document=doc, participant_factory=program_participants,
                     scene=str(opened.scene))
    sim.diagnostics = list(doc.diagnostics) + sim.diagnostics
    sim._new_diags = list(doc.diagnostics) + sim._new_diags
    return sim
