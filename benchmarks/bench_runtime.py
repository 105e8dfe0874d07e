"""Ticks per second of the runtime vs bare pybullet stepping the same world, and a 16-rover stress.

The baseline is measured in the same run: after our projection builds the world, the same pybullet
client is stepped directly (``substeps`` stepSimulation calls a tick, no ports, no wires, no
snapshot). The ratio is our per-tick overhead.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from luncosim_core.api import SetPorts
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.roots import repository_root

DEMO = repository_root() / "assets" / "twins" / "practice_yard"
TICKS = 600

STRESS_HEAD = """#usda 1.0
(
    defaultPrim = "Stress"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "Stress"
{
    def PhysicsScene "PhysicsScene"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }

    def Cube "Ground" (
        prepend apiSchemas = ["PhysicsCollisionAPI"]
    )
    {
        double size = 1
        double3 xformOp:translate = (0, -0.5, 0)
        double3 xformOp:scale = (200, 1, 200)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
"""

ROVER = """
    def Xform "Rover{i}" (
        prepend references = @lunco://vessels/rovers/yard_rover.usda@
    )
    {{
        double3 xformOp:translate = ({x}, 0, {z})
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}
"""


def drive_all(sim) -> None:
    for path in sim.world.port_specs():
        if path.name == "target_velocity":
            sim.submit(SetPorts(target=path.prim_path, writes={"target_velocity": -3.0}))


def _rate(fn, ticks: int) -> float:
    t0 = time.perf_counter()
    fn(ticks)
    return ticks / (time.perf_counter() - t0)


def report(name: str, scene: Path, ticks: int, aim: float, rounds: int = 3) -> None:
    """Best of ``rounds`` interleaved runs of: the full runtime tick, the projected world's own
    step (drives applied, no ports/wires/snapshot), and raw stepSimulation of the same client."""
    sims = [open_simulation(scene) for _ in range(3)]
    for sim in sims:
        drive_all(sim)
        sim.run(5)
    full, world, raw = sims

    def step_world(n: int) -> None:
        for _ in range(n):
            world.world.step()

    client = raw.world._client
    substeps = raw.config.substeps

    def step_raw(n: int) -> None:
        for _ in range(n):
            for _ in range(substeps):
                client.stepSimulation()

    best = {"runtime": 0.0, "world": 0.0, "raw": 0.0}
    for _ in range(rounds):
        best["runtime"] = max(best["runtime"], _rate(full.run, ticks))
        best["world"] = max(best["world"], _rate(step_world, ticks))
        best["raw"] = max(best["raw"], _rate(step_raw, ticks))
    bodies, ports = len(full.world.body_paths), len(full.registry)
    for sim in sims:
        sim.close()
    print(f"{name}: {bodies} bodies, {ports} ports, {full.config.substeps} substeps/tick")
    print(f"  runtime tick (ports, wires, snapshot):  {best['runtime']:8.0f} ticks/s  ({1e3 / best['runtime']:.3f} ms)")
    print(f"  projected world step (drive law):       {best['world']:8.0f} ticks/s  ({1e3 / best['world']:.3f} ms)")
    print(f"  bare pybullet stepSimulation:           {best['raw']:8.0f} ticks/s  ({1e3 / best['raw']:.3f} ms)")
    print(f"  aim: runtime within {aim:g}x of bare pybullet")
    print(f"runtime / bare pybullet: {best['raw'] / best['runtime']:.2f}x")
    print(f"  runtime / world step:                   {best['world'] / best['runtime']:8.2f}x  (our tick overhead)")
    print(f"  real-time factor at 60 Hz:              {best['runtime'] / 60.0:8.1f}x")


def main() -> None:
    report("demo twin (2 rovers)", DEMO, TICKS, aim=1.3)
    with tempfile.TemporaryDirectory() as tmp:
        parts = [STRESS_HEAD]
        for i in range(16):
            parts.append(ROVER.format(i=i, x=(i % 4) * 6.0, z=(i // 4) * 6.0))
        parts.append("}\n")
        scene = Path(tmp) / "stress.usda"
        scene.write_text("".join(parts))
        report("stress (16 rovers)", scene, TICKS // 2, aim=1.15)


if __name__ == "__main__":
    main()
