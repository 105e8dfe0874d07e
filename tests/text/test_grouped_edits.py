"""Grouped edits: sequential splice groups composed into one group on the original text, and
``TextDocument.apply_groups`` journaling a gesture of several ops as one entry."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from luncosim_core.text import Splice, SpliceError, TextDocument, apply_splices, compose_groups


@st.composite
def sequences(draw):
    """A text and up to five groups, each drawn against the text the previous ones left."""
    text = draw(st.text(st.sampled_from("ab\n é😀;{}"), max_size=60))
    current, groups = text, []
    for _ in range(draw(st.integers(1, 5))):
        cuts = sorted(draw(st.lists(st.integers(0, len(current)), max_size=6)))  # repeats: insertions
        pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
        group = [Splice(a, b, draw(st.text(st.sampled_from("xy\nü"), max_size=4))) for a, b in pairs]
        try:
            current, _ = apply_splices(current, group)
        except SpliceError:  # two insertions at one offset: not a group
            continue
        groups.append(group)
    return text, groups, current


@given(sequences())
@settings(max_examples=400, deadline=None)
def test_composed_group_does_what_the_groups_do_in_order(case):
    text, groups, final = case
    composed = compose_groups(text, groups)
    new, inverse = apply_splices(text, composed)
    assert new == final
    assert apply_splices(new, inverse)[0] == text
    assert all(a.end < b.start or (a.end == b.start and a.start != a.end) for a, b in zip(composed, composed[1:], strict=False))


def test_untouched_text_stays_outside_every_composed_splice():
    text = "line one\nline two\nline three\nline four\n"
    # three ops of one gesture: edit line two, then insert after line four, then edit line one
    g1 = [Splice(text.index("two"), text.index("two") + 3, "2")]
    t1 = apply_splices(text, g1)[0]
    g2 = [Splice(len(t1), len(t1), "line five\n")]
    t2 = apply_splices(t1, g2)[0]
    g3 = [Splice(5, 8, "1")]
    composed = compose_groups(text, [g1, g2, g3])
    assert [(s.start, s.end, s.text) for s in composed] == [
        (5, 8, "1"), (text.index("two"), text.index("two") + 3, "2"), (len(text), len(text), "line five\n")]
    assert apply_splices(text, composed)[0] == apply_splices(t2, g3)[0]


def test_apply_groups_is_one_journal_entry_with_its_ops(tmp_path):
    path = tmp_path / "A.mo"
    source = "model A\n  Real x;\n  Real y;\nend A;\n"
    path.write_text(source)
    doc = TextDocument(path)
    seen = []
    doc.changed.connect(lambda edit, author: seen.append((edit.groups, author)))
    x = source.index("x;")
    g1 = [Splice(x, x + 1, "xx")]
    t1 = apply_splices(source, g1)[0]
    y = t1.index("y;")
    g2 = [Splice(y, y + 1, "yy")]
    doc.apply_groups([g1, g2], author="user", label="Rename two", ops=("op1", "op2"))
    assert doc.text == "model A\n  Real xx;\n  Real yy;\nend A;\n"
    [entry] = doc.entries()
    assert entry.edit.ops == ("op1", "op2") and entry.edit.label == "Rename two" and len(entry.edit.groups) == 1
    assert seen == [(((Splice(x, x + 1, "xx"), Splice(source.index("y;"), source.index("y;") + 1, "yy")),), "user")]
    doc.undo()
    assert doc.text == source and not doc.dirty
    doc.redo()
    assert "yy" in doc.text and doc.dirty
    # a following keystroke never joins a grouped entry
    doc.apply([Splice(0, 0, "/")], coalesce=True, label="Rename two")
    assert len(doc.entries()) == 2
