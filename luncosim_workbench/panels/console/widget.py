"""The console: transport and projection events, script ``print`` output and runtime messages."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from luncosim_core.sim.snapshot import WorkbenchSnapshot
from luncosim_workbench.panels.base import PanelContext

MAX_LINES = 5000
PRINT_CODES = ("script-print", "rhai-print", "print")


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
        self._last_tick = -1

    def log(self, line: str) -> None:
        self.text.appendPlainText(line)

    def lines(self) -> list[str]:
        return self.text.toPlainText().splitlines()

    def on_frame(self, snap: WorkbenchSnapshot) -> None:
        for t, d in self.ctx.bridge.take_console():
            if d.code in PRINT_CODES or d.source == "script":
                self.log(f"[t={t:.3f}] {d.message}")
            else:
                self.log(f"[t={t:.3f}] {d.severity} {d.code}: {d.message}")
