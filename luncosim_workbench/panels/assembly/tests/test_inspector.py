"""Editing in the property inspector: typed ops through the journal, undo, edit targets, errors."""

from __future__ import annotations

from pxr import Sdf
from PySide6.QtWidgets import QComboBox, QLineEdit

from luncosim_core.twin import open_path
from luncosim_core.usd.document import UsdDocument

MARKER = "/PracticeYard/Marker"


def _select(window, path):
    window.session.selection.set([path])
    return window.panels["assembly"].inspector


def test_edit_an_attribute_then_undo_restores_it(opened, qtbot):
    doc = opened.session.document
    original = doc.export_layers()
    inspector = _select(opened, MARKER)
    assert inspector.title.text().startswith(MARKER)
    editor = inspector.editors["size"]
    assert isinstance(editor, QLineEdit) and editor.text() == "0.5"
    editor.setText("2.25")
    editor.setModified(True)  # as typing does
    editor.editingFinished.emit()
    assert doc.dirty
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("size").Get() == 2.25
    assert opened.isWindowModified()
    assert opened.action("edit.undo").isEnabled()
    qtbot.waitUntil(lambda: inspector.editors.get("size") is not editor, timeout=2000)  # refreshed
    opened.action("edit.undo").trigger()
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("size").Get() == 0.5
    assert doc.export_layers() == original
    qtbot.waitUntil(lambda: inspector.editors["size"].text() == "0.5", timeout=2000)
    opened.action("edit.redo").trigger()
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("size").Get() == 2.25


def test_strongest_opinion_layer_and_runtime_target(opened, qtbot):
    doc = opened.session.document
    inspector = _select(opened, MARKER)
    layers = {inspector.tree.topLevelItem(i).text(0): inspector.tree.topLevelItem(i).text(3)
              for i in range(inspector.tree.topLevelItemCount())}
    assert layers["size"] == "base" and layers["purpose"] == "fallback"
    inspector.set_edit_target("runtime")
    editor = inspector.editors["xformOp:translate"]
    assert isinstance(editor, QLineEdit) and editor.text() == "10, 0.25, 0"
    editor.setText("12, 0.25, -1")
    editor.setModified(True)
    editor.editingFinished.emit()
    value = doc.stage.GetPrimAtPath(MARKER).GetAttribute("xformOp:translate").Get()
    assert tuple(value) == (12.0, 0.25, -1.0)
    assert doc.runtime.GetAttributeAtPath(MARKER + ".xformOp:translate") is not None
    assert not doc.base.dirty  # the scene file's layer is untouched
    qtbot.waitUntil(lambda: any(inspector.tree.topLevelItem(i).text(0) == "xformOp:translate"
                                and inspector.tree.topLevelItem(i).text(3) == "runtime"
                                for i in range(inspector.tree.topLevelItemCount())), timeout=2000)


def test_a_bad_vector_is_refused_with_a_message(opened, qtbot):
    doc = opened.session.document
    inspector = _select(opened, MARKER)
    before = doc.export_layers()
    editor = inspector.editors["xformOp:translate"]
    editor.setText("1, 2")
    editor.setModified(True)
    editor.editingFinished.emit()
    assert doc.export_layers() == before
    assert inspector.error.isVisibleTo(inspector) and "expected 3 numbers" in inspector.error.text()


def test_token_with_allowed_values_uses_a_choice(opened):
    doc = opened.session.document
    inspector = _select(opened, MARKER)
    box = inspector.editors["purpose"]
    assert isinstance(box, QComboBox)
    assert [box.itemText(i) for i in range(box.count())] == ["default", "render", "proxy", "guide"]
    box.setCurrentText("guide")
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("purpose").Get() == "guide"
    doc.undo()
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("purpose").Get() == "default"


