"""The workbench serves its open scene over the sim server's HTTP API (View > API Server).

The same routes, guards and vocabulary as ``luncosim serve`` (docs/cli.md), over the simulation
the workbench is running. The API server runs on a thread of its own with its own asyncio loop;
the simulation it serves is whichever sim server the bridge has now (a restart is followed).
Document edits (``ApplyOp``) do not go to the simulation directly: they are applied on the UI
thread through the document's journal with the author ``api`` (undoable in the workbench, in the
Edit menu like any edit), and the shell mirrors them into the simulation as it does a panel's.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from concurrent.futures import Future
from pathlib import Path

from psygnal import Signal
from PySide6.QtCore import QObject, Qt
from PySide6.QtCore import Signal as QtSignal

from luncosim_core.api.commands import CommandResult
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.server.http import ApiServer
from luncosim_core.server.serve import default_token_file, write_token
from luncosim_workbench.bridge import SimBridge


class _UiApplier(QObject):
    """Carries an op (or a transport call) from the API's thread to the UI thread (queued) and
    applies it there, where the document, the bridge and its telemetry live."""

    requested = QtSignal(object, object)  # op, Future
    called = QtSignal(object)  # a callable run on the UI thread

    def __init__(self, apply, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._apply = apply
        self.requested.connect(self._on_requested, Qt.ConnectionType.QueuedConnection)
        self.called.connect(lambda fn: fn(), Qt.ConnectionType.QueuedConnection)

    def _on_requested(self, op, fut: Future) -> None:
        try:
            self._apply(op, author="api")
        except DiagnosticError as err:
            fut.set_result(CommandResult(False, None, tuple(err.diagnostics)))
            return
        fut.set_result(CommandResult(True, op.label()))


class BridgeLink:
    """The bridge's current simulation, as :class:`ApiServer` sees a sim server."""

    frames = Signal(object, object, object, object)

    def __init__(self, bridge: SimBridge, applier: _UiApplier) -> None:
        self.bridge = bridge
        self._applier = applier
        bridge.frame_listeners.append(self.frames.emit)

    def detach(self) -> None:
        self.bridge.frame_listeners.remove(self.frames.emit)

    @property
    def latest(self):
        return self.bridge.latest

    @property
    def alive(self) -> bool:
        worker = self.bridge.worker
        return worker is not None and worker.alive

    @property
    def stop_reason(self) -> str:
        return self.bridge.stop_reason

    @property
    def pid(self) -> int | None:
        worker = self.bridge.worker
        return worker.pid if worker is not None else None

    def send(self, command) -> Future:
        return self.bridge.send(command)

    def query(self, q) -> Future:
        return self.bridge.query(q)

    def apply_op(self, op) -> Future:
        fut: Future = Future()
        self._applier.requested.emit(op, fut)
        return fut

    # transport calls run on the UI thread, as the transport bar's do (the bridge's speed, its
    # telemetry and the shell's view of them stay in step)
    def play(self) -> None:
        self._applier.called.emit(self.bridge.play)

    def pause(self) -> None:
        self._applier.called.emit(self.bridge.pause)

    def step(self, n: int) -> None:
        self._applier.called.emit(lambda: self.bridge.step(n))

    def reset(self) -> None:
        self._applier.called.emit(self.bridge.reset)

    def set_speed(self, speed: float | None) -> None:
        self._applier.called.emit(lambda: self.bridge.set_speed_factor(speed))


class WorkbenchApi:
    """Start and stop the API server over a window's simulation (see the module doc)."""

    def __init__(self, bridge: SimBridge, apply, *, port: int = 0, token_file: Path | None = None) -> None:
        self.token = secrets.token_urlsafe(32)
        self._applier = _UiApplier(apply)
        self.link = BridgeLink(bridge, self._applier)
        self.server = ApiServer(self.link, self.token, port=port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="luncosim-api", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(30)
        self.token_file = write_token(self.token, token_file or default_token_file(self.server.port))

    @property
    def url(self) -> str:
        return self.server.url

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self.link.detach()
        try:
            self.token_file.unlink()
        except OSError:
            pass

