"""New Twin: ``new_twin`` / ``luncosim new`` make a folder with ``twin.toml`` and a scene at lunar
gravity (down the up axis) with an optional ground, which ``luncosim validate`` accepts with no
error; a folder that is not empty is refused with the reason and nothing is written."""

from __future__ import annotations

import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from luncosim_core.cli import main
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.lint import validate_lint
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin import open_path
from luncosim_core.twin.manifest import load_manifest
from luncosim_core.usd.create import create
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.new_twin import new_twin
from luncosim_core.usd.validate import validate_path


def _physics(scene):
    stage = Usd.Stage.Open(str(scene))
    scenes = [p for p in stage.Traverse() if p.IsA(UsdPhysics.Scene)]
    assert len(scenes) == 1
    s = UsdPhysics.Scene(scenes[0])
    return stage, tuple(s.GetGravityDirectionAttr().Get()), s.GetGravityMagnitudeAttr().Get()


@pytest.mark.parametrize(("up", "down"), [("Y", (0.0, -1.0, 0.0)), ("Z", (0.0, 0.0, -1.0))])
def test_a_new_twin_validates_with_no_error(tmp_path, up, down):
    made = new_twin(tmp_path / "outpost", "Lunar Outpost", up_axis=up)
    assert made.scene == tmp_path / "outpost" / "scenes" / "lunar_outpost.usda"
    manifest = load_manifest(made.manifest)
    assert manifest.name == "Lunar Outpost" and manifest.default_scene == "scenes/lunar_outpost.usda"
    assert open_path(made.root).scene == made.scene.resolve()
    diags = validate_path(made.root, lint=validate_lint)
    assert not [d for d in diags if d.is_error], diags
    stage, direction, magnitude = _physics(made.scene)
    assert direction == down and magnitude == pytest.approx(1.62)
    assert UsdGeom.GetStageUpAxis(stage) == up and UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    ground = stage.GetPrimAtPath("/LunarOutpost/Ground")
    assert ground.HasAPI(UsdPhysics.CollisionAPI)
    top = UsdGeom.Imageable(ground).ComputeWorldBound(Usd.TimeCode.Default(), "default").ComputeAlignedRange().GetMax()
    assert top[1 if up == "Y" else 2] == pytest.approx(0.0)


def test_a_body_falls_onto_the_new_ground_at_lunar_gravity(tmp_path):
    made = new_twin(tmp_path / "t")
    doc = UsdDocument(made.scene, open_path(made.root).twin.roots)
    doc.apply(create("rigid_body", doc.stage, "/T", at=(0.0, 2.0, 0.0)))
    doc.save()
    sim = open_simulation(made.scene)
    try:
        sim.run(60)  # 1 s: free fall at 1.62 m/s^2 covers 0.81 m
        assert sim.world_pose("/T/Body")[0][1] == pytest.approx(2.0 - 0.81, abs=0.03)
        sim.run(600)
        assert sim.world_pose("/T/Body")[0][1] == pytest.approx(0.25, abs=0.02)  # resting on the ground
    finally:
        sim.close()


def test_without_ground_and_in_an_existing_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    made = new_twin(tmp_path / "empty", ground=False)
    stage = Usd.Stage.Open(str(made.scene))
    assert [str(p.GetPath()) for p in stage.Traverse()] == ["/Empty", "/Empty/PhysicsScene"]


@pytest.mark.parametrize(("setup", "reason"), [
    (lambda d: (d.mkdir(), (d / "notes.txt").write_text("x")), "is not empty (1 entry)"),
    (lambda d: d.write_text("x"), "exists and is not a folder"),
])
def test_a_folder_that_is_not_empty_is_refused_and_left_alone(tmp_path, setup, reason):
    target = tmp_path / "t"
    setup(target)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(DiagnosticError) as err:
        new_twin(target)
    assert reason in err.value.diagnostics[0].message
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, no temporary folder left


def test_the_new_verb(tmp_path, capsys):
    assert main(["new", str(tmp_path / "base"), "--name", "Base", "--no-ground"]) == 0
    assert "new twin with twin.toml and scenes/base.usda" in capsys.readouterr().out
    assert main(["validate", str(tmp_path / "base")]) == 0
    assert "0 error(s)" in capsys.readouterr().out
    assert main(["new", str(tmp_path / "base")]) == 1
    assert "is not empty" in capsys.readouterr().err
