"""Save As: the document (its unsaved edits too) is written atomically to the new file with a
minimal diff against the old file's text, relative asset paths still point at the same files, and
the document becomes the new file's: later saves go there, the old file is untouched and free."""

from __future__ import annotations

import difflib

import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.twin import open_path
from luncosim_core.usd.document import DocumentClosed, DocumentInUse, UsdDocument
from luncosim_core.usd.ops import SetAttribute

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)

# the yard, hand-written
def Xform "W" (
    references = @parts/arm.usda@
)
{
    double size = 1.50  # metres
    uniform asset info:sourceAsset = @programs/drive.rhai@
    uniform asset inputs:library = @lunco://vessels/rovers/yard_rover.usda@
}
"""

ARM = '#usda 1.0\n(\n    defaultPrim = "Arm"\n)\ndef Xform "Arm"\n{\n    double reach = 2\n}\n'


@pytest.fixture
def doc(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    writer(tmp_path / "parts" / "arm.usda", ARM)
    writer(tmp_path / "programs" / "drive.rhai", "fn on_tick(dt) {}\n")
    scene = writer(tmp_path / "w.usda", SCENE)
    return UsdDocument(scene, open_path(scene).twin.roots)


def _size(doc):
    return doc.stage.GetPrimAtPath("/W").GetAttribute("size").Get()


def _changed(before: str, after: str) -> list[str]:
    return [x for x in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if x[:1] in "+-" and not x.startswith(("+++", "---"))]


def test_save_as_writes_the_edits_to_the_new_file_and_leaves_the_old_one(doc):
    old = doc.path
    moves = []
    doc.path_changed.connect(lambda a, b: moves.append((a, b)))
    doc.apply(SetAttribute(path="/W", name="size", value=2.5))
    new = old.parent / "w_copy.usda"
    doc.save_as(new)
    assert old.read_text() == SCENE  # untouched
    assert _changed(SCENE, new.read_text()) == ["-    double size = 1.50  # metres", "+    double size = 2.5  # metres"]
    assert doc.path == new and not doc.dirty and moves == [(str(old), str(new))]
    assert UsdDocument.shared(new, doc.roots) is doc
    again = UsdDocument(old, doc.roots)  # the old file is free, and shows what is on disk
    assert _size(again) == 1.5
    doc.apply(SetAttribute(path="/W", name="size", value=3.0))
    doc.save()  # later saves go to the new file
    assert "double size = 3  # metres" in new.read_text() and old.read_text() == SCENE
    doc.undo()
    doc.undo()
    assert _size(doc) == 1.5 and doc.dirty  # the journal is kept, now against the new file


def test_save_as_into_another_folder_keeps_relative_assets_pointing_at_the_same_files(doc):
    (doc.path.parent / "scenes").mkdir()
    new = doc.path.parent / "scenes" / "w.usda"
    doc.save_as(new)
    text = new.read_text()
    assert "references = @../parts/arm.usda@" in text
    assert "uniform asset info:sourceAsset = @../programs/drive.rhai@" in text
    assert "@lunco://vessels/rovers/yard_rover.usda@" in text  # URIs are kept
    assert "# the yard, hand-written" in text and "double size = 1.50  # metres" in text
    assert doc.stage.GetPrimAtPath("/W").GetAttribute("reach").Get() == 2.0 and not doc.missing
    reopened = UsdDocument(new, doc.roots, register=False)
    assert reopened.stage.GetPrimAtPath("/W").GetAttribute("reach").Get() == 2.0


def test_save_as_onto_an_existing_file_needs_overwrite(doc):
    target = doc.path.parent / "other.usda"
    target.write_text("#usda 1.0\n")
    with pytest.raises(DiagnosticError) as err:
        doc.save_as(target)
    assert "the file exists" in err.value.diagnostics[0].message and target.read_text() == "#usda 1.0\n"
    doc.save_as(target, overwrite=True)
    assert "double size = 1.50" in target.read_text()


def test_save_as_refuses_what_it_cannot_write_the_same(doc, tmp_path_factory):
    held = doc.path.parent / "held.usda"
    held.write_text(SCENE)
    other = UsdDocument(held, doc.roots)
    cases = [(held, DocumentInUse, "another open document holds that file"),
             (doc.path.parent / "w.usdc", DiagnosticError, "give a .usda file"),
             (doc.path.parent / "missing" / "w.usda", DiagnosticError, "does not exist"),
             (tmp_path_factory.mktemp("elsewhere") / "w.usda", DiagnosticError, "outside the twin's roots")]
    for target, cls, reason in cases:
        with pytest.raises(cls) as err:
            doc.save_as(target)
        assert reason in err.value.diagnostics[0].message
    assert held.read_text() == SCENE and other.closed_reason == "" and doc.path.name == "w.usda"


def test_save_as_persists_the_runtime_layer_to_the_new_sidecar(doc):
    doc.apply(SetAttribute(path="/W", name="size", value=4.0, target="runtime"))
    sidecar = doc.path.parent / ".lunco" / "runtime" / "copy.usda"
    doc.save_as(doc.path.parent / "copy.usda", runtime_sidecar=sidecar)
    assert "double size = 4" in sidecar.read_text() and doc.persist_runtime
    assert "double size = 1.50" in (doc.path.parent / "copy.usda").read_text()


def test_a_closed_document_cannot_save_as(doc):
    doc.close()
    with pytest.raises(DocumentClosed):
        doc.save_as(doc.path.parent / "x.usda")
    assert not (doc.path.parent / "x.usda").exists()
