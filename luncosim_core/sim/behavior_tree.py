"""Autopilot behaviour trees: the data a route is authored as, and the tree it compiles to.

A behaviour is a JSON tree (LunCoSim's ``BehaviorSpec``, internally tagged by ``kind``), either
sent with ``EngageAutopilot`` / ``SetAutopilotBehavior`` (``spec_json``: the prelude's
``engage_patrol`` builds a ``patrol``) or authored as a BehaviorTree.CPP v4 XML program
(``.btxml``) under the vessel, which :func:`btxml_to_spec` reads into the same shape. Leaves
write a ``(throttle, steer, brake)`` setpoint; composites follow the usual behaviour-tree rules
(a sequence moves on to its next child in the same tick, a finished composite resets itself).

Supported kinds: composites ``sequence``, ``selector``, ``parallel`` (``require`` all/one),
``reactive_sequence``, ``reactive_selector``; decorators ``forever``, ``repeat`` (``times``),
``retry`` (``times``), ``invert``, ``force_success``, ``force_failure``, ``timeout``
(``seconds``), ``cooldown`` (``seconds``); leaves ``drive_to`` (``target``, ``speed``,
``radius``), ``patrol`` (``waypoints``, ``speed``, ``radius``, ``dwell``), ``arrived``,
``facing``, ``face``, ``wait``, ``cruise``, ``brake``, ``hold``, ``succeed``, ``fail``.
Sensing and tool leaves (``follow``, ``intercept``, ``obstacle_ahead``, ``path_blocked``,
``steer_clear``, ``run_tool`` and a waypoint's ``on_arrival``) are refused by name
(:class:`BehaviorError`), as is any kind this table does not know.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

RUNNING, SUCCESS, FAILURE = "running", "success", "failure"
HOLD = (0.0, 0.0, 1.0)  # the setpoint of a vessel that must stay where it is
MAX_DEPTH = 64

DEFAULT_SPEED = 0.6
DEFAULT_RADIUS = 3.0
DEFAULT_WAIT = 1.0
DEFAULT_FACE_TOL = 8.0

UNSUPPORTED = {
    "follow": "tracking a moving entity",
    "intercept": "tracking a moving entity",
    "obstacle_ahead": "the vessel proximity sensor",
    "path_blocked": "the forward obstacle ray fan",
    "steer_clear": "the forward obstacle ray fan",
    "run_tool": "tool calls",
}


class BehaviorError(ValueError):
    """A behaviour that cannot be compiled; the message names the node."""


# ------------------------------------------------------------------------------ BT.CPP XML
_CONTROL = {"Sequence": "sequence", "Fallback": "selector", "ReactiveSequence": "reactive_sequence",
            "ReactiveFallback": "reactive_selector", "Parallel": "parallel"}
_DECORATOR = {"Repeat": "repeat", "RetryUntilSuccessful": "retry", "Inverter": "invert",
              "ForceSuccess": "force_success", "ForceFailure": "force_failure", "Timeout": "timeout",
              "Cooldown": "cooldown"}
_LEAF_TAG = {"AlwaysSuccess": "succeed", "AlwaysFailure": "fail"}
_RESERVED = ("kind", "child", "children")


def _attr_value(text: str) -> Any:
    """An XML attribute as data: JSON when it parses as JSON (numbers, booleans, arrays), else
    the text (a prim path, ``x;y;z``)."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if not isinstance(value, float) or math.isfinite(value) else text


def _snake(tag: str) -> str:
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(tag))


