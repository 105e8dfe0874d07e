"""The shell: perspectives, layout persistence and its fallback, the command palette, the
unsaved-edits guard, recent twins and screenshots."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QKeySequence

from luncosim_core.usd.ops import SetAttribute
from luncosim_workbench import layout as layouts
from luncosim_workbench.plugins import discover_panels
from luncosim_workbench.testing import MARKER

PANELS = discover_panels()


def test_every_panel_is_docked_and_toggled_from_the_view_menu(window):
    assert set(window.docks) == {s.id for s in PANELS}
    view_menu = next(m for m in window.menuBar().findChildren(type(window.recent_menu)) if m.title() == "Panels")
    titles = {a.text() for a in view_menu.actions()}
    assert titles == {s.title for s in PANELS}
    window.show()
    toggle = window.docks["console"].toggleViewAction()
    before = window.docks["console"].isHidden()
    toggle.trigger()
    assert window.docks["console"].isHidden() != before


def test_perspectives_reshape_the_docks(window):
    window.apply_perspective("Build")
    assert window.visible_panels() == {"twin_browser", "assembly", "layers", "connections", "diagnostics", "console"}
    assert window.dockWidgetArea(window.docks["twin_browser"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    window.action("view.perspective.Simulate").trigger()
    assert window.visible_panels() == {"ports", "plots", "console"}
    assert window.perspective == "Simulate"
    window.apply_perspective("Debug")
    assert window.visible_panels() == {s.id for s in PANELS}
    assert window.dockWidgetArea(window.docks["plots"]) == Qt.DockWidgetArea.BottomDockWidgetArea


def _tab_bars_on_screen(window) -> list[tuple[str, ...]]:
    """The dock tab bars a user sees: shown, inside the window, each as its sorted titles."""
    from PySide6.QtWidgets import QApplication, QTabBar

    QApplication.processEvents()
    return sorted(tuple(sorted(b.tabText(i) for i in range(b.count())))
                  for b in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
                  if b.isVisible() and window.rect().intersects(b.geometry()))


def _tab_groups(window) -> list[tuple[str, ...]]:
    """The tab groups of shown docks (two or more shown docks tabbed together)."""
    groups = set()
    for dock in window.docks.values():
        mates = [d for d in window.tabifiedDockWidgets(dock) if not d.isHidden()]
        if not dock.isHidden() and mates:
            groups.add(tuple(sorted([dock.windowTitle()] + [d.windowTitle() for d in mates])))
    return sorted(groups)


def test_perspective_switches_never_stack_tab_bars(window):
    """Each switch used to leave the previous tab groups' bars on screen (three "Twin Browser |
    Layer Stack" bars over the Plots toolbar after Build, Simulate, Debug, Debug, Simulate)."""
    window.resize(1600, 1000)
    window.show()
    counts: dict[str, int] = {}
    for name in ("Build", "Simulate", "Debug", "Debug", "Simulate", "Build") * 3:
        window.apply_perspective(name)
        bars = _tab_bars_on_screen(window)
        assert bars == _tab_groups(window), name  # one bar per tab group, none left over
        assert len(bars) == counts.setdefault(name, len(bars)), name
    window.apply_perspective("Simulate")
    assert _tab_bars_on_screen(window) == []  # Simulate has no tab groups: no bar anywhere
    assert counts["Build"] == 2 and counts["Debug"] >= 3


def test_a_layout_round_trips_through_the_settings_folder(make_window, tmp_path):
    settings = tmp_path / "roundtrip"
    first = make_window(settings=settings)
    first.apply_perspective("Build")
    first.docks["console"].hide()
    first.docks["ports"].show()
    first.save_layout()
    saved = json.loads((settings / layouts.LAYOUT_FILE).read_text())
    assert saved["version"] == layouts.LAYOUT_VERSION and saved["perspective"] == "Build"
    second = make_window(settings=settings)
    assert second.perspective == "Build"
    assert second.visible_panels() == {"twin_browser", "assembly", "layers", "connections", "diagnostics", "ports"}
    assert second.layout_message == ""


