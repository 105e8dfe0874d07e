"""Ctrl+Enter in the editor: save, and the running simulation recompiles the Modelica program."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from luncosim_workbench.testing import wait_for

MODEL = "model Lag\n  input Real u;\n  output Real y(start = 0, fixed = true);\nequation\n  der(y) = u - y;\nend Lag;\n"
SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "W"
{
    def Scope "Setpoint" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @twin://models/Lag.mo@
        float inputs:u = 1.0
        float outputs:y
    }
}
"""


def _y(window):
    snap = window.bridge.latest
    if snap is None or "/W/Setpoint.y" not in snap.port_keys:
        return float("nan")
    return float(snap.port_values[snap.port_keys.index("/W/Setpoint.y")])


def test_ctrl_enter_hot_reloads_a_modelica_change_into_the_running_simulation(window, tmp_path, qtbot):
    twin = tmp_path / "lagtwin"
    (twin / "models").mkdir(parents=True)
    (twin / "scenes").mkdir()
    (twin / "twin.toml").write_text('name = "lag"\nversion = "0.1.0"\n\n[usd]\ndefault_scene = "scenes/lag.usda"\n')
    (twin / "scenes" / "lag.usda").write_text(SCENE)
    (twin / "models" / "Lag.mo").write_text(MODEL)
    window.show()
    assert window.open_path(twin)
    window.set_speed("4x")
    window.play()
    wait_for(qtbot, lambda: _y(window) > 0.9, timeout=60000)  # y settles on u = 1
    panel = window.panels["editor"]
    editor = window.open_location(str(twin / "models" / "Lag.mo"), 5)
    editor.gotoPos(editor.positionFromLine(4) + len("  der(y) = "))
    qtbot.keyClicks(editor, "2 * ")
    assert "der(y) = 2 * u - y;" in editor.doc.text
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert (twin / "models" / "Lag.mo").read_text() == editor.doc.text  # saved first
    assert "recompiling" in panel.status.text()
    wait_for(qtbot, lambda: "reloaded into the running simulation" in panel.status.text(), timeout=60000)
    wait_for(qtbot, lambda: _y(window) > 1.3, timeout=60000)  # now heading for 2 * u
    assert np.isfinite(_y(window))
    # the journal holds what the user typed, a word (and its blank) an entry
    typed = [(e.author, "".join(s.text for g in e.edit.groups for s in g)) for e in editor.doc.entries()]
    assert typed == [("user", "2 "), ("user", "* ")]
    window.pause()


def test_ctrl_enter_with_a_broken_scenario_keeps_the_running_version(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    opened.play()
    wait_for(qtbot, lambda: opened.bridge.latest is not None and opened.bridge.latest.tick > 5)
    editor = opened.open_location(str(twin_copy / "scenarios" / "yard_drill.rhai"), 9)
    editor.gotoPos(editor.lineEndPosition(8))
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "let x = ;")
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert "reloads at the simulation's next source check" in panel.status.text()
    wait_for(qtbot, lambda: "did not compile" in panel.status.text(), timeout=30000)
    tick = opened.bridge.latest.tick
    wait_for(qtbot, lambda: opened.bridge.latest.tick > tick + 10)  # still running
    assert opened.bridge.latest.status != "faulted"
    opened.pause()


def _lag_twin(tmp_path):
    twin = tmp_path / "lagtwin"
    (twin / "models").mkdir(parents=True)
    (twin / "scenes").mkdir()
    (twin / "twin.toml").write_text('name = "lag"\nversion = "0.1.0"\n\n[usd]\ndefault_scene = "scenes/lag.usda"\n')
    (twin / "scenes" / "lag.usda").write_text(SCENE)
    (twin / "models" / "Lag.mo").write_text(MODEL)
    return twin


