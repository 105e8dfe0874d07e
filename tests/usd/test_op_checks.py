"""The typed ops' checks (the workbench and ``luncosim edit`` share them): allowed tokens, exact
numbers, arrays element by element, any xformOp added to the order, outputs are no wire sinks
(except interface forwarding), and no reference that makes the scene contain itself."""

from __future__ import annotations

import pytest
from pxr import Gf, UsdGeom

from luncosim_core.twin import open_path
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import (
    AddPrim,
    AddReference,
    OpError,
    SetAttribute,
    SetConnection,
    SetXformOp,
)

SCENE = """#usda 1.0
(
    defaultPrim = "W"
)

def Xform "W"
{
    def Cube "Box"
    {
        color3f[] primvars:displayColor = [(1, 1, 1)]
        int[] inputs:counts = [1]
    }

    def Xform "Rover"
    {
        float outputs:speed.connect = </W/Rover/Odometer.outputs:speed>

        def Scope "Odometer"
        {
            float outputs:speed = 0
        }
    }

    def Scope "Other"
    {
        float outputs:speed = 0
        float inputs:speed = 0
    }

    def Scope "Prototypes"
    {
        def Cube "Rock"
        {
        }
    }
}
"""


@pytest.fixture
def doc(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    scene = writer(tmp_path / "w.usda", SCENE)
    return UsdDocument(scene, open_path(scene).twin.roots)


def _refused(doc, op, reason):
    before = doc.export_layers()
    with pytest.raises(OpError) as err:
        doc.apply(op)
    assert reason in err.value.diagnostics[0].message
    assert doc.export_layers() == before and not doc.journal.labels()


def test_a_token_outside_the_allowed_tokens_is_refused(doc):
    _refused(doc, SetAttribute(path="/W/Box", name="purpose", value="bogus"),
             "'bogus' is not an allowed token of /W/Box.purpose (allowed: default, render, proxy, guide)")
    doc.apply(SetAttribute(path="/W/Box", name="purpose", value="guide"))


@pytest.mark.parametrize(("name", "value", "reason"), [
    ("doubleSided", 1.5, "expected a bool"),
    ("inputs:counts", [1.7], "element 0: expected an integer"),
    ("primvars:displayColor", [(1.0, 0.0)], "element 0: expected 3 numbers, got 2"),
    ("primvars:displayColor", [(float("inf"), 0.0, 0.0)], "element 0: expected finite numbers"),
])
def test_values_that_do_not_fit_exactly_are_refused(doc, name, value, reason):
    _refused(doc, SetAttribute(path="/W/Box", name=name, value=value), reason)


def test_arrays_of_vectors_are_taken(doc):
    doc.apply(SetAttribute(path="/W/Box", name="primvars:displayColor", value=[(1, 0, 0), Gf.Vec3f(0, 1, 0)]))
    assert list(doc.stage.GetPrimAtPath("/W/Box").GetAttribute("primvars:displayColor").Get()) == \
        [Gf.Vec3f(1, 0, 0), Gf.Vec3f(0, 1, 0)]


def test_any_xform_op_is_created_and_ordered(doc):
    doc.apply(SetXformOp(path="/W/Box", name="xformOp:rotateY", value=30))
    doc.apply(SetXformOp(path="/W/Box", name="xformOp:orient", value=(1, 0, 0, 0)))
    doc.apply(SetXformOp(path="/W/Rover", name="xformOp:transform",
                         value=((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (4, 5, 6, 1))))
    box = doc.stage.GetPrimAtPath("/W/Box")
    assert list(box.GetAttribute("xformOpOrder").Get()) == ["xformOp:rotateY", "xformOp:orient"]
    assert str(box.GetAttribute("xformOp:orient").GetTypeName()) == "quatf"
    rover = UsdGeom.Xformable(doc.stage.GetPrimAtPath("/W/Rover"))
    assert rover.GetLocalTransformation().ExtractTranslation() == Gf.Vec3d(4, 5, 6)
    doc.apply(SetXformOp(path="/W/Box", name="xformOp:rotateY", value=45))  # in the order already: only the value
    assert list(box.GetAttribute("xformOpOrder").Get()) == ["xformOp:rotateY", "xformOp:orient"]
    for _ in range(4):
        doc.undo()
    assert not box.GetAttribute("xformOpOrder").HasAuthoredValue()


@pytest.mark.parametrize(("op", "reason"), [
    (SetXformOp(path="/W/Box", name="xformOp:spin", value=1.0), "'xformOp:spin' is not an xformOp name"),
    (SetXformOp(path="/W/Box", name="xformOp:rotateY", value=1.0, type_name="float3"),
     "an xformOp:rotateY is one of double, float, half, not float3"),
    (SetXformOp(path="/W/Box", name="xformOp:rotateY", value=(1.0, 2.0, 3.0)), "does not fit"),
    (SetXformOp(path="/W/Other", name="xformOp:rotateY", value=1.0), "is not transformable"),
])
def test_bad_xform_ops_are_refused(doc, op, reason):
    _refused(doc, op, reason)


def test_an_output_is_no_wire_sink_except_for_interface_forwarding(doc):
    _refused(doc, SetConnection(path="/W/Other", name="outputs:speed", sources=("/W/Rover.outputs:speed",)),
             "/W/Other.outputs:speed is an output: a wire's sink is an input")
    _refused(doc, SetConnection(path="/W/Rover", name="outputs:speed", sources=("/W/Other.outputs:speed",)),
             "fed only by an output of a prim inside /W/Rover")
    doc.apply(SetConnection(path="/W/Rover", name="outputs:speed", sources=("/W/Rover/Odometer.outputs:speed",)))
    doc.apply(SetConnection(path="/W/Other", name="inputs:speed", sources=("/W/Rover.outputs:speed",)))


@pytest.mark.parametrize(("asset", "reason"), [
    ("w.usda", "/W of the scene itself holds /W/Rover"),
    ("twin://w.usda", "/W of the scene itself holds /W/Rover"),
    ("./w.usda", "/W of the scene itself holds /W/Rover"),
])
def test_a_scene_referencing_itself_around_the_prim_is_refused(doc, asset, reason):
    _refused(doc, AddReference(path="/W/Rover", asset_path=asset), reason)


def test_an_asset_bringing_the_scene_back_is_refused_but_a_prototype_of_the_scene_is_taken(doc, writer):
    writer(doc.path.parent / "parts" / "back.usda",
           '#usda 1.0\n(\n    defaultPrim = "B"\n)\ndef Xform "B" (\n    references = @../w.usda@</W/Prototypes>\n)\n{\n}\n')
    _refused(doc, AddReference(path="/W/Rover", asset_path="parts/back.usda"),
             "back.usda brings the scene file w.usda in again")
    doc.apply(AddPrim(path="/W/Rock1", type_name=""))
    doc.apply(AddReference(path="/W/Rock1", asset_path="w.usda", prim_path="/W/Prototypes/Rock"))
    assert doc.stage.GetPrimAtPath("/W/Rock1").GetTypeName() == "Cube" and not doc.stage.GetCompositionErrors()
