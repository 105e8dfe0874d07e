"""``SimBridge``: the sim server seen from the UI thread.

The simulation runs in a child process (:class:`~luncosim_core.server.local.ServerProcess`): a
segfault, SIGKILL or out-of-memory there ends only the child. Its frames arrive on the link's
reader thread, a batch of ticks at a time: the bridge keeps the newest snapshot, appends every
tick's port values to the telemetry ring and gathers the events and diagnostics. A QTimer on the
UI thread, paced to the display, emits ``events`` (everything gathered since the last frame) and
then ``frame`` with the newest snapshot when it changed: panels redraw at most once a frame,
never once a tick.

When the child dies the bridge keeps the last snapshot (marked ``faulted``, reason "simulation
stopped: <why>"), reports a ``simulation-stopped`` diagnostic and emits ``simulationStopped``;
every command in flight resolves with an error. :meth:`SimBridge.restart` starts a new child from
the current document (the user's edits live in the UI process and are untouched). A child that
sends nothing, not even its heartbeat, for ``HEARTBEAT_TIMEOUT_S`` is reported as not answering;
a restart kills it.

The physics debug records the viewport overlays draw are a ``PhysicsDebugInfo`` query the bridge
keeps in flight while a debug stream is on (:meth:`SimBridge.set_debug_stream`). The child's stage
never shares pxr layers with the UI document: each projection is built from a flattened text copy
of the composed stage (:func:`stage_spec`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from luncosim_core.api.commands import Command, CommandResult, PhysicsDebugInfo, Query
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.server.local import HEARTBEAT_TIMEOUT_S, ServerProcess
from luncosim_core.sim.mirror import flattened_text
from luncosim_core.usd.document import UsdDocument
from luncosim_workbench.events import DiagnosticEvent, LogLine
from luncosim_workbench.telemetry import DEFAULT_CAPACITY, TelemetryRing

MAX_PENDING_EVENTS = 10000
FRAME_SHARE = 0.4  # frames may take this share of the UI thread's time ...
MAX_FRAME_GAP_S = 0.5  # ... but the picture is never older than this
SIM_NICE = 5  # the sim server's CPU priority below the UI's: on a busy machine the UI draws first
SPEEDS: dict[str, float | None] = {"1x": 1.0, "2x": 2.0, "4x": 4.0, "max": None}


def stage_spec(doc: UsdDocument) -> dict:
    """What the sim server needs to project ``doc``: its composed stage flattened to text now
    (UI thread), the asset roots and the scene's path."""
    return {"kind": "stage", "text": flattened_text(doc.stage), "roots": doc.roots, "scene": str(doc.path),
            "nice": SIM_NICE}


