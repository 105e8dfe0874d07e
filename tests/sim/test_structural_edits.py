"""Structural edits reach a running simulation without restarting it: prims added (a rigid body,
a reference to a library asset), renamed and removed, and undo/redo of each, all carried by the
command :func:`~luncosim_core.sim.mirror.edit_command` chooses. The clock goes on and a body the
edit did not touch keeps its motion."""

from __future__ import annotations

import pytest

from luncosim_core.api import ApplyOp, SyncStage
from luncosim_core.sim.mirror import StageDocument, edit_command, flattened_text, stage_from_text
from luncosim_core.sim.programs import program_participants
from luncosim_core.sim.simulation import Simulation
from luncosim_core.twin import open_path
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import (
    AddPrim,
    AddReference,
    Batch,
    RemovePrim,
    RenamePrim,
    SetApiSchemas,
    SetAttribute,
    SetTransform,
)

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "W"
{
    def PhysicsScene "Scene"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }

    def Cube "Ground" (
        prepend apiSchemas = ["PhysicsCollisionAPI"]
    )
    {
        double size = 1
        double3 xformOp:scale = (40, 1, 40)
        double3 xformOp:translate = (0, -0.5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }

    def Cube "Faller" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]
    )
    {
        double size = 0.2
        float physics:mass = 1
        double3 xformOp:translate = (0, 50, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }

    def Scope "Panel"
    {
        float inputs:gain = 2
    }
}
"""

TICKS = 20


@pytest.fixture
def running(writer, tmp_path):
    writer(tmp_path / "twin" / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "scenes/s.usda"\n')
    scene = writer(tmp_path / "twin" / "scenes" / "s.usda", SCENE)
    twin = open_path(scene).twin
    doc = UsdDocument(scene, twin.roots)
    stage = stage_from_text(flattened_text(doc.stage))
    sim = Simulation(stage, roots=twin.roots, document=StageDocument(stage, twin.roots),
                     participant_factory=program_participants, scene=str(scene))
    assert sim.run(TICKS) == TICKS
    yield doc, sim
    sim.close()


def _carry(doc, sim, op) -> None:
    """What the workbench does after ``doc`` changed: send the edit, admit it at the next tick."""
    results = []
    sim.submit(edit_command(doc.stage, op), results.append)
    sim.tick()  # admitted first; the tick may then wait for a new program's compile
    assert results and results[0].ok, results[0].diagnostics if results else "not admitted"


def _edit(doc, sim, op):
    doc.apply(op)
    _carry(doc, sim, op)


def _undo(doc, sim):
    inverse = doc.journal.entries()[doc.journal.position - 1].inverse
    assert doc.undo()
    _carry(doc, sim, inverse)


def _redo(doc, sim):
    op = doc.journal.entries()[doc.journal.position].op
    assert doc.redo()
    _carry(doc, sim, op)


def _height(sim, path):
    return sim.world_pose(path)[0][1]


def test_value_edits_travel_as_the_op_and_structure_as_a_fresh_copy(running):
    doc, _sim = running
    assert isinstance(edit_command(doc.stage, SetAttribute(path="/W/Panel", name="inputs:gain", value=3.0)), ApplyOp)
    cmd = edit_command(doc.stage, AddPrim(path="/W/Box", type_name="Cube"))
    assert isinstance(cmd, SyncStage) and cmd.changed == ("/W/Box",)


def test_a_new_rigid_body_enters_the_running_world_and_the_faller_keeps_falling(running):
    doc, sim = running
    falling = _height(sim, "/W/Faller")
    assert falling < 50.0  # it has been falling for TICKS ticks
    add = Batch(ops=(AddPrim(path="/W/Box", type_name="Cube"),
                     SetApiSchemas(path="/W/Box", schemas=("PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI")),
                     SetTransform(path="/W/Box", translate=(3.0, 10.0, 0.0))), name="create rigid body")
    _edit(doc, sim, add)
    assert sim.tick_count == TICKS + 1  # the run went on
    assert "/W/Box" in sim.world.body_paths
    assert _height(sim, "/W/Faller") < falling  # not put back at its authored 50 m
    assert 9.9 < _height(sim, "/W/Box") <= 10.0
    sim.run(10)
    assert _height(sim, "/W/Box") < 10.0  # and it falls


def test_rename_remove_and_their_undo_and_redo_reach_the_simulation(running):
    doc, sim = running
    _edit(doc, sim, RenamePrim("/W/Faller", "Dropper"))
    assert "/W/Dropper" in sim.world.body_paths and "/W/Faller" not in sim.world.body_paths
    _undo(doc, sim)
    assert "/W/Faller" in sim.world.body_paths and "/W/Dropper" not in sim.world.body_paths
    _edit(doc, sim, RemovePrim(path="/W/Faller"))
    assert "/W/Faller" not in sim.world.body_paths
    _undo(doc, sim)
    assert "/W/Faller" in sim.world.body_paths
    _redo(doc, sim)
    assert "/W/Faller" not in sim.world.body_paths
    assert sim.tick_count == TICKS + 5  # five edits, five ticks, never back to zero


def test_a_reference_to_a_library_asset_resolves_in_the_simulation(running):
    doc, sim = running
    add = Batch(ops=(AddPrim(path="/W/Rover", type_name="Xform"),
                     AddReference(path="/W/Rover", asset_path="lunco://vessels/rovers/yard_rover.usda"),
                     SetTransform(path="/W/Rover", translate=(5.0, 0.0, 0.0))), name="add rover")
    _edit(doc, sim, add)
    assert "/W/Rover/Chassis" in sim.world.body_paths
    assert sim.world_pose("/W/Rover/Chassis")[0][0] == pytest.approx(5.0, abs=0.05)
    assert sim.read("/W/Rover", "throttle") == 0.0  # its authored input is a live port
    _undo(doc, sim)
    assert not any(p.startswith("/W/Rover") for p in sim.world.body_paths)


def test_undoing_a_port_value_makes_the_authored_value_the_sample_again(running):
    doc, sim = running
    _edit(doc, sim, SetAttribute(path="/W/Panel", name="inputs:gain", value=5.0))
    assert sim.read("/W/Panel", "gain") == 5.0
    _undo(doc, sim)
    assert sim.read("/W/Panel", "gain") == 2.0
    assert sim.tick_count == TICKS + 2
