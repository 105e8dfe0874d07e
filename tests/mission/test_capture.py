"""Captures: collision filtering decides what can touch the robot."""

from __future__ import annotations

from luncosim_core.mission import SimulationHost
from luncosim_core.mission.capture import capture
from luncosim_core.mission.frames import GroundFrame
from luncosim_core.sim.simulation import open_simulation
from tests.mission.yard import block, yard

ROVER_BODIES = "[</Yard/Rover/Chassis>, </Yard/Rover/Chassis/Wheel_L>, </Yard/Rover/Chassis/Wheel_R>]"


def _filtered(part: str, name: str, targets: str) -> str:
    """``part`` (a block) with PhysicsFilteredPairsAPI naming ``targets``."""
    part = part.replace('(prepend apiSchemas = [', '(prepend apiSchemas = ["PhysicsFilteredPairsAPI", ', 1)
    return part.replace("double size = 1", f"double size = 1\n        rel physics:filteredPairs = {targets}", 1)


def test_geometry_filtered_against_every_robot_body_is_not_an_obstacle(tmp_path):
    parts = (
        _filtered(block("Z", "Ghost", 3.0, 0.0, 0.6, 3.0), "Ghost", ROVER_BODIES),  # a kinematic body
        _filtered(block("Z", "Mist", -3.0, 0.0, 0.6, 3.0, kinematic=False), "Mist", ROVER_BODIES),  # static
        _filtered(block("Z", "Half", 0.0, 3.0, 3.0, 0.6), "Half", "[</Yard/Rover/Chassis>]"),  # wheels still hit
        block("Z", "Wall", 0.0, -3.0, 3.0, 0.6),
    )
    sim = open_simulation(yard(tmp_path / "yard.usda", "Z", parts))
    try:
        host = SimulationHost(sim)
        for _ in range(5):
            host.tick()
        c = capture(host, GroundFrame("Z"), "/Yard/Rover")
        seen = {p.prim_path for p in c.obstacles}
        assert "/Yard/Ghost" not in seen and "/Yard/Mist" not in seen
        assert {"/Yard/Half", "/Yard/Wall"} <= seen
    finally:
        sim.close()
