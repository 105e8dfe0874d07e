"""``luncosim edit``: typed edits from the command line, applied in order through the journal and
saved with a minimal diff; a bad path, type or value exits 1 with the reason, the file untouched."""

from __future__ import annotations

import difflib
import shutil

import pytest

from luncosim_core.cli import main

SCENE = "scenes/practice_yard.usda"


@pytest.fixture
def scene(tmp_path, demo_twin):
    shutil.copytree(demo_twin, tmp_path / "yard")
    return tmp_path / "yard" / SCENE


def _changed(before: bytes, after: bytes) -> list[bytes]:
    return [x for x in difflib.diff_bytes(difflib.unified_diff, before.splitlines(), after.splitlines(), lineterm=b"", n=0)
            if x[:1] in b"+-" and not x.startswith((b"+++", b"---"))]


def test_a_set_changes_one_line(scene, capsys):
    before = scene.read_bytes()
    assert main(["edit", str(scene), "--set", "/PracticeYard/Marker.size=0.75"]) == 0
    assert _changed(before, scene.read_bytes()) == [b"-        double size = 0.5", b"+        double size = 0.75"]
    assert "1 edit(s) saved" in capsys.readouterr().out


def test_reference_transform_and_wire_in_the_order_given(scene):
    before = scene.read_bytes()
    assert main(["edit", str(scene),
                 "--add-reference", "/PracticeYard/RoverC=lunco://vessels/rovers/yard_rover.usda",
                 "--set", "/PracticeYard/RoverC.xformOp:translate=(3, 0, 6)",
                 "--connect", "/PracticeYard/RoverC.inputs:throttle=/PracticeYard/RoverA.outputs:speed"]) == 0
    added = [line for line in _changed(before, scene.read_bytes()) if line.startswith(b"+")]
    assert b'+    def Xform "RoverC" (' in added
    assert b"+        prepend references = @lunco://vessels/rovers/yard_rover.usda@" in added
    assert b"+        double3 xformOp:translate = (3, 0, 6)" in added
    assert b'+        uniform token[] xformOpOrder = ["xformOp:translate"]' in added
    assert b"+        float inputs:throttle.connect = </PracticeYard/RoverA.outputs:speed>" in added
    assert not [line for line in _changed(before, scene.read_bytes()) if line.startswith(b"-")]


@pytest.mark.parametrize(("option", "reason"), [
    ("/PracticeYard/Nope.size=1", "no prim at /PracticeYard/Nope"),
    ("/PracticeYard/Marker.sizzle=1", "has no attribute sizzle"),
    ("/PracticeYard/Marker.size=(1, 2)", "is not a double value"),
    ("/PracticeYard/Marker.size", "expected /PRIM.ATTR=VALUE"),
    ("/PracticeYard/Drill.xformOp:translate=(1, 2, 3)", "is not transformable"),
])
def test_a_bad_edit_exits_1_with_the_reason_and_leaves_the_file_alone(scene, capsys, option, reason):
    before = scene.read_bytes()
    assert main(["edit", str(scene), "--set", "/PracticeYard/Marker.size=2", "--set", option]) == 1
    assert reason in capsys.readouterr().err
    assert scene.read_bytes() == before
