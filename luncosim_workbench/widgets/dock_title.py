"""``DockTitleBar``: a dock's title with its panel icon, an eliding title, float and close.

Mouse events it does not handle go to the dock, so dragging and double-clicking the bar move and
float the dock as usual."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QLabel, QToolButton, QWidget
from superqt import QElidingLabel

from luncosim_workbench import resources


class DockTitleBar(QWidget):
    def __init__(self, dock: QDockWidget, icon_name: str) -> None:
        super().__init__(dock)
        self.setObjectName("dockTitle")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.dock = dock
        self.icon_name = icon_name
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        layout.setSpacing(4)
        self.icon = QLabel()
        self.icon.setFixedSize(16, 16)
        layout.addWidget(self.icon)
        self.title = QElidingLabel(dock.windowTitle())
        self.title.setObjectName("dockTitleText")
        self.title.setElideMode(Qt.TextElideMode.ElideRight)
        layout.addWidget(self.title, 1)
        self.float_button = self._button("dock_float", "Float / dock this panel",
                                         lambda: dock.setFloating(not dock.isFloating()))
        self.close_button = self._button("dock_close", "Hide this panel (View > Panels shows it again)", dock.close)
        layout.addWidget(self.float_button)
        layout.addWidget(self.close_button)
        dock.windowTitleChanged.connect(self.title.setText)
        self.refresh_icons()

    def _button(self, icon: str, tip: str, slot) -> QToolButton:
        b = QToolButton(self)
        b.setAutoRaise(True)
        b.setIconSize(QSize(14, 14))
        b.setToolTip(tip)
        b.setProperty("icon_name", icon)
        b.clicked.connect(slot)
        return b

    def refresh_icons(self) -> None:
        """(Re)draw the icons in the current theme's colours."""
        if self.icon_name:
            self.icon.setPixmap(resources.icon(self.icon_name).pixmap(16, 16))
        for b in (self.float_button, self.close_button):
            b.setIcon(resources.icon(b.property("icon_name")))

    def text(self) -> str:
        return self.title.text()
