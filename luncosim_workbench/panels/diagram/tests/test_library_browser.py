"""The library browser: our Workbench package, the bundled MSL subset, the twin's models and
LunCoSim's library; search; drag into the diagram or double-click -> one AddComponent named
uniquely (R1, R2...) at the drop point, snapped to the grid."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from luncosim_core.modelica.syntax.ops import AddComponent

from .gestures import changed_lines


def _drop(panel, full_name: str, pos: QPoint) -> None:
    """Drag the browser's item for ``full_name`` onto the view at ``pos``: the tree's own mime
    data, delivered as the enter, move and drop events a hand makes."""
    item = panel.browser.items[full_name]
    data = panel.browser.tree.mimeData([item])
    target = panel.view.viewport()
    copy, left = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    none = Qt.KeyboardModifier.NoModifier
    for ev in (QDragEnterEvent(pos, copy, data, left, none), QDragMoveEvent(pos, copy, data, left, none),
               QDropEvent(QPointF(pos), copy, data, left, none)):
        QApplication.sendEvent(target, ev)


def test_the_browser_lists_our_library_and_the_msl_subset_and_searches(panel):
    catalog = panel.ensure_catalog()
    sections = [panel.browser.tree.topLevelItem(i).text(0) for i in range(panel.browser.tree.topLevelItemCount())]
    assert sections[:2] == ["Workbench", "Modelica (bundled subset)"]
    assert catalog.find("Workbench.Interfaces.OnePort").placeable is False  # partial: not offered
    panel.browser.search.setText("resistor")
    shown = panel.browser.visible_classes()
    assert "Workbench.Electrical.Resistor" in shown and "Modelica.Electrical.Analog.Basic.Resistor" in shown
    assert "Workbench.Electrical.Capacitor" not in shown
    panel.browser.search.setText("")
    assert "Workbench.Electrical.Capacitor" in panel.browser.visible_classes()


def test_lunco_library_joins_the_browser_when_the_lunco_root_holds_it(panel, external_assets, monkeypatch):
    monkeypatch.setenv("LUNCOSIM_LUNCO_ROOT", str(external_assets))
    panel._forget_catalog()
    catalog = panel.ensure_catalog()
    assert catalog.find("LunCo.Electrical.Battery").source == "LunCoSim"
    panel.browser.search.setText("battery")
    assert "LunCo.Electrical.Battery" in panel.browser.visible_classes()


def test_dropping_and_double_clicking_classes_adds_uniquely_named_components(panel, qtbot, rc_file):
    assert panel.open_file(rc_file)
    original = panel.doc.text
    at = panel.view.mapToScene(panel.view.mapFromScene(QPointF(61.6, -39.6)))  # the pixel nearest (61.6, 39.6)
    pos = panel.view.mapFromScene(at)
    snapped = (round(at.x() / 2) * 2, round(-at.y() / 2) * 2)
    _drop(panel, "Workbench.Electrical.Resistor", pos)
    _drop(panel, "Workbench.Electrical.Resistor", pos + QPoint(80, 0))
    ops = [tx.ops for tx in panel.edits.done]
    assert len(ops) == 2 and all(isinstance(o[0], AddComponent) for o in ops)
    first, second = ops[0][0], ops[1][0]
    assert (first.type, first.name, first.extent) == ("Workbench.Electrical.Resistor", "R1", ((-10, -10), (10, 10)))
    assert first.origin == snapped and snapped in ((60, 38), (60, 40), (62, 38), (62, 40))  # the 2-unit grid
    assert second.name == "R2" and second.origin[0] > first.origin[0]
    assert changed_lines(original, panel.doc.text) == [
        f"  Workbench.Electrical.Resistor {op.name} annotation(Placement(transformation(origin = "
        f"{{{op.origin[0]:g}, {op.origin[1]:g}}}, extent = {{{{-10, -10}}, {{10, 10}}}})));" for op in (first, second)]
    assert panel.selected() == ["R2"] and "R2" in panel.nodes
    # double-click in the browser: placed in the middle of the view
    item = panel.browser.items["Modelica.Electrical.Analog.Basic.Capacitor"]
    panel.browser.tree.scrollToItem(item)
    rect = panel.browser.tree.visualItemRect(item)
    qtbot.mouseClick(panel.browser.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(panel.browser.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    [op] = panel.edits.done[-1].ops
    assert op.name == "C1" and op.type == "Modelica.Electrical.Analog.Basic.Capacitor"
    assert "C1" in panel.nodes and len(panel.doc.entries()) == 3
    qtbot.keyClick(panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "C1" not in panel.nodes
