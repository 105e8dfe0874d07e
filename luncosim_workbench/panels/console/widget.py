"""The console: transport and projection events, scenario ``print`` output, scenario
notifications and runtime messages."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.panels.base import PanelContext

MAX_LINES = 5000


def fetch_script_output(sim) -> tuple[int, list, list] | None:
    """Worker thread, between ticks: the scenario runtime's printed lines and notifications
    (copies; nothing in the simulation is changed)."""
    if sim is None:
        return None
    from luncosim_core.scripting.scenario import scenarios_of

    parts = scenarios_of(sim)
    if not parts:
        return None
    runtime = parts[0].runtime
    return id(runtime), list(runtime.console), list(runtime.notifications)


class _Cursor:
    """New entries of a tick-ordered, bounded log: those after the last (tick, count) seen."""

    def __init__(self) -> None:
        self.owner = None
        self.tick = -1
        self.count = 0

    def new(self, owner: int, entries: list) -> list:
        if owner != self.owner or (entries and entries[-1][0] < self.tick):
            self.owner, self.tick, self.count = owner, -1, 0  # a rebuilt or reset simulation
        out = []
        same = 0
        for e in entries:
            if e[0] > self.tick:
                out.append(e)
            elif e[0] == self.tick:
                same += 1
                if same > self.count:
                    out.append(e)
        if entries:
            last = entries[-1][0]
            self.count = sum(1 for e in entries if e[0] == last)
            self.tick = last
        return out


class ConsolePanel(QWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(MAX_LINES)
        font = QFont("Monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        self.text.setFont(font)
        layout.addWidget(self.text)
        ctx.session.message.connect(self.log)
        self._future = None
        self._prints = _Cursor()
        self._notes = _Cursor()
        self.poll = QTimer(self)
        self.poll.setInterval(100)
        self.poll.timeout.connect(self._consume)

    def log(self, line: str) -> None:
        self.text.appendPlainText(line)

    def lines(self) -> list[str]:
        return self.text.toPlainText().splitlines()

    def on_frame(self, snap: WorkbenchSnapshot) -> None:
        for t, d in self.ctx.bridge.take_console():
            self.log(f"[t={t:.3f}] {d.severity} {d.code}: {d.message}")
        self._consume()
        worker = self.ctx.bridge.worker
        if self._future is None and worker is not None:
            self._future = worker.call(fetch_script_output)
            self.poll.start()

    def _consume(self) -> None:
        """Show the answer of the pending request, if it has arrived (also polled: a paused
        simulation sends no more frames)."""
        fut = self._future
        if fut is None or not fut.done():
            return
        self._future = None
        self.poll.stop()
        try:
            got = fut.result()
        except Exception as exc:  # the simulation was replaced meanwhile
            got = None
            self.log(f"(script output unavailable: {exc})")
        if got is not None:
            owner, prints, notes = got
            for tick, prim, text in self._prints.new(owner, prints):
                self.log(f"[tick {tick}] {prim.rsplit('/', 1)[-1]}: {text}")
            for tick, kind, text in self._notes.new(owner, notes):
                self.log(f"[tick {tick}] {kind}: {text}")
