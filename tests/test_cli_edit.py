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


def test_an_array_of_vectors_changes_one_line(scene):
    before = scene.read_bytes()
    assert main(["edit", str(scene), "--set", "/PracticeYard/Marker.primvars:displayColor=[(1, 0, 0)]"]) == 0
    assert _changed(before, scene.read_bytes()) == [b"-        color3f[] primvars:displayColor = [(0.9, 0.25, 0.2)]",
                                                    b"+        color3f[] primvars:displayColor = [(1, 0, 0)]"]


def test_any_xform_op_the_prim_lacks_is_added_to_its_order(scene):
    assert main(["edit", str(scene),
                 "--set", "/PracticeYard/Marker.xformOp:rotateY=30",
                 "--set", "/PracticeYard/Marker.xformOp:orient=(1, 0, 0, 0)",
                 "--set", "/PracticeYard/Marker.xformOp:rotateXYZ:tilt=(0, 0, 10)",
                 "--set", "/PracticeYard/Marker.xformOp:translate:pivot=(0, 0.25, 0)",
                 "--set", "/PracticeYard/Marker.xformOp:scale=(2, 2, 2)"]) == 0
    text = scene.read_text()
    for line in ("float xformOp:rotateY = 30", "quatf xformOp:orient = (1, 0, 0, 0)",
                 "float3 xformOp:rotateXYZ:tilt = (0, 0, 10)", "double3 xformOp:translate:pivot = (0, 0.25, 0)",
                 "float3 xformOp:scale = (2, 2, 2)"):
        assert f"        {line}\n" in text and f"custom {line}" not in text
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.Open(str(scene))
    prim = stage.GetPrimAtPath("/PracticeYard/Marker")
    assert list(prim.GetAttribute("xformOpOrder").Get()) == [
        "xformOp:translate", "xformOp:translate:pivot", "xformOp:rotateY", "xformOp:orient", "xformOp:rotateXYZ:tilt",
        "xformOp:scale", "!invert!xformOp:translate:pivot"]
    assert len(UsdGeom.Xformable(prim).GetOrderedXformOps()) == 7  # every op resolves


def test_an_interface_output_can_forward_an_output_from_inside(scene):
    assert main(["edit", str(scene), "--add-reference", "/PracticeYard/Crate=lunco://vessels/rovers/yard_rover.usda",
                 "--connect", "/PracticeYard/RoverA.outputs:speed=/PracticeYard/RoverA/Odometer.outputs:speed"]) == 0


@pytest.mark.parametrize(("option", "reason"), [
    ("--set=/PracticeYard/Marker.purpose=\"bogus\"", "'bogus' is not an allowed token of /PracticeYard/Marker.purpose"),
    ("--set=/PracticeYard/Marker.doubleSided=1.5", "1.5 is not a bool"),
    ("--set=/PracticeYard/Marker.doubleSided=2", "2 is not a bool"),
    ("--set=/PracticeYard/Marker.size=nan", "nan is not a finite number"),
    ("--set=/PracticeYard/Marker.primvars:displayColor=[(1e40, 0, 0)]", "1e40 is out of range for color3f[]"),
    ("--set=/PracticeYard/Marker.primvars:displayColor=[(1, 0)]", "is not a color3f[] value"),
    ("--set=/PracticeYard/Marker.xformOp:bogus=1", "'xformOp:bogus' is not an xformOp name"),
    ("--set=/PracticeYard/Marker.xformOp:rotateY=(1, 2, 3)", "is not a float value"),
    ("--add-reference=/PracticeYard/Loop=twin://scenes/practice_yard.usda", "makes a composition cycle"),
    ("--add-reference=/PracticeYard/RoverA=twin://scenes/practice_yard.usda", "makes a composition cycle"),
    ("--connect=/PracticeYard/RoverA.outputs:speed=/PracticeYard/RoverB.outputs:speed", "is an output: a wire's sink is an input"),
    ("--connect=/PracticeYard/Marker.outputs:x=/PracticeYard/RoverB.outputs:speed", "is an output"),
])
def test_a_bad_value_reference_or_wire_exits_1_and_leaves_the_file_alone(scene, capsys, option, reason):
    before = scene.read_bytes()
    assert main(["edit", str(scene), "--set", "/PracticeYard/Marker.size=2", option]) == 1
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err
    assert scene.read_bytes() == before


INTS = """#usda 1.0
def Mesh "M"
{
    int[] faceVertexCounts = [3]
    int3 inputs:cells = (1, 2, 3)
    uchar inputs:level = 1
}
"""


@pytest.mark.parametrize(("option", "reason"), [
    ("/M.faceVertexCounts=[1.7]", "1.7 is not an integer (int[]); it would be stored as 1"),
    ("/M.inputs:cells=(1.5, 2, 3)", "1.5 is not an integer (int3)"),
    ("/M.inputs:level=300", "is not a uchar value"),
    ("/M.inputs:level=true", "is not a uchar value"),
])
def test_a_lossy_integer_is_refused(tmp_path, capsys, option, reason):
    path = tmp_path / "m.usda"
    path.write_text(INTS)
    assert main(["edit", str(path), "--set", option]) == 1
    assert reason in capsys.readouterr().err
    assert path.read_text() == INTS


def test_exact_integers_and_bools_are_taken(tmp_path):
    path = tmp_path / "m.usda"
    path.write_text(INTS)
    assert main(["edit", str(path), "--set", "/M.faceVertexCounts=[4, 1e1]", "--set", "/M.inputs:cells=(4, 5, 6)",
                 "--set", "/M.doubleSided=1"]) == 0
    text = path.read_text()
    assert "int[] faceVertexCounts = [4, 10]" in text and "int3 inputs:cells = (4, 5, 6)" in text
    assert "uniform bool doubleSided = 1" in text
