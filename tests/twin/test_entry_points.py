from pathlib import Path

from luncosim_core.twin import open_path

SCENE = """
#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "W"
{
}
"""


def test_twin_with_default_scene_opens_that_stage(writer, tmp_path):
    writer(tmp_path / "twin.toml", 'name = "t"\n[usd]\ndefault_scene = "s/main.usda"\n')
    writer(tmp_path / "s/main.usda", SCENE)
    writer(tmp_path / "s/other.usda", SCENE)
    res = open_path(tmp_path)
    assert res.scene == (tmp_path / "s/main.usda").resolve() and not res.preview
    # the other file is library, indexed, not mounted
    assert (tmp_path / "s/other.usda").resolve() in [p.resolve() for p in res.twin.library()]


def test_twin_without_default_scene_has_no_scene(writer, tmp_path):
    writer(tmp_path / "twin.toml", 'name = "t"\n')
    writer(tmp_path / "a.usda", SCENE)
    res = open_path(tmp_path)
    assert res.scene is None and "no scene selected" in res.reason


def test_folder_without_manifest_indexes_and_previews(writer, tmp_path):
    writer(tmp_path / "a.usda", SCENE)
    writer(tmp_path / "sub/b.usda", SCENE)
    res = open_path(tmp_path)
    assert res.scene is None and res.twin.is_folder_twin
    assert [p.name for p in res.twin.library()] == ["a.usda", "b.usda"]
    prev = open_path(tmp_path, preview=tmp_path / "sub/b.usda")
    assert prev.preview and prev.scene == (tmp_path / "sub/b.usda").resolve()


def test_loose_scene_file_makes_its_folder_a_twin(writer, tmp_path):
    f = writer(tmp_path / "loose/x.usda", SCENE)
    res = open_path(f)
    assert res.scene == f.resolve()
    assert res.twin.root == (tmp_path / "loose").resolve() and res.twin.is_folder_twin


def test_loose_scene_inside_a_twin_belongs_to_it(writer, tmp_path):
    writer(tmp_path / "twin.toml", 'name = "owner"\n')
    f = writer(tmp_path / "deep/x.usda", SCENE)
    res = open_path(f)
    assert res.twin.name == "owner" and res.scene == f.resolve()


def test_bundled_demo_twin_has_its_default_scene(demo_twin: Path):
    res = open_path(demo_twin)
    assert res.scene is not None and res.scene.exists()
    assert res.twin.name == "practice-yard"
