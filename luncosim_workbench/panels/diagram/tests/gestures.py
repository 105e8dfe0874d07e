"""Mouse gestures on the diagram's view, sent as a hand makes them."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication


def send(view, kind, pos: QPoint, buttons, modifiers=Qt.KeyboardModifier.NoModifier):
    button = Qt.MouseButton.LeftButton if kind != QEvent.Type.MouseMove else Qt.MouseButton.NoButton
    ev = QMouseEvent(kind, QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)), button, buttons, modifiers)
    QApplication.sendEvent(view.viewport(), ev)


def drag(qtbot, view, start: QPoint, end: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Press, move in steps (with the button held), release: what a hand does."""
    left = Qt.MouseButton.LeftButton
    send(view, QEvent.Type.MouseButtonPress, start, left, modifiers)
    for k in range(1, 9):
        p = start + (end - start) * (k / 8)
        send(view, QEvent.Type.MouseMove, QPoint(int(p.x()), int(p.y())), left, modifiers)
        qtbot.wait(5)
    send(view, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton, modifiers)
    qtbot.wait(20)


def click(view, pos: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    send(view, QEvent.Type.MouseButtonPress, pos, Qt.MouseButton.LeftButton, modifiers)
    send(view, QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.NoButton, modifiers)


def at_port(panel, ref: str) -> QPoint:
    head, _, port = ref.partition(".")
    node = panel.nodes[head]
    item = node.port(port) if port else node.ports[0]
    return panel.view.mapFromScene(item.scene_center())


def at_node(panel, name: str) -> QPoint:
    node = panel.nodes[name]
    r = node._rect  # the icon's body, away from its connectors (an own connector: its rim)
    y = r.center().y() + r.height() * (0.4 if node.view.own_connector is not None else 0.1)
    return panel.view.mapFromScene(node.mapToScene(QPointF(r.center().x(), y)))


def changed_lines(old: str, new: str) -> list[str]:
    return sorted(set(new.splitlines()) - set(old.splitlines()))
