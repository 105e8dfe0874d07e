"""Scene helpers for the scripting tests: real scenes on disk, real physics, the real interpreter."""

from __future__ import annotations

import textwrap
from pathlib import Path

from luncosim_core.scripting.scenario import scenario_participants, scenarios_of
from luncosim_core.sim.simulation import Simulation, SimulationConfig
from luncosim_core.twin.roots import AssetRoots

HEADER = """#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    upAxis = "Y"
)
"""

GROUND_AND_BOX = """
    def PhysicsScene "Physics"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 9.81
    }
    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 1
        double3 xformOp:translate = (0, -0.5, 0)
        double3 xformOp:scale = (50, 1, 50)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {
        double size = 1
        float physics:mass = 2
        double3 xformOp:translate = (0, 3, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
"""


def scenario_prim(name: str, *, asset: str | None = None, code: str | None = None,
                  params: dict[str, float] | None = None) -> str:
    """A program prim carrying a scenario (inline code or a .rhai asset)."""
    lines = [f'    def Scope "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])', "    {"]
    if asset is not None:
        lines.append(f"        uniform asset info:sourceAsset = @{asset}@")
    if code is not None:
        lines.append('        uniform token info:language = "rhai"')
        lines.append(f"        string info:sourceCode = {_usd_string(code)}")
    for k, v in (params or {}).items():
        lines.append(f"        custom float lunco:param:{k} = {v}")
    lines.append("    }")
    return "\n".join(lines) + "\n"


def _usd_string(text: str) -> str:
    return '"""' + textwrap.dedent(text).strip("\n") + '"""'


def scene_text(body: str) -> str:
    return HEADER + '\ndef Xform "World"\n{\n' + body + "}\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def open_sim(scene: Path, tick_hz: float = 60.0) -> Simulation:
    """A headless simulation of ``scene`` with the scenario factory attached."""
    from pxr import Usd

    roots = AssetRoots(scene.parent)
    with Usd.StageCacheContext(Usd.BlockStageCaches):
        stage = Usd.Stage.Open(str(scene), roots.resolver_context())
    return Simulation(stage, SimulationConfig(tick_hz=tick_hz), roots=roots,
                      participant_factory=scenario_participants, scene=str(scene))


class Recorder:
    """Collects print output and events of a simulation's scenarios."""

    def __init__(self, sim: Simulation) -> None:
        self.lines: list[str] = []
        self.events = []
        parts = scenarios_of(sim)
        if parts:
            parts[0].runtime.on_print = self.lines.append
            parts[0].runtime.listeners.append(self.events.append)
