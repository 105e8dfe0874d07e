"""The mission task file: YAML loaded into typed, validated values.

The schema is closed: every unknown field, unknown alias, empty list or wrong type is reported
with the dotted path of the offending field (``scenario.behavior.task[0].motions.go.pose.z``)
and its line in the file. Content this build cannot execute (the cuRobo arm planner, physical
fluid emitters) is refused here, before anything runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CUROBO_REFUSAL = "needs the cuRobo arm planner, not available in this build"
EMITTER_REFUSAL = "needs physical fluid emitters (renderer particle_emitter), not available in this build"
DEFAULT_MOTION_TIMEOUT_S = 120.0
DEFAULT_POSITION_TOLERANCE_M = 0.3
DEFAULT_YAW_TOLERANCE_DEG = 10.0
PLUGIN_USE = "plugin://luncosim/mission"


@dataclass(frozen=True)
class TaskError:
    """One problem in a task file: dotted field path, message, 1-based line (when known)."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}" + (f" (line {self.line})" if self.line else "")
        return f"{where}: {self.message}"

    def to_json(self) -> dict:
        return {"path": self.path, "message": self.message, "line": self.line}


class TaskFileError(Exception):
    """The task file is invalid; ``errors`` lists every problem found."""

    def __init__(self, errors: list[TaskError], source: str = "") -> None:
        self.errors = errors
        self.source = source
        super().__init__("\n".join(str(e) for e in errors))


@dataclass(frozen=True)
class Solver:
    key: str
    backend: str
    role: str  # navigation | arm
    allow_reverse: bool = True
    allow_in_place_rotation: bool = True


@dataclass(frozen=True)
class PlanePose:
    """A goal on the ground plane of the stage's world frame (metres, radians)."""

    x: float
    y: float
    yaw: float


@dataclass(frozen=True)
class NavigationMotion:
    key: str
    solver: Solver | None  # None: direct navigation (no obstacle-aware planning)
    pose: PlanePose
    motion_timeout_s: float
    motion_duration_s: float | None
    position_tolerance_m: float
    yaw_tolerance_rad: float
    kind: str = "navigation"


@dataclass(frozen=True)
class JointsMotion:
    """A direct joint motion: each named joint of the robot driven to a position target."""

    key: str
    joints: dict[str, float]
    motion_timeout_s: float
    tolerance: float = 0.02
    kind: str = "joints"


@dataclass(frozen=True)
class AttachmentMotion:
    key: str
    operation: str  # attach | detach
    object: str  # alias
    link: str | None
    kind: str = "physical_attachment"


@dataclass(frozen=True)
class FluidSource:
    kind: str  # entity | link | world
    entity: str | None  # alias (entity) or link name (link)
    position_m: tuple[float, float, float]
    direction: tuple[float, float, float]


@dataclass(frozen=True)
class FluidMotion:
    key: str
    fluid: str
    source: FluidSource
    rate_ml_s: float
    volume_ml: float | None
    duration_s: float | None
    seed: int
    spray_half_angle_deg: float = 6.0
    speed_m_s: float = 0.35
    kind: str = "fluid"

    @property
    def display_s(self) -> float:
        return self.duration_s if self.duration_s is not None else self.volume_ml / self.rate_ml_s


Motion = NavigationMotion | JointsMotion | AttachmentMotion | FluidMotion


@dataclass(frozen=True)
class Action:
    ordinal: int  # 1-based position in the task list
    name: str
    type: str
    robot: str  # alias
    motions: tuple[Motion, ...]


@dataclass(frozen=True)
class TaskFile:
    path: str
    aliases: dict[str, str]
    solvers: dict[str, Solver]
    actions: tuple[Action, ...]
    motion_timeout_s: float = DEFAULT_MOTION_TIMEOUT_S
    world_capture: dict[str, bool] = field(default_factory=dict)


