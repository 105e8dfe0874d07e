"""The prim tree: lazy rows over a real composed stage, markers, USD change notices, filtering."""

from __future__ import annotations

from pathlib import Path

from luncosim_core.twin import open_path
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import AddPrim, RemovePrim, SetAttribute
from luncosim_workbench.panels.assembly.prim_tree import PrimFilterProxy, PrimTreeModel
from luncosim_workbench.testing import SCENE_REL

PART = """#usda 1.0
(
    defaultPrim = "Part"
)
def Xform "Part"
{
    def Cube "Body" {}
}
"""

SCENE = """#usda 1.0
(
    defaultPrim = "World"
)
def Xform "World" (
    kind = "assembly"
)
{
    def Xform "Arm" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI"]
        variants = { string finish = "matte" }
        prepend variantSets = "finish"
    )
    {
        double size = 1
        variantSet "finish" = {
            "matte" { }
            "gloss" { }
        }
        def Cube "Link" { double size = 2 }
    }
    def Xform "Tool" (
        prepend references = @part.usda@
    )
    {
    }
}
"""


def _doc(tmp_path: Path) -> UsdDocument:
    (tmp_path / "part.usda").write_text(PART)
    scene = tmp_path / "scene.usda"
    scene.write_text(SCENE)
    res = open_path(scene)
    return UsdDocument(res.scene, res.twin.roots)


def _names(model, parent):
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def test_tree_shows_composed_prims_with_type_kind_and_markers(qtbot, tmp_path):
    doc = _doc(tmp_path)
    model = PrimTreeModel(doc.stage)
    world = model.index_for_path("/World")
    assert world.isValid() and model.rowCount() == 1
    assert _names(model, world) == ["Arm", "Tool"]
    assert world.siblingAtColumn(2).data() == "assembly"
    arm = model.index_for_path("/World/Arm")
    assert arm.siblingAtColumn(1).data() == "Xform"
    badges = arm.siblingAtColumn(3).data()
    assert "[PhysicsRigidBody]" in badges and "[finish=matte]" in badges
    tool = model.index_for_path("/World/Tool")
    assert "[ref]" in tool.siblingAtColumn(3).data()
    # the referenced asset's children are composed in
    assert _names(model, tool) == ["Body"]
    assert model.path_for_index(model.index_for_path("/World/Tool/Body")) == "/World/Tool/Body"
    assert not model.index_for_path("/World/Missing").isValid()
    model.close()


def test_children_are_read_lazily(qtbot, tmp_path):
    doc = _doc(tmp_path)
    model = PrimTreeModel(doc.stage)
    assert model._root.children is None
    model.rowCount()
    world_node = model._root.children[0]
    assert world_node.children is None  # not read until asked
    assert model.hasChildren(model.index(0, 0))
    assert world_node.children is None
    model.close()


def test_resync_notices_insert_and_remove_rows(qtbot, tmp_path):
    doc = _doc(tmp_path)
    model = PrimTreeModel(doc.stage)
    world = model.index_for_path("/World")
    assert model.rowCount(world) == 2
    with qtbot.waitSignal(model.rowsInserted, timeout=1000):
        doc.apply(AddPrim(path="/World/Beacon", type_name="Sphere"))
    assert _names(model, model.index_for_path("/World")) == ["Arm", "Tool", "Beacon"]
    with qtbot.waitSignal(model.rowsRemoved, timeout=1000):
        doc.apply(RemovePrim(path="/World/Arm"))
    assert _names(model, model.index_for_path("/World")) == ["Tool", "Beacon"]
    doc.undo()
    assert _names(model, model.index_for_path("/World")) == ["Arm", "Tool", "Beacon"]
    model.close()


def test_info_only_change_repaints_the_row(qtbot, tmp_path):
    doc = _doc(tmp_path)
    model = PrimTreeModel(doc.stage)
    arm = model.index_for_path("/World/Arm")
    rows_before = model.rowCount(model.index_for_path("/World"))
    with qtbot.waitSignal(model.dataChanged, timeout=1000) as blocker:
        doc.apply(SetAttribute(path="/World/Arm", name="size", value=3.0))
    assert blocker.args[0].internalPointer() is arm.internalPointer()
    assert model.rowCount(model.index_for_path("/World")) == rows_before
    model.close()


def test_filter_keeps_matches_and_their_ancestors(qtbot, tmp_path):
    doc = _doc(tmp_path)
    model = PrimTreeModel(doc.stage)
    proxy = PrimFilterProxy()
    proxy.setSourceModel(model)
    proxy.setFilterFixedString("link")
    world = proxy.index(0, 0)
    assert world.data() == "World"
    assert proxy.rowCount(world) == 1
    arm = proxy.index(0, 0, world)
    assert arm.data() == "Arm" and proxy.index(0, 0, arm).data() == "Link"
    model.close()


def test_demo_twin_tree_is_populated(opened):
    editor = opened.panels["assembly"]
    model = editor.model
    yard = model.index_for_path("/PracticeYard")
    names = _names(model, yard)
    assert {"Ground", "RoverA", "RoverB", "PhysicsScene"} <= set(names)
    assert editor.view.model().rowCount() >= 1
    assert opened.session.scene == (opened.session.twin.root / SCENE_REL).resolve()
