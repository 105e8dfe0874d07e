"""One document per file: a second open of a file whose document has unsaved edits is refused
with the reason (never a silent reload under those edits); ``UsdDocument.shared`` hands out the
open one; a clean document is taken over by a newer one and then refuses to edit."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from luncosim_core.twin import open_path
from luncosim_core.usd.document import (
    DocumentClosed,
    DocumentInUse,
    ExternalChangeConflict,
    UsdDocument,
)
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
    again = _open(scene, register=False)  # under another's unsaved edits: the file as it is on disk
    assert _size(again) == 1.0 and _size(first) == 2.0


def test_a_private_document_has_a_layer_of_its_own(scene):
    private = _open(scene, register=False)
    private.apply(SetAttribute(path="/W", name="size", value=9.0))  # an unsaved base edit
    registered = _open(scene)  # reads the file: neither the edit nor a reload under it
    assert _size(registered) == 1.0 and _size(private) == 9.0
    registered.apply(SetAttribute(path="/W", name="size", value=3.0))
    assert _size(private) == 9.0 and private.dirty and private.base is not registered.base
    registered.save()
    assert _size(private) == 9.0 and "double size = 3" in scene.read_text()
    assert private.base.realPath == str(scene.resolve())  # relative asset paths anchor at the file


def test_a_private_document_resolves_relative_references(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    writer(tmp_path / "parts" / "arm.usda", '#usda 1.0\n(\n    defaultPrim = "Arm"\n)\ndef Xform "Arm"\n{\n    double reach = 2\n}\n')
    scene = writer(tmp_path / "w.usda", '#usda 1.0\ndef Xform "W" (\n    references = @parts/arm.usda@\n)\n{\n}\n')
    private = _open(scene, register=False)
    assert private.stage.GetPrimAtPath("/W").GetAttribute("reach").Get() == 2.0
    assert not private.missing


def _write_externally(scene, text, *, keep_stat=False):
    """Another program (``luncosim edit`` in a shell) rewrites the file."""
    st = scene.stat()
    scene.write_text(text)
    if keep_stat:  # same size and mtime: only the content tells
        os.utime(scene, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_reopen_after_an_external_write_shows_the_file_and_saves_over_nothing(scene):
    first = _open(scene)  # kept alive while the new one is built (as the workbench's Session does)
    first.close("the scene was opened again")
    _write_externally(scene, SCENE.replace("size = 1", "size = 8").replace("}", "    double mass = 2\n}"))
    second = _open(scene)
    assert _size(second) == 8.0
    second.apply(SetAttribute(path="/W", name="mass", value=5.0))
    second.save()
    assert "double size = 8" in scene.read_text() and "double mass = 5" in scene.read_text()


def test_a_clean_document_taken_over_after_an_external_write_reads_the_file_again(scene):
    first = _open(scene)
    _write_externally(scene, SCENE.replace("size = 1", "size = 8"))
    assert _size(_open(scene)) == 8.0
    assert first.closed_reason  # taken over, and its stage shows the file too
    assert _size(first) == 8.0


def test_an_external_write_keeping_size_and_mtime_is_still_seen(scene):
    first = _open(scene)
    first.close()
    _write_externally(scene, SCENE.replace("size = 1", "size = 7"), keep_stat=True)
    assert _size(_open(scene)) == 7.0


def test_a_closed_documents_unsaved_edit_is_not_shown_by_the_next(scene):
    first = _open(scene)
    first.apply(SetAttribute(path="/W", name="size", value=6.0))
    first.close()
    assert _size(_open(scene)) == 1.0


def test_shared_hands_out_a_clean_document_as_the_file_is_now(scene):
    first = _open(scene)
    _write_externally(scene, SCENE.replace("size = 1", "size = 8"))
    assert UsdDocument.shared(scene, first.roots) is first and _size(first) == 8.0
    first.apply(SetAttribute(path="/W", name="size", value=2.0))
    _write_externally(scene, SCENE.replace("size = 1", "size = 9"))
    assert UsdDocument.shared(scene, first.roots) is first and _size(first) == 2.0  # never under edits
    with pytest.raises(ExternalChangeConflict):
        first.save()  # and its save does not overwrite the other program's change silently


def test_the_workbench_session_reopens_a_scene_changed_by_luncosim_edit(scene):
    from luncosim_workbench.session import Session

    session = Session()
    session.open(scene.parent)
    assert _size(session.document) == 1.0
    subprocess.run([sys.executable, "-m", "luncosim_core.cli", "edit", str(scene), "--set", "/W.size=8"],
                   check=True, capture_output=True)
    session.open(scene.parent)
    assert _size(session.document) == 8.0
    session.document.apply(SetAttribute(path="/W", name="size", value=8.5))
    session.document.save()
    assert "double size = 8.5" in scene.read_text()


ONE_LINE = '#usda 1.0\ndef Xform "W" {\n    def Cube "B" { double size = 2 double mass = 1 }\n}\n'


def test_one_line_files_the_tolerant_reader_takes_follow_the_same_rules(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    scene = writer(tmp_path / "w.usda", ONE_LINE)
    first = _open(scene)
    private = _open(scene, register=False)
    private.apply(SetAttribute(path="/W/B", name="size", value=9.0))
    assert private.base is not first.base and private.stage.GetPrimAtPath("/W/B").GetAttribute("size").Get() == 9.0
    assert first.stage.GetPrimAtPath("/W/B").GetAttribute("size").Get() == 2.0
    first.close()
    _write_externally(scene, ONE_LINE.replace("size = 2", "size = 3"), keep_stat=True)
    assert _open(scene).stage.GetPrimAtPath("/W/B").GetAttribute("size").Get() == 3.0
    assert private.stage.GetPrimAtPath("/W/B").GetAttribute("size").Get() == 9.0
