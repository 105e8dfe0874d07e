"""``ServerProcess``: a sim server child seen from its parent (the workbench, ``luncosim serve``).

The same calls as the in-process :class:`SimulationWorker` (play, pause, step, reset, speed,
replace, send, query), but the simulation runs in another process: a native crash there (a
segfault, SIGKILL, the memory limit) ends only the child. Its reader thread receives frames and
results; ``frames`` fires once per frame with the newest snapshot and every tick's port values;
``stopped`` fires once with the reason when the child is gone, after every pending Future has
been resolved with a ``simulation-stopped`` error (none is left hanging).

The child sends a heartbeat every half second; :attr:`ServerProcess.silent_for` says how long it
has been quiet, and a parent that finds it over :data:`HEARTBEAT_TIMEOUT_S` reports it as not
answering and may :meth:`ServerProcess.kill` it.
"""

from __future__ import annotations

import itertools
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from multiprocessing.connection import Connection
from pathlib import Path

from psygnal import Signal

from luncosim_core.api.commands import Command, CommandResult, Query
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.server import channel

HEARTBEAT_TIMEOUT_S = 5.0  # a child quiet this long is reported as not answering
START_TIMEOUT_S = 60.0


def child_command(fd: int) -> list[str]:
    """How to start the sim server child on socket ``fd``: ``python -m luncosim_core.server.child``
    from a Python install; from a frozen bundle (which has no ``-m``), the bundle's own
    ``luncosim sim-server`` verb."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).with_name("luncosim")), "sim-server", "--fd", str(fd)]
    return [sys.executable, "-m", "luncosim_core.server.child", "--fd", str(fd)]


def describe_exit(code: int | None) -> str:
    if code is None:
        return "not answering"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


def _freeze(snap: WorkbenchSnapshot) -> WorkbenchSnapshot:
    for name in ("positions", "orientations", "linear_velocities", "angular_velocities", "port_values"):
        getattr(snap, name).setflags(write=False)
    return snap


class ServerProcess:
    """A running sim server child (see the module doc)."""

    frames = Signal(object, object, object, object)  # snapshot, ticks (n,), times (n,), values (n, P)
    stopped = Signal(str)  # why (killed by SIGKILL, exited with status 1, stopped)
    faulted = Signal(object)  # Diagnostic: the scene could not be built (no snapshot carries it)

    def __init__(self, spec: dict, *, speed: float | None = 1.0) -> None:
        self.spec = dict(spec, speed=speed)
        self.latest: WorkbenchSnapshot | None = None
        self.build_error: Diagnostic | None = None  # why the newest projection could not be built
        self.pid: int | None = None
        self.stop_reason = ""
        self._running = False
        self._ids = itertools.count(1)
        self._pending: dict[int, Future] = {}
        self._lock = threading.Lock()  # pending map and sends
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._reader: threading.Thread | None = None
        self._last_heard = time.perf_counter()
        self._ready = threading.Event()
        self._closing = False

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Spawn the child and say hello (returns at once; :meth:`wait_started` waits)."""
        ours, theirs = socket.socketpair()
        self._proc = subprocess.Popen(child_command(theirs.fileno()), pass_fds=(theirs.fileno(),),
                                      stdin=subprocess.DEVNULL)
        theirs.close()
        self.pid = self._proc.pid
        self._conn = Connection(ours.detach())
        self._post(("hello", channel.VERSION, self.spec))
        self._reader = threading.Thread(target=self._read, name="luncosim-sim-link", daemon=True)
        self._reader.start()

    def wait_started(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Block until the child answered the hello (False if it died or timed out first)."""
        return self._ready.wait(timeout) and self.alive

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self.stop_reason

    @property
    def silent_for(self) -> float:
        """Seconds since the child last said anything (heartbeats included)."""
        return time.perf_counter() - self._last_heard

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the child to end; kill it if it does not within ``timeout``."""
        self._closing = True
        try:
            self._post(("stop",))
        except (OSError, ValueError):
            pass
        if self._proc is not None:
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._reader is not None:
            self._reader.join(timeout)

    def kill(self) -> None:
        """End the child now (SIGKILL): for a server that stopped answering."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()

    # ------------------------------------------------------------------ control
    def play(self) -> None:
        self._running = True
        self._control("play")

    def pause(self) -> None:
        self._running = False
        self._control("pause")

    def step(self, n: int = 1) -> None:
        self._control("step", int(n))

    def reset(self) -> None:
        self._running = False
        self._control("reset")

    def set_speed(self, speed: float | None) -> None:
        self.spec["speed"] = speed
        self._control("speed", speed)

    def replace(self, spec: dict) -> None:
        """Build another projection in the same child (scene switch, document edited)."""
        self._running = False
        self.spec = dict(spec, speed=self.spec.get("speed"))
        self._post_quietly(("replace", self.spec))

    @property
    def running(self) -> bool:
        return self._running and self.alive

    def send(self, command: Command) -> Future:
        """Queue a command; the Future resolves with its :class:`CommandResult` at admission, or
        with a ``simulation-stopped`` error if the child ends first."""
        return self._request("command", command)

    def query(self, q: Query) -> Future:
        return self._request("query", q)

    def _control(self, verb: str, arg=None) -> None:
        self._post_quietly(("control", verb, arg))

    def _request(self, kind: str, value) -> Future:
        fut: Future = Future()
        with self._lock:
            if self.stop_reason:
                fut.set_result(stopped_result(self.stop_reason))
                return fut
            rid = next(self._ids)
            self._pending[rid] = fut
        self._post_quietly((kind, rid, value))
        return fut

    def _post(self, msg: tuple) -> None:
        data = channel.dumps(msg)
        with self._lock:
            self._conn.send_bytes(data)

    def _post_quietly(self, msg: tuple) -> None:
        """Send; a dead child is the reader's to report (it resolves what is pending)."""
        try:
            self._post(msg)
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ reader thread
    def _read(self) -> None:
        conn = self._conn
        try:
            while True:
                msg = channel.loads(conn.recv_bytes())
                self._last_heard = time.perf_counter()
                self._dispatch(msg)
        except (EOFError, OSError):
            pass
        code = self._proc.wait()
        reason = "stopped" if self._closing and code == 0 else describe_exit(code)
        self._finish(reason)

    def _dispatch(self, msg: tuple) -> None:
        kind = msg[0]
        if kind == "frame":
            snap = _freeze(msg[1])
            self.latest = snap
            self.build_error = None
            if snap.status != "running" and snap.status != "waiting":
                self._running = False
            self.frames.emit(snap, msg[2], msg[3], msg[4])
        elif kind in ("result", "failed"):
            with self._lock:
                fut = self._pending.pop(msg[1], None)
            if fut is not None:
                result = msg[2] if kind == "result" else CommandResult.error(
                    Diagnostic("error", "command-failed", msg[2], source="sim-server"))
                fut.set_result(result)
        elif kind == "fault":
            self.build_error = msg[1]
            self.faulted.emit(msg[1])
        elif kind == "ready":
            self._ready.set()
        elif kind == "fatal":
            self.stop_reason = msg[1]

    def _finish(self, reason: str) -> None:
        with self._lock:
            self.stop_reason = self.stop_reason or reason
            pending, self._pending = self._pending, {}
        self._running = False
        for fut in pending.values():
            if not fut.done():
                fut.set_result(stopped_result(self.stop_reason))
        self._ready.set()
        try:
            self._conn.close()
        except OSError:
            pass
        self.stopped.emit(self.stop_reason)


def stopped_result(reason: str) -> CommandResult:
    return CommandResult.error(Diagnostic("error", "simulation-stopped", f"simulation stopped: {reason}",
                                          source="sim-server"))