def btxml_to_spec(text: str) -> dict:
    """A BehaviorTree.CPP v4 document (``<root main_tree_to_execute=...>`` with ``<BehaviorTree>``
    definitions, ``<SubTree ID=...>`` references) as a behaviour spec. ``Action``/``Condition``
    leaves carry their ``ID`` as the kind; attributes become fields."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise BehaviorError(f"not well-formed XML: {exc}") from None
    trees: dict[str, ET.Element] = {}
    main = root.get("main_tree_to_execute") if root.tag == "root" else None
    if root.tag == "root":
        for el in root:
            if el.tag == "BehaviorTree":
                kids = list(el)
                if len(kids) != 1:
                    raise BehaviorError(f'<BehaviorTree ID="{el.get("ID", "")}"> must hold exactly one node, '
                                        f"found {len(kids)}")
                trees[el.get("ID", "")] = kids[0]
            elif el.tag != "TreeNodesModel":
                trees.setdefault("", el)
    elif root.tag == "BehaviorTree":
        kids = list(root)
        if len(kids) != 1:
            raise BehaviorError("<BehaviorTree> must hold exactly one node")
        trees[root.get("ID", "")] = kids[0]
    else:
        trees[""] = root
    if not trees:
        raise BehaviorError("no behaviour-tree node found in the XML")
    if main is not None:
        if main not in trees:
            raise BehaviorError(f'main_tree_to_execute="{main}" names no <BehaviorTree>')
        entry = trees[main]
    elif len(trees) == 1:
        entry = next(iter(trees.values()))
    else:
        raise BehaviorError("several <BehaviorTree> elements but no main_tree_to_execute on <root>")
    return _element(entry, trees, [], 0)


def _element(el: ET.Element, trees: dict[str, ET.Element], visiting: list[str], depth: int) -> dict:
    if depth > MAX_DEPTH:
        raise BehaviorError(f"the behaviour tree is nested deeper than {MAX_DEPTH} nodes")
    tag, attrs, kids = el.tag, dict(el.attrib), list(el)
    if tag == "SubTree":
        ident = attrs.get("ID")
        if ident is None:
            raise BehaviorError("<SubTree> is missing its ID")
        if ident in visiting:
            raise BehaviorError(f'<SubTree ID="{ident}"> is recursive')
        if ident not in trees:
            raise BehaviorError(f'<SubTree ID="{ident}"> names no <BehaviorTree>')
        return _element(trees[ident], trees, [*visiting, ident], depth + 1)
    if tag in ("Action", "Condition") or tag in _LEAF_TAG:
        kind = _LEAF_TAG.get(tag) or attrs.pop("ID", None)
        if kind is None:
            raise BehaviorError(f"<{tag}> is missing its ID")
        if kids:
            raise BehaviorError(f'<{tag} ID="{kind}"> is a leaf but holds child elements')
        return {"kind": kind, **_fields(attrs, tag)}
    if tag in _DECORATOR:
        if len(kids) != 1:
            raise BehaviorError(f"<{tag}> is a decorator and needs exactly one child, found {len(kids)}")
        out = _decorator_fields(tag, attrs)
        out.update(_fields(attrs, tag))
        out["child"] = _element(kids[0], trees, visiting, depth + 1)
        return out
    out = {"kind": _CONTROL.get(tag) or _snake(tag)}  # an unknown tag keeps its own kind: refused by name
    if tag == "Parallel":
        out["require"] = "one" if str(attrs.pop("success_count", "-1")).strip() == "1" else "all"
        attrs.pop("failure_count", None)
    out.update(_fields(attrs, tag))
    out["children"] = [_element(k, trees, visiting, depth + 1) for k in kids]
    return out


def _decorator_fields(tag: str, attrs: dict[str, str]) -> dict[str, Any]:
    """A decorator's kind and its BT.CPP port read into our field (``attrs`` loses the port)."""
    kind = _DECORATOR[tag]
    out: dict[str, Any] = {}
    if kind == "repeat":
        cycles = _int(attrs.pop("num_cycles", "1"), tag, "num_cycles")
        if cycles < 0:
            kind = "forever"  # BT.CPP spells "loop forever" num_cycles="-1"
        else:
            out["times"] = cycles
    elif kind == "retry":
        out["times"] = max(0, _int(attrs.pop("num_attempts", "1"), tag, "num_attempts"))
    elif kind == "timeout":
        out["seconds"] = _float(attrs.pop("msec", "1000"), tag, "msec") / 1000.0
    elif kind == "cooldown":
        out["seconds"] = _float(attrs.pop("sec", "1"), tag, "sec")
    return {"kind": kind, **out}


