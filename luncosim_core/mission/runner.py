"""Running a task file on a live simulation: actions in order, each motion in order.

The runner owns no thread: the caller hands it a :class:`MissionHost` it may tick. Progress is
observable through events (``mission.action.started`` ... ``mission.run.completed``) and the
plain-data :class:`MissionOverlay` (costmap, path, track, fluid streams) a viewport can draw.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from luncosim_core.api.attachments import AttachBodies, DetachBodies
from luncosim_core.api.commands import SetPorts
from luncosim_core.mission.capture import capture, robot_assembly
from luncosim_core.mission.costmap import Costmap
from luncosim_core.mission.debug_png import DebugEvidence
from luncosim_core.mission.events import EventLog, MissionEvent
from luncosim_core.mission.fluid import FluidStream
from luncosim_core.mission.footprint import Footprint
from luncosim_core.mission.frames import GroundFrame
from luncosim_core.mission.host import MissionHost
from luncosim_core.mission.hybrid_astar import NavigationPath
from luncosim_core.mission.navigation import MotionFailed, NavigationContext, navigate
from luncosim_core.mission.taskfile import (
    Action,
    AttachmentMotion,
    FluidMotion,
    JointsMotion,
    NavigationMotion,
    TaskError,
    TaskFile,
    TaskFileError,
)
from luncosim_core.mission.track import ControlTrack

ATTACH_VERIFY_TICKS = 10
ATTACH_TOLERANCE_M = 0.01


@dataclass
class MissionOverlay:
    """What a viewport overlay draws for the running mission (plain data, replaced as it goes)."""

    costmap: Costmap | None = None
    path: NavigationPath | None = None
    track: ControlTrack | None = None
    footprint: Footprint | None = None
    robot: str | None = None
    ground: float = 0.0  # height of the floor the robot stands on (the capture's lower bound)
    fluids: dict[str, tuple[FluidStream, float]] = field(default_factory=dict)  # id -> (stream, start time)

    def update(self, **values) -> None:
        for k, v in values.items():
            setattr(self, k, v)


@dataclass
class ActionResult:
    name: str
    type: str
    result: str  # success | failure | skipped
    reason: str
    duration_s: float

    def to_json(self) -> dict:
        return {"name": self.name, "type": self.type, "result": self.result, "reason": self.reason,
                "duration_s": self.duration_s}


@dataclass
class MissionResult:
    result: str
    actions: list[ActionResult]
    events: list[MissionEvent]
    final_poses: dict[str, dict[str, float]]
    run_id: str
    evidence: list[DebugEvidence]

    @property
    def ok(self) -> bool:
        return self.result == "success"

    def to_json(self) -> dict:
        return {"result": self.result, "actions": [a.to_json() for a in self.actions],
                "events": [e.to_json() for e in self.events], "final_poses": self.final_poses,
                "run_id": self.run_id}


class RunLimitExceeded(Exception):
    pass


class MissionRunner:
    """Runs one task file against one host."""

    def __init__(self, host: MissionHost, task: TaskFile, *, run_id: str | None = None,
                 max_seconds: float | None = None,
                 listeners: tuple[Callable[[MissionEvent], None], ...] = ()) -> None:
        self.host = host
        self.task = task
        self.frame = GroundFrame(host.up_axis)
        self.run_id = run_id or uuid.uuid4().hex
        self.max_seconds = max_seconds
        self.events = EventLog(listeners)
        self.overlay = MissionOverlay()
        self.evidence: list[DebugEvidence] = []
        self._tick0 = host.tick_count

    # ------------------------------------------------------------------ preparation
    def prepare(self) -> None:
        """Check the task against the scene before anything moves; :class:`TaskFileError` if not."""
        errors: list[TaskError] = []
        for name, path in sorted(self.task.aliases.items()):
            if self.host.prim_attributes(path) is None:
                errors.append(TaskError(f"scenario.aliases.{name}", f"{path} is not a prim of the scene"))
        bodies = self.host.body_paths()
        for i, action in enumerate(self.task.actions):
            base = f"scenario.behavior.task[{i}]"
            robot = self.task.aliases[action.robot]
            if not any(b == robot or b.startswith(robot + "/") for b in bodies):
                errors.append(TaskError(f"{base}.robot", f"robot '{action.robot}' ({robot}) has no rigid body"))
            for m in action.motions:
                if isinstance(m, FluidMotion) and m.display_s >= self.task.motion_timeout_s:
                    errors.append(TaskError(f"{base}.motions.{m.key}", f"the dispense lasts {m.display_s:g} s, not "
                                            f"less than motion_timeout_s {self.task.motion_timeout_s:g} s"))
        if errors:
            raise TaskFileError(errors, self.task.path)

    # ------------------------------------------------------------------ running
    def run(self) -> MissionResult:
        self.prepare()
        ev = self.events
        ev.emit("mission.run.started", self.host.tick_count, run_id=self.run_id, actions=len(self.task.actions))
        results: list[ActionResult] = []
        failed = False
        ordinal = 0
        for action in self.task.actions:
            if failed:
                results.append(ActionResult(action.name, action.type, "skipped", "an earlier action failed", 0.0))
                ordinal += len(action.motions)
                continue
            t0 = self.host.tick_count
            w0 = time.perf_counter()
            ev.emit("mission.action.started", t0, ordinal=action.ordinal, name=action.name, type=action.type)
            reason = ""
            try:
                for motion in action.motions:
                    ordinal += 1
                    self._motion(action, motion, ordinal)
                result = "success"
            except MotionFailed as exc:
                result, reason = "failure", f"{exc.code}: {exc}"
            except RunLimitExceeded as exc:
                result, reason = "failure", f"max-seconds: {exc}"
            duration = round((self.host.tick_count - t0) * self.host.dt, 6)
            results.append(ActionResult(action.name, action.type, result, reason, duration))
            ev.emit("mission.action.completed" if result == "success" else "mission.action.failed",
                    self.host.tick_count, ordinal=action.ordinal, name=action.name, type=action.type,
                    reason=reason, duration_s=duration, wall_s=round(time.perf_counter() - w0, 4))
            failed = result != "success"
        verdict = "failure" if failed else "success"
        poses = self.final_poses()
        ev.emit("mission.run.completed", self.host.tick_count, result=verdict, run_id=self.run_id)
        return MissionResult(verdict, results, list(ev.events), poses, self.run_id, list(self.evidence))

    def check_run_limit(self) -> None:
        if self.max_seconds is not None and (self.host.tick_count - self._tick0) * self.host.dt > self.max_seconds:
            raise RunLimitExceeded(f"the run exceeded {self.max_seconds:g} s of simulated time")

    def _motion(self, action: Action, motion, ordinal: int) -> None:
        ev = self.events
        ev.emit("mission.motion.started", self.host.tick_count, ordinal=ordinal, action=action.name,
                motion=motion.key, kind=motion.kind)
        try:
            if isinstance(motion, NavigationMotion):
                summary = navigate(NavigationContext(self, action, ordinal, self.task.aliases[action.robot]), motion)
            elif isinstance(motion, AttachmentMotion):
                summary = self._attachment(action, motion, ordinal)
            elif isinstance(motion, JointsMotion):
                summary = self._joints(action, motion, ordinal)
            elif isinstance(motion, FluidMotion):
                summary = self._fluid(action, motion, ordinal)
            else:  # pragma: no cover - the task file admits nothing else
                raise MotionFailed("unsupported", f"motion kind {motion.kind} is not supported")
        except MotionFailed as exc:
            ev.emit("mission.motion.failed", self.host.tick_count, ordinal=ordinal, action=action.name,
                    motion=motion.key, code=exc.code, reason=str(exc))
            raise
        ev.emit("mission.motion.completed", self.host.tick_count, ordinal=ordinal, action=action.name,
                motion=motion.key, **summary)

    def _tick(self) -> None:
        self.check_run_limit()
        if not self.host.tick():
            raise MotionFailed("simulation-stopped", f"the simulation stopped advancing: "
                                                     f"{getattr(self.host, 'fault', None) or 'waiting'}")

    # ------------------------------------------------------------------ attachments
    def _object_body(self, alias: str) -> str:
        path = self.task.aliases[alias]
        bodies = [b for b in self.host.body_paths() if b == path or b.startswith(path + "/")]
        if not bodies:
            raise MotionFailed("not-a-body", f"object '{alias}' ({path}) is not a rigid body")
        return min(bodies, key=lambda p: (p.count("/"), p))

    def _link_body(self, robot: str, link: str) -> str:
        _base, own, _payloads = robot_assembly(self.host, robot)
        found = [b for b in own if b == link or b == f"{robot}/{link}" or b.endswith("/" + link)]
        if len(found) != 1:
            what = "no body" if not found else f"{len(found)} bodies ({', '.join(found)})"
            raise MotionFailed("unknown-link", f"link '{link}' matches {what} of robot {robot} "
                                               f"(its bodies: {', '.join(own)})")
        return found[0]

    def _relative(self, parent: str, child: str) -> np.ndarray:
        from luncosim_core.physics.frames import Pose

        pp, pq, _v, _w = self.host.body_state(parent)
        cp, cq, _v2, _w2 = self.host.body_state(child)
        return (Pose(pp, pq).inverse() * Pose(cp, cq)).p

    def _attachment(self, action: Action, m: AttachmentMotion, ordinal: int) -> dict:
        robot = self.task.aliases[action.robot]
        child = self._object_body(m.object)
        attachment_id = f"mission:{action.robot}:{m.object}"
        if m.operation == "attach":
            parent = self._link_body(robot, m.link)
            receipt = self.host.submit(AttachBodies(attachment=attachment_id, parent=parent, child=child))
        else:
            held = {k: v for k, v in self.host.attachments().items() if v[1] == child}
            if not held:
                raise MotionFailed("not-attached", f"object '{m.object}' ({child}) is not attached")
            attachment_id = sorted(held)[0]
            parent = held[attachment_id][0]
            receipt = self.host.submit(DetachBodies(attachment=attachment_id))
        self._tick()
        result = receipt.result
        if result is None or not result.ok:
            why = "; ".join(d.message for d in (result.diagnostics if result else ())) or "no receipt"
            raise MotionFailed("attachment-refused", why)
        before = self._relative(parent, child)
        for _ in range(ATTACH_VERIFY_TICKS):
            self._tick()
        cap = capture(self.host, self.frame, robot)  # a newer capture verifies the record
        present = attachment_id in cap.attachments
        drift = float(np.linalg.norm(self._relative(parent, child) - before))
        if m.operation == "attach":
            if not present or child not in cap.payload_bodies:
                raise MotionFailed("attachment-unverified", f"{child} is not attached to {parent} in capture "
                                                            f"at tick {cap.tick}")
            if drift > ATTACH_TOLERANCE_M:
                raise MotionFailed("attachment-unverified", f"{child} drifted {drift:.4f} m from {parent} "
                                                            "after attaching")
        elif present:
            raise MotionFailed("attachment-unverified", f"{child} is still attached in capture at tick {cap.tick}")
        self.events.emit("mission.attachment.changed", self.host.tick_count, ordinal=ordinal,
                         operation=m.operation, attachment=attachment_id, object=m.object, body=child, link=parent,
                         capture_tick=cap.tick)
        return {"operation": m.operation, "attachment": attachment_id, "link": parent, "body": child}

    # ------------------------------------------------------------------ joints
    def _joints(self, action: Action, m: JointsMotion, ordinal: int) -> dict:
        robot = self.task.aliases[action.robot]
        targets: list[tuple[str, str, float]] = []
        for name, value in m.joints.items():
            found = [j.joint_path for j in self.host.joints()
                     if j.joint_path == f"{robot}/{name}" or (j.joint_path.startswith(robot + "/")
                                                              and j.joint_path.endswith("/" + name))]
            if len(found) != 1:
                raise MotionFailed("unknown-joint", f"joint '{name}' matches {len(found)} joints under {robot}")
            ports = {p["name"] for p in self.host.ports(found[0])}
            port = "angle" if "angle" in ports else "displacement" if "displacement" in ports else None
            if port is None:
                raise MotionFailed("unknown-joint", f"{found[0]} has no position port (angle/displacement)")
            targets.append((found[0], port, value))
            self.host.submit(SetPorts(target=found[0], writes={port: value}))
        t0 = self.host.tick_count
        while True:
            self._tick()
            errs = [abs((self.host.read(j, p) or math.inf) - v) for j, p, v in targets]
            if max(errs) <= m.tolerance:
                break
            if (self.host.tick_count - t0) * self.host.dt >= m.motion_timeout_s:
                raise MotionFailed("timeout", f"joints did not reach their targets within {m.motion_timeout_s:g} s "
                                              f"(largest error {max(errs):.4f})")
        return {"joints": {j: v for j, _p, v in targets}}

    # ------------------------------------------------------------------ fluid
    def _source_pose(self, action: Action, m: FluidMotion):
        from luncosim_core.physics.frames import Pose

        src = m.source
        if src.kind == "world":
            return Pose.identity()
        if src.kind == "link":
            body = self._link_body(self.task.aliases[action.robot], src.entity)
        else:
            path = self.task.aliases[src.entity]
            bodies = [b for b in self.host.body_paths() if b == path or b.startswith(path + "/")]
            if not bodies:
                info = self.host.prim_attributes(path)
                return Pose(np.array(info["position"]), np.array(info["orientation"]))
            body = min(bodies, key=lambda p: (p.count("/"), p))
        pos, orn, _v, _w = self.host.body_state(body)
        return Pose(pos, orn)

    def _fluid(self, action: Action, m: FluidMotion, ordinal: int) -> dict:
        from luncosim_core.physics.frames import quat_rotate

        operation_id = f"mission:{self.run_id}:{ordinal:08d}"
        common = {"ordinal": ordinal, "action": action.name, "motion": m.key, "renderer": "visualization_overlay",
                  "verification": "visual_only", "operation_id": operation_id, "claims_particle_state": False,
                  "claims_reservoir_state": False, "claims_received_volume": False}
        self.events.emit("mission.liquid.requested", self.host.tick_count, fluid=m.fluid, source=m.source.kind,
                         rate_ml_s=m.rate_ml_s, display_s=m.display_s, seed=m.seed, **common)
        pose = self._source_pose(action, m)  # a fresh, static source frame
        outlet = pose.apply(np.array(m.source.position_m))
        direction = quat_rotate(pose.q, np.array(m.source.direction))
        stream = FluidStream(operation_id, m.fluid, outlet, direction, self.frame.up_vector, m.rate_ml_s,
                             m.display_s, m.speed_m_s, m.spray_half_angle_deg, m.seed)
        start = self.host.tick_count * self.host.dt
        self.overlay.fluids[operation_id] = (stream, start)
        receipt = {"digest": stream.digest(), "particles": stream.count}
        self.events.emit("mission.liquid.started", self.host.tick_count, publish_receipt=receipt,
                         stream=stream.to_json(), **common)
        try:
            ticks = int(math.ceil(m.display_s / self.host.dt - 1e-9))
            for _ in range(ticks):
                self._tick()
        finally:
            cleared = self.overlay.fluids.pop(operation_id, None) is not None
        self.events.emit("mission.liquid.settled", self.host.tick_count, publish_receipt=receipt,
                         clear_receipt={"operation_id": operation_id, "cleared": cleared}, **common)
        return {"operation_id": operation_id, "particles": stream.count, "display_s": m.display_s}

    # ------------------------------------------------------------------ results
    def final_poses(self) -> dict[str, dict[str, float]]:
        """Every alias's pose in the task frame: its base body, else its composed transform."""
        out: dict[str, dict[str, float]] = {}
        bodies = self.host.body_paths()
        for alias, path in sorted(self.task.aliases.items()):
            own = [b for b in bodies if b == path or b.startswith(path + "/")]
            if own:
                pos, orn, _v, _w = self.host.body_state(min(own, key=lambda p: (p.count("/"), p)))
            else:
                info = self.host.prim_attributes(path)
                if info is None:
                    continue
                pos, orn = info["position"], info["orientation"]
            x, y, h = self.frame.to_plane(pos)
            out[alias] = {"x": x, "y": y, "z": h, "yaw": self.frame.yaw_of(orn)}
        return out