def test_a_corrupt_saved_layout_falls_back_to_the_default(make_window, tmp_path):
    settings = tmp_path / "corrupt"
    settings.mkdir()
    (settings / layouts.LAYOUT_FILE).write_text("{ not json")
    w = make_window(settings=settings)
    assert w.perspective == layouts.DEFAULT_PERSPECTIVE
    assert w.visible_panels() == {"ports", "plots", "console"}
    assert "not a readable layout" in w.layout_message
    # a layout with valid JSON but garbage Qt state also falls back
    (settings / layouts.LAYOUT_FILE).write_text(json.dumps(
        {"version": layouts.LAYOUT_VERSION, "perspective": "Build", "geometry": "", "state": "AAAA"}))
    w2 = make_window(settings=settings)
    assert w2.perspective == layouts.DEFAULT_PERSPECTIVE and "could not restore" in w2.layout_message
    # an older layout version is not trusted
    (settings / layouts.LAYOUT_FILE).write_text(json.dumps({"version": 0, "perspective": "Build", "geometry": "", "state": ""}))
    w3 = make_window(settings=settings)
    assert "layout version 0" in w3.layout_message


def test_settings_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LUNCOSIM_SETTINGS_DIR", str(tmp_path / "x"))
    assert layouts.settings_dir() == tmp_path / "x"


def test_command_palette_lists_every_action_with_its_shortcut(window, qtbot):
    palette = window.show_palette()
    qtbot.addWidget(palette)
    labels = dict((label, sc) for label, sc, _a in palette.entries)
    assert labels["Command Palette…"] == QKeySequence("Ctrl+Shift+P").toString(QKeySequence.SequenceFormat.NativeText)
    assert labels["Save"] == QKeySequence(QKeySequence.StandardKey.Save).toString(QKeySequence.SequenceFormat.NativeText)
    assert labels["Play / Pause"] == "Space" and labels["Fit View"] == "F"
    assert labels["Undo"] == "Ctrl+Z" and labels["Redo"] == "Ctrl+Shift+Z"
    assert labels["Open Scene File…"] == "Ctrl+Shift+O"
    assert "Ports" in labels and "Build Perspective" in labels
    qtbot.keyClicks(palette.search, "build persp")
    assert palette.visible_labels() == ["Build Perspective"]
    qtbot.keyClick(palette.search, Qt.Key.Key_Return)
    assert window.perspective == "Build"


def test_closing_with_unsaved_edits_asks_and_cancel_keeps_everything(opened, twin_copy):
    doc = opened.session.document
    doc.apply(SetAttribute(path=MARKER, name="size", value=3.0))
    asked = []
    opened.ask_unsaved = lambda why: asked.append(why) or "cancel"
    opened.show()
    assert not opened.close()
    assert asked == ["closing"] and opened.isVisible() and doc.dirty
    assert opened.bridge.worker is not None  # still running
    # opening another scene asks too
    assert not opened.open_path(twin_copy)
    assert opened.session.document is doc
    opened.ask_unsaved = lambda why: "save"
    assert opened.close()
    assert "size = 3" in (twin_copy / "scenes" / "practice_yard.usda").read_text()


def test_discard_closes_without_writing(opened, twin_copy):
    scene = twin_copy / "scenes" / "practice_yard.usda"
    before = scene.read_text()
    opened.session.document.apply(SetAttribute(path=MARKER, name="size", value=3.0))
    opened.ask_unsaved = lambda why: "discard"
    assert opened.close()
    assert scene.read_text() == before


def test_save_action_writes_the_scene(opened, twin_copy):
    opened.session.document.apply(SetAttribute(path=MARKER, name="size", value=4.0))
    opened.action("file.save").trigger()
    assert not opened.session.document.dirty
    assert "size = 4" in (twin_copy / "scenes" / "practice_yard.usda").read_text()


def test_recent_twins_are_remembered(opened, twin_copy):
    assert layouts.load_recent(opened.settings)[0] == str(twin_copy.resolve())
    assert [a.text() for a in opened.recent_menu.actions()][0] == str(twin_copy.resolve())


def test_screenshot_saves_the_window(tmp_path, twin_copy):
    from luncosim_workbench.screenshot import take_screenshot

    out = take_screenshot(twin_copy, tmp_path / "shot.png", ticks=3, perspective="Build", width=1000, height=700,
                          settings=tmp_path / "shot-settings")
    image = QImage(str(out))
    assert image.width() == 1000 and image.height() == 700

