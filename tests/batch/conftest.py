"""Small scenes of our own for batch runs: a box pushed along the floor, with and without a
verdict scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

SLED = """#usda 1.0
(
    defaultPrim = "Yard"
    upAxis = "Z"
    metersPerUnit = 1
)

def Xform "Yard"
{
    def PhysicsScene "PhysicsScene"
    {
        vector3f physics:gravityDirection = (0, 0, -1)
        float physics:gravityMagnitude = 1.62
    }

    def Cube "Floor" (
        prepend apiSchemas = ["PhysicsCollisionAPI"]
    )
    {
        double size = 1
        double3 xformOp:translate = (0, 0, -0.5)
        double3 xformOp:scale = (40, 40, 1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }

    def Cube "Sled" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]
    )
    {
        double size = 0.5
        float physics:mass = 10
        double3 xformOp:translate = (0, 0, 0.25)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""

CHECK = """
fn on_start(me) { this.t = 0.0; this.sled = find_or_none("/Yard/Sled"); }
fn on_tick(me) {
    this.t += dt();
    if this.t >= 0.5 {
        let x = world_pos(this.sled)[0];
        emit("SLED", if x > 0.05 { "PASS" } else { "FAIL" });
    }
}
"""

PUSH_CHECK = CHECK.replace("this.t += dt();", 'this.t += dt(); set(this.sled, "force_x", 40.0);')

LOOP = """
fn on_tick(me) { }
"""


def _scene_test(folder: Path, name: str, script: str) -> Path:
    (folder / f"{name}.rhai").write_text(script, encoding="utf-8")
    scene = folder / f"{name}.usda"
    scene.write_text(f"""#usda 1.0
(
    defaultPrim = "Yard"
    subLayers = [@./sled.usda@]
)

over "Yard"
{{
    def Scope "Check" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {{
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @./{name}.rhai@
    }}
}}
""", encoding="utf-8")
    return scene


@pytest.fixture()
def sled_dir(tmp_path: Path) -> Path:
    """``sled.usda`` (no scenario), ``push_check.usda`` (a scene test: PASS only when pushed) and
    ``never.usda`` (a scene test that never gives a verdict)."""
    (tmp_path / "sled.usda").write_text(SLED, encoding="utf-8")
    (tmp_path / "check.rhai").write_text(CHECK, encoding="utf-8")
    _scene_test(tmp_path, "push_check", PUSH_CHECK)
    _scene_test(tmp_path, "never", LOOP)
    return tmp_path
