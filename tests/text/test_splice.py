"""Splices: exact inverses, untouched text byte-identical, overlaps refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luncosim_core.text import Splice, SpliceError, apply_splices, diff_splices


def test_several_splices_apply_at_once_against_the_original_offsets():
    text = "model M\n  Real x;\nequation\n  der(x) = -x;\nend M;\n"
    new, inverse = apply_splices(text, [Splice(6, 7, "Lag"), Splice(text.index("-x"), text.index("-x") + 2, "-2*x"),
                                        Splice(len(text) - 3, len(text) - 2, "Lag")])
    assert new == "model Lag\n  Real x;\nequation\n  der(x) = -2*x;\nend Lag;\n"
    assert apply_splices(new, inverse)[0] == text


def test_overlapping_or_out_of_range_splices_are_refused():
    with pytest.raises(SpliceError, match="overlap"):
        apply_splices("abcdef", [Splice(1, 3, "x"), Splice(2, 4, "y")])
    with pytest.raises(SpliceError, match="past the end"):
        apply_splices("abc", [Splice(1, 9, "")])
    with pytest.raises(SpliceError):
        Splice(3, 1, "")


@st.composite
def edits(draw):
    text = draw(st.text(st.sampled_from("ab\n é😀;{}"), max_size=80))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6, unique=True)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return text, [Splice(a, b, draw(st.text(st.sampled_from("xy\nü"), max_size=5))) for a, b in pairs]


@given(edits())
@settings(max_examples=300, deadline=None)
def test_inverse_restores_exactly_and_outside_text_is_untouched(case):
    text, splices = case
    new, inverse = apply_splices(text, splices)
    assert apply_splices(new, inverse)[0] == text
    if splices:
        first, last = min(s.start for s in splices), max(s.end for s in splices)
        assert new.startswith(text[:first]) and new.endswith(text[last:])


@given(st.text(max_size=200), st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_diff_splices_turn_old_into_new(old, new):
    assert apply_splices(old, diff_splices(old, new))[0] == new


def test_diff_of_a_large_edit_keeps_unchanged_lines_out_of_the_splices():
    old = "".join(f"line {i}\n" for i in range(2000))
    new = old.replace("line 700\n", "line seven hundred\n").replace("line 1500\n", "")
    splices = diff_splices(old, new)
    assert apply_splices(old, splices)[0] == new
    assert sum(s.end - s.start for s in splices) < 40
