"""One declarative registry makes the menus, toolbars, shortcuts and the palette; every shortcut
the workbench had is still there; enablement, check state and titles follow the context."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence

from luncosim_core.usd.ops import SetAttribute
from luncosim_workbench.actions.registry import (
    ActionRegistry,
    ActionSpec,
    MenuPlace,
    MenuSpec,
    RegistryError,
    evaluate,
    render_title,
)
from luncosim_workbench.testing import MARKER

NATIVE = QKeySequence.SequenceFormat.NativeText

#: every shortcut of the workbench, by action id (docs/workbench.md "Shortcuts"); std: = the platform's
SHORTCUTS = {
    "file.open_twin": "std:Open", "file.open_scene": "Ctrl+Shift+O", "file.save": "std:Save",
    "file.reload": "Ctrl+R", "file.quit": "std:Quit",
    "edit.undo": "Ctrl+Z", "edit.redo": "Ctrl+Shift+Z", "edit.palette": "Ctrl+Shift+P",
    "sim.play_pause": "Space", "sim.step": "Ctrl+.", "sim.reset": "Ctrl+Shift+R",
    "sim.speed.1x": "Ctrl+1", "sim.speed.2x": "Ctrl+2", "sim.speed.4x": "Ctrl+3", "sim.speed.max": "Ctrl+4",
    "view.fit": "F", "view.fit_all": "Home", "assembly.rename_prim": "F2", "twin_browser.refresh": "F5",
}


def _noop(_target) -> None:
    return None


def test_expressions_and_titles():
    ctx = {"document": True, "perspective": "Build", "undo_label": "Set size", "empty": ""}
    assert evaluate(None, ctx) and evaluate("document", ctx) and not evaluate("!document", ctx)
    assert evaluate("perspective == Build", ctx) and not evaluate("perspective != Build", ctx)
    assert evaluate("document && perspective == Build", ctx) and not evaluate("document && empty", ctx)
    assert not evaluate("unknown_key", ctx)
    with pytest.raises(ValueError, match="malformed"):
        evaluate("a b c", ctx)
    assert render_title("&Undo {undo_label}", ctx) == "&Undo Set size"
    assert render_title("&Undo {empty}", ctx) == "&Undo" and render_title("&Redo {nope}", ctx) == "&Redo"


def test_the_registry_refuses_clashes_and_unknown_menus():
    reg = ActionRegistry()
    reg.add_menus([MenuSpec("file", "&File"), MenuSpec("file/recent", "Recent", place=MenuPlace("file", "1_open", 5))])
    reg.register([ActionSpec("a.one", "One", _noop, "Ctrl+1", (MenuPlace("file", "2_b", 2),)),
                  ActionSpec("a.two", "Two", _noop, None, (MenuPlace("file", "1_a", 9),)),
                  ActionSpec("a.three", "Three", _noop, None, (MenuPlace("file", "2_b", 1),))], owner="a")
    with pytest.raises(RegistryError, match="already registered by a"):
        reg.register([ActionSpec("a.one", "Again", _noop)], owner="b")
    with pytest.raises(RegistryError, match="wants Ctrl\\+1, already bound to 'a.one'"):
        reg.register([ActionSpec("b.x", "X", _noop, "Ctrl+1")], owner="b")
    with pytest.raises(RegistryError, match="unknown menu 'help'"):
        reg.register([ActionSpec("b.y", "Y", _noop, None, (MenuPlace("help"),))], owner="b")
    groups = [[i.id for i in g] for g in reg.menu_items("file")]
    assert groups == [["a.two"], ["file/recent"], ["a.three", "a.one"]]  # groups by name, then order


def test_every_shortcut_is_kept_and_unique(window):
    def native(key: str) -> str:  # a QApplication exists now (the window fixture made it)
        if key.startswith("std:"):
            return QKeySequence(getattr(QKeySequence.StandardKey, key[4:])).toString(NATIVE)
        return key

    got = {aid: window.action(aid).shortcut().toString(NATIVE) for aid in SHORTCUTS}
    assert got == {aid: native(k) for aid, k in SHORTCUTS.items()}
    keys = [a.shortcut().toString(NATIVE) for a in window.qt_actions if not a.shortcut().isEmpty()]
    assert len(keys) == len(set(keys))


def test_menus_come_from_the_registry(window):
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&Create", "&View", "&Simulation"]
    sim = [a.text() for a in window.qt_actions.menus["simulation"].actions()]
    assert sim == ["Play / Pause", "Play", "Pause", "Step", "Reset", "", "Speed 1x", "Speed 2x", "Speed 4x", "Speed max", "",
                   "Restart Simulation"]
    assert [a.text() for a in window.qt_actions.menus["view/overlays"].actions()] == [
        "Joints", "Colliders", "Contacts", "Com", "Escaped", "Labels", "Mission"]
    assert [a.text() for a in window.transport.actions()][:4] == ["Play", "Pause", "Step", "Reset"]
    # a panel's actions join the shell's menus (Plots contributes the CSV export to File)
    assert "Export Telemetry CSV…" in [a.text() for a in window.qt_actions.menus["file"].actions()]


def test_state_follows_the_context(opened, qtbot):
    undo = opened.action("edit.undo")
    assert not undo.isEnabled() and undo.text() == "&Undo"
    assert opened.action("file.save").isEnabled()
    opened.session.document.apply(SetAttribute(path=MARKER, name="size", value=2.0))
    assert undo.isEnabled() and undo.text().startswith("&Undo ") and len(undo.text()) > len("&Undo ")
    undo.trigger()
    assert not undo.isEnabled() and opened.action("edit.redo").isEnabled()
    assert opened.action("view.perspective.Simulate").isChecked()
    opened.action("view.perspective.Build").trigger()
    assert opened.perspective == "Build" and not opened.action("view.perspective.Simulate").isChecked()
    assert not opened.action("view.fit").isEnabled()  # no viewport in these tests: nothing to fit
    opened.action("sim.speed.max").trigger()
    assert opened.transport.speed.currentText() == "max" and opened.action("sim.speed.max").isChecked()
