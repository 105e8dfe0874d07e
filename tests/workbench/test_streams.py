"""What the workbench shows from the simulation arrives as snapshots, events or typed query
answers (no code is sent to the simulation's thread); themes restyle and persist."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from luncosim_core.physics.debug import DebugInfo
from luncosim_workbench import resources
from luncosim_workbench.layout import load_preferences


def test_the_debug_stream_is_a_typed_query_answered_while_it_is_on(opened, qtbot):
    bridge = opened.bridge
    qtbot.waitUntil(lambda: bridge.latest is not None, timeout=30000)
    got = []
    bridge.debugInfo.connect(got.append)
    bridge.set_debug_stream(True)
    qtbot.waitUntil(lambda: any(isinstance(i, DebugInfo) for i in got), timeout=10000)
    info = next(i for i in got if isinstance(i, DebugInfo))
    assert any(j.joint_path.endswith("Axle_FL") for j in info.joints) and info.colliders
    bridge.set_debug_stream(False)
    assert got[-1] is None  # off: the overlays are told there is nothing to draw
    count = len(got)
    qtbot.wait(300)
    assert len(got) == count  # and nothing more is asked


def test_every_ticks_diagnostics_reach_the_event_stream_once(opened, qtbot):
    from luncosim_workbench.events import DiagnosticEvent

    seen = []
    opened.ctx.events.connect(lambda events: seen.extend(e for e in events if isinstance(e, DiagnosticEvent)))
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=30000)
    opened.set_speed("max")
    opened.step(120)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick >= 120, timeout=30000)
    opened.bridge.flush()
    keys = [(e.diagnostic.code, e.diagnostic.path, e.diagnostic.message, e.time) for e in seen]
    assert len(keys) == len(set(keys))
    assert opened.bridge.dropped_events == 0


def test_the_dark_theme_restyles_the_window_and_is_remembered(make_window, tmp_path):
    settings = tmp_path / "theme-settings"
    first = make_window(settings=settings)
    light_window = QApplication.palette().color(QPalette.ColorRole.Window).name()
    first.action("view.theme.dark").trigger()
    assert first.theme == "dark" and first.action("view.theme.dark").isChecked()
    dark = resources.load_theme("dark")
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == dark.palette["Window"]
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() != light_window
    assert load_preferences(settings)["theme"] == "dark"
    second = make_window(settings=settings)
    assert second.theme == "dark" and second.action("view.theme.dark").isChecked()
    second.set_theme("light")  # leave the application light for the other tests
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == resources.load_theme("light").palette["Window"]


def test_resources_name_every_icon_the_workbench_asks_for(window):
    from luncosim_workbench.plugins import discover_panels

    names = resources.icon_names()
    wanted = {s.icon for s in discover_panels()} | {a.icon for a in window.registry if a.icon}
    assert wanted <= set(names), wanted - set(names)
    for name in sorted(names):
        assert not resources.icon(name).isNull(), name
    assert not resources.app_icon().pixmap(64, 64).isNull()
    assert not resources.icon("mdi6.graph-outline").isNull()  # a panel may name a qtawesome icon directly
    with pytest.raises(KeyError, match="no icon named 'no-such-icon'"):
        resources.icon("no-such-icon")
    tree = window.panels["assembly"]
    assert tree.tool_buttons and all(not b.icon().isNull() for b in tree.tool_buttons)


def test_a_source_location_opens_read_only_at_its_line(window, tmp_path):
    script = tmp_path / "drill.py"  # .mo and .rhai open in the Source Editor (panels/editor tests)
    script.write_text("# drill\ndef on_start(me):\n    print('go')\n\ndef on_tick(me):\n    pass\n")
    view = window.open_location(str(script), 3)
    assert view is not None and view.isVisible()
    assert view.text() == script.read_text() and view.current_line() == 3
    assert view.editor.readOnly() and bytes(view.editor.lexerLanguage()) == b"python"
    view.close()
    from luncosim_workbench.widgets.source_view import can_show

    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    assert not can_show(tmp_path / "image.png")  # not a source: the system's application opens it
    assert not can_show(tmp_path / "missing.rhai")


def test_panels_get_a_frame_one_event_loop_turn_each_and_flush_delivers_at_once(opened, qtbot):
    """A frame's panels run in turns: what the first one posts (its repaint, a timer) is served
    before the next runs, so no single turn paints every panel. ``flush`` stays synchronous."""
    from PySide6.QtCore import QTimer

    bridge = opened.bridge
    qtbot.waitUntil(lambda: bridge.latest is not None, timeout=15000)
    turns: list[str] = []
    first = {"served": False}

    def a(_snap) -> None:
        turns.append("a")
        first["served"] = False
        QTimer.singleShot(0, lambda: first.__setitem__("served", True))

    def b(_snap) -> None:
        turns.append("b" if first["served"] else "b-same-turn")

    bridge.add_frame_consumer(a)
    bridge.add_frame_consumer(b)
    bridge.step(1)
    qtbot.waitUntil(lambda: "b" in turns, timeout=30000)
    assert "b-same-turn" not in turns
    qtbot.waitUntil(lambda: bridge._staged is None, timeout=30000)
    bridge.timer.stop()  # no paced frame now: only flush delivers
    try:
        n, tick = len(turns), bridge.latest.tick
        bridge.step(1)
        qtbot.waitUntil(lambda: bridge.latest.tick > tick, timeout=30000)
        bridge.flush()
        assert turns[n:] == ["a", "b-same-turn"]
    finally:
        bridge.timer.start()


def test_a_frame_delivery_in_progress_reaches_no_panel_after_shutdown(opened, qtbot):
    """Closing the window mid-delivery: the panels still waiting their turn are closing (their
    items deleted), so the rest of that frame goes to nobody."""
    bridge = opened.bridge
    qtbot.waitUntil(lambda: bridge.latest is not None, timeout=15000)
    qtbot.waitUntil(lambda: bridge._staged is None, timeout=30000)
    got: list[str] = []
    bridge.add_frame_consumer(lambda _snap: (got.append("a"), opened.close()))
    bridge.add_frame_consumer(lambda _snap: got.append("b"))
    bridge.step(1)
    qtbot.waitUntil(lambda: "a" in got, timeout=30000)
    qtbot.wait(100)
    assert got == ["a"] and bridge._staged is None
