"""UsdDocument: typed ops, the journal, exact undo, dirty tracking, atomic save, external edits."""

import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from luncosim_core.twin.roots import AssetRoots
from luncosim_core.usd.document import ExternalChangeConflict, UsdDocument
from luncosim_core.usd.ops import (
    AddPrim,
    AddReference,
    Batch,
    MovePrim,
    OpError,
    RemovePrim,
    RemoveReference,
    RenamePrim,
    SetApiSchemas,
    SetAttribute,
    SetConnection,
    SetTransform,
    SetVariantSelection,
)

SCENE = """\
#usda 1.0
(
    defaultPrim = "World"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "World"
{
    def Xform "Rover" (
        variants = {
            string look = "clean"
        }
        prepend variantSets = "look"
    )
    {
        float inputs:throttle = 0
        float outputs:speed = 0
        double3 xformOp:translate = (1, 2, 3)
        uniform token[] xformOpOrder = ["xformOp:translate"]

        def Cube "Body"
        {
            double size = 1
        }

        def Cube "Arm"
        {
        }

        def Cube "Leg"
        {
        }
        variantSet "look" = {
            "clean" {
                double dust = 0
            }
            "dusty" {
                double dust = 1
            }
        }
    }

    def Scope "Controller"
    {
        float outputs:throttle = 0
    }
}
"""

PART = """\
#usda 1.0
(
    defaultPrim = "Part"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "Part"
{
    def Sphere "Ball"
    {
    }
}
"""


@pytest.fixture
def twin(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "twin").mkdir()
    (tmp_path / "twin" / "scene.usda").write_text(SCENE)
    (tmp_path / "lib" / "part.usda").write_text(PART)
    return tmp_path


def make_doc(twin, **kw) -> UsdDocument:
    roots = AssetRoots(twin_root=twin / "twin", lunco_root=twin / "lib")
    return UsdDocument(twin / "twin" / "scene.usda", roots, **kw)


def test_set_attribute_keeps_authored_type_and_undoes(twin):
    doc = make_doc(twin)
    before = doc.export_layers()
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.75))
    attr = doc.stage.GetPrimAtPath("/World/Rover").GetAttribute("inputs:throttle")
    assert str(attr.GetTypeName()) == "float" and attr.Get() == pytest.approx(0.75)
    assert doc.dirty
    doc.undo()
    assert doc.export_layers() == before
    doc.redo()
    assert attr.Get() == pytest.approx(0.75)


def test_every_edit_names_its_author_through_undo_and_redo(twin):
    doc = make_doc(twin)
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.5))
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.25), author="script")
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.125), author="api")
    assert [e.author for e in doc.journal.entries()] == ["user", "script", "api"]
    assert doc.undo() and doc.undo() and doc.redo()
    assert [e.author for e in doc.journal.entries()] == ["user", "script", "api"]
    assert doc.journal.position == 2


def test_preconditions_fail_cleanly_and_change_nothing(twin):
    doc = make_doc(twin)
    before = doc.export_layers()
    bad = [
        SetAttribute(path="/World/Nope", name="x", value=1.0, type_name="double"),
        SetAttribute(path="/World/Rover", name="inputs:throttle", value="fast"),
        SetAttribute(path="/World/Rover", name="inputs:throttle", value=float("nan")),
        SetAttribute(path="/World/Rover", name="newattr", value=1.0),  # no type given
        SetConnection(path="/World/Rover", name="inputs:throttle", sources=("/World/Controller.outputs:missing",)),
        SetConnection(path="/World/Rover", name="inputs:throttle", sources=("/World/Ghost.outputs:throttle",)),
        AddPrim(path="/World/Rover"),
        AddPrim(path="/World/No/Parent"),
        RemovePrim(path="/World/Nothing"),
        SetVariantSelection(path="/World/Rover", variant_set="look", selection="shiny"),
        SetVariantSelection(path="/World/Rover", variant_set="size", selection="big"),
        SetTransform(path="/World/Rover", translate=(1.0, float("inf"), 0.0)),
        MovePrim(path="/World/Rover/Arm", new_path="/World/Rover/Leg"),
        AddReference(path="/World/Rover", asset_path="lunco://../escape.usda"),
        AddReference(path="/World/Rover", asset_path="lunco://absent.usda"),
        SetAttribute(path="/World/Rover", name="inputs:throttle", value=1.0, target="scratch"),
    ]
    for op in bad:
        with pytest.raises(OpError) as err:
            doc.apply(op)
        assert err.value.diagnostics[0].message
    assert doc.export_layers() == before
    assert not doc.journal.can_undo and not doc.dirty