def test_a_save_and_run_compile_error_shows_inline_and_in_diagnostics(window, tmp_path, qtbot):
    twin = _lag_twin(tmp_path)
    window.show()
    assert window.open_path(twin)
    window.play()
    wait_for(qtbot, lambda: _y(window) > 0.05, timeout=60000)
    panel = window.panels["editor"]
    editor = window.open_location(str(twin / "models" / "Lag.mo"), 5)
    wait_for(qtbot, lambda: editor.doc.path in panel.results)
    editor.gotoPos(editor.positionFromLine(4) + len("  der(y) = "))
    qtbot.keyClicks(editor, "delay(u, 0.1) * 0 + ")
    # the live check (the front end) accepts it; the stepper does not support delay()
    wait_for(qtbot, lambda: panel.results[editor.doc.path][0] == editor.doc.revision)
    assert editor.squiggles() == []
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    wait_for(qtbot, lambda: "did not compile" in panel.status.text(), timeout=60000)
    wait_for(qtbot, lambda: editor.squiggles() != [])
    assert editor.squiggles() == [("error", 5, 12)]
    (d,) = editor.diagnostics
    assert d.code == "modelica.unsupported.events" and d.message.startswith("Save & Run: ")
    table = window.panels["diagnostics"]
    rows = [(o, r.code, r.line) for o, r in table.model.rows if o == "editor"]
    assert ("editor", "modelica.unsupported.events", 5) in rows
    # the running version continues; taking the edit back and Save & Run again clears the error
    assert window.bridge.latest.status != "faulted"
    while editor.doc.can_undo:
        qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert editor.squiggles() == []
    window.pause()


def test_revert_discards_unsaved_edits_after_asking(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    path = twin_copy / "scenarios" / "yard_drill.rhai"
    editor = opened.open_location(str(path), 1)
    editor.gotoPos(0)
    qtbot.keyClicks(editor, "let oops = ;")
    wait_for(qtbot, lambda: editor.squiggles() != [])
    asked = []
    panel.ask_revert = lambda name: asked.append(name) or "cancel"
    opened.action("editor.revert").trigger()
    assert asked == ["yard_drill.rhai"] and editor.doc.text.startswith("let oops = ;")  # cancelled: kept
    panel.ask_revert = lambda name: asked.append(name) or "revert"
    opened.action("editor.revert").trigger()
    assert editor.doc.text == path.read_text() and not editor.doc.dirty
    assert bytes(editor.getText(editor.textLength() + 1)).rstrip(b"\0").decode() == path.read_text()
    assert editor.doc.entries() == () and not panel.tabs.tabText(panel.tabs.indexOf(editor)).endswith("*")
    wait_for(qtbot, lambda: editor.squiggles() == [])  # the reloaded text is checked again
    asked.clear()
    assert panel.revert() and asked == []  # a clean file reverts without asking


def test_the_model_is_checked_against_the_program_prim_that_uses_it(window, tmp_path, qtbot):
    twin = _lag_twin(tmp_path)
    window.show()
    assert window.open_path(twin)
    panel = window.panels["editor"]
    editor = window.open_location(str(twin / "models" / "Lag.mo"), 3)
    wait_for(qtbot, lambda: editor.doc.path in panel.results)
    assert editor.squiggles() == []  # /W/Setpoint declares inputs:u and outputs:y: both are there
    editor.gotoPos(editor.positionFromLine(2) + len("  output Real y"))
    qtbot.keyClicks(editor, "y")  # rename the output: the prim's outputs:y is no longer the model's
    wait_for(qtbot, lambda: any(d.code == "modelica.interface.missing" for d in editor.diagnostics))
    (d,) = [d for d in editor.diagnostics if d.code == "modelica.interface.missing"]
    assert d.is_error and d.message.startswith("/W/Setpoint: prim declares output 'y' but Lag has no output 'y'")
    assert ("error", 1, 7) in editor.squiggles()  # at the model's name
    table = window.panels["diagnostics"]
    assert any(r.code == "modelica.interface.missing" for o, r in table.model.rows if o == "editor")
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    wait_for(qtbot, lambda: panel.results[editor.doc.path][0] == editor.doc.revision
             and not any(d.code.startswith("modelica.interface") for d in editor.diagnostics))
