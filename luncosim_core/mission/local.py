"""Running a task file on a fresh headless simulation of a scene, publishing what to draw.

:func:`run_on_scene` is what a viewer runs in a background thread (the workbench's Mission
panel): it opens the scene, runs the mission, and calls ``publish`` with a plain
:class:`~luncosim_core.mission.drawing.MissionDrawing` at most ``draw_hz`` times a second of wall
time (and after every plan submission and fluid change); ``stop`` ends the run at the next tick
(the current action fails: the simulation stopped).
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
                 draw_hz: float) -> None:
        super().__init__(sim)
        self.publish_to = publish
        self.stop = stop
        self.period = 1.0 / draw_hz
        self.runner: MissionRunner | None = None
        self._last = 0.0

    def tick(self) -> bool:
        if self.stop.is_set():
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


def run_on_scene(scene: str | Path, task: TaskFile, *, listeners: tuple[Callable, ...] = (),
                 publish: Callable[[MissionDrawing], None] = lambda _d: None,
                 stop: threading.Event | None = None, draw_hz: float = 20.0,
                 lunco_root: Path | None = None) -> MissionResult | str:
    """Run ``task`` on a fresh simulation of ``scene``: the result, or why it could not run."""
    from luncosim_core.sim.simulation import open_simulation

    try:
        sim = open_simulation(scene, lunco_root=lunco_root)
    except Exception as exc:  # a scene that does not build: the caller shows why
        return f"the scene could not be simulated: {exc}"
    try:
        reason = sim.wait_until_ready()
        if reason:
            return f"the scene is not ready: {reason}"
        host = PublishingHost(sim, publish, stop or threading.Event(), draw_hz)

        def on_event(event) -> None:
            for listener in listeners:
                listener(event)
            if event.name in PUBLISH_ON:
                host.publish()

        runner = MissionRunner(host, task, listeners=(on_event,))
        host.runner = runner
        try:
            result = runner.run()
        except TaskFileError as exc:
            return "; ".join(str(e) for e in exc.errors)
        host.publish()
        return result
    finally:
        sim.close()
