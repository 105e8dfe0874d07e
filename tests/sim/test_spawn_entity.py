"""SpawnEntity: a catalog entry (an asset declaring ``lunco:spawnable = true``, keyed by its file
stem) enters a running simulation as one runtime-layer edit, at the pose asked, without
restarting the clock, the motion of the rest or the scenario that issued it; bad requests are
refused with a diagnostic naming what is wrong."""

from __future__ import annotations

import math

import pytest

from luncosim_core.api import SpawnEntity
from luncosim_core.sim.scene_test import run_scene_test
from luncosim_core.sim.simulation import open_simulation

SCENE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "W"
{
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
}
"""

CRATE = """#usda 1.0
(
    defaultPrim = "Crate"
    upAxis = "Y"
    metersPerUnit = 1
)

def Cube "Crate" (
    prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]
)
{
    uniform bool lunco:spawnable = true
    double size = 0.5
    float physics:mass = 2
}
"""

ROCK = CRATE.replace('"Crate"', '"Rock"').replace("uniform bool lunco:spawnable = true", "uniform bool lunco:spawnable = false")

SCENARIO = """
fn on_start(me) { this.starts = 0; this.done = false; this.ticks = 0; }
fn on_tick(me) {
    if this.done { return; }
    this.ticks += 1;
    if this.ticks == 2 {
        let r = cmd("SpawnEntity", #{ entry_id: "crate", position: [1.0, 3.0, 0.0] });
        if !r.ok { print("spawn failed: " + r.error); emit("SPAWN", "FAIL"); this.done = true; return; }
        this.spawned = r.data.entity;
        return;
    }
    if this.ticks == 5 {
        this.done = true;
        let found = find("Crate");
        let bad = cmd("SpawnEntity", #{ entry_id: "nope", position: [0.0, 0.0, 0.0] });
        let crates = 0;
        for e in list_entities() { if e.catalog_id == "crate" { crates += 1; } }
        let ok = crates == 1 && found > 0 && found == this.spawned && path(found) == "/W/crate_1" && !bad.ok
                 && bad.error.contains("unknown catalog entry 'nope'");
        print("found " + found + " spawned " + this.spawned + " error " + bad.error);
        emit("SPAWN", if ok { "PASS" } else { "FAIL" });
    }
}
"""


@pytest.fixture
def twin(writer, tmp_path):
    root = tmp_path / "twin"
    writer(root / "twin.toml", 'name = "t"\nversion = "0.1.0"\n[usd]\ndefault_scene = "scenes/s.usda"\n')
    writer(root / "props" / "crate.usda", CRATE)
    writer(root / "props" / "rock.usda", ROCK)
    return root, writer(root / "scenes" / "s.usda", SCENE)


def _spawn(sim, **kw):
    results = []
    sim.submit(SpawnEntity(**kw), results.append)
    sim.tick()
    assert results, "not admitted"
    return results[0]


def test_a_spawned_entry_enters_the_running_world_at_its_pose(twin):
    _root, scene = twin
    sim = open_simulation(scene)
    try:
        sim.run(20)
        falling = sim.world_pose("/W/Faller")[0][1]
        res = _spawn(sim, entry_id="crate", position=(2.0, 5.0, -1.0), rotation=(0.0, math.sin(math.pi / 4), 0.0,
                                                                                 math.cos(math.pi / 4)))
        assert res.ok, res.diagnostics
        assert res.value["path"] == "/W/crate_1" and res.value["display_name"] == "Crate"
        assert res.value["asset"] == "twin://props/crate.usda"
        assert sim.tick_count == 21  # the clock went on
        assert "/W/crate_1" in sim.world.body_paths
        pos, quat = sim.world_pose("/W/crate_1")
        assert pos[0] == pytest.approx(2.0, abs=1e-3) and pos[2] == pytest.approx(-1.0, abs=1e-3)
        assert 4.9 < pos[1] <= 5.0
        assert abs(quat[0]) == pytest.approx(math.cos(math.pi / 4), abs=1e-3)  # 90 degrees about +Y
        assert abs(quat[2]) == pytest.approx(math.sin(math.pi / 4), abs=1e-3)
        assert sim.world_pose("/W/Faller")[0][1] < falling  # not put back at its authored height
        prim = sim.stage.GetPrimAtPath("/W/crate_1")
        assert prim.GetAttribute("lunco:catalogId").Get() == "crate"
        runtime = sim.document.layer_for("runtime")
        assert runtime.GetPrimAtPath("/W/crate_1") and not sim.document.layer_for("base").GetPrimAtPath("/W/crate_1")
        assert _spawn(sim, entry_id="crate", position=(4.0, 5.0, 0.0)).value["path"] == "/W/crate_2"
        sim.run(30)
        assert sim.world_pose("/W/crate_1")[0][1] < 4.9  # it falls like any body
    finally:
        sim.close()


@pytest.mark.parametrize(("params", "code", "words"), [
    ({"entry_id": "nope"}, "spawn-unknown-entry", "unknown catalog entry 'nope'"),
    ({"entry_id": "rock"}, "spawn-unknown-entry", "lunco:spawnable = true"),
    ({"entry_id": "../props/crate"}, "spawn-bad-entry", "no paths"),
    ({"entry_id": "crate", "position": (0.0, math.nan, 0.0)}, "spawn-bad-pose", "finite"),
    ({"entry_id": "crate", "position": (1.0, 2.0)}, "spawn-bad-pose", "position must be 3 numbers"),
    ({"entry_id": "crate", "rotation": (0.0, 0.0, 0.0, 0.0)}, "spawn-bad-pose", "not a unit quaternion"),
])
def test_bad_spawns_are_refused_and_change_nothing(twin, params, code, words):
    _root, scene = twin
    sim = open_simulation(scene)
    try:
        before = [str(p.GetPath()) for p in sim.stage.Traverse()]
        res = _spawn(sim, **params)
        assert not res.ok
        assert res.diagnostics[0].code == code and words in res.diagnostics[0].message
        assert [str(p.GetPath()) for p in sim.stage.Traverse()] == before
    finally:
        sim.close()


def test_a_scenario_spawns_finds_the_entity_by_display_name_and_catalog_id_and_keeps_running(twin, writer):
    root, scene = twin
    writer(root / "scenarios" / "spawn.rhai", SCENARIO)
    text = scene.read_text().replace('    def Cube "Faller"', '''    def Scope "Test" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform asset info:sourceAsset = @twin://scenarios/spawn.rhai@
    }

    def Cube "Faller"''')
    scene.write_text(text)
    lines: list[str] = []
    report = run_scene_test(scene, max_ticks=60, out=lines.append)
    assert report.outcome == "PASS", "\n".join(lines)
    assert report.verdicts[0].tick == 5  # on_start ran once: the spawn did not restart the scenario