def test_connection_variant_transform_reference_schemas(twin):
    doc = make_doc(twin)
    before = doc.export_layers()
    doc.apply(SetConnection(path="/World/Rover", name="inputs:throttle", sources=("/World/Controller.outputs:throttle",)))
    attr = doc.stage.GetPrimAtPath("/World/Rover").GetAttribute("inputs:throttle")
    assert [str(p) for p in attr.GetConnections()] == ["/World/Controller.outputs:throttle"]
    doc.apply(SetVariantSelection(path="/World/Rover", variant_set="look", selection="dusty"))
    assert doc.stage.GetPrimAtPath("/World/Rover").GetAttribute("dust").Get() == 1
    doc.apply(SetTransform(path="/World/Rover", translate=(4, 5, 6), rotate_xyz=(0, 90, 0), scale=(2, 2, 2)))
    prim = doc.stage.GetPrimAtPath("/World/Rover")
    assert list(prim.GetAttribute("xformOpOrder").Get()) == ["xformOp:translate", "xformOp:rotateXYZ", "xformOp:scale"]
    doc.apply(AddReference(path="/World/Rover/Body", asset_path="lunco://part.usda"))
    assert doc.stage.GetPrimAtPath("/World/Rover/Body/Ball").IsValid()
    doc.apply(SetApiSchemas(path="/World/Rover", schemas=("PhysicsRigidBodyAPI",)))
    assert "PhysicsRigidBodyAPI" in doc.stage.GetPrimAtPath("/World/Rover").GetAppliedSchemas()
    doc.apply(RemoveReference(path="/World/Rover/Body", asset_path="lunco://part.usda"))
    assert not doc.stage.GetPrimAtPath("/World/Rover/Body/Ball").IsValid()
    assert doc.journal.labels()[0].startswith("wire")
    while doc.undo():
        pass
    assert doc.export_layers() == before


def test_batch_undoes_as_one_unit_and_failed_batch_changes_nothing(twin):
    doc = make_doc(twin)
    before = doc.export_layers()
    doc.apply(Batch(ops=(AddPrim(path="/World/Probe", type_name="Sphere"),
                         SetAttribute(path="/World/Probe", name="radius", value=2.0)), name="add probe"))
    assert doc.stage.GetPrimAtPath("/World/Probe").GetAttribute("radius").Get() == 2.0
    doc.undo()
    assert doc.export_layers() == before
    with pytest.raises(OpError):
        doc.apply(Batch(ops=(AddPrim(path="/World/Probe2"), RemovePrim(path="/World/Ghost"))))
    assert doc.export_layers() == before


def test_remove_and_rename_restore_position(twin):
    doc = make_doc(twin)
    before = doc.export_layers()
    doc.apply(RemovePrim(path="/World/Rover/Arm"))
    doc.apply(RenamePrim("/World/Rover/Body", "Hull"))
    assert doc.stage.GetPrimAtPath("/World/Rover/Hull").IsValid()
    doc.undo()
    doc.undo()
    assert doc.export_layers() == before


def test_runtime_target_does_not_touch_source_and_persists(twin):
    sidecar = twin / "twin" / ".lunco" / "runtime" / "scene.usda"
    doc = make_doc(twin, runtime_sidecar=sidecar, persist_runtime=True)
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.5, target="runtime"))
    assert not doc.base.dirty and doc.dirty
    doc.save()
    assert (twin / "twin" / "scene.usda").read_text() == SCENE
    assert sidecar.exists()
    again = make_doc(twin, runtime_sidecar=sidecar, persist_runtime=True)
    assert again.stage.GetPrimAtPath("/World/Rover").GetAttribute("inputs:throttle").Get() == pytest.approx(0.5)


def test_view_layer_is_never_saved(twin):
    doc = make_doc(twin)
    doc.set_view("/World/Rover", "primvars:displayColor", [(1, 0, 0)], "color3f[]")
    assert not doc.dirty and not doc.journal.can_undo
    assert "displayColor" not in doc.export_layers()["base"]


def test_save_is_atomic_and_clean(twin):
    doc = make_doc(twin)
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.25))
    doc.save()
    assert not doc.dirty
    assert "inputs:throttle = 0.25" in (twin / "twin" / "scene.usda").read_text()
    assert not list((twin / "twin").glob(".*.tmp"))


