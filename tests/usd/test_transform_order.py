"""SetTransform keeps the prim's authored ``xformOpOrder``: setting an op it has only changes that
value (a rotate-then-translate prim, a pivot stack stay where they are); a missing op is inserted
without reordering the others (translate first, rotate before scale, scale last)."""

from __future__ import annotations

import pytest
from pxr import Gf, Usd, UsdGeom

from luncosim_core.twin import open_path
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import SetTransform, insert_xform_op

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "W"
{
    def Xform "Orbit"
    {
        float3 xformOp:rotateXYZ = (0, 90, 0)
        double3 xformOp:translate = (2, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:rotateXYZ", "xformOp:translate"]
    }

    def Xform "Pivoted"
    {
        double3 xformOp:translate = (1, 0, 0)
        double3 xformOp:translate:pivot = (0, 0, 1)
        float3 xformOp:rotateXYZ = (0, 0, 0)
        float3 xformOp:scale = (2, 2, 2)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:translate:pivot", "xformOp:rotateXYZ", "xformOp:scale", "!invert!xformOp:translate:pivot"]
    }

    def Xform "Scaled"
    {
        float3 xformOp:rotateXYZ = (0, 0, 30)
        double3 xformOp:scale = (2, 2, 2)
        uniform token[] xformOpOrder = ["xformOp:rotateXYZ", "xformOp:scale"]
    }

    def Xform "Moved"
    {
        double3 xformOp:translate = (0, 0, 5)
        double3 xformOp:scale = (1, 3, 1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
}
"""


@pytest.fixture
def doc(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    scene = writer(tmp_path / "w.usda", SCENE)
    return UsdDocument(scene, open_path(scene).twin.roots)


def _order(doc, path):
    return list(doc.stage.GetPrimAtPath(path).GetAttribute("xformOpOrder").Get())


def _world(doc, path) -> Gf.Matrix4d:
    return UsdGeom.Xformable(doc.stage.GetPrimAtPath(path)).ComputeLocalToWorldTransform(Usd.TimeCode.Default())


def test_setting_translate_to_its_value_on_a_rotate_first_prim_moves_nothing(doc):
    before = _world(doc, "/W/Orbit")
    original = doc.path.read_bytes()
    doc.apply(SetTransform(path="/W/Orbit", translate=(2.0, 0.0, 0.0)))
    assert _order(doc, "/W/Orbit") == ["xformOp:rotateXYZ", "xformOp:translate"]
    assert Gf.IsClose(_world(doc, "/W/Orbit"), before, 1e-9)
    doc.save()
    assert doc.path.read_bytes() == original  # nothing changed, nothing written


def test_a_pivot_stack_keeps_its_order_and_rotates_about_the_pivot(doc):
    # the stack Omniverse Kit authors: the scale sits inside the pivot, before its inverse
    doc.apply(SetTransform(path="/W/Pivoted", rotate_xyz=(0.0, 90.0, 0.0), scale=(2.0, 2.0, 2.0)))
    assert _order(doc, "/W/Pivoted") == ["xformOp:translate", "xformOp:translate:pivot", "xformOp:rotateXYZ",
                                          "xformOp:scale", "!invert!xformOp:translate:pivot"]
    origin = _world(doc, "/W/Pivoted").Transform(Gf.Vec3d(0, 0, 1))  # the pivot point stays put
    assert Gf.IsClose(origin, Gf.Vec3d(1, 0, 1), 1e-9)


def test_a_missing_op_is_inserted_without_reordering_the_others(doc):
    doc.apply(SetTransform(path="/W/Scaled", translate=(1.0, 2.0, 3.0)))
    assert _order(doc, "/W/Scaled") == ["xformOp:translate", "xformOp:rotateXYZ", "xformOp:scale"]
    doc.apply(SetTransform(path="/W/Moved", rotate_xyz=(0.0, 45.0, 0.0)))
    assert _order(doc, "/W/Moved") == ["xformOp:translate", "xformOp:rotateXYZ", "xformOp:scale"]
    doc.apply(SetTransform(path="/W/Orbit", scale=(1.0, 1.0, 2.0)))
    assert _order(doc, "/W/Orbit") == ["xformOp:rotateXYZ", "xformOp:translate", "xformOp:scale"]


def test_undo_gives_the_order_back(doc):
    before = doc.export_layers()
    doc.apply(SetTransform(path="/W/Scaled", translate=(1.0, 2.0, 3.0), scale=(1.0, 1.0, 1.0)))
    doc.undo()
    assert doc.export_layers() == before


@pytest.mark.parametrize(("order", "name", "expected"), [
    ([], "xformOp:rotateY", ["xformOp:rotateY"]),
    (["xformOp:translate", "xformOp:scale"], "xformOp:orient", ["xformOp:translate", "xformOp:orient", "xformOp:scale"]),
    (["xformOp:rotateXYZ"], "xformOp:translate:pivot",
     ["xformOp:translate:pivot", "xformOp:rotateXYZ", "!invert!xformOp:translate:pivot"]),
    (["xformOp:translate", "xformOp:rotateXYZ", "xformOp:scale"], "xformOp:translate:pivot",
     ["xformOp:translate", "xformOp:translate:pivot", "xformOp:rotateXYZ", "xformOp:scale",
      "!invert!xformOp:translate:pivot"]),
    (["xformOp:translate", "!invert!xformOp:scale"], "xformOp:rotateX:tilt",
     ["xformOp:translate", "xformOp:rotateX:tilt", "!invert!xformOp:scale"]),
    (["xformOp:translate"], "xformOp:transform", ["xformOp:translate", "xformOp:transform"]),
    (["xformOp:translate", "xformOp:translate:pivot", "!invert!xformOp:translate:pivot"], "xformOp:scale",
     ["xformOp:translate", "xformOp:translate:pivot", "xformOp:scale", "!invert!xformOp:translate:pivot"]),
    (["xformOp:translate:pivot", "!invert!xformOp:translate:pivot"], "xformOp:rotateZ",
     ["xformOp:translate:pivot", "xformOp:rotateZ", "!invert!xformOp:translate:pivot"]),
])
def test_insert_xform_op(order, name, expected):
    insert_xform_op(order, name)
    assert order == expected
