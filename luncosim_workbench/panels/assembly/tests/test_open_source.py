"""Open source on a program prim, driven like a user: a file opens in the editor; inline
``info:sourceCode`` opens as a document whose save is one scene op (and nothing else)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from luncosim_core.text.document import TextConflict
from luncosim_core.text.inline_source import InlineSourceDocument
from luncosim_core.usd.ops import SetAttribute

ODOMETER = "/PracticeYard/RoverA/Odometer"
CONTROLLER = "/PracticeYard/RoverA/Controller"


def _context_menu_on(qtbot, panel, path):
    index = panel.proxy.mapFromSource(panel.model.index_for_path(path))
    panel.view.scrollTo(index)
    rect = panel.view.visualRect(index)
    panel._context_menu(rect.center())
    return {a.text(): a for a in panel.context_menu.actions()}


def _ops(doc):
    return [e.op for e in doc.journal.entries()[: doc.journal.position]]


def test_open_source_on_inline_modelica_saves_one_scene_op(opened, qtbot):
    panel = opened.panels["assembly"]
    scene = opened.session.documents.scene
    before = _ops(scene)
    actions = _context_menu_on(qtbot, panel, ODOMETER)
    assert actions["Open source"].isEnabled()
    actions["Open source"].trigger()
    panel.context_menu.close()
    editors = opened.panels["editor"]
    editor = editors.current()
    assert isinstance(editor.doc, InlineSourceDocument) and editor.doc.prim_path == ODOMETER
    assert editor.doc.language == "modelica" and editor.doc.text.startswith("model Odometer")
    assert _ops(scene) == before  # opening edits nothing
    # the user changes the wheel radius (0.3 -> 0.5) and saves with Ctrl+S
    line = editor.doc.text.splitlines().index('  parameter Real radius(unit = "m") = 0.3 "Wheel radius";')
    editor.gotoPos(editor.positionFromLine(line) + len('  parameter Real radius(unit = "m") = 0.3'))
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClicks(editor, "5")
    assert editor.doc.dirty and not scene.dirty
    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    new_ops = _ops(scene)[len(before):]
    assert new_ops == [SetAttribute(path=ODOMETER, name="info:sourceCode", value=editor.doc.text, type_name="string")]
    assert '= 0.5 "Wheel radius"' in editor.doc.text and not editor.doc.dirty and scene.dirty
    prim = scene.stage.GetPrimAtPath(ODOMETER)
    assert prim.GetAttribute("info:sourceCode").Get() == editor.doc.text
    assert prim.GetAttribute("info:sourceCode").GetTypeName() == "string"
    # saving again with nothing changed makes no op
    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert len(_ops(scene)) == len(before) + 1
    # an undo in the scene is an external change for the open source: saving over it asks
    opened.undo()
    assert prim.GetAttribute("info:sourceCode").Get().count("= 0.3 ") == 1
    assert editor.doc.external_change()
    try:
        editor.doc.save()
        raised = False
    except TextConflict as exc:
        raised = "changed in the scene" in exc.diagnostics[0].message
    assert raised
    editor.doc.reload(discard=True)
    assert editor.doc.text == prim.GetAttribute("info:sourceCode").Get()
    # opening it again raises the same document, not a second one
    assert panel.open_source(ODOMETER)
    assert editors.current() is editor


def test_open_source_opens_a_program_file_and_is_off_for_other_prims(opened, qtbot):
    panel = opened.panels["assembly"]
    actions = _context_menu_on(qtbot, panel, "/PracticeYard/RoverA/Chassis")
    assert not actions["Open source"].isEnabled()
    panel.context_menu.close()
    opened.session.selection.set(["/PracticeYard/RoverA/Chassis"])
    assert not panel.open_source()  # the toolbar button on a prim without a source says why
    actions = _context_menu_on(qtbot, panel, CONTROLLER)
    assert actions["Open source"].isEnabled()
    actions["Open source"].trigger()
    panel.context_menu.close()
    editor = opened.panels["editor"].current()
    assert not isinstance(editor.doc, InlineSourceDocument)
    assert editor.doc.path.name == "DriveController.mo" and editor.doc.path.is_file()


def test_unsaved_inline_source_is_asked_about_first_and_closes_with_its_scene(opened, twin_copy, qtbot):
    panel = opened.panels["assembly"]
    assert panel.open_source(ODOMETER)
    editor = opened.panels["editor"].current()
    editor.gotoPos(editor.textLength())
    qtbot.keyClicks(editor, "// a note")
    asked = []

    def ask(why):
        asked.append(why)
        return "save" if len(asked) == 1 else "discard"

    opened.ask_unsaved = ask
    assert opened.open_path(twin_copy)  # the same twin again: a new scene document
    # the inline source first (its save edits the scene), then the scene it made dirty
    assert asked[0] == f"opening another scene ({ODOMETER}.info:sourceCode has unsaved edits)"
    assert len(asked) == 2 and asked[1] == "opening another scene"
    assert not any(isinstance(d, InlineSourceDocument) for d in opened.session.documents)
    assert not any(isinstance(e.doc, InlineSourceDocument) for e in opened.panels["editor"].editors.values())
    assert panel.open_source(ODOMETER)  # reads the new scene's prim (the old edit was discarded with its scene)
    again = opened.panels["editor"].current().doc
    assert again.owner is opened.session.documents.scene and "// a note" not in again.text
