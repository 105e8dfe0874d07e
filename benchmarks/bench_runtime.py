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


def ours(scene: Path, ticks: int) -> tuple[float, object]:
    sim = open_simulation(scene)
    drive_all(sim)
    sim.run(5)
    t0 = time.perf_counter()
    sim.run(ticks)
    dt = time.perf_counter() - t0
    return ticks / dt, sim


def bare(sim, ticks: int) -> float:
    client = sim.world._client
    substeps = sim.config.substeps
    t0 = time.perf_counter()
    for _ in range(ticks):
        for _ in range(substeps):
            client.stepSimulation()
    return ticks / (time.perf_counter() - t0)


def report(name: str, scene: Path, ticks: int) -> None:
    ours_tps, sim = ours(scene, ticks)
    base_tps = bare(sim, ticks)
    bodies = len(sim.world.body_paths)
    ports = len(sim.registry)
    sim.close()
    print(f"{name}: {bodies} bodies, {ports} ports")
    print(f"  runtime tick:       {ours_tps:9.0f} ticks/s  ({1e3 / ours_tps:.3f} ms/tick)")
    print(f"  bare pybullet:      {base_tps:9.0f} ticks/s  ({1e3 / base_tps:.3f} ms/tick)")
    print(f"  overhead ratio:     {base_tps / ours_tps:9.2f}x  (aim: 1.3x or less)")
    print(f"  real-time factor:   {ours_tps / 60.0:9.1f}x at 60 Hz")


def main() -> None:
    report("demo twin (2 rovers)", DEMO, TICKS)
    with tempfile.TemporaryDirectory() as tmp:
        parts = [STRESS_HEAD]
        for i in range(16):
            parts.append(ROVER.format(i=i, x=(i % 4) * 6.0, z=(i // 4) * 6.0))
        parts.append("}\n")
        scene = Path(tmp) / "stress.usda"
        scene.write_text("".join(parts))
        report("stress (16 rovers)", scene, TICKS // 2)


if __name__ == "__main__":
    main()
