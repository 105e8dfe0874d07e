"""``python -m luncosim_core.server.child --fd N``: the sim server process.

It owns the world: a :class:`SimulationWorker` (its thread runs the DESIGN's tick unchanged, the
physics client, the port registry, the participants and their compile jobs). Its main thread
speaks the channel (:mod:`luncosim_core.server.channel`) on the socket it inherited as ``N``:
control, commands and queries in; results, snapshot frames and heartbeats out.

Per-tick data is batched: every tick's (tick, time, port values) row is gathered and sent with
the newest snapshot at most every :data:`FRAME_S` seconds, so a client at "max" receives about a
hundred messages a second however fast the simulation ticks. The process ends when its socket
closes (the parent went away) or on ``stop``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import queue
import sys
import threading
import time
from multiprocessing.connection import Connection

import numpy as np

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.server import channel
from luncosim_core.sim.simulation import Simulation, SimulationConfig
from luncosim_core.sim.worker import SimulationWorker

FRAME_S = 0.008  # longest a tick's data waits before it is sent
MAX_BATCH = 512  # rows: send earlier when this many ticks are waiting
HEARTBEAT_S = 0.5


def build_simulation(spec: dict) -> Simulation:
    """The simulation a spec describes: a scene on disk, or a flattened stage's text."""
    config = SimulationConfig(**spec.get("config", {}))
    if spec["kind"] == "scene":
        from luncosim_core.sim.simulation import open_simulation

        sim = open_simulation(spec["scene"], lunco_root=spec.get("lunco_root"), config=config)
    else:
        from luncosim_core.sim.mirror import StageDocument, stage_from_text
        from luncosim_core.sim.programs import program_participants

        stage = stage_from_text(spec["text"])
        sim = Simulation(stage, config, roots=spec.get("roots"), document=StageDocument(stage, spec.get("roots")),
                         participant_factory=program_participants, scene=spec.get("scene", ""))
    if spec.get("wait_ready"):
        sim.wait_until_ready()
    return sim


class Batcher:
    """Gathers the worker's per-tick snapshots (worker thread) into frames (main thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: list[tuple[int, float, np.ndarray]] = []
        self._diags: list = []
        self._events: list = []
        self._newest: WorkbenchSnapshot | None = None
        self._keys: tuple[str, ...] = ()

    def add(self, snap: WorkbenchSnapshot) -> bool:
        """Keep one tick's sample; True when the batch is full and should go now."""
        with self._lock:
            if snap.port_keys != self._keys and self._rows:
                self._rows = []  # another port index: earlier rows no longer line up (rare: a rebuild)
            self._keys = snap.port_keys
            self._rows.append((snap.tick, snap.time, snap.port_values))
            self._diags.extend(snap.diagnostics)
            self._events.extend(snap.events)
            self._newest = snap
            return len(self._rows) >= MAX_BATCH

    def take(self) -> tuple | None:
        """The frame message for everything gathered, or None."""
        with self._lock:
            snap, rows = self._newest, self._rows
            if snap is None:
                return None
            snap = dataclasses.replace(snap, diagnostics=tuple(self._diags), events=tuple(self._events))
            self._newest, self._rows, self._diags, self._events = None, [], [], []
        ticks = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        times = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
        values = np.stack([r[2] for r in rows]) if rows else np.zeros((0, len(snap.port_keys)))
        return ("frame", snap, ticks, times, values)


class ChildServer:
    """The main thread of the sim server process."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.worker: SimulationWorker | None = None
        self.batcher = Batcher()
        self.outbox: queue.SimpleQueue = queue.SimpleQueue()  # results from the worker thread
        self.wake = threading.Event()
        self._last_frame = 0.0
        self._last_beat = 0.0

    def send(self, msg: tuple) -> None:
        self.conn.send_bytes(channel.dumps(msg))

    def run(self) -> int:
        hello = channel.loads(self.conn.recv_bytes())
        if hello[0] != "hello" or hello[1] != channel.VERSION:
            self.send(("fatal", f"protocol mismatch: expected hello v{channel.VERSION}, got {hello[:2]!r}"))
            return 2
        spec = hello[2]
        if spec.get("nice"):  # the workbench's child yields the CPU to the UI when both want it
            os.nice(int(spec["nice"]))
        self.worker = SimulationWorker(lambda: build_simulation(spec), speed=spec.get("speed", 1.0),
                                       poll_interval=spec.get("poll_interval", 0.5))
        self.worker.snapshot_ready.connect(self._on_snapshot)
        self.worker.faulted.connect(self._on_fault)
        self.worker.start()
        self.send(("ready", channel.VERSION, os.getpid()))
        try:
            while self._serve_once():
                pass
        except (EOFError, OSError):
            pass  # the parent went away: end quietly
        finally:
            self.worker.stop(timeout=2.0)
        return 0

    def _on_snapshot(self, snap: WorkbenchSnapshot) -> None:  # worker thread
        if self.batcher.add(snap):
            self.wake.set()

    def _on_fault(self, diagnostic) -> None:  # worker thread
        """A fault with no simulation to carry it in a snapshot (the scene could not be built)
        travels on its own."""
        if self.worker.sim is None:
            self.outbox.put(("fault", diagnostic))
            self.wake.set()

    def _serve_once(self) -> bool:
        if self.conn.poll(FRAME_S):
            msg = channel.loads(self.conn.recv_bytes())
            if msg[0] == "stop":
                return False
            self._handle(msg)
        self._flush()
        return True

    def _flush(self) -> None:
        while True:
            try:
                self.send(self.outbox.get_nowait())
            except queue.Empty:
                break
        now = time.perf_counter()
        if self.wake.is_set() or now - self._last_frame >= FRAME_S:
            self.wake.clear()
            frame = self.batcher.take()
            if frame is not None:
                self.send(frame)
                self._last_frame = now
        if now - self._last_beat >= HEARTBEAT_S:
            self.send(("heartbeat", now))
            self._last_beat = now

    def _handle(self, msg: tuple) -> None:
        kind = msg[0]
        w = self.worker
        if kind == "control":
            verb, arg = msg[1], msg[2]
            if verb == "step":
                w.step(arg)
            elif verb == "speed":
                w.set_speed(arg)
            else:
                getattr(w, verb)()  # play, pause, reset
        elif kind == "replace":
            spec = msg[1]
            w.replace(lambda: build_simulation(spec))
        elif kind in ("command", "query"):
            request_id, value = msg[1], msg[2]
            fut = w.send(value) if kind == "command" else w.query(value)
            fut.add_done_callback(lambda f, rid=request_id: self._resolved(rid, f))

    def _resolved(self, request_id: int, fut) -> None:
        try:
            self.outbox.put(("result", request_id, fut.result()))
        except Exception as exc:
            self.outbox.put(("failed", request_id, f"{type(exc).__name__}: {exc}"))
        self.wake.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="luncosim-sim-server")
    parser.add_argument("--fd", type=int, required=True, help="the inherited socket to speak the channel on")
    args = parser.parse_args(argv)
    conn = Connection(args.fd)
    # native libraries print to C stdout: keep it off the channel and the parent's terminal
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return ChildServer(conn).run()


if __name__ == "__main__":
    sys.exit(main())
