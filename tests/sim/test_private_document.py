"""A headless simulation's document (``open_simulation``: ``luncosim run``, a mission, a batch task)
is private: it reads the scene file into a base layer of its own, so it runs beside a registered
document that has unsaved edits (no ``usd-document-in-use``), and neither sees the other's edits."""

from __future__ import annotations

import pytest

from luncosim_core.api import ApplyOp
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin import open_path
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import SetAttribute

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "W"
{
    def Cube "Faller" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.2
        float physics:mass = 1
        double3 xformOp:translate = (0, 50, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""


@pytest.fixture
def scene(tmp_path, writer):
    writer(tmp_path / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "w.usda"\n')
    return writer(tmp_path / "w.usda", SCENE)


def _size(stage):
    return stage.GetPrimAtPath("/W/Faller").GetAttribute("size").Get()


def test_a_simulation_runs_beside_a_document_with_unsaved_edits_and_neither_sees_the_other(scene):
    ui = UsdDocument(scene, open_path(scene).twin.roots)
    ui.apply(SetAttribute(path="/W/Faller", name="size", value=0.5))  # unsaved
    sim = open_simulation(scene)  # was refused: usd-document-in-use
    try:
        assert _size(sim.document.stage) == 0.2  # the file as it is on disk
        assert sim.document.base is not ui.base
        sim.run(5)
        result = []
        sim.submit(ApplyOp(op=SetAttribute(path="/W/Faller", name="size", value=0.3)), result.append)
        sim.tick()
        assert result and result[0].ok, result
        assert _size(sim.document.stage) == 0.3 and _size(ui.stage) == 0.5
        assert ui.dirty and ui.unsaved_edits == 1
        again = UsdDocument.shared(scene, ui.roots)  # a registered open still finds the UI's document
        assert again is ui
        ui.save()
        assert "double size = 0.5" in scene.read_text() and _size(sim.document.stage) == 0.3
    finally:
        sim.close()


def test_a_registered_open_keeps_a_simulations_unsaved_base_edit(scene):
    sim = open_simulation(scene, edits=(SetAttribute(path="/W/Faller", name="size", value=0.4),))
    try:
        ui = UsdDocument(scene, open_path(scene).twin.roots)  # used to reload the shared layer under it
        assert _size(ui.stage) == 0.2 and _size(sim.document.stage) == 0.4
        sim.run(3)
        assert _size(sim.document.stage) == 0.4
    finally:
        sim.close()
