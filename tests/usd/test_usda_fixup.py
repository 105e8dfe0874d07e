"""One-line USDA bodies (accepted by other authoring tools) open, compose and keep their meaning."""

from luncosim_core.twin.roots import AssetRoots
from luncosim_core.usd.compose import compose
from luncosim_core.usd.usda_fixup import normalize_usda

ONE_LINE = """#usda 1.0
(
    defaultPrim = "Rover"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "Rover" {
    def Cube "Body" { double size = 2 }
    def Xform "Wheel" (variants = { string tire = "worn" }) { }
    def "Motor" { float lunco:motor:stallTorque = 0.4 float gain = 2 }
    float inputs:k = 4.0 (
        customData = { double min = 0.0 double max = 20.0 string unit = "1/s2" }
    )
    rel physics:body0 = </Rover/Body>
    string note = "a { brace } and a # hash inside a string"
}
"""


def test_normalize_splits_only_between_statements():
    text = normalize_usda(ONE_LINE)
    assert '"a { brace } and a # hash inside a string"' in text
    assert "double min = 0.0 \ndouble max = 20.0" in text
    assert "float lunco:motor:stallTorque = 0.4 \nfloat gain = 2" in text


def test_one_line_layers_compose_as_root_and_as_reference(writer, tmp_path):
    lib, twin = tmp_path / "lib", tmp_path / "twin"
    writer(lib / "rover.usda", ONE_LINE)
    writer(twin / "scene.usda", '#usda 1.0\n(\n    defaultPrim = "S"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\ndef Xform "S"\n{\n    def "A" (\n        prepend references = @lunco://rover.usda@\n    )\n    {\n    }\n}\n')
    roots = AssetRoots(twin_root=twin, lunco_root=lib)
    c = compose(twin / "scene.usda", roots)
    assert not [d for d in c.diagnostics if d.is_error], c.diagnostics
    body = c.stage.GetPrimAtPath("/S/A/Body")
    assert body.GetAttribute("size").Get() == 2
    k = c.stage.GetPrimAtPath("/S/A").GetAttribute("inputs:k")
    assert k.Get() == 4.0 and k.GetCustomData()["unit"] == "1/s2"
    root = compose(lib / "rover.usda", roots)
    assert root.stage.GetPrimAtPath("/Rover/Motor").GetAttribute("gain").Get() == 2


def test_external_lunco_scenes_all_compose(external_assets):
    roots = AssetRoots(twin_root=external_assets, lunco_root=external_assets)
    failures = {}
    for scene in sorted((external_assets / "scenes" / "tests").glob("*.usda")):
        c = compose(scene, roots)
        errors = [d for d in c.diagnostics if d.is_error]
        if errors:
            failures[scene.name] = errors
    assert not failures
