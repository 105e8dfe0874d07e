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
        ({"op": "RemoveConnection", "from": "a.p"}, "RemoveConnection: "),
    ):
        ops.write_text(json.dumps([{"op": "RenameComponent", "name": "capacitor", "new_name": "cap"}, bad]))
        assert main(["modelica", "apply", str(path), "--ops", str(ops), "--out", str(out)]) == 1
        text = capsys.readouterr().out
        assert f"op 1 ({bad['op']}): " in text and reason in text and "nothing written" in text, text
        assert path.read_text() == before and not out.exists()
