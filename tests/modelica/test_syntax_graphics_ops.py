"""Icon (and Diagram) graphics edited as span-preserving ops: AddGraphic creates the annotation,
layer or array when missing and follows the array's own separators; SetGraphic and RemoveGraphic
touch only their item; each undoes to identical bytes; bad input is refused with the reason."""

from __future__ import annotations

import json

import pytest

from luncosim_core.cli import main
from luncosim_core.modelica.syntax.ops import (
    AddGraphic,
    OpError,
    RemoveGraphic,
    SetGraphic,
    apply_op,
)
from luncosim_core.modelica.syntax.parser import parse
from luncosim_core.text import apply_splices

ELLIPSE = "Ellipse(extent = {{-5, -5}, {5, 5}})"


@pytest.mark.parametrize(("before", "after"), [
    ("model A\n  Real x;\nend A;\n",
     "model A\n  Real x;\n  annotation(Icon(graphics = {" + ELLIPSE + "}));\nend A;\n"),
    ('model A\n  Real x;\n  annotation(Documentation(info = "x"));\nend A;\n',
     'model A\n  Real x;\n  annotation(Documentation(info = "x"), Icon(graphics = {' + ELLIPSE + "}));\nend A;\n"),
    ("model A\n  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}})));\nend A;\n",
     "model A\n  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}), graphics = {" + ELLIPSE
     + "}));\nend A;\n"),
    ("model A\n  annotation(Icon(graphics = {\n    Rectangle(extent = {{-1, -1}, {1, 1}}),\n    Line(points = {{0, 0}, {1, 1}})}));\nend A;\n",
     "model A\n  annotation(Icon(graphics = {\n    Rectangle(extent = {{-1, -1}, {1, 1}}),\n    Line(points = {{0, 0}, {1, 1}}),\n    "
     + ELLIPSE + "}));\nend A;\n"),
    ("model A\n  annotation(Icon(graphics = {}));\nend A;\n", "model A\n  annotation(Icon(graphics = {" + ELLIPSE + "}));\nend A;\n"),
    ("model A Real x; end A;\n", "model A Real x; annotation(Icon(graphics = {" + ELLIPSE + "})); end A;\n"),
])
def test_add_graphic_creates_what_is_missing_and_undoes_exactly(before, after):
    edit = apply_op(before, AddGraphic(None, ELLIPSE))
    assert edit.text == after
    parse(edit.text)
    assert apply_splices(edit.text, edit.inverse)[0] == before


def test_set_and_remove_graphic_touch_only_their_item():
    text = "model A\n  annotation(Icon(graphics = {Rectangle(extent = {{-1, -1}, {1, 1}}), Line(points = {{0, 0}, {1, 1}})}));\nend A;\n"
    moved = apply_op(text, SetGraphic(None, 1, "origin", "{10, 20}"))
    assert "Line(points = {{0, 0}, {1, 1}}, origin = {10, 20})" in moved.text
    again = apply_op(moved.text, SetGraphic(None, 1, "origin", "{12, 20}"))
    assert "origin = {12, 20}" in again.text and "origin = {10, 20}" not in again.text
    gone = apply_op(again.text, SetGraphic(None, 1, "origin", None))
    assert gone.text == text
    first = apply_op(text, RemoveGraphic(None, 0))
    assert "graphics = {Line(points = {{0, 0}, {1, 1}})}" in first.text
    last = apply_op(text, RemoveGraphic(None, 1))
    assert "graphics = {Rectangle(extent = {{-1, -1}, {1, 1}})}" in last.text
    for e in (moved, first, last):
        assert apply_splices(e.text, e.inverse)[0] in (text, moved.text)


def test_bad_graphics_are_refused_with_the_reason():
    text = "model A\n  annotation(Icon(graphics = {Rectangle(extent = {{-1, -1}, {1, 1}})}));\nend A;\n"
    for op, reason in (
        (AddGraphic(None, "Circle(r = 1)"), "is not one of Rectangle"),
        (AddGraphic(None, "Rectangle(extent = "), "is not a Modelica expression"),
        (AddGraphic(None, ELLIPSE, layer="Sketch"), "is not Icon or Diagram"),
        (RemoveGraphic(None, 3), "has no graphic 3 (it has 1)"),
        (SetGraphic(None, 0, "origin", "{1,"), "is not a Modelica expression"),
        (SetGraphic(None, 0, "1bad", "{1, 2}"), "is not a Modelica identifier"),
    ):
        with pytest.raises(OpError, match=reason.replace("(", r"\(").replace(")", r"\)")):
            apply_op(text, op)


def test_graphics_ops_apply_headless(tmp_path, capsys):
    path = tmp_path / "A.mo"
    path.write_text("model A\n  Real x;\nend A;\n")
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps([{"op": "AddGraphic", "item": ELLIPSE},
                               {"op": "SetGraphic", "index": 0, "name": "origin", "value": "{1, 2}"}]))
    assert main(["modelica", "apply", str(path), "--ops", str(ops)]) == 0
    assert "Ellipse(extent = {{-5, -5}, {5, 5}}, origin = {1, 2})" in path.read_text()
    ops.write_text(json.dumps([{"op": "RemoveGraphic", "index": "0"}]))
    assert main(["modelica", "apply", str(path), "--ops", str(ops)]) == 1
    assert "op 0 (RemoveGraphic): 'index' must be a whole number" in capsys.readouterr().out
