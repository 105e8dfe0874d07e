"""``SimBridge``: the simulation worker seen from the UI thread.

The worker publishes a snapshot every tick on its own thread. The bridge's handler there is
cheap: it keeps the newest snapshot, appends the tick's port values to the telemetry ring (under
the ring's lock) and gathers the tick's events and diagnostics. A QTimer on the UI thread, paced
to the display, emits ``events`` (everything gathered since the last frame, every tick's) and
then ``frame`` with the newest snapshot when it changed: panels redraw at most once a frame,
never once a tick.

Everything the workbench shows from the simulation arrives that way, or as the answer to a typed
query: the physics debug records the viewport overlays draw are a ``PhysicsDebugInfo`` query the
bridge keeps in flight while a debug stream is on (:meth:`SimBridge.set_debug_stream`). Nothing
sends code to the simulation's thread, so a simulation in another process can serve the same.

The worker's stage never shares pxr layers with the UI document: each projection is built from a
flattened text copy of the composed stage (:func:`flattened_factory`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from pxr import Sdf, Usd
from PySide6.QtCore import QObject, QTimer, Signal

from luncosim_core.api.commands import Command, CommandResult, PhysicsDebugInfo, Query
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.sim.mirror import StageDocument
from luncosim_core.sim.programs import program_participants
from luncosim_core.sim.simulation import Simulation, SimulationConfig
from luncosim_core.sim.worker import SimulationWorker
from luncosim_core.usd.document import UsdDocument
from luncosim_workbench.events import DiagnosticEvent, LogLine
from luncosim_workbench.telemetry import DEFAULT_CAPACITY, TelemetryRing

MAX_PENDING_EVENTS = 10000
YIELD_EVERY_S = 0.010  # at max speed: the worker ticks this long ...
YIELD_FOR_S = 0.002  # ... then leaves the GIL to the UI thread this long
FRAME_PRIORITY_S = 0.050  # longest the worker waits for the UI to finish drawing a frame
SPEEDS: dict[str, float | None] = {"1x": 1.0, "2x": 2.0, "4x": 4.0, "max": None}


def flattened_factory(doc: UsdDocument, config: SimulationConfig | None = None) -> Callable[[], Simulation]:
    """Flatten ``doc`` now (UI thread); the returned factory builds a Simulation on a private
    anonymous layer (worker thread)."""
    text = doc.stage.Flatten().ExportToString()
    roots = doc.roots
    scene = str(doc.path)

    def factory() -> Simulation:
        layer = Sdf.Layer.CreateAnonymous(".usda")
        layer.ImportFromString(text)
        stage = Usd.Stage.Open(layer)
        return Simulation(stage, config or SimulationConfig(), roots=roots, document=StageDocument(stage, roots),
                          participant_factory=program_participants, scene=scene)

    return factory


class SimBridge(QObject):
    """Owns the :class:`SimulationWorker`; turns its per-tick stream into display frames."""

    frame = Signal(object)  # WorkbenchSnapshot, at most once per UI frame
    events = Signal(tuple)  # WorkbenchEvents gathered since the previous frame, in order
    debugInfo = Signal(object)  # physics DebugInfo (or None), while the debug stream is on
    projectionRestarted = Signal(str)  # why (scene opened, document edited, reset)

    def __init__(self, parent: QObject | None = None, *, frame_hz: float = 30.0,
                 capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__(parent)
        self.worker: SimulationWorker | None = None
        self.telemetry = TelemetryRing(capacity=capacity)
        self.speed_name = "1x"
        self._lock = threading.Lock()
        self._latest: WorkbenchSnapshot | None = None
        self._shown: WorkbenchSnapshot | None = None
        self.frames = 0  # frames emitted on the UI thread
        self.fps = 0.0
        self._fps_window: list[float] = []
        self._events: list = []  # every tick's events and diagnostics, until the next frame
        self.dropped_events = 0  # gathered beyond MAX_PENDING_EVENTS (the UI fell far behind)
        self._debug_on = False
        self._debug_future: Future | None = None
        self._last_yield = 0.0
        self._ui_idle = threading.Event()
        self._ui_idle.set()
        self.timer = QTimer(self)
        self.timer.setInterval(max(1, int(1000.0 / frame_hz)))
        self.timer.timeout.connect(self._on_timer)
        self.timer.start()

    # ------------------------------------------------------------------ lifecycle
    def load(self, doc: UsdDocument | None, reason: str = "scene opened") -> None:
        """Project ``doc`` (None stops the simulation)."""
        if doc is None:
            self.shutdown()
            return
        factory = flattened_factory(doc)
        if self.worker is None:
            self.worker = SimulationWorker(factory, speed=SPEEDS[self.speed_name])
            self.worker.snapshot_ready.connect(self._on_snapshot)
            self.worker.start()
        else:
            self.worker.replace(factory)
        self.projectionRestarted.emit(reason)
        self._emit_events([LogLine(f"simulation projection restarted: {reason}")])

    def shutdown(self) -> None:
        if self.worker is not None:
            self.worker.snapshot_ready.disconnect(self._on_snapshot)
            self.worker.stop()
            self.worker = None
        with self._lock:
            self._latest = None
            self._shown = None

    # ------------------------------------------------------------------ transport
    def play(self) -> None:
        if self.worker:
            self.worker.play()

    def pause(self) -> None:
        if self.worker:
            self.worker.pause()

    def step(self, n: int = 1) -> None:
        if self.worker:
            self.worker.step(n)

    def reset(self) -> None:
        if self.worker:
            self.worker.reset()
            self.telemetry.clear()

    def set_speed(self, name: str) -> None:
        if name not in SPEEDS:
            raise ValueError(f"unknown speed {name!r}; choose one of {', '.join(SPEEDS)}")
        self.speed_name = name
        if self.worker:
            self.worker.set_speed(SPEEDS[name])

    @property
    def running(self) -> bool:
        return bool(self.worker and self.worker.running)

    def send(self, command: Command) -> Future:
        """Queue a command; the future resolves with its result at admission (at once, with a
        ``no-simulation`` error, when no scene runs)."""
        return self.worker.send(command) if self.worker else _no_simulation()

    def query(self, q: Query) -> Future:
        """Ask a query between ticks (resolved at once with an error when no scene runs)."""
        return self.worker.query(q) if self.worker else _no_simulation()

    def set_debug_stream(self, on: bool) -> None:
        """While on, ``debugInfo`` follows the frames: one ``PhysicsDebugInfo`` query is kept in
        flight and its answer emitted when it arrives. Off: ``debugInfo(None)`` once."""
        if on == self._debug_on:
            return
        self._debug_on = on
        if not on:
            self._debug_future = None
            self.debugInfo.emit(None)

    def _pump_debug(self) -> None:
        fut = self._debug_future
        if fut is not None and fut.done():
            self._debug_future = None
            result = fut.result()
            if self._debug_on and result.ok:
                self.debugInfo.emit(result.value)
            elif self._debug_on:
                self._emit_events([LogLine("overlay data unavailable: "
                                           + "; ".join(d.message for d in result.diagnostics))])
        if self._debug_on and self._debug_future is None and self.worker is not None:
            self._debug_future = self.worker.query(PhysicsDebugInfo())

    # ------------------------------------------------------------------ data
    @property
    def latest(self) -> WorkbenchSnapshot | None:
        with self._lock:
            return self._latest

    def _on_snapshot(self, snap: WorkbenchSnapshot) -> None:
        """Worker thread, every tick: keep the newest and record the sample. No Qt calls here.

        At max speed the worker would hold the GIL nearly all the time and the UI thread would
        wait a switch interval for every call back into Python; so after each ``YIELD_EVERY_S``
        of ticking the worker sleeps ``YIELD_FOR_S`` and the UI runs uncontended meanwhile."""
        self.telemetry.append(snap.tick, snap.time, snap.port_keys, snap.port_values)
        if self.speed_name == "max":
            if not self._ui_idle.is_set():  # the UI is drawing a frame: let it run uncontended
                self._ui_idle.wait(FRAME_PRIORITY_S)
                self._last_yield = time.perf_counter()
            elif time.perf_counter() - self._last_yield > YIELD_EVERY_S:
                time.sleep(YIELD_FOR_S)
                self._last_yield = time.perf_counter()
        with self._lock:
            self._latest = snap
            if snap.diagnostics or snap.events:
                fresh = [DiagnosticEvent(snap.time, d) for d in snap.diagnostics] + list(snap.events)
                room = MAX_PENDING_EVENTS - len(self._events)
                self._events.extend(fresh[:max(room, 0)])
                self.dropped_events += max(len(fresh) - max(room, 0), 0)

    def _emit_events(self, events: list) -> None:
        if events:
            self.events.emit(tuple(events))

    def _on_timer(self) -> None:
        self._pump_debug()
        with self._lock:
            snap = self._latest
            events, self._events = self._events, []
        self._emit_events(events)
        if snap is None or snap is self._shown:
            return
        self._shown = snap
        self.frames += 1
        now = time.perf_counter()
        self._fps_window.append(now)
        while self._fps_window and now - self._fps_window[0] > 1.0:
            self._fps_window.pop(0)
        self.fps = float(len(self._fps_window))
        self._ui_idle.clear()  # released once the frame's updates and repaints are done
        try:
            self.frame.emit(snap)
        finally:
            QTimer.singleShot(0, self._ui_idle.set)

    def flush(self) -> None:
        """Emit the newest snapshot now (tests, screenshots)."""
        self._on_timer()


def _no_simulation() -> Future:
    fut: Future = Future()
    fut.set_result(CommandResult.error(Diagnostic("error", "no-simulation", "no scene is running", source="workbench")))
    return fut