def test_variant_selector_switches_the_variant(window, tmp_path):
    scene = tmp_path / "v.usda"
    scene.write_text("""#usda 1.0
def Xform "W" (
    variants = { string size = "small" }
    prepend variantSets = "size"
)
{
    variantSet "size" = {
        "small" { def Cube "Small" {} }
        "large" { def Cube "Large" {} }
    }
}
""")
    assert window.open_path(scene)
    doc = window.session.document
    inspector = _select(window, "/W")
    box = inspector.variant_boxes["size"]
    assert box.currentText() == "small"
    box.setCurrentText("large")
    assert doc.stage.GetPrimAtPath("/W/Large") and not doc.stage.GetPrimAtPath("/W/Small")
    tree = window.panels["assembly"].model
    assert tree.index_for_path("/W/Large").isValid()
    doc.undo()
    assert doc.stage.GetPrimAtPath("/W/Small")


def test_add_rename_remove_prims_share_the_journal(opened):
    doc = opened.session.document
    original = doc.export_layers()
    editor = opened.panels["assembly"]
    opened.session.selection.set(["/PracticeYard"])
    path = editor.add_child("Beacon", "Sphere")
    assert path == "/PracticeYard/Beacon" and doc.stage.GetPrimAtPath(path).GetTypeName() == "Sphere"
    assert opened.session.selection.paths == (path,)
    new = editor.rename(path, "Lamp")
    assert new == "/PracticeYard/Lamp" and doc.stage.GetPrimAtPath(new)
    editor.remove_selected()
    assert not doc.stage.GetPrimAtPath(new)
    for _ in range(3):
        opened.undo()
    assert not doc.stage.GetPrimAtPath("/PracticeYard/Beacon") and doc.export_layers() == original


def test_dropping_a_library_file_on_a_prim_adds_a_reference(opened):
    from PySide6.QtCore import QMimeData, Qt

    from luncosim_workbench.panels.assembly.prim_tree import ASSET_MIME

    doc = opened.session.document
    part = opened.session.twin.root / "parts" / "beacon.usda"
    part.parent.mkdir()
    part.write_text('#usda 1.0\n(\n    defaultPrim = "Beacon"\n)\ndef Xform "Beacon"\n{\n    def Sphere "Lamp" {}\n}\n')
    opened.session.selection.set(["/PracticeYard"])
    editor = opened.panels["assembly"]
    editor.add_child("Slot")
    target = editor.model.index_for_path("/PracticeYard/Slot")
    data = QMimeData()
    data.setData(ASSET_MIME, str(part).encode())
    assert editor.model.canDropMimeData(data, Qt.DropAction.CopyAction, -1, -1, target)
    assert editor.model.dropMimeData(data, Qt.DropAction.CopyAction, -1, -1, target)
    prim = doc.stage.GetPrimAtPath("/PracticeYard/Slot")
    refs = prim.GetMetadata("references")
    assert [r.assetPath for r in refs.GetAddedOrExplicitItems()] == ["../parts/beacon.usda"]
    assert doc.stage.GetPrimAtPath("/PracticeYard/Slot/Lamp")


def test_library_file_in_the_shared_library_is_referenced_by_uri(opened):
    from luncosim_workbench.asset_names import asset_reference

    doc = opened.session.document
    rover = doc.roots.lunco_root / "vessels" / "rovers" / "yard_rover.usda"
    assert asset_reference(doc, rover) == "lunco://vessels/rovers/yard_rover.usda"


def test_property_rows_of_a_loose_stage(tmp_path):
    from luncosim_workbench.panels.assembly.properties import property_rows

    scene = tmp_path / "s.usda"
    scene.write_text('#usda 1.0\ndef Xform "P"\n{\n    custom double speed = 2 (customData = {string unit = "m/s"})\n'
                     '    asset tex = @t.png@\n    int count = 3\n}\n')
    res = open_path(scene)
    doc = UsdDocument(res.scene, res.twin.roots)
    rows = {r.name: r for r in property_rows(doc.stage.GetPrimAtPath("/P"), doc)}
    assert rows["speed"].editor == "float" and rows["speed"].unit == "m/s" and rows["speed"].layer == "base"
    assert rows["tex"].editor == "asset" and rows["tex"].value == "t.png"
    assert rows["count"].editor == "int" and rows["xformOpOrder"].editor == "readonly"
    assert Sdf.Path("/P")