def test_external_edit_is_detected_and_never_silently_overwritten(twin):
    doc = make_doc(twin)
    path = twin / "twin" / "scene.usda"
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.25))
    path.write_text(SCENE.replace("float outputs:speed = 0", "float outputs:speed = 9"))
    assert doc.external_change()
    with pytest.raises(ExternalChangeConflict):
        doc.save()
    with pytest.raises(ExternalChangeConflict):
        doc.reload()
    assert "outputs:speed = 9" in path.read_text()  # the other editor's work is intact
    doc.reload(discard=True)
    assert doc.stage.GetPrimAtPath("/World/Rover").GetAttribute("outputs:speed").Get() == 9


def test_crash_mid_save_leaves_old_file_intact(twin):
    path = twin / "twin" / "scene.usda"
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from luncosim_core.twin.roots import AssetRoots
        from luncosim_core.usd.document import UsdDocument
        from luncosim_core.usd.ops import SetAttribute
        roots = AssetRoots(twin_root=Path({str(twin / 'twin')!r}), lunco_root=Path({str(twin / 'lib')!r}))
        doc = UsdDocument(Path({str(path)!r}), roots)
        doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.9))
        real_fsync = os.fsync
        def crash(fd):
            os._exit(17)  # power cut after writing the temporary file, before the rename
        os.fsync = crash
        doc.save()
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 17, proc.stderr
    assert path.read_text() == SCENE


# ----------------------------------------------------------------- property test: exact undo
PATHS = ["/World", "/World/Rover", "/World/Rover/Body", "/World/Rover/Arm", "/World/Controller", "/World/New", "/World/Rover/New"]

op_strategy = st.one_of(
    st.builds(lambda p, v, t: SetAttribute(path=p, name="custom:value", value=v, type_name="double", target=t),
              st.sampled_from(PATHS), st.floats(-1e3, 1e3, allow_nan=False), st.sampled_from(["base", "runtime"])),
    st.builds(lambda v, t: SetAttribute(path="/World/Rover", name="inputs:throttle", value=v, target=t),
              st.floats(-1, 1, allow_nan=False), st.sampled_from(["base", "runtime"])),
    st.builds(lambda p, t: AddPrim(path=p, type_name="Xform", target=t), st.sampled_from(["/World/New", "/World/Rover/New", "/World/New2"]), st.sampled_from(["base", "runtime"])),
    st.builds(lambda p: RemovePrim(path=p), st.sampled_from(PATHS[1:])),
    st.builds(lambda p, n: RenamePrim(p, n), st.sampled_from(["/World/Rover/Arm", "/World/Controller", "/World/New"]), st.sampled_from(["Renamed", "Other"])),
    st.builds(lambda s, t: SetVariantSelection(path="/World/Rover", variant_set="look", selection=s, target=t),
              st.sampled_from(["clean", "dusty"]), st.sampled_from(["base", "runtime"])),
    st.builds(lambda p, x, t: SetTransform(path=p, translate=(x, 0.0, 1.0), rotate_xyz=(0.0, x, 0.0), target=t),
              st.sampled_from(PATHS[1:4]), st.floats(-10, 10, allow_nan=False), st.sampled_from(["base", "runtime"])),
    st.builds(lambda p: AddReference(path=p, asset_path="lunco://part.usda"), st.sampled_from(PATHS[1:4])),
    st.builds(lambda p: SetApiSchemas(path=p, schemas=("PhysicsRigidBodyAPI", "PhysicsMassAPI")), st.sampled_from(PATHS[:4])),
    st.builds(lambda t: SetConnection(path="/World/Rover", name="inputs:throttle", sources=("/World/Controller.outputs:throttle",), target=t),
              st.sampled_from(["base", "runtime"])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(op_strategy, min_size=1, max_size=12))
def test_random_ops_then_undo_all_gives_byte_identical_layers(twin, ops):
    doc = make_doc(twin)
    before = doc.export_layers()
    applied = 0
    for op in ops:
        try:
            doc.apply(op)
            applied += 1
        except OpError:
            pass
    after = doc.export_layers()
    for _ in range(applied):
        assert doc.undo()
    assert not doc.journal.can_undo
    assert doc.export_layers() == before
    for _ in range(applied):
        assert doc.redo()
    assert doc.export_layers() == after


def test_undo_back_to_the_saved_state_is_clean(twin):
    doc = make_doc(twin)
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.25))
    doc.save()
    assert not doc.dirty
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.5))
    assert doc.dirty
    doc.undo()
    assert not doc.dirty  # back where the file is
    doc.undo()
    assert doc.dirty  # before the save: differs from the file
    doc.redo()
    assert not doc.dirty
    doc.undo()
    doc.apply(SetAttribute(path="/World/Rover", name="inputs:throttle", value=0.25))
    assert doc.dirty  # same value, but a different edit history than the saved one
