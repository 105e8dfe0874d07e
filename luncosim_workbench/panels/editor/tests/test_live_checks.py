"""Live checks driven like a user: Modelica's fast syntax pass while typing and the compiler's
front end on a pause; the scenario contract of simulation_dependencies."""

from __future__ import annotations

from PySide6.QtCore import Qt

from luncosim_workbench.testing import wait_for

MODEL = "model Lag\n  input Real u;\n  output Real y(start = 0, fixed = true);\nequation\n  der(y) = u - y;\nend Lag;\n"


def test_modelica_syntax_while_typing_and_the_front_end_on_a_pause(opened, twin_copy, qtbot):
    panel = opened.panels["editor"]
    path = twin_copy / "models" / "Lag.mo"
    path.parent.mkdir(exist_ok=True)
    path.write_text(MODEL)
    editor = opened.open_location(str(path), 5)
    wait_for(qtbot, lambda: panel.phases.get(editor.doc.path) == "full")
    editor.gotoPos(editor.positionFromLine(4) + len("  der(y) = u - y"))
    qtbot.keyClicks(editor, " +")  # "der(y) = u - y +;": our parser sees it at once
    wait_for(qtbot, lambda: editor.squiggles() == [("error", 5, 19)])
    # our syntax pass found it (on a loaded machine the pause's full pass may already be in too:
    # either way the finding is our one positioned error)
    assert editor.diagnostics[0].message == "unexpected `;`"
    wait_for(qtbot, lambda: panel.phases[editor.doc.path] == "full", timeout=30000)
    assert editor.squiggles() == [("error", 5, 19)]  # the pause keeps our one finding, not a cascade
    qtbot.keyClicks(editor, " zz")  # an unknown name: only the compiler's front end knows
    wait_for(qtbot, lambda: panel.results[editor.doc.path][0] == editor.doc.revision)
    assert editor.squiggles() == [] or panel.phases[editor.doc.path] == "full"
    wait_for(qtbot, lambda: panel.phases.get(editor.doc.path) == "full"
             and panel.results[editor.doc.path][0] == editor.doc.revision, timeout=30000)
    assert [d.code for d in editor.diagnostics] == ["modelica.unresolved"] and "zz" in editor.diagnostics[0].message
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)  # typing again: the finding stays until the next pause
    wait_for(qtbot, lambda: panel.results[editor.doc.path][0] == editor.doc.revision)
    assert [d.code for d in editor.diagnostics] == ["modelica.unresolved"]  # kept (fast) or found again (full)
    for _ in range(4):
        qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    wait_for(qtbot, lambda: panel.phases.get(editor.doc.path) == "full"
             and panel.results[editor.doc.path][0] == editor.doc.revision and editor.squiggles() == [],
             timeout=30000)
    assert editor.doc.text == MODEL


def test_the_simulation_dependencies_shape_is_squiggled(opened, twin_copy, qtbot):
    editor = opened.open_location(str(twin_copy / "scenarios" / "yard_drill.rhai"), 1)
    editor.gotoPos(editor.lineEndPosition(6))
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, 'fn simulation_dependencies(me, ctx) { #{ entity_reads: [], query_reads: ["Nope"] } }')
    wait_for(qtbot, lambda: any(d.code == "rhai.plan-shape" for d in editor.diagnostics))
    found = sorted((d.line, d.column, d.message) for d in editor.diagnostics if d.code == "rhai.plan-shape")
    assert [(ln, col) for ln, col, _m in found] == [(8, 39), (8, 74)]
    assert "missing modelica_entities, entity_writes, required_inputs" in found[0][2]
    assert "unknown query 'Nope'" in found[1][2]
