"""``SimulationWorker``: one thread owns the Simulation; everything else talks to it by message.

Control (play, pause, step, reset, speed) is handled as it arrives. Commands (SetPorts, document
edits) go into a bounded queue and are admitted at the next tick in arrival order; a paused
simulation keeps them queued. Queries are answered between ticks. After every tick the worker
publishes a frozen snapshot through the Qt-free ``snapshot_ready`` signal; an exception on the
worker becomes a faulted status with its traceback, never a silently dead thread.
"""

from __future__ import annotations

import queue
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future

from psygnal import Signal

from luncosim_core.api.commands import Command, CommandResult, Query
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.sim.simulation import Simulation

QUEUE_LIMIT = 4096


class CommandQueueFull(RuntimeError):
    """The bounded command queue is full; the command was not accepted."""


class SimulationWorker:
    """Runs a :class:`Simulation` on its own thread, paced to real time times ``speed``."""

    snapshot_ready = Signal(object)  # WorkbenchSnapshot
    faulted = Signal(object)  # Diagnostic

    def __init__(self, factory: Callable[[], Simulation], *, speed: float | None = 1.0,
                 poll_interval: float = 0.5) -> None:
        self.poll_interval = poll_interval  # seconds between hot-reload source checks (0 = never)
        self._factory = factory
        # control (play, pause, stop, ...) always gets in; commands, queries and calls are
        # bounded by ``_slots`` (a flood while the worker builds never blocks or breaks control)
        self._inbox: queue.Queue = queue.Queue()
        self._slots = threading.BoundedSemaphore(QUEUE_LIMIT)
        self._thread: threading.Thread | None = None
        self._running = False
        self._steps = 0
        self._speed = speed  # None = as fast as possible
        self._stop = threading.Event()
        self.sim: Simulation | None = None  # touched only on the worker thread
        self.latest: WorkbenchSnapshot | None = None
        self._paused_busy = ""  # the compile a paused snapshot said it waits on ("" when none)
        self.error: Diagnostic | None = None
        self._rtf = 0.0

    # ------------------------------------------------------------------ API (any thread)
    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._main, name="luncosim-sim", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread (waits up to ``timeout`` for it; a worker still building its
        projection ends as soon as the build returns). Never raises."""
        self._stop.set()
        self._inbox.put(("stop",))
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def play(self) -> None:
        self._post(("play",))

    def pause(self) -> None:
        self._post(("pause",))

    def step(self, n: int = 1) -> None:
        self._post(("step", int(n)))

    def reset(self) -> None:
        self._post(("reset",))

    def set_speed(self, speed: float | None) -> None:
        """Real-time factor (1.0, 2.0, 4.0) or None for as fast as possible."""
        self._post(("speed", speed))

    def replace(self, factory: Callable[[], Simulation]) -> None:
        """Tear the current projection down and build a new one (scene switch or edit)."""
        self._post(("replace", factory))

    def send(self, command: Command) -> Future:
        """Queue a command; the future resolves with its :class:`CommandResult` at admission."""
        fut: Future = Future()
        self._post(("command", command, fut))
        return fut

    def query(self, q: Query) -> Future:
        fut: Future = Future()
        self._post(("query", q, fut))
        return fut

    def call(self, fn: Callable[[Simulation], object]) -> Future:
        """Run ``fn(sim)`` on the worker thread between ticks (read-only helpers, tests)."""
        fut: Future = Future()
        self._post(("call", fn, fut))
        return fut

    @property
    def running(self) -> bool:
        return self._running

    def _post(self, msg: tuple) -> None:
        if msg[0] in _BOUNDED and self._stop.is_set():  # stopped: answered now, never queued
            self._inbox.put(msg)
            self._refuse_inbox()
            return
        if msg[0] in _BOUNDED:
            if not self._slots.acquire(blocking=False):
                raise CommandQueueFull(f"the simulation command queue is full ({QUEUE_LIMIT} messages)")
        self._inbox.put(msg)

    # ------------------------------------------------------------------ worker thread
    def _main(self) -> None:
        try:
            self.sim = self._factory()
        except Exception as exc:  # no projection: the loop still answers (commands: no-simulation)
            self._fail(exc)
        self._publish()
        self._next_due = time.perf_counter()
        self._next_poll = self._next_due + self.poll_interval
        self._window: list[tuple[float, float]] = []
        while not self._stop.is_set():
            self._poll_sources()
            try:
                msg = self._next_message()
                if self._handle(msg):
                    break
                continue  # drain every message before the next tick
            except queue.Empty:
                pass
            if (self._running or self._steps > 0) and self.sim is not None:
                self._tick()
            elif self._paused_busy and self.sim is not None and self.sim.compiling() != self._paused_busy:
                self._publish()  # paused: the compile it waited on finished (or another began)
        self._refuse_inbox()
        if self.sim is not None:
            self.sim.close()  # refuses the commands still queued inside the simulation

    def _refuse_inbox(self) -> None:
        """The worker stops: every message still waiting gets an answer (no Future hangs)."""
        while True:
            try:
                msg = self._inbox.get_nowait()
            except queue.Empty:
                return
            fut = msg[-1] if msg[0] in _BOUNDED else None
            if fut is not None and not fut.done():
                if msg[0] == "call":
                    fut.set_exception(RuntimeError("the simulation worker stopped before answering"))
                else:
                    fut.set_result(_stopped())

    def _poll_sources(self) -> None:
        """Hot reload: every ``poll_interval`` ask the participants whether a source changed."""
        if not self.poll_interval or self.sim is None or time.perf_counter() < self._next_poll:
            return
        self._next_poll = time.perf_counter() + self.poll_interval
        try:
            self.sim.poll_sources()
        except Exception as exc:  # a source that cannot be read is a diagnostic, not a dead thread
            self.sim.report(Diagnostic("warning", "source-poll-failed", str(exc), source="runtime"))

    def _next_message(self) -> tuple:
        """The next control message, waiting as long as pacing allows (raises queue.Empty)."""
        active = self._running or self._steps > 0
        timeout = None
        if active and self._speed is not None and self._steps == 0:
            timeout = max(0.0, self._next_due - time.perf_counter())
        elif active:
            timeout = 0.0
        elif self._paused_busy:
            timeout = 0.05  # paused while a compile runs: look again soon, to say when it is done
        elif self.poll_interval:
            timeout = self.poll_interval
        return self._inbox.get(timeout=timeout) if timeout != 0.0 else self._inbox.get_nowait()

    def _tick(self) -> None:
        sim = self.sim
        try:
            advanced = sim.tick()
        except Exception as exc:
            self._fail(exc)
            return
        if self._steps > 0 and advanced:  # a step waits out admission (a compile), it is not lost
            self._steps -= 1
        now = time.perf_counter()
        window = self._window
        window.append((now, sim.time))
        if len(window) > 30:
            window.pop(0)
        if len(window) > 1 and window[-1][0] > window[0][0]:
            self._rtf = (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
        self._publish()
        if not advanced:
            if sim.fault is not None:
                self._running = False
                self._steps = 0
                self.faulted.emit(sim.fault)
            else:
                time.sleep(0.005)  # waiting for admission (e.g. a compile): do not spin
        if self._speed is not None:
            self._next_due = max(self._next_due + sim.dt / self._speed, now - 0.25)

    def _handle(self, msg: tuple) -> bool:
        """Act on one message; True to stop the thread."""
        kind = msg[0]
        if kind == "stop":
            return True
        if kind in _BOUNDED:
            self._slots.release()
        handler = getattr(self, f"_on_{kind}")
        handler(*msg[1:])
        return False

    def _on_play(self) -> None:
        self._running = True

    def _on_pause(self) -> None:
        self._running = False
        self._steps = 0
        self._publish()

    def _on_step(self, n: int) -> None:
        self._steps += n

    def _on_speed(self, speed: float | None) -> None:
        self._speed = speed

    def _drop_pending(self, why: str) -> None:
        """Commands queued but not admitted resolve with an error: none is left hanging."""
        sim = self.sim
        while sim is not None and sim.pending:
            _seq, cmd, ticket = sim.pending.popleft()
            if ticket is not None:
                ticket(CommandResult.error(Diagnostic("error", "command-dropped",
                                                      f"{cmd.name} was not admitted: the simulation was {why}",
                                                      source="runtime")))

    def _on_reset(self) -> None:
        self._running = False
        self._steps = 0
        self._drop_pending("reset")
        if self.sim is None:
            return
        try:
            self.sim.build()
            self.sim.tick_count = 0
        except Exception as exc:
            self._fail(exc)
        self._publish()

    def _on_replace(self, factory: Callable[[], Simulation]) -> None:
        self._running = False
        self._steps = 0
        self._drop_pending("rebuilt")
        if self.sim is not None:
            self.sim.close()
            self.sim = None  # a closed projection must not be published or asked anything
        try:
            self.sim = factory()
        except Exception as exc:
            self._fail(exc)
        self._publish()

    def _on_command(self, cmd: Command, fut: Future) -> None:
        if self.sim is None:
            fut.set_result(_no_simulation())
            return
        try:
            self.sim.submit(cmd, fut.set_result)
        except OverflowError as exc:
            fut.set_exception(CommandQueueFull(str(exc)))

    def _on_query(self, q: Query, fut: Future) -> None:
        fut.set_result(self.sim.query(q) if self.sim is not None else _no_simulation())

    def _on_call(self, fn: Callable[[Simulation], object], fut: Future) -> None:
        try:
            fut.set_result(fn(self.sim))
        except Exception as exc:
            fut.set_exception(exc)

    def _publish(self) -> None:
        if self.sim is None:
            return
        snap = self.sim.snapshot(running=self._running, real_time_factor=self._rtf)
        self._paused_busy = "" if self._running else self.sim.compiling()
        self.latest = snap
        self.snapshot_ready.emit(snap)

    def _fail(self, exc: BaseException) -> None:
        self._running = False
        self._steps = 0
        self.error = Diagnostic("error", "runtime-exception", f"{type(exc).__name__}: {exc}", source="runtime",
                                data={"traceback": traceback.format_exc()})
        if self.sim is not None:
            self.sim.fault = self.error
            self.sim.refuse_pending("simulation-faulted", f"the simulation is faulted ({self.error.code})")
            self.sim.report(self.error)
            self._publish()
        self.faulted.emit(self.error)


_BOUNDED = frozenset({"command", "query", "call"})  # messages that take a queue slot


def _stopped() -> CommandResult:
    return CommandResult.error(Diagnostic("error", "simulation-stopped",
                                          "the simulation stopped before the command was admitted", source="runtime"))


def _no_simulation() -> CommandResult:
    return CommandResult.error(Diagnostic("error", "no-simulation", "no scene is running", source="runtime"))
