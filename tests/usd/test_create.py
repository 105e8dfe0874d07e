"""Create: every recipe adds a working prim in one undoable step; a created rigid body falls in the
simulation; a joint created between two bodies starts seated (neither body jumps)."""

from __future__ import annotations

import pytest
from pxr import UsdGeom, UsdPhysics

from luncosim_core.sim.mirror import StageDocument, flattened_text, stage_from_text
from luncosim_core.sim.simulation import Simulation
from luncosim_core.twin import open_path
from luncosim_core.usd.create import RECIPES, create, create_joint, create_reference
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import OpError
from luncosim_core.usd.programs import is_program_prim, program_language

SCENE = """#usda 1.0
(
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "W"
{
}
"""


@pytest.fixture
def doc(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    scene = writer(tmp_path / "w.usda", SCENE)
    return UsdDocument(scene, open_path(scene).twin.roots)


def test_every_recipe_is_one_undo_step_at_a_free_name(doc):
    original = doc.export_layers()
    for kind in RECIPES:
        doc.apply(create(kind, doc.stage, "/W"))
    assert len(doc.journal.entries()) == len(RECIPES)
    stage = doc.stage
    assert stage.GetPrimAtPath("/W/Cube").GetTypeName() == "Cube"
    scene = UsdPhysics.Scene(stage.GetPrimAtPath("/W/PhysicsScene"))
    assert scene.GetGravityMagnitudeAttr().Get() == pytest.approx(1.62)
    body = stage.GetPrimAtPath("/W/Body")
    assert body.HasAPI(UsdPhysics.RigidBodyAPI) and body.HasAPI(UsdPhysics.CollisionAPI)
    assert program_language(stage.GetPrimAtPath("/W/Program")) == "modelica"
    assert is_program_prim(stage.GetPrimAtPath("/W/Scenario"))
    assert program_language(stage.GetPrimAtPath("/W/Scenario")) == "rhai"
    doc.apply(create("cube", doc.stage, "/W", at=(1.0, 2.0, 3.0)))
    cube2 = stage.GetPrimAtPath("/W/Cube_2")
    assert tuple(UsdGeom.Xformable(cube2).ComputeLocalToWorldTransform(0).ExtractTranslation()) == (1, 2, 3)
    while doc.undo():
        pass
    assert doc.export_layers() == original


def test_bad_parent_and_kind_are_refused_with_the_reason(doc):
    with pytest.raises(OpError, match="parent /Nope does not exist"):
        create("cube", doc.stage, "/Nope")
    with pytest.raises(OpError, match="unknown prim kind"):
        create("teapot", doc.stage, "/W")


def _simulate(doc):
    stage = stage_from_text(flattened_text(doc.stage))
    return Simulation(stage, roots=doc.roots, document=StageDocument(stage, doc.roots))


def test_a_created_body_falls_and_a_created_joint_starts_seated(doc):
    doc.apply(create("physics_scene", doc.stage, "/W"))
    doc.apply(create("rigid_body", doc.stage, "/W", at=(0.0, 5.0, 0.0)))
    doc.apply(create("rigid_body", doc.stage, "/W", at=(1.0, 5.0, 0.0)))
    doc.apply(create_joint(doc.stage, "/W", "/W/Body", "/W/Body_2", joint_type="PhysicsFixedJoint"))
    doc.apply(create("rigid_body", doc.stage, "/W", at=(5.0, 5.0, 0.0)))
    sim = _simulate(doc)
    try:
        assert not [d for d in sim.diagnostics if d.is_error]
        sim.run(30)
        p0, p1 = (sim.world_pose(p)[0] for p in ("/W/Body", "/W/Body_2"))
        free = sim.world_pose("/W/Body_3")[0]
        assert free[1] < 5.0 and p0[1] == pytest.approx(free[1], abs=1e-3)  # falling like a free body ...
        assert p1[0] - p0[0] == pytest.approx(1.0, abs=1e-3) and p1[1] == pytest.approx(p0[1], abs=1e-3)  # ... held apart
    finally:
        sim.close()


def test_a_reference_to_a_library_asset_is_placed(doc):
    doc.apply(create_reference(doc.stage, "/W", "lunco://vessels/rovers/yard_rover.usda", at=(2.0, 0.0, 0.0)))
    rover = doc.stage.GetPrimAtPath("/W/yard_rover")
    assert rover and doc.stage.GetPrimAtPath("/W/yard_rover/Chassis")
    assert tuple(rover.GetAttribute("xformOp:translate").Get()) == (2, 0, 0)


def test_a_value_outside_the_declared_bounds_is_refused_naming_the_bound(doc):
    from luncosim_core.usd.ops import SetAttribute

    doc.apply(create("scope", doc.stage, "/W", name="Panel"))
    from pxr import Sdf

    # a port with bounds, as assets declare them
    spec = Sdf.AttributeSpec(doc.base.GetPrimAtPath("/W/Panel"), "inputs:throttle", Sdf.ValueTypeNames.Float)
    spec.SetInfo("customData", {"min": -1.0, "max": 1.0})
    with pytest.raises(OpError, match=r"50 is above the maximum 1 of /W/Panel.inputs:throttle \(customData max\)"):
        doc.apply(SetAttribute(path="/W/Panel", name="inputs:throttle", value=50.0))
    with pytest.raises(OpError, match="below the minimum -1"):
        doc.apply(SetAttribute(path="/W/Panel", name="inputs:throttle", value=-2))
    doc.apply(SetAttribute(path="/W/Panel", name="inputs:throttle", value=0.5))


def test_a_physics_scene_pulls_down_the_stage_up_axis(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "z.usda"\n')
    scene = writer(tmp_path / "z.usda", SCENE.replace('upAxis = "Y"', 'upAxis = "Z"'))
    doc = UsdDocument(scene, open_path(scene).twin.roots)
    doc.apply(create("physics_scene", doc.stage, "/W", at=(1.0, 2.0, 3.0)))  # a place it cannot take is ignored
    physics = UsdPhysics.Scene(doc.stage.GetPrimAtPath("/W/PhysicsScene"))
    assert tuple(physics.GetGravityDirectionAttr().Get()) == (0.0, 0.0, -1.0)
    assert physics.GetGravityMagnitudeAttr().Get() == pytest.approx(1.62)
