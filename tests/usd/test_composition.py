"""Composition over real files: every arc, URIs, escapes, missing arcs, policies, malformed layers."""

import os
from pathlib import Path

import pytest

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.twin.roots import AssetRoots
from luncosim_core.usd.compose import CompositionRejected, compose

HEADER = '#usda 1.0\n(\n    defaultPrim = "{root}"\n    upAxis = "Y"\n    metersPerUnit = 1\n{extra})\n'


def usda(root: str, body: str, extra: str = "") -> str:
    return HEADER.format(root=root, extra=extra) + body


@pytest.fixture
def roots(tmp_path):
    lib = tmp_path / "lib"
    twin = tmp_path / "twin"
    lib.mkdir()
    twin.mkdir()
    return AssetRoots(twin_root=twin, lunco_root=lib)


def codes(composed):
    return [d.code for d in composed.diagnostics]


def test_every_arc_type_composes(writer, roots):
    lib, twin = roots.lunco_root, roots.twin_root
    writer(lib / "rover.usda", usda("Rover", 'def Xform "Rover"\n{\n    def Cube "Body"\n    {\n    }\n}\n'))
    writer(twin / "terrain.usda", usda("T", 'def Xform "T"\n{\n    def Cube "Rock"\n    {\n    }\n}\n'))
    writer(twin / "lighting.usda", usda("Sun", 'def Xform "Sun"\n{\n}\n'))
    writer(twin / "scene.usda", usda("W", '''
def Xform "_Base"
{
    double inherited = 1
}
def Xform "_Spec"
{
    double specialized = 2
}
def Xform "W"
{
    def Xform "Ref" (
        prepend references = @lunco://rover.usda@
    )
    {
    }
    def Xform "Pay" (
        prepend payload = @twin://terrain.usda@
    )
    {
    }
    def Xform "Inh" (
        inherits = </_Base>
    )
    {
    }
    def Xform "Spe" (
        specializes = </_Spec>
    )
    {
    }
    def Xform "Var" (
        variants = {
            string look = "dusty"
        }
        prepend variantSets = "look"
    )
    {
        variantSet "look" = {
            "clean" {
                double dust = 0
            }
            "dusty" {
                double dust = 1
            }
        }
    }
}
''', extra='    subLayers = [@./lighting.usda@]\n'))
    c = compose(twin / "scene.usda", roots)
    s = c.stage
    assert s.GetPrimAtPath("/W/Ref/Body").IsValid()
    assert s.GetPrimAtPath("/W/Pay/Rock").IsValid()
    assert s.GetPrimAtPath("/Sun").IsValid()
    assert s.GetPrimAtPath("/W/Inh").GetAttribute("inherited").Get() == 1
    assert s.GetPrimAtPath("/W/Spe").GetAttribute("specialized").Get() == 2
    assert s.GetPrimAtPath("/W/Var").GetAttribute("dust").Get() == 1
    assert not [d for d in c.diagnostics if d.is_error], c.diagnostics


def test_uris_resolve_nested_inside_referenced_assets(writer, roots):
    lib, twin = roots.lunco_root, roots.twin_root
    writer(lib / "parts/wheel.usda", usda("Wheel", 'def Cylinder "Wheel"\n{\n}\n'))
    writer(lib / "rover.usda", usda("Rover", 'def Xform "Rover"\n{\n    def "W" (\n        prepend references = @lunco://parts/wheel.usda@\n    )\n    {\n    }\n    def "L" (\n        prepend references = @twin://local.usda@\n    )\n    {\n    }\n}\n'))
    writer(twin / "local.usda", usda("Local", 'def Sphere "Local"\n{\n}\n'))
    writer(twin / "scene.usda", usda("S", 'def Xform "S" (\n    prepend references = @lunco://rover.usda@\n)\n{\n}\n'))
    c = compose(twin / "scene.usda", roots)
    assert c.stage.GetPrimAtPath("/S/W").GetTypeName() == "Cylinder"
    assert c.stage.GetPrimAtPath("/S/L").GetTypeName() == "Sphere"
    # the layer keeps the URI text
    assert "@lunco://rover.usda@" in c.stage.GetRootLayer().ExportToString()
    assert not c.diagnostics


