"""The transport bar: play, pause, step one tick, reset (from the action registry), speed, tick
and sim time."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QToolBar

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.bridge import SPEEDS


class TransportBar(QToolBar):
    """The registry fills the buttons (toolbar id ``transport``); :meth:`add_readouts` adds the
    speed selector and the clock after them."""

    def __init__(self, parent=None) -> None:
        super().__init__("Transport", parent)
        self.setObjectName("transport")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)

    def add_readouts(self) -> None:
        self.addSeparator()
        self.addWidget(QLabel(" Speed "))
        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.setToolTip("Real-time factor; max runs as fast as the simulation can")
        self.addWidget(self.speed)
        self.addSeparator()
        self.clock = QLabel("  tick —   t = —  ")
        self.clock.setMinimumWidth(200)
        self.addWidget(self.clock)

    def show_snapshot(self, snap: WorkbenchSnapshot | None) -> None:
        if snap is None:
            self.clock.setText("  no simulation  ")
        else:
            self.clock.setText(f"  tick {snap.tick}   t = {snap.time:.3f} s   {snap.status}  ")
