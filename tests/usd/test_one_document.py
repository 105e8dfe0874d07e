"""One document per file: a second open of a file whose document has unsaved edits is refused
with the reason (never a silent reload under those edits); ``UsdDocument.shared`` hands out the
open one; a clean document is taken over by a newer one and then refuses to edit."""

from __future__ import annotations

import gc

import pytest

from luncosim_core.twin import open_path
from luncosim_core.usd.document import DocumentClosed, DocumentInUse, UsdDocument
from luncosim_core.usd.ops import SetAttribute

SCENE = """#usda 1.0
def Xform "W"
{
    double size = 1
}
"""


@pytest.fixture
def scene(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    return writer(tmp_path / "w.usda", SCENE)


def _open(scene, **kw):
    return UsdDocument(scene, open_path(scene).twin.roots, **kw)


def _size(doc):
    return doc.stage.GetPrimAtPath("/W").GetAttribute("size").Get()


def test_a_second_open_under_unsaved_edits_is_refused_and_the_edits_survive(scene):
    first = _open(scene)
    first.apply(SetAttribute(path="/W", name="size", value=4.0))
    with pytest.raises(DocumentInUse) as err:
        _open(scene)
    message = err.value.diagnostics[0].message
    assert str(scene.resolve()) in message and "1 unsaved edit" in message
    assert first.dirty and _size(first) == 4.0  # nothing reloaded under the edit
    first.save()
    assert "double size = 4" in scene.read_text()  # and its save writes it
    assert not first.dirty


def test_shared_hands_out_the_open_document(scene):
    first = _open(scene)
    first.apply(SetAttribute(path="/W", name="size", value=2.0))
    second = UsdDocument.shared(scene, first.roots)
    assert second is first and second.journal.labels() == ["set /W.size"]


def test_a_clean_document_is_taken_over_and_then_refuses_edits(scene):
    first = _open(scene)
    second = _open(scene)
    with pytest.raises(DocumentClosed) as err:
        first.apply(SetAttribute(path="/W", name="size", value=3.0))
    assert "opened again" in err.value.diagnostics[0].message
    with pytest.raises(DocumentClosed):
        first.save()
    second.apply(SetAttribute(path="/W", name="size", value=5.0))
    second.save()
    assert "double size = 5" in scene.read_text()


def test_a_closed_or_collected_document_releases_its_file(scene):
    first = _open(scene)
    first.apply(SetAttribute(path="/W", name="size", value=6.0))
    first.close()
    again = _open(scene)  # the closed document's edit is not on disk, and is not shown
    assert _size(again) == 1.0
    again.apply(SetAttribute(path="/W", name="size", value=7.0))
    del again
    gc.collect()
    assert _size(_open(scene)) == 1.0


def test_a_private_document_neither_holds_nor_takes_over_the_file(scene):
    first = _open(scene)
    private = _open(scene, register=False)
    private.apply(SetAttribute(path="/W", name="size", value=9.0, target="runtime"))
    first.apply(SetAttribute(path="/W", name="size", value=2.0))  # the registered one still edits
    assert UsdDocument.shared(scene, first.roots) is first
    with pytest.raises(DocumentInUse):
        _open(scene, register=False)  # but never under another's unsaved edits