@pytest.mark.parametrize(
    "authored, code",
    [
        ("lunco://../twin/secret.usda", "asset-escape-dotdot"),
        ("twin://a/../../lib/x.usda", "asset-escape-dotdot"),
        ("lunco:///etc/secret.usda", "asset-escape-absolute"),
        ("../outside/secret.usda", "asset-escape-dotdot"),
        ("OUTSIDE_ABS", "asset-escape-absolute"),
        ("lunco://link/secret.usda", "asset-escape-link"),
        ("ftp://host/x.usda", "asset-unknown-scheme"),
    ],
)
def test_escapes_are_refused_and_never_composed(writer, roots, tmp_path, authored, code):
    outside = tmp_path / "outside"
    writer(outside / "secret.usda", usda("Secret", 'def Xform "Secret"\n{\n    def Cube "Leak"\n    {\n    }\n}\n'))
    writer(roots.twin_root / "secret.usda", usda("Secret", 'def Xform "Secret"\n{\n    def Cube "Leak"\n    {\n    }\n}\n'))
    os.symlink(outside, roots.lunco_root / "link")
    if authored == "OUTSIDE_ABS":
        authored = str(outside / "secret.usda")
    writer(roots.twin_root / "scene.usda", usda("S", f'def Xform "S"\n{{\n    def Xform "X" (\n        prepend references = @{authored}@\n    )\n    {{\n    }}\n}}\n'))
    c = compose(roots.twin_root / "scene.usda", roots)
    assert code in codes(c), c.diagnostics
    assert not c.stage.GetPrimAtPath("/S/X/Leak").IsValid()
    escape = next(d for d in c.diagnostics if d.code == code)
    assert authored in escape.message and escape.severity == "error"


def test_missing_arcs_keep_the_rest_and_are_reported_in_authored_order(writer, roots):
    twin = roots.twin_root
    writer(twin / "ok.usda", usda("Ok", 'def Xform "Ok"\n{\n    def Cube "C"\n    {\n    }\n}\n'))
    writer(twin / "scene.usda", usda("S", '''
def Xform "S"
{
    def Xform "A" (
        prepend references = @twin://missing_a.usda@
    )
    {
    }
    def Xform "B" (
        prepend references = @twin://ok.usda@
    )
    {
    }
    def Xform "C" (
        prepend payload = @lunco://missing_c.usda@
    )
    {
    }
}
''', extra='    subLayers = [@twin://missing_sub.usda@]\n'))
    c = compose(twin / "scene.usda", roots)
    assert c.stage.GetPrimAtPath("/S/B/C").IsValid()  # what resolved is kept
    deps = [dep for _, dep in c.missing]
    assert deps == ["twin://missing_sub.usda", "twin://missing_a.usda", "lunco://missing_c.usda"]
    warn = [d for d in c.diagnostics if d.code == "usd-missing-arc"]
    assert all(d.severity == "warning" and str(twin / "scene.usda") in d.message for d in warn)


def test_reject_scene_policy_fails_listing_pairs(writer, roots):
    writer(roots.twin_root / "scene.usda", usda("S", 'def Xform "S" (\n    prepend references = @twin://gone.usda@\n)\n{\n}\n'))
    with pytest.raises(CompositionRejected) as err:
        compose(roots.twin_root / "scene.usda", roots, policy="reject_scene")
    head = err.value.diagnostics[0]
    assert head.code == "usd-scene-rejected" and "twin://gone.usda" in head.message
    assert str(roots.twin_root / "scene.usda") in head.message


def test_malformed_root_layer_is_an_error_with_line(writer, roots):
    path = writer(roots.twin_root / "bad.usda", '#usda 1.0\ndef Xform "S"\n{\n    double x = \n}\n')
    with pytest.raises(DiagnosticError) as err:
        compose(path, roots)
    d = err.value.diagnostics[0]
    assert d.code == "usd-malformed-layer" and d.line in (4, 5) and d.layer.endswith("bad.usda")


def test_malformed_referenced_layer_reports_file_and_line(writer, roots):
    writer(roots.twin_root / "broken.usda", '#usda 1.0\ndef Xform "B"\n{\n    double x = = 2\n}\n')
    writer(roots.twin_root / "scene.usda", usda("S", 'def Xform "S"\n{\n    def Xform "R" (\n        prepend references = @twin://broken.usda@\n    )\n    {\n    }\n    def Cube "Kept"\n    {\n    }\n}\n'))
    c = compose(roots.twin_root / "scene.usda", roots)
    bad = [d for d in c.diagnostics if d.code == "usd-malformed-layer"]
    assert bad and bad[0].line == 4 and Path(bad[0].layer) == (roots.twin_root / "broken.usda").resolve()
    assert c.stage.GetPrimAtPath("/S/Kept").IsValid()


def test_stage_metadata_missing_is_reported_by_validate(writer, roots):
    from luncosim_core.lint import run_lint
    from luncosim_core.usd.validate import validate_scene

    path = writer(roots.twin_root / "bare.usda", '#usda 1.0\ndef Xform "S"\n{\n}\n')
    diags = validate_scene(path, roots, lint=run_lint)
    metadata = [d for d in diags if d.code == "missing-stage-metadata"]
    said = " ".join(d.message for d in metadata)
    assert "upAxis" in said and "metersPerUnit" in said and "defaultPrim" in said


def test_empty_stage_is_never_silent(writer, roots):
    path = writer(roots.twin_root / "empty.usda", usda("Nothing", ""))
    c = compose(path, roots)
    assert "stage-empty" in codes(c)
