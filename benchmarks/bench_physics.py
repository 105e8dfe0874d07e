"""Physics benchmark: ticks/s of PhysicsWorld vs the same world stepped by bare pybullet calls.

Run: ``.venv/bin/python benchmarks/bench_physics.py [ticks]``.

1. A four-wheel rover (chassis + 4 revolute wheels with velocity drives) on flat ground,
   through ``PhysicsWorld.step()`` vs ``bare_pybullet_ticks_per_second`` (same bodies, same
   substeps, native pybullet velocity motors set once, every body's pose read once a tick).
2. A 16-rover stress scene, same comparison.

``bare_pybullet_ticks_per_second(stage_path, ticks)`` is the baseline other benchmarks reuse.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pybullet as pb  # noqa: E402
from pxr import Usd  # noqa: E402

from luncosim_core.physics import PhysicsWorld  # noqa: E402

HEADER = '#usda 1.0\n(\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'
SCENE = """
def PhysicsScene "PhysicsScene"
{
    vector3f physics:gravityDirection = (0, -1, 0)
    float physics:gravityMagnitude = 1.62
}
def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0, -0.5, 0)
    double3 xformOp:scale = (400, 1, 400)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}
"""


def rover_usda(name: str, x0: float, z0: float) -> str:
    out = [f"""
def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 200
    double3 xformOp:translate = ({x0}, 0.7, {z0})
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Chassis" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double size = 1
        double3 xformOp:scale = (2, 0.4, 1.2)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }}
}}
"""]
    for w, dx, dz in (("FL", 0.8, 0.75), ("FR", 0.8, -0.75), ("RL", -0.8, 0.75), ("RR", -0.8, -0.75)):
        out.append(f"""
def Cylinder "{name}_Wheel{w}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{{
    uniform token axis = "Z"
    double radius = 0.4
    double height = 0.2
    float physics:mass = 10
    double3 xformOp:translate = ({x0 + dx}, 0.4, {z0 + dz})
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def PhysicsRevoluteJoint "{name}_Axle{w}" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
{{
    rel physics:body0 = </{name}>
    rel physics:body1 = </{name}_Wheel{w}>
    uniform token physics:axis = "Z"
    float drive:angular:physics:damping = 200
    float drive:angular:physics:maxForce = 400
    float drive:angular:physics:targetVelocity = -60
}}
""")
    return "".join(out)


def write_scene(folder: Path, rovers: int) -> Path:
    body = SCENE + "".join(rover_usda(f"Rover{i:02d}", (i % 4) * 6.0, (i // 4) * 6.0) for i in range(rovers))
    path = folder / f"rovers_{rovers}.usda"
    path.write_text(HEADER + body)
    return path


def world_ticks_per_second(stage_path: str | Path, ticks: int) -> float:
    world = PhysicsWorld(Usd.Stage.Open(str(stage_path)))
    try:
        t = time.perf_counter()
        for _ in range(ticks):
            world.step()
        return ticks / (time.perf_counter() - t)
    finally:
        world.close()


def bare_pybullet_ticks_per_second(stage_path: str | Path, ticks: int) -> float:
    """The same bodies (built by the projection) stepped by bare pybullet calls.

    Drives become pybullet's native velocity motors, set once; each tick runs ``substeps``
    ``stepSimulation`` calls and reads every body's pose once (what any consumer needs).
    """
    world = PhysicsWorld(Usd.Stage.Open(str(stage_path)))
    try:
        c = world._client
        for rt in world._built.joints:
            d = rt.joint.drive
            if rt.is_link and d is not None:
                c.setJointMotorControl2(rt.uid, rt.link, pb.VELOCITY_CONTROL,
                                        targetVelocity=d.target_velocity * rt.sign, force=d.max_force)
        mbs = [(uid, base is not None, len(links)) for uid, base, links in world._built.multibodies]
        substeps = world.substeps
        t = time.perf_counter()
        for _ in range(ticks):
            for _ in range(substeps):
                c.stepSimulation()
            for uid, has_base, n in mbs:
                if has_base:
                    c.getBasePositionAndOrientation(uid)
                    c.getBaseVelocity(uid)
                if n:
                    c.getLinkStates(uid, list(range(n)), computeLinkVelocity=1, computeForwardKinematics=1)
        return ticks / (time.perf_counter() - t)
    finally:
        world.close()


def compare(label: str, path: Path, ticks: int) -> None:
    bare, ours = 0.0, 0.0
    for _ in range(5):  # interleaved, best of five: the machine is shared
        bare = max(bare, bare_pybullet_ticks_per_second(path, ticks))
        ours = max(ours, world_ticks_per_second(path, ticks))
    print(f"{label}: PhysicsWorld {ours:,.0f} ticks/s, bare pybullet {bare:,.0f} ticks/s, "
          f"cost ratio {bare / ours:.2f}x (aim <= 1.3x)")


def main() -> None:
    ticks = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    with tempfile.TemporaryDirectory() as tmp:
        one = write_scene(Path(tmp), 1)
        many = write_scene(Path(tmp), 16)
        compare("1 rover (5 bodies, 4 substeps)", one, ticks)
        compare("16 rovers (80 bodies, 4 substeps)", many, max(ticks // 4, 50))


if __name__ == "__main__":
    main()
