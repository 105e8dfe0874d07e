"""The Layer stack on the demo twin: its layers strongest first with their files, the referenced
rover asset among the composed layers, the edit target switched for every panel by a
double-click, and the layers holding opinions about the selected prim."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from luncosim_core.usd.ops import SetAttribute

ROVER_B = "/PracticeYard/RoverB"


def _panel(window):
    dock = window.docks["layers"]
    dock.show()
    dock.raise_()
    return window.panels["layers"]


def test_the_stack_lists_layers_strongest_first_with_their_files(opened):
    panel = _panel(opened)
    rows = panel.rows
    assert [r.role for r in rows[:3]] == ["view", "runtime", "base"]
    assert rows[2].file == str(opened.session.document.path)
    assert any(r.role == "used" and r.file.endswith("yard_rover.usda") for r in rows)


def test_choosing_runtime_switches_the_edit_target_for_every_panel(opened, qtbot):
    panel = _panel(opened)
    doc = opened.session.document
    qtbot.waitUntil(lambda: panel.tree.isVisible() and not panel.tree.visualItemRect(panel.tree.topLevelItem(1)).isEmpty(),
                    timeout=3000)
    rect = panel.tree.visualItemRect(panel.tree.topLevelItem(1))
    panel.tree.setFocus()
    panel.tree.setCurrentItem(panel.tree.itemAt(rect.center()))  # the runtime row, as a click or arrow keys
    QTest.keyClick(panel.tree, Qt.Key.Key_Return)
    assert doc.edit_target == "runtime"
    assert opened.panels["assembly"].inspector.edit_target == "runtime"
    assert panel.tree.topLevelItem(1).text(1) == "✎"
    opened.panels["assembly"].ctx.apply(SetAttribute(path=ROVER_B, name="xformOp:translate", value=(0.0, 0.0, 6.0),
                                                     target=doc.edit_target))
    assert doc.runtime.GetAttributeAtPath(f"{ROVER_B}.xformOp:translate") is not None
    assert not doc.dirty or doc.base.GetAttributeAtPath(f"{ROVER_B}.xformOp:translate").default[2] == 5


def test_the_selection_shows_which_layers_hold_its_opinions(opened, qtbot):
    panel = _panel(opened)
    opened.session.selection.set([ROVER_B])
    qtbot.waitUntil(lambda: any(r.opinions for r in panel.rows), timeout=2000)
    by_role = {r.role: r for r in panel.rows if r.role in ("base", "runtime", "view")}
    assert by_role["base"].opinions == 1 and by_role["base"].strongest
    rover = next(r for r in panel.rows if r.file.endswith("yard_rover.usda"))
    assert rover.opinions == 1 and not rover.strongest
    shots = os.environ.get("LUNCOSIM_SHOTS")
    if shots:
        panel.resize(900, 300)
        panel.grab().save(str(Path(shots) / "layer-stack.png"))
