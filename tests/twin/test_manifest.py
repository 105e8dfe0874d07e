import pytest

from luncosim_core.twin.manifest import ManifestError, load_manifest


def test_full_manifest_parses(writer, tmp_path):
    path = writer(tmp_path / "twin.toml", """
        name = "yard"
        version = "1.2.0"
        description = "a yard"
        [usd]
        default_scene = "scenes/yard.usda"
        runtime_persistence = true
        scenes = ["scenes/*.usda"]
        composition_policy = "reject_scene"
    """)
    m = load_manifest(path)
    assert (m.name, m.version, m.default_scene) == ("yard", "1.2.0", "scenes/yard.usda")
    assert m.runtime_persistence is True and m.scenes == ("scenes/*.usda",)
    assert m.composition_policy == "reject_scene"


def test_defaults(writer, tmp_path):
    m = load_manifest(writer(tmp_path / "twin.toml", 'name = "x"\n'))
    assert m.default_scene is None and m.composition_policy == "allow_partial" and not m.runtime_persistence


def test_unknown_key_names_key_file_and_line(writer, tmp_path):
    path = writer(tmp_path / "twin.toml", """
        name = "x"
        [usd]
        default_scene = "a.usda"
        defualt_policy = "oops"
    """)
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    (d,) = err.value.diagnostics
    assert d.code == "twin-manifest-unknown-key"
    assert "usd.defualt_policy" in d.message and d.line == 4 and d.layer == str(path)


def test_wrong_type_and_bad_policy_are_both_reported(writer, tmp_path):
    path = writer(tmp_path / "twin.toml", """
        name = "x"
        version = 3
        [usd]
        runtime_persistence = "yes"
        composition_policy = "whatever"
    """)
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    codes = {(d.code, d.line) for d in err.value.diagnostics}
    assert ("twin-manifest-type", 2) in codes
    assert ("twin-manifest-type", 4) in codes
    assert ("twin-manifest-value", 5) in codes


def test_toml_syntax_error_has_line(writer, tmp_path):
    path = writer(tmp_path / "twin.toml", 'name = "x"\n[usd\n')
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    assert err.value.diagnostics[0].code == "twin-manifest-syntax"
    assert err.value.diagnostics[0].line == 2


def test_default_scene_may_not_escape(writer, tmp_path):
    path = writer(tmp_path / "twin.toml", 'name = "x"\n[usd]\ndefault_scene = "../other/s.usda"\n')
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    assert err.value.diagnostics[0].line == 3
