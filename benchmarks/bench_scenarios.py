"""Cost of Rhai scenario hooks: on_tick of 10 scenario entities per 60 Hz tick (aim: < 1 ms).

Each scenario does what a typical mission/test scenario does every tick: read two ports and a
pose of a body, some vector arithmetic, update its `this` state, and every 30 ticks a string
build. The baseline is measured in the same run: the same 10 participants with an EMPTY on_tick
(the fixed cost of entering a hook). Only the scenario phase is timed (participants' step), not
physics.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from pxr import Usd

from luncosim_core.scripting.scenario import scenario_participants, scenarios_of
from luncosim_core.sim.simulation import Simulation
from luncosim_core.twin.roots import AssetRoots

N_SCENARIOS = 10
TICKS = 600

TYPICAL = """
const TARGET = [10.0, 0.0, 5.0];
fn on_start(me) { this.box = find("/W/Box"); this.t = 0.0; this.path = 0.0; this.prev = (); this.log = ""; }
fn on_tick(me) {
    this.t += dt();
    let p = world_pos(this.box);
    let vy = get(this.box, "velocity_y");
    let m = get(this.box, "mass");
    this.path += seg(this.prev, p);
    this.prev = p;
    let to_go = vsub(TARGET, p);
    let d = vlen(to_go);
    if d != () && d < 0.5 { emit("ARRIVED", d); }
    let heading = vnorm(to_go);
    this.steer = clamp(heading[0] * 2.0, -1.0, 1.0);
    if sim_tick() % 30 == 0 { this.log = "t=" + r2(this.t) + " vy=" + r4(vy) + " m=" + m; }
}
"""
EMPTY = "fn on_tick(me) { }"


def _scene(folder: Path, source: str) -> Path:
    (folder / "s.rhai").write_text(source)
    prims = "\n".join(
        f'    def Scope "S{i:02d}" (prepend apiSchemas = ["LunCoProgramAPI"])\n'
        f"    {{\n        uniform asset info:sourceAsset = @s.rhai@\n    }}" for i in range(N_SCENARIOS))
    text = f"""#usda 1.0
(
    defaultPrim = "W"
    metersPerUnit = 1
    upAxis = "Y"
)
def Xform "W"
{{
    def PhysicsScene "Physics" {{
    }}
    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double3 xformOp:translate = (0, -0.5, 0)
        double3 xformOp:scale = (50, 1, 50)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}
    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {{
        double3 xformOp:translate = (0, 3, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}
{prims}
}}
"""
    scene = folder / "scene.usda"
    scene.write_text(text)
    return scene


def _time_scenario_phase(source: str) -> float:
    """Mean seconds per tick spent stepping the scenarios (10 of them)."""
    with tempfile.TemporaryDirectory() as d:
        scene = _scene(Path(d), source)
        roots = AssetRoots(scene.parent)
        stage = Usd.Stage.Open(str(scene), roots.resolver_context())
        sim = Simulation(stage, roots=roots, participant_factory=scenario_participants)
        parts = scenarios_of(sim)
        assert len(parts) == N_SCENARIOS
        spent = 0.0
        sim.run(5)  # warm up (on_start, first compiles)
        for _ in range(TICKS):
            for p in parts:
                p.wait_reason(sim)
            t0 = time.perf_counter()
            for p in parts:
                p.step(sim)
            spent += time.perf_counter() - t0
            sim.registry.apply_holds()
            sim._physics_step()  # advance the world so reads change
            sim.tick_count += 1
        faults = [p.fault for p in parts if p.fault]
        sim.close()
        assert not faults, faults
        return spent / TICKS


def main() -> None:
    base = _time_scenario_phase(EMPTY)
    typical = _time_scenario_phase(TYPICAL)
    print(f"scenario phase, {N_SCENARIOS} scenarios, {TICKS} ticks")
    print(f"  baseline (empty on_tick):  {base * 1e3:8.3f} ms/tick")
    print(f"  typical on_tick:           {typical * 1e3:8.3f} ms/tick   ({typical / base:5.1f}x baseline)")
    print(f"  budget 1 ms/tick:          {'met' if typical < 1e-3 else 'NOT met'} "
          f"({typical / 1e-3 * 100:.0f}% of budget)")


if __name__ == "__main__":
    main()
