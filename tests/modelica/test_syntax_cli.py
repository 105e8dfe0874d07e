"""``luncosim modelica apply``: the diagram's ops from JSON, all or nothing."""

from __future__ import annotations

import json
import shutil

from luncosim_core.cli import main

from .conftest import LIBRARY


def _copy(tmp_path):
    shutil.copytree(LIBRARY / "Workbench", tmp_path / "Workbench")
    return tmp_path / "Workbench" / "Electrical" / "RCCircuit.mo"


def test_apply_writes_every_op_and_only_their_lines(tmp_path, capsys):
    path = _copy(tmp_path)
    before = path.read_text()
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps([
        {"op": "SetPlacement", "component": "ground", "extent": [[-10, -70], [10, -50]]},
        {"op": "AddComponent", "type": "Resistor", "name": "leak", "modifiers": {"R": "1e4"},
         "placement": {"extent": [[60, -10], [80, 10]], "rotation": -90}},
        {"op": "AddConnection", "from": "leak.p", "to": "capacitor.p", "points": [[70, 10], [40, 10]]},
        {"op": "SetParameter", "class": "RCCircuit", "component": "resistor", "name": "R", "value": "2 * R"},
    ]))
    assert main(["modelica", "apply", str(path), "--ops", str(ops)]) == 0
    after = path.read_text()
    added = sorted(set(after.splitlines()) - set(before.splitlines()))
    assert len(added) == 4 and "applied 4 op(s)" in capsys.readouterr().out
    assert "  connect(leak.p, capacitor.p) annotation(Line(points = {{70, 10}, {40, 10}}));" in added


def test_an_invalid_op_names_its_index_and_writes_nothing(tmp_path, capsys):
    path = _copy(tmp_path)
    before = path.read_text()
    out = tmp_path / "out.mo"
    ops = tmp_path / "ops.json"
    for bad, reason in (
        ({"op": "AddConnection", "from": "ground.p", "to": "v_cap"}, "ground.p is a Pin connector"),
        ({"op": "SetParameter", "component": "nope", "name": "R", "value": "1"}, "has no component 'nope'"),
        ({"op": "SetParameter", "component": "resistor", "name": "R", "value": "1 +"}, "is not a Modelica expression"),
        ({"op": "Teleport"}, "unknown op 'Teleport'"),
        ({"op": "RemoveConnection", "from": "a.p"}, "RemoveConnection needs 'to'"),
    ):
        ops.write_text(json.dumps([{"op": "RenameComponent", "name": "capacitor", "new_name": "cap"}, bad]))
        assert main(["modelica", "apply", str(path), "--ops", str(ops), "--out", str(out)]) == 1
        text = capsys.readouterr().out
        assert f"op 1 ({bad['op']}): " in text and reason in text and "nothing written" in text, text
        assert path.read_text() == before and not out.exists()


def test_fields_of_the_wrong_type_name_the_op_and_the_field(tmp_path, capsys):
    path = _copy(tmp_path)
    before = path.read_text()
    ops = tmp_path / "ops.json"
    first = {"op": "SetPlacement", "component": "ground", "rotation": 90}
    for bad, reason in (
        ({"op": "SetPlacement", "component": "resistor", "rotation": "abc"}, "'rotation' must be a number of degrees"),
        ({"op": "SetPlacement", "component": "resistor", "origin": [1]}, "'origin' must be a point [x, y] of two numbers, not [1]"),
        ({"op": "SetPlacement", "component": "resistor", "extent": [[0, 0], [1, 1], [2, 2]]}, "'extent' must be two points"),
        ({"op": "SetPlacement", "component": "resistor", "flip_h": 1}, "'flip_h' must be true or false"),
        ({"op": "SetPlacement", "component": "resistor", "placement": [1, 2]}, "'placement' must be an object"),
        ({"op": "SetParameter", "component": "resistor", "name": "R", "value": 5}, "'value' must be a string or null (a Modelica expression as text"),
        ({"op": "SetParameter", "component": 7, "name": "R", "value": "5"}, "'component' must be a string, not 7"),
        ({"op": "AddComponent", "type": "Resistor", "name": "r2", "modifiers": {"R": 1}}, "'modifiers.R' must be a string"),
        ({"op": "AddComponent", "type": "Resistor", "name": "r2", "modifiers": ["R"]}, "'modifiers' must be an object"),
        ({"op": "AddConnection", "from": "resistor.n", "to": "capacitor.p", "points": [[0, 0]]}, "'points' must be a list of at least 2 points"),
        ({"op": "AddConnection", "from": "ground.p", "to": "v_cap", "check": False}, "AddConnection has no field 'check'"),
        ({"op": "SetLinePoints", "from": "a.p", "to": "b.p"}, "SetLinePoints needs 'points'"),
        ({"op": "RemoveConnection", "from": "a.p"}, "RemoveConnection needs 'to'"),
        ({"op": "SetPlacement", "component": "resistor", "rotation": float("nan")}, "'rotation' must be a number"),
        ("SetPlacement", "an op must be an object with an 'op' name"),
    ):
        ops.write_text(json.dumps([first, bad]))
        assert main(["modelica", "apply", str(path), "--ops", str(ops)]) == 1, bad
        text = capsys.readouterr().out
        assert "op 1 (" in text and reason in text and "nothing written" in text, (bad, text)
        assert path.read_text() == before


def test_files_that_are_not_regular_mo_files_are_refused_without_waiting(tmp_path, capsys):
    import os

    path = _copy(tmp_path)
    before = path.read_text()
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps([{"op": "SetPlacement", "component": "ground", "rotation": 90}]))
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    fifo_mo = tmp_path / "Pipe.mo"
    os.mkfifo(fifo_mo)
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b" " * (17 * 1024 * 1024) + b"]")
    for argv, reason in (
        ([str(path), "--ops", str(fifo)], "not a regular file"),
        ([str(fifo_mo), "--ops", str(ops)], "not a regular file"),
        ([str(path), "--ops", str(big)], "limit"),
        ([str(path), "--ops", str(ops), "--out", str(tmp_path / "out.txt")], "is not a Modelica file (.mo)"),
        ([str(tmp_path / "notes.txt"), "--ops", str(ops)], "is not a Modelica file (.mo)"),
    ):
        assert main(["modelica", "apply", *argv]) == 1, argv
        text = capsys.readouterr().out
        assert reason in text and "nothing written" in text, (argv, text)
    assert path.read_text() == before and not (tmp_path / "out.txt").exists()