# ---------------------------------------------------------------------------- YAML with lines
class _Lines:
    """Line numbers of every node, keyed by field path (tuple of keys / indices)."""

    def __init__(self) -> None:
        self.lines: dict[tuple, int] = {}
        self.errors: list[TaskError] = []

    def walk(self, node, path: tuple) -> None:
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            seen: set = set()
            for k, v in node.value:
                key = k.value
                if key in seen:
                    self.errors.append(TaskError(dotted(path + (key,)), "duplicate key", k.start_mark.line + 1))
                seen.add(key)
                self.walk(v, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                self.walk(v, path + (i,))


def dotted(path: tuple) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "<document>"


class _Checker:
    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.errors: list[TaskError] = list(lines.errors)

    def err(self, path: tuple, message: str) -> None:
        line = None
        for n in range(len(path), -1, -1):
            line = self.lines.lines.get(path[:n])
            if line is not None:
                break
        self.errors.append(TaskError(dotted(path), message, line))

    def mapping(self, value, path: tuple, required: tuple = (), optional: tuple = (),
                refused: dict[str, str] | None = None, closed: bool = True) -> dict | None:
        if not isinstance(value, dict):
            self.err(path, f"expected a mapping, got {_kind(value)}")
            return None
        for key in value if closed else ():
            if refused and key in refused:
                self.err(path + (key,), refused[key])
            elif key not in required and key not in optional:
                allowed = ", ".join(sorted((*required, *optional)))
                self.err(path + (key,), f"unknown field '{key}' (allowed: {allowed})")
        for key in required:
            if key not in value:
                self.err(path + (key,), "required field is missing")
        return value

    def string(self, value, path: tuple, choices: tuple = ()) -> str | None:
        if not isinstance(value, str) or not value:
            self.err(path, f"expected a non-empty string, got {_kind(value)}")
            return None
        if choices and value not in choices:
            self.err(path, f"'{value}' is not one of: {', '.join(choices)}")
            return None
        return value

    def number(self, value, path: tuple, positive: bool = False, minimum: float | None = None) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.err(path, f"expected a number, got {_kind(value)}")
            return None
        v = float(value)
        if not math.isfinite(v):
            self.err(path, f"must be finite, got {value!r}")
            return None
        if positive and v <= 0:
            self.err(path, f"must be > 0, got {value!r}")
            return None
        if minimum is not None and v < minimum:
            self.err(path, f"must be >= {minimum:g}, got {value!r}")
            return None
        return v

    def boolean(self, value, path: tuple) -> bool | None:
        if not isinstance(value, bool):
            self.err(path, f"expected true or false, got {_kind(value)}")
            return None
        return value

    def vec3(self, value, path: tuple) -> tuple[float, float, float] | None:
        if not isinstance(value, list) or len(value) != 3:
            self.err(path, f"expected a list of 3 numbers, got {_kind(value)}")
            return None
        out = [self.number(v, path + (i,)) for i, v in enumerate(value)]
        return None if any(v is None for v in out) else (out[0], out[1], out[2])


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ('{value}')"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


# ---------------------------------------------------------------------------- loading
def load_task_file(path: str | Path) -> TaskFile:
    """Read and validate a task file; raises :class:`TaskFileError` listing every problem."""
    from luncosim_core.fsutil import UnreadableFile, read_text_limited

    p = Path(path)
    try:  # only a regular file under the size cap: a FIFO would block, junk bytes are no text
        text = read_text_limited(p, "task file")
    except UnreadableFile as exc:
        raise TaskFileError([TaskError("<file>", f"cannot read the task file: {exc}", exc.line)], str(p)) from None
    except OSError as exc:
        raise TaskFileError([TaskError("<file>", f"cannot read {p}: {exc.strerror or exc}")], str(p)) from None
    return parse_task_text(text, str(p))


def parse_task_text(text: str, source: str = "<text>") -> TaskFile:
    """Validate task-file text (YAML); raises :class:`TaskFileError`."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise TaskFileError([TaskError("<document>", f"not valid YAML: {getattr(exc, 'problem', exc)}",
                                       mark.line + 1 if mark else None)], source) from None
    except RecursionError:  # PyYAML composes recursively: thousands of nested brackets
        raise TaskFileError([TaskError("<document>", "not a task file: YAML nested too deeply to read")],
                            source) from None
    lines = _Lines()
    if node is not None:
        lines.walk(node, ())
    c = _Checker(lines)
    task = _document(c, data, source)
    if c.errors or task is None:
        raise TaskFileError(c.errors or [TaskError("<document>", "invalid task file")], source)
    return task


def _document(c: _Checker, data, source: str) -> TaskFile | None:
    root = c.mapping(data, (), required=("scenario",), optional=("plugins",))
    if root is None:
        return None
    solvers, timeout, capture = _plugins(c, root.get("plugins"))
    scen = c.mapping(root.get("scenario"), ("scenario",), required=("aliases", "behavior"),
                     refused={"scene": EMITTER_REFUSAL.replace("needs", "scenario.scene (fluid emitters) needs")})
    if scen is None:
        return None
    aliases = _aliases(c, scen.get("aliases"))
    behavior = c.mapping(scen.get("behavior"), ("scenario", "behavior"), required=("task",))
    actions: list[Action] = []
    if behavior is not None and "task" in behavior:
        tasks = behavior["task"]
        tpath = ("scenario", "behavior", "task")
        if not isinstance(tasks, list):
            c.err(tpath, f"expected a non-empty list of actions, got {_kind(tasks)}")
        elif not tasks:
            c.err(tpath, "the task list is empty; it needs at least one action")
        else:
            names: set[str] = set()
            for i, raw in enumerate(tasks):
                action = _action(c, raw, tpath + (i,), i + 1, aliases, solvers, timeout)
                if action is not None:
                    if action.name in names:
                        c.err(tpath + (i, "name"), f"action name '{action.name}' is used twice")
                    names.add(action.name)
                    actions.append(action)
    return TaskFile(source, aliases, solvers, tuple(actions), timeout, capture)


def _plugins(c: _Checker, value) -> tuple[dict[str, Solver], float, dict[str, bool]]:
    timeout = DEFAULT_MOTION_TIMEOUT_S
    if value is None:
        return {}, timeout, {}
    plugins = c.mapping(value, ("plugins",), required=("mission",))
    base = ("plugins", "mission")
    mission = None if plugins is None else c.mapping(plugins.get("mission"), base, optional=("use", "config"))
    if mission is None:
        return {}, timeout, {}
    if "use" in mission:
        c.string(mission["use"], base + ("use",), choices=(PLUGIN_USE,))
    cpath = base + ("config",)
    config = c.mapping(mission.get("config", {}), cpath, optional=("solvers", "world_capture", "motion_timeout_s"))
    if config is None:
        return {}, timeout, {}
    if "motion_timeout_s" in config:
        timeout = c.number(config["motion_timeout_s"], cpath + ("motion_timeout_s",), positive=True) or timeout
    capture = _world_capture(c, config["world_capture"], cpath + ("world_capture",)) if "world_capture" in config \
        else {}
    spath = cpath + ("solvers",)
    solvers = {}
    for key, decl in (c.mapping(config.get("solvers", {}), spath, closed=False) or {}).items():
        solver = _solver(c, key, decl, spath + (key,))
        if solver is not None:
            solvers[key] = solver
    return solvers, timeout, capture


def _world_capture(c: _Checker, value, path: tuple) -> dict[str, bool]:
    out: dict[str, bool] = {}
    wc = c.mapping(value, path, optional=("enabled", "geometry"))
    for key in ("enabled", "geometry"):
        if wc is not None and key in wc:
            b = c.boolean(wc[key], path + (key,))
            if b is not None:
                out[key] = b
    return out


def _solver(c: _Checker, key: str, decl, path: tuple) -> Solver | None:
    d = c.mapping(decl, path, required=("backend", "role"), optional=("config", "use"))
    if d is None:
        return None
    backend = c.string(d.get("backend"), path + ("backend",), choices=("navigation", "curobo"))
    role = c.string(d.get("role"), path + ("role",), choices=("navigation", "arm"))
    if backend and role and (backend == "navigation") != (role == "navigation"):
        c.err(path + ("role",), f"backend '{backend}' cannot serve role '{role}'")
        return None
    opts = {"allow_reverse": True, "allow_in_place_rotation": True}
    if role == "navigation":
        cfg = c.mapping(d.get("config", {}), path + ("config",), optional=tuple(opts))
        for k in opts:
            if cfg is not None and k in cfg:
                b = c.boolean(cfg[k], path + ("config", k))
                opts[k] = opts[k] if b is None else b
    elif "config" in d and not isinstance(d["config"], dict):
        c.err(path + ("config",), f"expected a mapping, got {_kind(d['config'])}")
    if not (backend and role):
        return None
    return Solver(key, backend, role, opts["allow_reverse"], opts["allow_in_place_rotation"])


def _aliases(c: _Checker, value) -> dict[str, str]:
    out: dict[str, str] = {}
    table = c.mapping(value, ("scenario", "aliases"), closed=False)
    for name, target in (table or {}).items():
        p = ("scenario", "aliases", name)
        if not isinstance(name, str) or not name:
            c.err(p, "an alias name must be a non-empty string")
            continue
        if not isinstance(target, str) or not target.startswith("/") or "//" in target or target.endswith("/") \
                and target != "/":
            c.err(p, f"expected an absolute prim path like /Yard/RoverA, got {_kind(target)}")
            continue
        out[name] = target
    return out


def _alias(c: _Checker, value, path: tuple, aliases: dict[str, str]) -> str | None:
    name = c.string(value, path)
    if name is None:
        return None
    if name not in aliases:
        known = ", ".join(sorted(aliases)) or "none"
        c.err(path, f"unknown alias '{name}' (scenario.aliases defines: {known})")
        return None
    return name


ACTION_TYPES = ("navigate", "physical_attachment", "fill", "move_joints", "curobo_attachment", "grasp", "pour",
                "place", "pick")


def _action(c: _Checker, raw, path: tuple, ordinal: int, aliases, solvers, timeout) -> Action | None:
    a = c.mapping(raw, path, required=("name", "type", "robot", "motions"))
    if a is None:
        return None
    name = c.string(a.get("name"), path + ("name",))
    kind = c.string(a.get("type"), path + ("type",), choices=ACTION_TYPES)
    robot = _alias(c, a.get("robot"), path + ("robot",), aliases) if "robot" in a else None
    motions_raw = a.get("motions")
    mpath = path + ("motions",)
    if "motions" in a and (not isinstance(motions_raw, dict) or not motions_raw):
        c.err(mpath, f"expected a non-empty mapping of motions, got {_kind(motions_raw)}")
        return None
    if kind is None or name is None or robot is None or motions_raw is None:
        return None
    if kind in ("curobo_attachment", "grasp", "pour", "place", "pick"):
        _refuse_arm_action(c, kind, motions_raw, mpath, solvers)
        return None
    motions: list[Motion] = []
    if kind == "fill":
        motions = _fill(c, motions_raw, mpath, aliases, solvers, timeout)
    else:
        for key, m in motions_raw.items():
            motion = _motion(c, m, mpath + (key,), str(key), kind, aliases, solvers, timeout)
            if motion is not None:
                motions.append(motion)
    if not motions:
        return None
    return Action(ordinal, name, kind, robot, tuple(motions))


def _refuse_arm_action(c: _Checker, kind: str, motions: dict, mpath: tuple, solvers) -> None:
    if kind == "curobo_attachment":
        c.err(mpath[:-1] + ("type",), f"a curobo_attachment action {CUROBO_REFUSAL}")
        return
    c.err(mpath[:-1] + ("type",), f"a '{kind}' action moves an arm and {CUROBO_REFUSAL}")


def _motion(c: _Checker, m, path: tuple, key: str, action_type: str, aliases, solvers, timeout) -> Motion | None:
    if not isinstance(m, dict):
        c.err(path, f"expected a motion mapping, got {_kind(m)}")
        return None
    kind = c.string(m.get("kind"), path + ("kind",),
                    choices=("navigation", "physical_attachment", "joints", "pose", "fluid", "curobo_attachment"))
    if kind is None:
        return None
    allowed = {"navigate": ("navigation", "pose"), "physical_attachment": ("physical_attachment",),
               "move_joints": ("joints",)}[action_type]
    if kind in ("joints", "pose") and _needs_arm(m, solvers):
        c.err(path, f"a '{kind}' motion with an arm solver profile {CUROBO_REFUSAL}")
        return None
    if kind == "curobo_attachment":
        c.err(path + ("kind",), f"a curobo_attachment motion {CUROBO_REFUSAL}")
        return None
    if kind not in allowed:
        c.err(path + ("kind",), f"a '{action_type}' action takes motions of kind {' or '.join(allowed)}, not '{kind}'")
        return None
    if kind in ("navigation", "pose"):
        return _navigation(c, m, path, key, solvers, timeout, kind)
    if kind == "joints":
        return _joints(c, m, path, key, timeout)
    return _attachment(c, m, path, key, aliases)


def _needs_arm(m: dict, solvers: dict[str, Solver]) -> bool:
    if "arm" in m:
        return True
    prof = m.get("solver_profile")
    return isinstance(prof, str) and prof in solvers and solvers[prof].role == "arm"


def _navigation(c: _Checker, m: dict, path: tuple, key: str, solvers, timeout, kind: str) -> NavigationMotion | None:
    m = c.mapping(m, path, required=("kind", "pose"),
                  optional=("solver_profile", "motion_timeout_s", "motion_duration_s", "tolerance"))
    if m is None:
        return None
    ok, solver = _nav_solver(c, m, path, solvers, kind)
    if not ok:
        return None
    pose = _pose(c, m.get("pose"), path + ("pose",))
    mt = timeout
    if "motion_timeout_s" in m:
        mt = c.number(m["motion_timeout_s"], path + ("motion_timeout_s",), positive=True) or timeout
    dur = None
    if "motion_duration_s" in m:
        dur = c.number(m["motion_duration_s"], path + ("motion_duration_s",), positive=True)
    pos_tol, yaw_tol = _tolerance(c, m.get("tolerance", {}), path + ("tolerance",))
    if pose is None:
        return None
    return NavigationMotion(key, solver, pose, mt, dur, pos_tol, math.radians(yaw_tol), kind)


def _nav_solver(c: _Checker, m: dict, path: tuple, solvers, kind: str) -> tuple[bool, Solver | None]:
    """(valid, the motion's navigation solver or None for a direct motion)."""
    if "solver_profile" not in m:
        if kind == "pose":
            c.err(path + ("solver_profile",), f"a pose motion without a navigation solver profile {CUROBO_REFUSAL}")
            return False, None
        return True, None
    prof = c.string(m["solver_profile"], path + ("solver_profile",))
    if prof is None:
        return True, None
    solver = solvers.get(prof)
    if solver is None:
        known = ", ".join(sorted(solvers)) or "none"
        c.err(path + ("solver_profile",), f"unknown solver profile '{prof}' (plugins.mission.config.solvers "
                                          f"declares: {known})")
        return False, None
    if solver.role != "navigation":
        c.err(path + ("solver_profile",), f"solver '{prof}' has role '{solver.role}'; a {kind} motion "
                                          "needs a navigation solver")
        return False, None
    return True, solver


def _tolerance(c: _Checker, value, path: tuple) -> tuple[float, float]:
    pos_tol, yaw_tol = DEFAULT_POSITION_TOLERANCE_M, DEFAULT_YAW_TOLERANCE_DEG
    t = c.mapping(value, path, optional=("position_m", "yaw_deg"))
    if t is not None:
        if "position_m" in t:
            pos_tol = c.number(t["position_m"], path + ("position_m",), positive=True) or pos_tol
        if "yaw_deg" in t:
            yaw_tol = c.number(t["yaw_deg"], path + ("yaw_deg",), positive=True) or yaw_tol
    return pos_tol, yaw_tol


def _pose(c: _Checker, value, path: tuple) -> PlanePose | None:
    p = c.mapping(value, path, required=("x", "y", "yaw"))
    if p is None:
        return None
    vals = [c.number(p.get(k), path + (k,)) if k in p else None for k in ("x", "y", "yaw")]
    if any(v is None for v in vals):
        return None
    return PlanePose(vals[0], vals[1], vals[2])


def _joints(c: _Checker, m: dict, path: tuple, key: str, timeout) -> JointsMotion | None:
    m = c.mapping(m, path, required=("kind", "joints"), optional=("motion_timeout_s", "tolerance"))
    if m is None:
        return None
    table = c.mapping(m.get("joints"), path + ("joints",), closed=False)
    if table is not None and not table:
        c.err(path + ("joints",), "needs at least one joint")
    joints = {}
    for name, v in (table or {}).items():
        n = c.number(v, path + ("joints", name))
        if n is not None:
            joints[str(name)] = n
    mt = timeout
    if "motion_timeout_s" in m:
        mt = c.number(m["motion_timeout_s"], path + ("motion_timeout_s",), positive=True) or timeout
    tol = 0.02
    if "tolerance" in m:
        tol = c.number(m["tolerance"], path + ("tolerance",), positive=True) or tol
    if not joints or (table and len(joints) != len(table)):
        return None
    return JointsMotion(key, joints, mt, tol)


def _attachment(c: _Checker, m: dict, path: tuple, key: str, aliases) -> AttachmentMotion | None:
    m = c.mapping(m, path, required=("kind", "operation", "object"), optional=("link", "arm"))
    if m is None:
        return None
    op = c.string(m.get("operation"), path + ("operation",), choices=("attach", "detach"))
    obj = _alias(c, m.get("object"), path + ("object",), aliases) if "object" in m else None
    link = None
    if op == "attach":
        if "link" not in m:
            c.err(path + ("link",), "an attach needs the robot link (body) that holds the object")
        else:
            link = c.string(m["link"], path + ("link",))
    elif op == "detach" and "link" in m:
        c.err(path + ("link",), "a detach names no link (the object's current attachment is removed)")
    if "arm" in m:
        c.string(m["arm"], path + ("arm",))
    if op is None or obj is None or (op == "attach" and link is None):
        return None
    return AttachmentMotion(key, op, obj, link)


def _fill(c: _Checker, motions: dict, mpath: tuple, aliases, solvers, timeout) -> list[Motion]:
    """``pose:pre_fill? -> pose:fill -> fluid:dispense -> pose:retreat?`` (keys fixed)."""
    before = len(c.errors)
    for key in motions:
        if key not in ("pre_fill", "fill", "dispense", "retreat"):
            c.err(mpath + (key,), f"unknown fill step '{key}' (a fill is pre_fill?, fill, dispense, retreat?)")
    for key in ("fill", "dispense"):
        if motions.get(key) is None:
            c.err(mpath + (key,), f"a fill needs its '{key}' motion")
    if len(c.errors) > before:
        return []
    out: list[Motion] = []
    for key in ("pre_fill", "fill", "dispense", "retreat"):
        m = motions.get(key)
        if m is None:
            continue
        if key == "dispense":
            step = _fluid(c, m, mpath + (key,), key, aliases)
        else:
            step = _fill_pose(c, m, mpath + (key,), key, solvers, timeout)
        if step is not None:
            out.append(step)
    return out


def _fill_pose(c: _Checker, m, path: tuple, key: str, solvers, timeout) -> NavigationMotion | None:
    if not isinstance(m, dict) or m.get("kind") != "pose":
        c.err(path + ("kind",), f"the '{key}' step of a fill is a pose motion (kind: pose)")
        return None
    if _needs_arm(m, solvers):
        c.err(path, f"an arm pose motion {CUROBO_REFUSAL}")
        return None
    return _navigation(c, m, path, key, solvers, timeout, "pose")


def _fluid(c: _Checker, m, path: tuple, key: str, aliases) -> FluidMotion | None:
    refused = {k: f"a fluid motion has no '{k}' (emission submits no kinematic target and changes no "
                  "attachment)" for k in ("arm", "solver_profile", "attachment")}
    refused["receiver"] = "'receiver' is not part of a fluid motion (the overlay claims no landing point)"
    refused["particle_count"] = "the overlay renderer takes volume_ml or duration_s, not particle_count"
    refused["emitter"] = EMITTER_REFUSAL
    m = c.mapping(m, path, required=("kind", "verification", "renderer", "source", "fluid", "rate_ml_s", "seed"),
                  optional=("volume_ml", "duration_s", "spray_half_angle_deg", "speed_m_s"), refused=refused)
    if m is None:
        return None
    c.string(m.get("verification"), path + ("verification",), choices=("visual_only",))
    renderer = m.get("renderer")
    if renderer == "particle_emitter":
        c.err(path + ("renderer",), EMITTER_REFUSAL)
        return None
    c.string(renderer, path + ("renderer",), choices=("visualization_overlay",))
    fluid = c.string(m.get("fluid"), path + ("fluid",))
    rate = c.number(m.get("rate_ml_s"), path + ("rate_ml_s",), positive=True)
    seed = m.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        c.err(path + ("seed",), f"expected a non-negative integer, got {_kind(seed)}")
        seed = None
    volume = duration = None
    if ("volume_ml" in m) == ("duration_s" in m):
        c.err(path, "give exactly one of volume_ml or duration_s")
    elif "volume_ml" in m:
        volume = c.number(m["volume_ml"], path + ("volume_ml",), positive=True)
    else:
        duration = c.number(m["duration_s"], path + ("duration_s",), positive=True)
    spray = 6.0
    if "spray_half_angle_deg" in m:
        spray = c.number(m["spray_half_angle_deg"], path + ("spray_half_angle_deg",), minimum=0.0)
        if spray is not None and spray > 45.0:
            c.err(path + ("spray_half_angle_deg",), "must be <= 45 degrees")
            spray = None
    speed = 0.35
    if "speed_m_s" in m:
        speed = c.number(m["speed_m_s"], path + ("speed_m_s",), positive=True)
    src = _source(c, m.get("source"), path + ("source",), aliases)
    if None in (fluid, rate, seed, src, spray, speed) or (volume is None and duration is None):
        return None
    return FluidMotion(key, fluid, src, rate, volume, duration, seed, spray, speed)


def _source(c: _Checker, value, path: tuple, aliases) -> FluidSource | None:
    s = c.mapping(value, path, required=("kind", "position_m", "direction"),
                  optional=("entity", "link", "inherit_velocity"))
    if s is None:
        return None
    kind = c.string(s.get("kind"), path + ("kind",), choices=("entity", "link", "world"))
    target = None
    if kind == "entity":
        target = _alias(c, s.get("entity"), path + ("entity",), aliases) if "entity" in s else None
        if "entity" not in s:
            c.err(path + ("entity",), "an entity source names the entity (an alias)")
    elif kind == "link":
        if "link" not in s:
            c.err(path + ("link",), "a link source names the robot link")
        else:
            target = c.string(s["link"], path + ("link",))
    if kind in ("entity", "link"):
        if s.get("inherit_velocity") is not False:
            c.err(path + ("inherit_velocity",), "an entity or link source must set inherit_velocity: false "
                                                "(the overlay is a static point layer)")
    pos = c.vec3(s.get("position_m"), path + ("position_m",))
    direction = c.vec3(s.get("direction"), path + ("direction",))
    if direction is not None and math.hypot(*direction) < 1e-9:
        c.err(path + ("direction",), "must not be the zero vector")
        direction = None
    if kind is None or pos is None or direction is None or (kind != "world" and target is None):
        return None
    return FluidSource(kind, target, pos, direction)
