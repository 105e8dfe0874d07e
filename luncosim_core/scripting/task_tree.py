"""The native task driver: a scenario's ``this.task`` (built by the prelude's ``task(me)``
helpers: ``seq``, ``sel``, ``par_all``, ``par_race``, ``repeat``, ``forever``, ``retry``,
``invert``, ``force_ok``, ``force_fail``, ``reactive_seq``, ``reactive_sel`` and leaves
``step``, ``once``, ``wait``, ``wait_until``, ``wait_for``, ``wait_for_from``, ``check``)
compiled into a behaviour tree and ticked once per simulation tick, after ``on_tick``
(LunCoSim's ``tick_native_task``).

A leaf runs its ``act`` every tick it is ticked; then ``check`` decides success/failure at
once, ``done`` holds it running until true, ``secs`` until that long after it was first
ticked, ``event`` until an event of that name (from ``src`` when given) arrived since the last
tick; a bare leaf succeeds on its first tick. Composites follow the usual behaviour-tree rules;
a sequence moves on to its next child in the same tick. The tree's end emits ``TASK_COMPLETE``
or ``TASK_FAILED``. A tree that does not compile is a scenario error naming the node.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

RUNNING, SUCCESS, FAILURE = "running", "success", "failure"


class TaskTreeError(ValueError):
    """``this.task`` is not a valid task tree."""


@dataclass
class TaskCtx:
    """What leaves reach: call a function pointer, the clock, this tick's events."""

    call: Callable[[Any], Any]  # call a function pointer with (me), ``this`` bound
    now: float = 0.0
    events: list[tuple[str, Any]] = field(default_factory=list)  # (name, source)
    resolve: Callable[[Any], Any] = lambda src: src


class _Node(ABC):
    @abstractmethod
    def tick(self, ctx: TaskCtx) -> str:
        """SUCCESS, FAILURE or RUNNING for this tick."""

    def reset(self) -> None:  # noqa: B027 - a leaf has nothing to reset; composites override it
        """Back to the first tick."""


class _Leaf(_Node):
    def __init__(self, spec: dict) -> None:
        self.act, self.done, self.check = spec.get("act"), spec.get("done"), spec.get("check")
        secs = spec.get("secs")
        if secs is not None and not isinstance(secs, (int, float)):
            raise TaskTreeError(f"task leaf `secs` must be a number, got {type(secs).__name__}")
        self.secs = float(secs) if secs is not None else None
        self.event = spec.get("event")
        self.src = spec.get("src")
        self.t0: float | None = None

    def tick(self, ctx: TaskCtx) -> str:
        if self.act is not None:
            ctx.call(self.act)
        if self.check is not None:
            return SUCCESS if _truthy(ctx.call(self.check)) else FAILURE
        if self.done is not None:
            return SUCCESS if _truthy(ctx.call(self.done)) else RUNNING
        if self.secs is not None:
            if self.t0 is None:
                self.t0 = ctx.now
            return SUCCESS if ctx.now - self.t0 >= self.secs else RUNNING
        if self.event is not None:
            want = ctx.resolve(self.src) if self.src is not None else None
            hit = any(n == self.event and (want is None or s == want) for n, s in ctx.events)
            return SUCCESS if hit else RUNNING
        return SUCCESS

    def reset(self) -> None:  # noqa: B027 - a leaf has nothing to reset; composites override it
        self.t0 = None


class _Sequence(_Node):
    """Run children in order; ``on_fail`` is the status that ends it early (a selector: success)."""

    def __init__(self, children: list[_Node], stop_on: str = FAILURE, reactive: bool = False) -> None:
        self.children, self.stop_on, self.reactive, self.current = children, stop_on, reactive, 0

    def tick(self, ctx: TaskCtx) -> str:
        if self.reactive:
            self.current = 0
        while self.current < len(self.children):
            status = self.children[self.current].tick(ctx)
            if status == RUNNING:
                return RUNNING
            if status == self.stop_on:
                self.reset()
                return status
            self.current += 1
        self.reset()
        return SUCCESS if self.stop_on == FAILURE else FAILURE

    def reset(self) -> None:  # noqa: B027 - a leaf has nothing to reset; composites override it
        self.current = 0
        for c in self.children:
            c.reset()


class _Parallel(_Node):
    def __init__(self, children: list[_Node], require_all: bool) -> None:
        self.children, self.require_all = children, require_all
        self.latched = [RUNNING] * len(children)

    def tick(self, ctx: TaskCtx) -> str:
        for i, c in enumerate(self.children):
            if self.latched[i] == RUNNING:
                self.latched[i] = c.tick(ctx)
        first, second = (FAILURE, SUCCESS) if self.require_all else (SUCCESS, FAILURE)
        outcome = None
        if first in self.latched:
            outcome = first
        elif all(s == second for s in self.latched):
            outcome = second
        if outcome is None:
            return RUNNING
        self.reset()
        return outcome

    def reset(self) -> None:  # noqa: B027 - a leaf has nothing to reset; composites override it
        self.latched = [RUNNING] * len(self.children)
        for c in self.children:
            c.reset()


