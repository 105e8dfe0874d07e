"""TextDocument: splices journaled with authors, exact undo, dirty state, atomic save, conflicts."""

from __future__ import annotations

import pytest

from luncosim_core.text import Splice, SpliceError, TextConflict, TextDocument

SOURCE = "model A\n  Real x;\nequation\n  der(x) = -x;\nend A;\n"


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "A.mo"
    path.write_text(SOURCE)
    return TextDocument(path)


def test_edits_undo_redo_and_dirty_state(doc):
    assert doc.language == "modelica" and not doc.dirty
    seen = []
    doc.changed.connect(lambda edit, author: seen.append(author))
    doc.apply([Splice(10, 14, "Integer")], author="api", label="retype")
    assert doc.text.startswith("model A\n  Integer x;") and doc.dirty
    doc.undo()
    assert doc.text == SOURCE and not doc.dirty
    doc.redo()
    assert "Integer" in doc.text and doc.dirty
    assert seen == ["api", "api", "api"]
    assert [(e.author, e.edit.label) for e in doc.entries()] == [("api", "retype")]


def test_typing_coalesces_a_word_and_undo_restores_exactly(doc):
    at = doc.offset(4, 14)
    for i, ch in enumerate(" + 1"):
        doc.apply([Splice(at + i, at + i, ch)], coalesce=True, label="type")
    assert "der(x) = -x + 1;" in doc.text
    assert ["".join(s.text for g in e.edit.groups for s in g) for e in doc.entries()] == [" ", "+ ", "1"]
    while doc.can_undo:
        doc.undo()
    assert doc.text == SOURCE


def test_bad_splices_change_nothing(doc):
    with pytest.raises(SpliceError):
        doc.apply([Splice(0, 10_000, "x")])
    assert doc.text == SOURCE and not doc.entries()


def test_save_is_atomic_and_refuses_an_external_change(doc):
    doc.apply([Splice(0, 0, "// note\n")])
    doc.save()
    assert doc.path.read_text() == "// note\n" + SOURCE and not doc.dirty
    assert not list(doc.path.parent.glob(".A.mo.*.tmp"))
    doc.apply([Splice(0, 0, "//")])
    doc.path.write_text("model Other end Other;\n")  # someone else saved meanwhile
    with pytest.raises(TextConflict) as err:
        doc.save()
    assert err.value.diagnostics[0].code == "text-external-change"
    doc.save(overwrite_external=True)
    assert doc.path.read_text().startswith("//// note")
    with pytest.raises(TextConflict):
        doc.apply([Splice(0, 0, "x")]) and doc.reload()
    doc.reload(discard=True)
    assert doc.text == doc.path.read_text() and not doc.dirty and not doc.can_undo


def test_positions_round_trip(doc):
    for off in (0, 8, 20, len(SOURCE) - 1):
        assert doc.offset(*doc.line_col(off)) == off


def test_replace_all_splices_only_what_changed(doc):
    new = SOURCE.replace("-x", "-2 * x")
    doc.replace_all(new, author="script")
    (entry,) = doc.entries()
    assert entry.author == "script" and doc.text == new
    assert [(s.start, s.end, s.text) for g in entry.edit.groups for s in g] == [(SOURCE.index("-x") + 1,) * 2 + ("2 * ",)]