class SimBridge(QObject):
    """Owns the :class:`SimulationWorker`; turns its per-tick stream into display frames."""

    frame = Signal(object)  # WorkbenchSnapshot, at most once per UI frame
    events = Signal(tuple)  # WorkbenchEvents gathered since the previous frame, in order
    debugInfo = Signal(object)  # physics DebugInfo (or None), while the debug stream is on
    projectionRestarted = Signal(str)  # why (scene opened, document edited, reset)
    simulationStopped = Signal(str)  # why the sim server died (killed by SIGKILL, ...), once
    simulationUnresponsive = Signal(float)  # seconds the sim server has been silent, once a silence
    speedChanged = Signal(str)  # the speed's name ("1x", "max", "3x" set over the API ...)

    def __init__(self, parent: QObject | None = None, *, frame_hz: float = 30.0,
                 capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__(parent)
        self.worker: ServerProcess | None = None  # the sim server child (None: none running)
        self.frame_listeners: list = []  # called on the reader thread with every frame (the API server)
        self.telemetry = TelemetryRing(capacity=capacity)
        self.speed_name = "1x"
        self.speeds: dict[str, float | None] = dict(SPEEDS)  # the named speeds, plus any set over the API
        self.stop_reason = ""  # why the last sim server died ("" while one runs)
        self._lock = threading.Lock()
        self._latest: WorkbenchSnapshot | None = None
        self._shown: WorkbenchSnapshot | None = None
        self._died: tuple[ServerProcess, str] | None = None  # set on the reader thread, handled on the UI's
        self._silence_reported = False
        self.heartbeat_timeout = HEARTBEAT_TIMEOUT_S  # seconds of silence before "not answering"
        self.frames = 0  # frames emitted on the UI thread
        self.fps = 0.0
        self._fps_window: list[float] = []
        self._events: list = []  # every tick's events and diagnostics, until the next frame
        self.dropped_events = 0  # gathered beyond MAX_PENDING_EVENTS (the UI fell far behind)
        self._debug_on = False
        self._debug_future: Future | None = None
        self._frame_started = 0.0
        self._next_frame = 0.0  # no frame before this (perf_counter seconds): see _frame_done
        self.frame_cost = 0.0  # seconds the last frame took, its repaints included
        self._consumers: list[Callable[[WorkbenchSnapshot], None]] = []  # see add_frame_consumer
        self._stages: list[Callable[[WorkbenchSnapshot], None]] = []  # still to see the frame in delivery
        self._staged: WorkbenchSnapshot | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(max(1, int(1000.0 / frame_hz)))
        self.timer.timeout.connect(self._on_timer)
        self.timer.start()

    # ------------------------------------------------------------------ lifecycle
    def load(self, doc: UsdDocument | None, reason: str = "scene opened") -> None:
        """Project ``doc`` in the sim server (None stops it); starts one when none runs."""
        if doc is None:
            self.shutdown()
            return
        spec = stage_spec(doc)
        if self.worker is None:
            self._start(spec)
        else:
            self.worker.replace(spec)
        self.projectionRestarted.emit(reason)
        self._emit_events([LogLine(f"simulation projection restarted: {reason}")])

    def restart(self, doc: UsdDocument | None) -> None:
        """A new sim server for ``doc`` (the old one, stopped or not answering, is killed)."""
        old = self.worker
        if old is not None:
            self._detach(old)
            old.kill()
        self.worker = None
        self.telemetry.clear()
        self.load(doc, "simulation restarted")

    def _start(self, spec: dict) -> None:
        worker = ServerProcess(spec, speed=self.speeds[self.speed_name])
        worker.frames.connect(self._on_frames)
        worker.stopped.connect(self._on_stopped)
        worker.faulted.connect(self._on_build_fault)
        worker.start()
        self.worker = worker
        self.stop_reason = ""
        self._silence_reported = False

    def _detach(self, worker: ServerProcess) -> None:
        worker.frames.disconnect(self._on_frames)
        worker.stopped.disconnect(self._on_stopped)
        worker.faulted.disconnect(self._on_build_fault)

    def shutdown(self) -> None:
        self._stages, self._staged = [], None  # a delivery in progress ends: its panels may be closing
        if self.worker is not None:
            self._detach(self.worker)
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
        if name not in self.speeds:
            raise ValueError(f"unknown speed {name!r}; choose one of {', '.join(self.speeds)}")
        changed = name != self.speed_name
        self.speed_name = name
        if self.worker:
            self.worker.set_speed(self.speeds[name])
        if changed:
            self.speedChanged.emit(name)

    def set_speed_factor(self, factor: float | None) -> str:
        """Run at a real-time ``factor`` (None: as fast as it can), named as the transport bar
        names speeds; a factor without a name ("3x") becomes one. Returns the name."""
        name = next((n for n, v in self.speeds.items() if v == factor), None)
        if name is None:
            name = f"{factor:g}x"
            self.speeds[name] = factor
        self.set_speed(name)
        return name

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
    def caught_up(self) -> bool:
        """True when the newest snapshot has been shown and every panel has had it (none waits
        on frame pacing)."""
        with self._lock:
            return self._latest is self._shown and self._staged is None

    @property
    def latest(self) -> WorkbenchSnapshot | None:
        with self._lock:
            return self._latest

    def _on_frames(self, snap: WorkbenchSnapshot, ticks: np.ndarray, times: np.ndarray, values: np.ndarray) -> None:
        """The link's reader thread, once a frame (a batch of ticks): record every tick's sample,
        keep the newest snapshot, gather events. No Qt calls here."""
        if len(ticks):
            self.telemetry.extend(ticks, times, snap.port_keys, values)
        for listener in self.frame_listeners:
            listener(snap, ticks, times, values)
        with self._lock:
            self._latest = snap
            if snap.diagnostics or snap.events:
                fresh = [DiagnosticEvent(snap.time, d) for d in snap.diagnostics] + list(snap.events)
                room = MAX_PENDING_EVENTS - len(self._events)
                self._events.extend(fresh[:max(room, 0)])
                self.dropped_events += max(len(fresh) - max(room, 0), 0)

    def _on_build_fault(self, diagnostic: Diagnostic) -> None:
        """The link's reader thread: the projection could not be built (no snapshot says so)."""
        with self._lock:
            self._latest = None  # the old picture is not of this document
            self._shown = None
            self._events.append(DiagnosticEvent(0.0, diagnostic))

    def _on_stopped(self, reason: str) -> None:
        """The link's reader thread: the child is gone (handled on the UI thread's next timer)."""
        with self._lock:
            self._died = (self.worker, reason)

    def _check_server(self) -> None:
        """UI thread: report a dead or silent sim server."""
        with self._lock:
            died, self._died = self._died, None
        if died is not None and died[0] is self.worker and self.worker is not None:
            self._report_stopped(died[1])
            return
        worker = self.worker
        if worker is None or not worker.wait_started(0):
            return
        silent = worker.silent_for
        if silent > self.heartbeat_timeout and not self._silence_reported:
            self._silence_reported = True
            self._emit_events([DiagnosticEvent(self._latest.time if self._latest else 0.0, Diagnostic(
                "warning", "simulation-not-answering",
                f"the simulation has not answered for {silent:.0f} s (Simulation > Restart Simulation kills and "
                "restarts it)", source="sim-server"))])
            self.simulationUnresponsive.emit(silent)
        elif silent < self.heartbeat_timeout:
            self._silence_reported = False

    def _report_stopped(self, reason: str) -> None:
        self._detach(self.worker)
        self.worker = None
        self.stop_reason = reason
        diag = Diagnostic("error", "simulation-stopped", f"simulation stopped: {reason}", source="sim-server")
        with self._lock:
            if self._latest is not None:  # keep the last picture, say why it no longer moves
                self._latest = dataclasses.replace(self._latest, status="faulted", reason=diag.message,
                                                   faults=(diag,), diagnostics=(), events=())
            when = self._latest.time if self._latest is not None else 0.0
        self._emit_events([DiagnosticEvent(when, diag)])
        self.simulationStopped.emit(reason)

    def _emit_events(self, events: list) -> None:
        if events:
            self.events.emit(tuple(events))

    def _on_timer(self, *, force: bool = False) -> None:
        self._check_server()
        self._pump_debug()
        with self._lock:
            snap = self._latest
            events, self._events = self._events, []
        self._emit_events(events)
        if snap is None or snap is self._shown or (not force and (self._staged is not None
                                                                 or time.perf_counter() < self._next_frame)):
            return
        self._shown = snap
        self.frames += 1
        now = time.perf_counter()
        self._fps_window.append(now)
        while self._fps_window and now - self._fps_window[0] > 1.0:
            self._fps_window.pop(0)
        self.fps = float(len(self._fps_window))
        self._frame_started = now
        self.frame.emit(snap)
        if force:
            self._stages = []  # a delivery in progress ends: nobody gets its older frame after this one
            for consumer in self._consumers:
                consumer(snap)
            QTimer.singleShot(0, self._frame_done)
            return
        self._stages, self._staged = list(self._consumers), snap
        QTimer.singleShot(0, self._next_stage)

    def add_frame_consumer(self, consumer: Callable[[WorkbenchSnapshot], None]) -> None:
        """Give ``consumer`` (a panel's ``on_frame``) every frame, after ``frame``'s own slots.

        Each consumer runs in its own event-loop turn, and its repaint happens before the next
        one runs: a frame's updates are spread over several short turns instead of one long paint
        of every panel at once, so input and timers keep being served while a frame is drawn.
        (``flush`` delivers to all of them at once.)"""
        self._consumers.append(consumer)

    def _next_stage(self) -> None:
        if not self._stages or self._staged is None:
            self._stages = []
            self._staged = None
            self._frame_done()
            return
        consumer = self._stages.pop(0)
        try:
            consumer(self._staged)  # an exception is reported as a slot's is, and the frames go on
        finally:
            QTimer.singleShot(0, self._next_stage)  # after this consumer's repaint (a posted event)

    def _frame_done(self) -> None:
        """Pace the frames to what they cost: drawing takes at most ``FRAME_SHARE`` of the UI
        thread, so a slow frame (software GL, many plots) lowers the frame rate instead of
        starving input and the event loop."""
        cost = time.perf_counter() - self._frame_started
        self.frame_cost = cost
        self._next_frame = self._frame_started + min(cost / FRAME_SHARE, MAX_FRAME_GAP_S)

    def flush(self) -> None:
        """Emit the newest snapshot now (tests, screenshots)."""
        self._on_timer(force=True)


def _no_simulation() -> Future:
    fut: Future = Future()
    fut.set_result(CommandResult.error(Diagnostic("error", "no-simulation", "no scene is running", source="workbench")))
    return fut
