"""Running a task file on a fresh headless simulation of a scene, publishing what to draw.

:func:`run_on_scene` is what a viewer runs in a background thread (the workbench's Mission
panel): it opens the scene, runs the mission, and calls ``publish`` with a plain
:class:`~luncosim_core.mission.drawing.MissionDrawing` at most ``draw_hz`` times a second of wall
time (and after every plan submission and fluid change); ``stop`` ends the run at the next tick
(the current action fails: the simulation stopped). ``until_s`` stops the run after that much
simulated time, publishing the drawing of that moment (fluid still flowing): what
``luncosim render --mission`` draws.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from luncosim_core.mission.drawing import MissionDrawing, mission_drawing
from luncosim_core.mission.host import SimulationHost
from luncosim_core.mission.runner import MissionResult, MissionRunner
from luncosim_core.mission.taskfile import TaskFile, TaskFileError

PUBLISH_ON = ("mission.navigation.submitted", "mission.liquid.started", "mission.liquid.settled")


class PublishingHost(SimulationHost):
    """A SimulationHost that publishes the mission's drawing while it ticks and stops on request."""

    def __init__(self, sim, publish: Callable[[MissionDrawing], None], stop: threading.Event,
                 draw_hz: float, until_s: float | None = None) -> None:
        super().__init__(sim)
        self.until_tick = None if until_s is None else sim.tick_count + round(until_s / sim.dt)
        self.limit_hit = False
        self.publish_to = publish
        self.stop = stop
        self.period = 1.0 / draw_hz
        self.runner: MissionRunner | None = None
        self._last = time.perf_counter()

    def tick(self) -> bool:
        if self.stop.is_set() or self.limit_hit:
            return False
        if self.until_tick is not None and self.tick_count >= self.until_tick:
            self.publish()  # the moment asked for, before the stop clears any fluid
            self.limit_hit = True
            return False
        ok = super().tick()
        if time.perf_counter() - self._last >= self.period:
            self.publish()
        return ok

    def publish(self) -> None:
        if self.runner is None:
            return
        self._last = time.perf_counter()
        w = self.sim.world
        self.publish_to(mission_drawing(self.runner.overlay, self.runner.frame, self.tick_count * self.dt,
                                        tick=self.tick_count, poses=(w.body_paths, w.positions(), w.orientations())))


def run_on_scene(scene: str | Path, task: TaskFile, *, lunco_root: Path | None = None,
                 **options) -> MissionResult | str:
    """Run ``task`` on a fresh simulation of ``scene``: the result, or why it could not run.
    ``options``: those of :func:`run_on_simulation`."""
    from luncosim_core.sim.simulation import open_simulation

    try:
        sim = open_simulation(scene, lunco_root=lunco_root)
    except Exception as exc:  # a scene that does not build: the caller shows why
        return f"the scene could not be simulated: {exc}"
    try:
        reason = sim.wait_until_ready()
        if reason:
            return f"the scene is not ready: {reason}"
        return run_on_simulation(sim, task, **options)
    finally:
        sim.close()


def run_on_simulation(sim, task: TaskFile, *, listeners: tuple[Callable, ...] = (),
                      publish: Callable[[MissionDrawing], None] = lambda _d: None,
                      stop: threading.Event | None = None, draw_hz: float = 20.0,
                      until_s: float | None = None) -> MissionResult | str:
    """Run ``task`` on ``sim`` (the caller owns it), publishing drawings (see the module doc)."""
    host = PublishingHost(sim, publish, stop or threading.Event(), draw_hz, until_s)

    def on_event(event) -> None:
        for listener in listeners:
            listener(event)
        if event.name in PUBLISH_ON and not host.limit_hit:
            host.publish()

    runner = MissionRunner(host, task, listeners=(on_event,))
    host.runner = runner
    try:
        result = runner.run()
    except TaskFileError as exc:
        return "; ".join(str(e) for e in exc.errors)
    if not host.limit_hit:
        host.publish()
    return result
