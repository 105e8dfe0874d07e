"""Scene snippets and helpers for the physics tests (imported by name; the fixture is in conftest)."""

from __future__ import annotations

import textwrap

from pxr import Usd

from luncosim_core.physics import PhysicsWorld

HEADER = '#usda 1.0\n(\n    upAxis = "{up}"\n    metersPerUnit = {mpu}\n)\n'
LUNAR_SCENE = """
def PhysicsScene "PhysicsScene"
{
    vector3f physics:gravityDirection = (0, -1, 0)
    float physics:gravityMagnitude = 1.62
}
"""
GROUND = """
def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 1.0
    double3 xformOp:translate = (0, -0.5, 0)
    double3 xformOp:scale = (200.0, 1.0, 200.0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
"""


def write_stage(tmp_path, body: str, name: str = "scene.usda", up: str = "Y", mpu: float = 1.0) -> Usd.Stage:
    path = tmp_path / name
    path.write_text(HEADER.format(up=up, mpu=mpu) + textwrap.dedent(body))
    return Usd.Stage.Open(str(path))


def run(world: PhysicsWorld, ticks: int) -> None:
    for _ in range(ticks):
        world.step()


def codes(world: PhysicsWorld) -> list[str]:
    return [d.code for d in world.diagnostics]
