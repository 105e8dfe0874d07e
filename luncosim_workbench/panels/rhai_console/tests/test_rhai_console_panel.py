"""The Rhai console driven like a user: reads, writes only when allowed, history, completion, errors."""

from __future__ import annotations

from PySide6.QtCore import Qt

from luncosim_core.api.commands import CausalTrace, ReadPorts
from luncosim_workbench.panels.rhai_console.widget import WORD_ROLE
from luncosim_workbench.testing import wait_for, wait_future

ROVER = "/PracticeYard/RoverA"


def _console(window):
    window.docks["rhai_console"].show()
    panel = window.panels["rhai_console"]
    panel.input.setFocus()
    return panel


def _run(qtbot, panel, code):
    before = len(panel.transcript_lines())
    qtbot.keyClicks(panel.input, code)
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    wait_for(qtbot, lambda: not panel.pending and len(panel.transcript_lines()) > before + 0)
    return panel.transcript_lines()[before:]


def _steer(window, qtbot):  # the drill scenario drives RoverA's throttle, not its steering
    res = wait_future(qtbot, window.ctx.query(ReadPorts(ROVER, ("steer",))))
    return res.value["steer"]["value"]


def test_reads_by_default_and_writes_only_when_the_user_allows_them(opened, qtbot):
    panel = _console(opened)
    out = _run(qtbot, panel, 'let r = find("RoverA"); print(path(r)); r')
    assert out[0] == '[1] » let r = find("RoverA"); print(path(r)); r'
    assert out[1] == ROVER and out[2].startswith("[1] = ") and out[2].endswith(": i64")
    assert _run(qtbot, panel, 'get(r, "throttle")')[1:] == ["[2] = 0.0   : f64"]  # the session keeps r
    before = _steer(opened, qtbot)
    out = _run(qtbot, panel, 'set(r, "steer", 0.3)')
    assert out[1].startswith("[3] refused: SetPorts refused: writes are off in the Rhai console")
    assert out[2] == "[3] = false   : bool"
    assert _steer(opened, qtbot) == before  # nothing changed
    qtbot.mouseClick(panel.writes, Qt.MouseButton.LeftButton)
    assert panel.writes.isChecked()
    opened.play()  # a command is admitted at the next tick
    out = _run(qtbot, panel, 'set(r, "steer", 0.3)')
    assert out[0].endswith("(writes)") and out[1] == "[4] = true   : bool"
    assert "ran at tick" in panel.hint.text()
    assert _steer(opened, qtbot) == 0.3
    # traced to the console (the running drill scenario writes RoverA's throttle meanwhile, so
    # the newest write to RoverA may be the scenario's: ask for the console's)
    trace = wait_future(qtbot, opened.ctx.query(CausalTrace(ROVER, f"console:{panel.session}"))).value
    assert trace["correlation_id"] == f"console:{panel.session}"
    assert trace["ports"]["steer"]["commanded"] == 0.3 and not trace["rejected"]
    opened.pause()


def test_history_walks_with_up_and_down_and_keeps_the_draft(opened, qtbot):
    panel = _console(opened)
    _run(qtbot, panel, "1 + 1")
    _run(qtbot, panel, "2 * 3")
    qtbot.keyClicks(panel.input, "draft")
    qtbot.keyClick(panel.input, Qt.Key.Key_Up)
    assert panel.input.text() == "2 * 3"
    qtbot.keyClick(panel.input, Qt.Key.Key_Up)
    assert panel.input.text() == "1 + 1"
    qtbot.keyClick(panel.input, Qt.Key.Key_Up)
    assert panel.input.text() == "1 + 1"  # the oldest stays
    qtbot.keyClick(panel.input, Qt.Key.Key_Down)
    qtbot.keyClick(panel.input, Qt.Key.Key_Down)
    assert panel.input.text() == "draft"
    qtbot.keyClick(panel.input, Qt.Key.Key_Up)
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    wait_for(qtbot, lambda: panel.transcript_lines()[-1] == "[3] = 6   : i64")


def test_completion_offers_host_api_names_with_signatures_session_names_and_scene_paths(opened, qtbot):
    panel = _console(opened)
    _run(qtbot, panel, "fn half(x) { x / 2.0 }")
    qtbot.keyClicks(panel.input, "wor")
    qtbot.keyClick(panel.input, Qt.Key.Key_Tab)
    popup = panel.completer.popup()
    assert popup.isVisible()
    labels = [popup.model().index(r, 0).data() for r in range(popup.model().rowCount())]
    assert "world_pos(ident)   host" in labels and all(lab.startswith("wor") for lab in labels)
    qtbot.keyClicks(panel.input, "ld_p")  # typing on narrows the open list
    assert [popup.model().index(r, 0).data(WORD_ROLE) for r in range(popup.model().rowCount())] \
        == ["world_pos"]
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert panel.input.text() == "world_pos" and "world_pos(ident)" in panel.hint.text()
    panel.input.clear()
    qtbot.keyClicks(panel.input, "ha")
    qtbot.keyClick(panel.input, Qt.Key.Key_Tab)  # one match: inserted at once
    assert panel.input.text() == "half" and panel.hint.text() == "half(x)   session"
    panel.input.clear()
    qtbot.keyClicks(panel.input, 'find("/PracticeYard/RoverA/Con')
    qtbot.keyClick(panel.input, Qt.Key.Key_Tab)
    assert panel.input.text() == 'find("/PracticeYard/RoverA/Controller'
    panel.input.clear()
    qtbot.keyClicks(panel.input, 'get(find("RoverA"), "thr')
    assert "throttle" in panel.complete()


def test_errors_are_shown_with_their_position(opened, qtbot):
    panel = _console(opened)
    assert _run(qtbot, panel, "let x = ;")[1] == "[1] parse error (line 1, column 9): Unexpected ';'"
    assert _run(qtbot, panel, "nope(1)")[1] == "[2] runtime error (line 1, column 1): Function not found: nope (i64)"
    assert _run(qtbot, panel, 'throw "boom"')[1] == "[3] runtime error (line 1, column 1): Runtime error: boom"
    assert _run(qtbot, panel, "40 + 2")[1] == "[4] = 42   : i64"  # the session goes on