def _fields(attrs: dict[str, str], tag: str) -> dict[str, Any]:
    out = {}
    for k, v in attrs.items():
        if k in ("ID", "name", "_uid", "_description"):
            continue
        if k in _RESERVED:
            raise BehaviorError(f"<{tag}> has a reserved attribute `{k}`")
        out[k] = _attr_value(v)
    return out


def _int(text: str, tag: str, key: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise BehaviorError(f"<{tag}> {key}={text!r} is not a whole number") from None


def _float(text: str, tag: str, key: str) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise BehaviorError(f"<{tag}> {key}={text!r} is not a number") from None
    if not math.isfinite(value):
        raise BehaviorError(f"<{tag}> {key}={text!r} is not finite")
    return value


# ------------------------------------------------------------------------------ targets
def bake_targets(spec: Any, position_of: Callable[[str], list[float] | None]) -> tuple[Any, list[str]]:
    """The spec with every ``target`` a prim path (its world position, through ``position_of``)
    or ``"x;y;z"`` text replaced by ``[x, y, z]``; and the paths that did not resolve."""
    missing: list[str] = []

    def walk(v: Any) -> Any:
        if isinstance(v, list):
            return [walk(c) for c in v]
        if not isinstance(v, dict):
            return v
        out = {k: walk(c) for k, c in v.items()}
        t = v.get("target")
        if isinstance(t, str):
            if t.startswith("/"):
                p = position_of(t)
                if p is None:
                    missing.append(t)
                else:
                    out["target"] = [float(x) for x in p]
            else:
                parts = t.split(";")
                try:
                    if len(parts) == 3:
                        out["target"] = [float(x) for x in parts]
                except ValueError:
                    pass
        return out

    return walk(spec), missing


def has_motion(spec: Any) -> bool:
    """Whether the tree drives or steers anywhere (a guard/wait/brake-only tree holds)."""
    if not isinstance(spec, dict):
        return False
    kind = spec.get("kind")
    if kind in ("drive_to", "cruise", "face", "follow", "intercept", "steer_clear"):
        return True
    if kind == "patrol":
        return bool(spec.get("waypoints"))
    kids = spec.get("children") if isinstance(spec.get("children"), list) else []
    if isinstance(spec.get("child"), dict):
        kids = [*kids, spec["child"]]
    return any(has_motion(c) for c in kids)


# ------------------------------------------------------------------------------ the drive context
@dataclass
class DriveCtx:
    """What leaves read (the vessel's pose and heading, mission time) and write (``out``)."""

    pos: tuple[float, float, float]
    fwd: tuple[float, float, float]  # unit heading in the ground plane (zero when undefined)
    up: tuple[float, float, float]
    now: float
    out: tuple[float, float, float] = HOLD


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def nav_setpoint(pos, fwd, up, target, speed: float, radius: float) -> tuple[float, float, float, bool]:
    """LunCoSim's ``nav_setpoint``: ``(throttle, steer, brake, arrived)`` toward ``target``.

    Brake and ``arrived`` within ``radius`` (straight-line distance); otherwise steer toward the
    goal in the ground plane (hard over when it is behind, ``-2.5 x`` the yaw cross product
    otherwise: ``+steer`` yaws right) and ease the throttle while poorly aligned
    (``speed x clamp(0.25 + 0.75 cos, 0.25, 1)``)."""
    to = _sub(target, pos)
    dist = math.sqrt(_dot(to, to))
    if dist < radius:
        return 0.0, 0.0, 1.0, True
    to = (to[0] / dist, to[1] / dist, to[2] / dist)
    cy = _dot(_cross(fwd, to), up)  # for Y up: fwd.z*to.x - fwd.x*to.z
    dot = _dot(fwd, to)
    if dot < 0.0:
        steer = -1.0 if cy >= 0.0 else 1.0
    else:
        steer = max(-1.0, min(1.0, -cy * 2.5))
    throttle = speed * max(0.25, min(1.0, 0.25 + 0.75 * dot))
    return throttle, steer, 0.0, False


def face_setpoint(pos, fwd, up, target, tolerance_deg: float) -> tuple[tuple[float, float, float], bool]:
    to = _sub(target, pos)
    dist = math.sqrt(_dot(to, to))
    if dist < 1e-3:
        return (0.0, 0.0, 0.0), True
    to = (to[0] / dist, to[1] / dist, to[2] / dist)
    dot = _dot(fwd, to)
    if dot >= math.cos(math.radians(tolerance_deg)):
        return (0.0, 0.0, 0.0), True
    cy = _dot(_cross(fwd, to), up)
    if dot < 0.0:
        steer = -1.0 if cy >= 0.0 else 1.0
    else:
        steer = max(-1.0, min(1.0, -cy * 2.5))
    return (0.0, steer, 0.0), False


# ------------------------------------------------------------------------------ nodes
class Node:
    def tick(self, ctx: DriveCtx) -> str:
        raise NotImplementedError

    def reset(self) -> None:
        """Back to the first tick (a parent restarting it)."""

    def cursor(self) -> int | None:
        return None

    def set_cursor(self, index: int) -> None:
        pass

    def state(self) -> tuple:
        """What determines its future (for the simulation's state hash)."""
        return ()


class Action(Node):
    def __init__(self, run: Callable[[DriveCtx], str]) -> None:
        self.run = run

    def tick(self, ctx: DriveCtx) -> str:
        return self.run(ctx)


class _Composite(Node):
    def __init__(self, children: list[Node]) -> None:
        self.children = children
        self.current = 0

    def reset(self) -> None:
        self.current = 0
        for c in self.children:
            c.reset()

    def cursor(self) -> int | None:
        return self.current

    def set_cursor(self, index: int) -> None:
        self.current = min(index, len(self.children))

    def state(self) -> tuple:
        return (self.current, *(c.state() for c in self.children))


class Sequence(_Composite):
    def tick(self, ctx: DriveCtx) -> str:
        while self.current < len(self.children):
            s = self.children[self.current].tick(ctx)
            if s == RUNNING:
                return RUNNING
            if s == FAILURE:
                self.reset()
                return FAILURE
            self.current += 1
        self.reset()
        return SUCCESS


class Selector(_Composite):
    def tick(self, ctx: DriveCtx) -> str:
        while self.current < len(self.children):
            s = self.children[self.current].tick(ctx)
            if s == RUNNING:
                return RUNNING
            if s == SUCCESS:
                self.reset()
                return SUCCESS
            self.current += 1
        self.reset()
        return FAILURE


class Parallel(Node):
    def __init__(self, require_all: bool, children: list[Node]) -> None:
        self.require_all, self.children = require_all, children
        self.latched = [RUNNING] * len(children)

    def tick(self, ctx: DriveCtx) -> str:
        for i, c in enumerate(self.children):
            if self.latched[i] == RUNNING:
                self.latched[i] = c.tick(ctx)
        first, second = (FAILURE, SUCCESS) if self.require_all else (SUCCESS, FAILURE)
        if first in self.latched:
            outcome = first
        elif all(s == second for s in self.latched):
            outcome = second
        else:
            return RUNNING
        self.reset()
        return outcome

    def reset(self) -> None:
        self.latched = [RUNNING] * len(self.children)
        for c in self.children:
            c.reset()

    def state(self) -> tuple:
        return (tuple(self.latched), *(c.state() for c in self.children))


class _Reactive(Node):
    """Re-ticks from the first child every tick; a child returning ``stop`` ends it, a running
    child resets the later ones, and ``end`` is the result when every child passed."""

    stop, end = SUCCESS, FAILURE

    def __init__(self, children: list[Node]) -> None:
        self.children = children

    def tick(self, ctx: DriveCtx) -> str:
        for i, c in enumerate(self.children):
            s = c.tick(ctx)
            if s == self.stop:
                self.reset()
                return self.stop
            if s == RUNNING:
                for later in self.children[i + 1:]:
                    later.reset()
                return RUNNING
        self.reset()
        return self.end

    def reset(self) -> None:
        for c in self.children:
            c.reset()

    def state(self) -> tuple:
        return tuple(c.state() for c in self.children)


class ReactiveSequence(_Reactive):
    stop, end = FAILURE, SUCCESS


class ReactiveSelector(_Reactive):
    stop, end = SUCCESS, FAILURE


class _Decorator(Node):
    def __init__(self, child: Node) -> None:
        self.child = child

    def reset(self) -> None:
        self.child.reset()

    def cursor(self) -> int | None:
        return self.child.cursor()

    def set_cursor(self, index: int) -> None:
        self.child.set_cursor(index)

    def state(self) -> tuple:
        return (self.child.state(),)


class Repeat(_Decorator):
    """``times`` successes (None: forever); a failure fails it."""

    def __init__(self, times: int | None, child: Node) -> None:
        super().__init__(child)
        self.times, self.done = times, 0

    def tick(self, ctx: DriveCtx) -> str:
        if self.times == 0:
            return SUCCESS
        s = self.child.tick(ctx)
        if s == RUNNING:
            return RUNNING
        if s == FAILURE:
            self.reset()
            return FAILURE
        self.done += 1
        if self.times is not None and self.done >= self.times:
            self.reset()
            return SUCCESS
        self.child.reset()
        return RUNNING

    def reset(self) -> None:
        self.done = 0
        self.child.reset()

    def state(self) -> tuple:
        return (self.done, self.child.state())


class Retry(_Decorator):
    def __init__(self, times: int, child: Node) -> None:
        super().__init__(child)
        self.times, self.failed = times, 0

    def tick(self, ctx: DriveCtx) -> str:
        if self.times == 0:
            return FAILURE
        s = self.child.tick(ctx)
        if s == RUNNING:
            return RUNNING
        if s == SUCCESS:
            self.reset()
            return SUCCESS
        self.failed += 1
        if self.failed >= self.times:
            self.reset()
            return FAILURE
        self.child.reset()
        return RUNNING

    def reset(self) -> None:
        self.failed = 0
        self.child.reset()

    def state(self) -> tuple:
        return (self.failed, self.child.state())


class Invert(_Decorator):
    def tick(self, ctx: DriveCtx) -> str:
        s = self.child.tick(ctx)
        return {SUCCESS: FAILURE, FAILURE: SUCCESS}.get(s, s)


class Force(_Decorator):
    def __init__(self, forced: str, child: Node) -> None:
        super().__init__(child)
        self.forced = forced

    def tick(self, ctx: DriveCtx) -> str:
        s = self.child.tick(ctx)
        return RUNNING if s == RUNNING else self.forced


class Timeout(_Decorator):
    """Fail (and brake) when the child runs longer than ``seconds`` of mission time."""

    def __init__(self, seconds: float, child: Node) -> None:
        super().__init__(child)
        self.seconds, self.deadline = seconds, None

    def tick(self, ctx: DriveCtx) -> str:
        if self.deadline is None:
            self.deadline = ctx.now + self.seconds
        if ctx.now >= self.deadline:
            self.reset()
            ctx.out = HOLD
            return FAILURE
        s = self.child.tick(ctx)
        if s != RUNNING:
            self.reset()
        return s

    def reset(self) -> None:
        self.deadline = None
        self.child.reset()

    def state(self) -> tuple:
        return (self.deadline, self.child.state())


class Cooldown(_Decorator):
    """After each success, fail for ``seconds`` of mission time without ticking the child."""

    def __init__(self, seconds: float, child: Node) -> None:
        super().__init__(child)
        self.seconds, self.ready_at = seconds, 0.0

    def tick(self, ctx: DriveCtx) -> str:
        if ctx.now < self.ready_at:
            return FAILURE
        s = self.child.tick(ctx)
        if s == SUCCESS:
            self.ready_at = ctx.now + self.seconds
            self.child.reset()
        return s

    def reset(self) -> None:
        self.ready_at = 0.0
        self.child.reset()

    def state(self) -> tuple:
        return (self.ready_at, self.child.state())


class Wait(Node):
    """Hold (braked) for ``seconds`` of mission time, then succeed; a restart waits afresh."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.deadline = seconds, None

    def tick(self, ctx: DriveCtx) -> str:
        ctx.out = HOLD
        if self.deadline is None:
            self.deadline = ctx.now + self.seconds
        return SUCCESS if ctx.now >= self.deadline else RUNNING

    def reset(self) -> None:
        self.deadline = None

    def state(self) -> tuple:
        return (self.deadline,)


# ------------------------------------------------------------------------------ compiling
def _num(spec: dict, key: str, default: float, where: str) -> float:
    v = spec.get(key, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise BehaviorError(f"{where}: `{key}` must be a finite number, got {v!r}")
    return float(v)


def _whole(spec: dict, key: str, where: str) -> int:
    v = spec.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or float(v) != int(v):
        raise BehaviorError(f"{where}: `{key}` must be a whole, non-negative number, got {v!r}")
    return int(v)


def _point(v: Any, where: str) -> tuple[float, float, float]:
    if isinstance(v, str):
        raise BehaviorError(f"{where}: target {v!r} names no prim (or is not `x;y;z`)")
    if (not isinstance(v, (list, tuple)) or len(v) != 3
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)):
        raise BehaviorError(f"{where}: `target` must be [x, y, z], got {v!r}")
    return (float(v[0]), float(v[1]), float(v[2]))


def build_tree(spec: Any, where: str = "tree") -> Node:
    """Compile a behaviour spec; :class:`BehaviorError` names the first node it cannot build."""
    return _build(spec, where, 0)


def _children(spec: dict, where: str, depth: int) -> list[Node]:
    kids = spec.get("children")
    if not isinstance(kids, list):
        raise BehaviorError(f"{where}: `{spec.get('kind')}` is a control node and needs `children`")
    return [_build(c, f"{where}.children[{i}]", depth + 1) for i, c in enumerate(kids)]


def _child(spec: dict, where: str, depth: int) -> Node:
    c = spec.get("child")
    if not isinstance(c, dict):
        raise BehaviorError(f"{where}: `{spec.get('kind')}` is a decorator and needs a `child`")
    return _build(c, f"{where}.child", depth + 1)


def _build(spec: Any, where: str, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise BehaviorError(f"{where}: nested deeper than {MAX_DEPTH} nodes")
    if not isinstance(spec, dict):
        raise BehaviorError(f"{where}: a tree node must be an object, got {type(spec).__name__}")
    kind = spec.get("kind")
    if not isinstance(kind, str):
        raise BehaviorError(f"{where}: the node has no `kind`")
    here = f"{where} ({kind})"
    if kind in UNSUPPORTED:
        raise BehaviorError(f"{here}: `{kind}` needs {UNSUPPORTED[kind]}, which this autopilot does not have")
    if kind in _COMPOSITES:
        return _COMPOSITES[kind](spec, _children(spec, here, depth), here)
    if kind in _DECORATORS:
        return _DECORATORS[kind](spec, _child(spec, here, depth), here)
    if kind in _LEAVES:
        return _LEAVES[kind](spec, here)
    raise BehaviorError(f"{here}: unknown behaviour kind `{kind}`")


def _parallel(spec: dict, kids: list[Node], here: str) -> Node:
    require = spec.get("require", "all")
    if require not in ("all", "one"):
        raise BehaviorError(f"{here}: `require` must be all or one, got {require!r}")
    return Parallel(require == "all", kids)


_COMPOSITES: dict[str, Callable[[dict, list[Node], str], Node]] = {
    "sequence": lambda spec, kids, here: Sequence(kids),
    "selector": lambda spec, kids, here: Selector(kids),
    "parallel": _parallel,
    "reactive_sequence": lambda spec, kids, here: ReactiveSequence(kids),
    "reactive_selector": lambda spec, kids, here: ReactiveSelector(kids),
}
_DECORATORS: dict[str, Callable[[dict, Node, str], Node]] = {
    "forever": lambda spec, child, here: Repeat(None, child),
    "repeat": lambda spec, child, here: Repeat(_whole(spec, "times", here), child),
    "retry": lambda spec, child, here: Retry(_whole(spec, "times", here), child),
    "invert": lambda spec, child, here: Invert(child),
    "force_success": lambda spec, child, here: Force(SUCCESS, child),
    "force_failure": lambda spec, child, here: Force(FAILURE, child),
    "timeout": lambda spec, child, here: Timeout(_num(spec, "seconds", DEFAULT_WAIT, here), child),
    "cooldown": lambda spec, child, here: Cooldown(_num(spec, "seconds", DEFAULT_WAIT, here), child),
}


def _arrived(spec: dict, here: str) -> Node:
    target, radius = _point(spec.get("target"), here), _num(spec, "radius", DEFAULT_RADIUS, here)
    return Action(lambda ctx: SUCCESS if math.dist(target, ctx.pos) < radius else FAILURE)


def _facing(spec: dict, here: str) -> Node:
    target, tol = _point(spec.get("target"), here), _num(spec, "tolerance", DEFAULT_FACE_TOL, here)
    return Action(lambda ctx: SUCCESS if face_setpoint(ctx.pos, ctx.fwd, ctx.up, target, tol)[1] else FAILURE)


def _face(spec: dict, here: str) -> Node:
    target, tol = _point(spec.get("target"), here), _num(spec, "tolerance", DEFAULT_FACE_TOL, here)

    def face(ctx: DriveCtx) -> str:
        ctx.out, done = face_setpoint(ctx.pos, ctx.fwd, ctx.up, target, tol)
        return SUCCESS if done else RUNNING
    return Action(face)


def _setpoint(out: tuple[float, float, float], result: str) -> Node:
    def run(ctx: DriveCtx) -> str:
        ctx.out = out
        return result
    return Action(run)


_LEAVES: dict[str, Callable[[dict, str], Node]] = {
    "drive_to": lambda spec, here: _drive_to(_point(spec.get("target"), here), _num(spec, "speed", DEFAULT_SPEED, here),
                                             _num(spec, "radius", DEFAULT_RADIUS, here)),
    "patrol": lambda spec, here: _patrol(spec, here),
    "arrived": _arrived,
    "facing": _facing,
    "face": _face,
    "wait": lambda spec, here: Wait(_num(spec, "seconds", DEFAULT_WAIT, here)),
    "cruise": lambda spec, here: _setpoint((_num(spec, "throttle", 0.0, here), _num(spec, "steer", 0.0, here), 0.0),
                                           RUNNING),
    "brake": lambda spec, here: _setpoint(HOLD, SUCCESS),
    "hold": lambda spec, here: _setpoint(HOLD, RUNNING),
    "succeed": lambda spec, here: Action(lambda ctx: SUCCESS),
    "fail": lambda spec, here: Action(lambda ctx: FAILURE),
}


def _drive_to(target, speed: float, radius: float) -> Node:
    def drive(ctx: DriveCtx) -> str:
        throttle, steer, brake, arrived = nav_setpoint(ctx.pos, ctx.fwd, ctx.up, target, speed, radius)
        ctx.out = (throttle, steer, brake)
        return SUCCESS if arrived else RUNNING
    return Action(drive)


def _patrol(spec: dict, where: str) -> Node:
    """``forever(sequence([drive_to (+ wait)] per waypoint))``."""
    speed = _num(spec, "speed", DEFAULT_SPEED, where)
    radius = _num(spec, "radius", DEFAULT_RADIUS, where)
    dwell = _num(spec, "dwell", 0.0, where)
    waypoints = spec.get("waypoints", [])
    if not isinstance(waypoints, list):
        raise BehaviorError(f"{where}: `waypoints` must be an array")
    legs: list[Node] = []
    for i, wp in enumerate(waypoints):
        here = f"{where}.waypoints[{i}]"
        if isinstance(wp, dict):
            pos, wp_dwell, actions = wp.get("pos"), wp.get("dwell"), wp.get("on_arrival") or []
        else:
            pos, wp_dwell, actions = wp, None, []
        if actions:
            raise BehaviorError(f"{here}: `on_arrival` actions need tool calls, which this autopilot does not have")
        steps = [_drive_to(_point(pos, here), speed, radius)]
        d = dwell if wp_dwell is None else _num(wp, "dwell", dwell, here)
        if d > 0.0:
            steps.append(Wait(d))
        legs.append(steps[0] if len(steps) == 1 else Sequence(steps))
    return Repeat(None, Sequence(legs))
