"""The console: workbench messages, scenario ``print`` output and notifications, and every
diagnostic the simulation reported, in the order they happened."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout

from luncosim_workbench.context import PanelContext
from luncosim_workbench.events import ConsoleLine, DiagnosticEvent, LogLine, Notification
from luncosim_workbench.plugins import PanelWidget

MAX_LINES = 5000


def format_event(event) -> str | None:
    """The console line for one event (None for events the console does not show)."""
    if isinstance(event, LogLine):
        return event.text
    if isinstance(event, ConsoleLine):
        return f"[tick {event.tick}] {event.source.rsplit('/', 1)[-1]}: {event.text}"
    if isinstance(event, Notification):
        return f"[tick {event.tick}] {event.kind}: {event.text}"
    if isinstance(event, DiagnosticEvent):
        d = event.diagnostic
        return f"[t={event.time:.3f}] {d.severity} {d.code}: {d.message}"
    return None


class ConsolePanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(MAX_LINES)
        font = QFont("Monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        self.text.setFont(font)
        layout.addWidget(self.text)

    def on_events(self, events: tuple) -> None:
        for event in events:
            line = format_event(event)
            if line is not None:
                self.text.appendPlainText(line)

    def lines(self) -> list[str]:
        return self.text.toPlainText().splitlines()

    def clear(self) -> None:
        self.text.clear()
