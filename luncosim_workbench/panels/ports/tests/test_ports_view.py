"""The Ports panel as a user sees it: values right-aligned and never cut on the left (the full
value in the tooltip), ports grouped under collapsible prims, "Plot" from a context menu and a
double-click on the name, outputs read-only, an out-of-bounds write refused naming the bound."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit, QStyleOptionViewItem

from luncosim_workbench.panels.ports.model import KEY_ROLE, VALUE_COL, format_port_value
from luncosim_workbench.testing import AXLE_FL, ports_ready, wait_future

ROVER_B = "/PracticeYard/RoverB"


@pytest.mark.parametrize("value, text", [
    (-3.3681e-19, "-3.3681e-19"), (0.5, "0.5"), (-2.5, "-2.5"), (0.0, "0"), (-4.0, "-4"),
    (123456.789, "1.2346e+05"), (1234.5678, "1234.6"), (-0.00123456, "-0.0012346"), (math.nan, "pending"),
])
def test_a_value_has_a_bounded_width_with_its_sign_and_leading_digits_first(value, text):
    assert format_port_value(value) == text
    assert len(format_port_value(value)) <= 12


def _show(opened, qtbot, prims):
    ports = opened.panels["ports"]
    qtbot.waitUntil(ports_ready(opened), timeout=15000)
    opened.session.selection.set(prims)
    qtbot.waitUntil(lambda: ports.groups.prims and all(any(p.startswith(s) for s in prims) for p in ports.groups.prims),
                    timeout=5000)
    return ports


def _row(ports, key):
    """The view index (name column) of the port ``key``."""
    g = ports.groups.prims.index(key.rpartition(".")[0])
    parent = ports.groups.index(g, 0)
    for c in range(ports.groups.rowCount(parent)):
        index = ports.groups.index(c, 0, parent)
        if index.data(KEY_ROLE) == key:
            return index
    raise AssertionError(f"{key} not shown")


def _feed(ports, values: dict[str, float]) -> None:
    """A snapshot carrying ``values`` (what the bridge would deliver)."""
    keys = tuple(values)
    ports.model.update_values(SimpleNamespace(port_keys=keys, port_values=np.array([values[k] for k in keys])))


def _shown_text(ports, index) -> str:
    view = ports.view
    option = QStyleOptionViewItem()
    option.initFrom(view.viewport())
    option.rect = view.visualRect(index)
    option.widget = view
    view.itemDelegateForIndex(index).initStyleOption(option, index)
    assert option.fontMetrics.horizontalAdvance(option.text) <= option.rect.width()  # nothing cut
    assert option.displayAlignment & Qt.AlignmentFlag.AlignRight
    return option.text


def test_a_tiny_value_shows_its_sign_and_exponent_in_a_narrow_column(opened, qtbot):
    ports = _show(opened, qtbot, [AXLE_FL])
    key = AXLE_FL + ".velocity"
    opened.action("sim.pause").trigger()
    _feed(ports, {key: -3.3681e-19})
    value = _row(ports, key).siblingAtColumn(VALUE_COL)
    assert _shown_text(ports, value) == "-3.3681e-19"  # the default column holds the whole form
    assert value.data(Qt.ItemDataRole.ToolTipRole).splitlines()[1].startswith("value -3.3681e-19")
    for width in (80, 64):  # narrowed by the user: digits go, from the right
        ports.view.setColumnWidth(VALUE_COL, width)
        text = _shown_text(ports, value)
        assert text.startswith("-3.") and text.endswith("e-19"), text


def test_ports_are_grouped_by_prim_and_a_folded_prim_stays_folded(opened, qtbot):
    ports = _show(opened, qtbot, [ROVER_B])
    prims = ports.groups.prims
    assert prims == sorted(prims) and ROVER_B in prims and f"{ROVER_B}/Joints/Axle_FL" in prims
    for g, prim in enumerate(prims):
        parent = ports.groups.index(g, 0)
        keys = [ports.groups.index(c, 0, parent).data(KEY_ROLE) for c in range(ports.groups.rowCount(parent))]
        assert keys and all(k.rpartition(".")[0] == prim for k in keys)
        assert ports.view.isExpanded(parent)
    joint = ports.groups.index(prims.index(f"{ROVER_B}/Joints/Axle_FL"), 0)
    ports.view.setFocus()
    ports.view.setCurrentIndex(joint)
    QTest.keyClick(ports.view, Qt.Key.Key_Left)  # fold it, as the keyboard does
    assert not ports.view.isExpanded(joint)
    ports.refresh_ports()  # a new port list (e.g. after a rebuild) keeps the fold
    qtbot.waitUntil(lambda: not ports._pending, timeout=10000)
    joint = ports.groups.index(ports.groups.prims.index(f"{ROVER_B}/Joints/Axle_FL"), 0)
    assert not ports.view.isExpanded(joint)
    assert ports.view.isExpanded(ports.groups.index(ports.groups.prims.index(ROVER_B), 0))


def _choose_from_context_menu(qtbot, view, index, title):
    """Right-click ``index`` and choose ``title`` in the menu that opens."""
    chosen = []

    def choose():
        menu = QApplication.activePopupWidget()
        if menu is None:
            QTimer.singleShot(20, choose)
            return
        action = next(a for a in menu.actions() if a.text() == title)
        chosen.append([a.text() for a in menu.actions()])
        menu.setActiveAction(action)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    QTimer.singleShot(0, choose)
    pos = view.visualRect(index).center()
    QApplication.sendEvent(view.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                                                              view.viewport().mapToGlobal(pos)))
    qtbot.waitUntil(lambda: bool(chosen), timeout=3000)
    return chosen[0]


def _double_click(view, index):
    """Press, release, press again: a double-click as the platform delivers it."""
    pos = view.visualRect(index).center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_plot_from_the_context_menu_and_by_double_clicking_the_name(opened, qtbot):
    ports = _show(opened, qtbot, [AXLE_FL])
    plots = opened.panels["plots"]
    velocity = _row(ports, AXLE_FL + ".velocity")
    titles = _choose_from_context_menu(qtbot, ports.view, velocity, "Plot")
    assert "Copy Port Path" in titles
    assert plots.channels == [AXLE_FL + ".velocity"]
    angle = _row(ports, AXLE_FL + ".angle")
    _double_click(ports.view, angle)
    assert plots.channels == [AXLE_FL + ".velocity", AXLE_FL + ".angle"]
    assert ports.view.state() != QAbstractItemView.State.EditingState  # the name is not an editor
    # a prim row's menu plots all its ports
    group = ports.groups.index(ports.groups.prims.index(AXLE_FL), 0)
    _choose_from_context_menu(qtbot, ports.view, group, f"Plot {ports.groups.rowCount(group)} Ports")
    assert set(plots.channels) == {ports.groups.index(c, 0, group).data(KEY_ROLE)
                                   for c in range(ports.groups.rowCount(group))}


def test_an_output_value_is_read_only_and_an_input_value_is_typed(opened, qtbot):
    ports = _show(opened, qtbot, [AXLE_FL])
    view = ports.view
    torque = _row(ports, AXLE_FL + ".torque").siblingAtColumn(VALUE_COL)  # a physics output
    _double_click(view, torque)
    assert view.state() != QAbstractItemView.State.EditingState and not ports._pending
    assert "read-only (owned by physics)" in torque.data(Qt.ItemDataRole.ToolTipRole)
    target = _row(ports, AXLE_FL + ".target_velocity").siblingAtColumn(VALUE_COL)
    _double_click(view, target)
    assert view.state() == QAbstractItemView.State.EditingState
    (editor,) = [w for w in view.viewport().findChildren(QLineEdit) if w.isVisible()]
    assert editor.selectedText() == editor.text()  # the whole value, ready to be typed over
    QTest.keyClicks(editor, "-1.5")
    QTest.keyClick(editor, Qt.Key.Key_Return)  # commits (queued: after this event)
    qtbot.waitUntil(lambda: "queued for the next tick" in ports.status.text(), timeout=3000)
    assert ports.status.text() == f"{AXLE_FL}.target_velocity <- -1.5: queued for the next tick"
    assert [what for kind, _f, what in ports._pending if kind == "write"] == [AXLE_FL + ".target_velocity"]


def test_a_throttle_of_50_is_refused_naming_the_bound(opened, qtbot):
    ports = _show(opened, qtbot, [ROVER_B])
    throttle = _row(ports, ROVER_B + ".throttle").siblingAtColumn(VALUE_COL)
    assert "range [-1, 1]" in throttle.data(Qt.ItemDataRole.ToolTipRole)
    view = ports.view
    view.setFocus()
    view.setCurrentIndex(throttle)
    QTest.keyClick(view, Qt.Key.Key_F2)  # the edit key on a writable value
    (editor,) = [w for w in view.viewport().findChildren(QLineEdit) if w.isVisible()]
    QTest.keyClicks(editor, "50")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "queued for the next tick" in ports.status.text(), timeout=3000)
    fut = ports._pending[-1][1]
    opened.bridge.step(1)
    result = wait_future(qtbot, fut, timeout=60)
    assert not result.ok
    assert "50 is above the maximum 1" in result.diagnostics[0].message
    qtbot.waitUntil(lambda: "refused" in ports.status.text(), timeout=5000)
    assert f"{ROVER_B}.throttle refused: {ROVER_B}.throttle: 50 is above the maximum 1 (" in ports.status.text()