class _Repeat(_Node):
    """Repeat the child ``n`` times (None: forever); ``retry`` repeats on failure instead."""

    def __init__(self, child: _Node, n: int | None, retry: bool = False) -> None:
        self.child, self.n, self.retry, self.count = child, n, retry, 0

    def tick(self, ctx: TaskCtx) -> str:
        if self.n == 0:
            return FAILURE if self.retry else SUCCESS
        status = self.child.tick(ctx)
        if status == RUNNING:
            return RUNNING
        again = FAILURE if self.retry else SUCCESS
        if status != again:
            self.reset()
            return status
        self.count += 1
        if self.n is not None and self.count >= self.n:
            self.reset()
            return status
        self.child.reset()
        return RUNNING

    def reset(self) -> None:  # noqa: B027 - a leaf has nothing to reset; composites override it
        self.count = 0
        self.child.reset()


class _Decorator(_Node):
    def __init__(self, child: _Node, kind: str) -> None:
        self.child, self.kind = child, kind

    def tick(self, ctx: TaskCtx) -> str:
        status = self.child.tick(ctx)
        if status == RUNNING:
            return RUNNING
        if self.kind == "invert":
            return FAILURE if status == SUCCESS else SUCCESS
        return SUCCESS if self.kind == "force_ok" else FAILURE

    def reset(self) -> None:  # noqa: B027 - a leaf has nothing to reset; composites override it
        self.child.reset()


def compile_task(spec: Any) -> _Node:
    """Compile a task spec (nested Rhai maps) into a tree; TaskTreeError names what is wrong."""
    if not isinstance(spec, dict):
        raise TaskTreeError(f"task node must be a map, got {type(spec).__name__}")
    kind = spec.get("k")
    if kind is None:
        return _Leaf(spec)

    def items() -> list[_Node]:
        its = spec.get("items")
        if not isinstance(its, list):
            raise TaskTreeError(f"task `{kind}` node needs an `items` array")
        return [compile_task(i) for i in its]

    def body() -> _Node:
        if "body" not in spec:
            raise TaskTreeError(f"task `{kind}` node missing `body`")
        return compile_task(spec["body"])

    def count() -> int:
        n = spec.get("n")
        if not isinstance(n, int) or isinstance(n, bool):
            raise TaskTreeError(f"task `{kind}` node missing integer `n`")
        return max(n, 0)

    builders: dict[str, Callable[[], _Node]] = {
        "seq": lambda: _Sequence(items()),
        "sel": lambda: _Sequence(items(), stop_on=SUCCESS),
        "reactive_seq": lambda: _Sequence(items(), reactive=True),
        "reactive_sel": lambda: _Sequence(items(), stop_on=SUCCESS, reactive=True),
        "all": lambda: _Parallel(items(), require_all=True),
        "race": lambda: _Parallel(items(), require_all=False),
        "repeat": lambda: _Repeat(body(), count()),
        "forever": lambda: _Repeat(body(), None),
        "retry": lambda: _Repeat(body(), count(), retry=True),
        "invert": lambda: _Decorator(body(), "invert"),
        "force_ok": lambda: _Decorator(body(), "force_ok"),
        "force_fail": lambda: _Decorator(body(), "force_fail"),
    }
    build = builders.get(str(kind))
    if build is None:
        raise TaskTreeError(f"unknown task node kind `{kind}`")
    return build()


def _truthy(v: Any) -> bool:
    return v is True or (isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0)


class TaskDriver:
    """Holds the compiled tree of one scenario's ``this.task`` and ticks it."""

    def __init__(self) -> None:
        self._ids = 0  # this driver's own count: the marks are part of the state, so never process-wide
        self.spec_id: int | None = None
        self.tree: _Node | None = None
        self.done = False

    def tick(self, spec: Any, ctx: TaskCtx) -> str | None:
        """Tick the tree for ``spec`` (recompiled when ``this.task`` is replaced); the final
        status once (SUCCESS / FAILURE), else None."""
        if not isinstance(spec, dict):
            self.tree, self.spec_id = None, None
            return None
        if spec.get("__bt") != self.spec_id or self.tree is None:
            # mark the map (as LunCoSim does): a new ``this.task`` is a new tree
            self._ids += 1
            spec["__bt"] = self._ids
            self.spec_id, self.done = self._ids, False
            self.tree = compile_task(spec)
        if self.done:
            return None
        status = self.tree.tick(ctx)
        if status == RUNNING:
            return None
        self.done = True
        return status
