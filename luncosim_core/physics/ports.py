"""Port descriptions published by the physics world (names, units, directions)."""

from __future__ import annotations

from dataclasses import dataclass

BODY_STATE_PORTS = ("acceleration_x", "acceleration_y", "acceleration_z", "acceleration_valid",
                    "quat_w", "quat_x", "quat_y", "quat_z", "yaw", "pitch", "roll", "speed", "state_valid")
CONTACT_PORTS = ("contact", "contact_count", "contact_force")
# the columns of PhysicsWorld.body_block(), one row per body: what a tick reads back into ports
BODY_BLOCK = (*(f"position_{a}" for a in "xyz"), *(f"orientation_{a}" for a in "wxyz"),
              *(f"velocity_{a}" for a in "xyz"), *(f"angvel_{a}" for a in "xyz"), *BODY_STATE_PORTS, *CONTACT_PORTS)


@dataclass(frozen=True, slots=True)
class PortSpec:
    """One physics port. ``unit`` is a pint string ("" for dimensionless); bool ports read 0/1."""

    prim_path: str
    name: str
    direction: str  # "in" | "out"
    unit: str
    writable: bool
    type: str  # "double" | "bool"
    description: str


def body_port_specs(path: str, kinematic: bool) -> list[PortSpec]:
    out: list[PortSpec] = []
    for ax in "xyz":
        out.append(PortSpec(path, f"position_{ax}", "out", "m", False, "double",
                            f"body frame origin, world {ax}"))
    for ax in "wxyz":
        out.append(PortSpec(path, f"orientation_{ax}", "out", "", False, "double",
                            f"body orientation quaternion component {ax} (w, x, y, z), world"))
    for ax in "xyz":
        out.append(PortSpec(path, f"velocity_{ax}", "out", "m/s", False, "double",
                            f"linear velocity of the body frame origin, world {ax}"))
    for ax in "xyz":
        out.append(PortSpec(path, f"angvel_{ax}", "out", "rad/s", False, "double",
                            f"angular velocity, world {ax}"))
    out.append(PortSpec(path, "contact", "out", "", False, "bool",
                        "1 when any contact point touches this body after the last substep"))
    out.append(PortSpec(path, "contact_count", "out", "", False, "double",
                        "number of distinct other bodies / static colliders touching this body"))
    out.append(PortSpec(path, "contact_force", "out", "N", False, "double",
                        "sum of contact normal forces on this body in the last substep"))
    out.append(PortSpec(path, "mass", "out", "kg", False, "double", "body mass"))
    for ax in "xyz":
        out.append(PortSpec(path, f"com_{ax}", "out", "m", False, "double",
                            f"centre of mass in the body frame, {ax} (with folded raycast wheels)"))
    for ax in "xyz":
        out.append(PortSpec(path, f"inertia_{ax}{ax}", "out", "kg*m^2", False, "double",
                            f"principal moment of inertia {ax}{ax}"))
    for name in BODY_STATE_PORTS:
        unit = {"acceleration": "m/s^2", "speed": "m/s", "yaw": "rad", "pitch": "rad", "roll": "rad"}.get(
            name.split("_")[0], "")
        out.append(PortSpec(path, name, "out", unit, False, "bool" if name.endswith("valid") else "double",
                            f"measured body state: {name} (see luncosim_core.physics.sensors)"))
    if not kinematic:
        for ax in "xyz":
            out.append(PortSpec(path, f"force_{ax}", "in", "N", True, "double",
                                f"external force at the centre of mass, world {ax}, applied every substep"))
        for ax in "xyz":
            out.append(PortSpec(path, f"torque_{ax}", "in", "N*m", True, "double",
                                f"external torque, world {ax}, applied every substep"))
    return out


def joint_port_specs(path: str, kind: str) -> list[PortSpec]:
    if kind == "revolute":
        return [
            PortSpec(path, "angle", "in", "rad", True, "double",
                     "reads the measured joint angle; writing sets the position-drive target"),
            PortSpec(path, "velocity", "out", "rad/s", False, "double", "joint angular velocity"),
            PortSpec(path, "target_velocity", "in", "rad/s", True, "double",
                     "velocity-drive target (used by a drive with damping)"),
            PortSpec(path, "torque", "out", "N*m", False, "double", "drive torque applied in the last substep"),
            PortSpec(path, "effort", "in", "N*m", True, "double",
                     "commanded joint torque, applied every substep (added to any authored drive)"),
        ]
    if kind == "prismatic":
        return [
            PortSpec(path, "displacement", "in", "m", True, "double",
                     "reads the measured slide; writing sets the position-drive target"),
            PortSpec(path, "velocity", "out", "m/s", False, "double", "joint slide velocity"),
            PortSpec(path, "target_velocity", "in", "m/s", True, "double",
                     "velocity-drive target (used by a drive with damping)"),
            PortSpec(path, "force", "out", "N", False, "double", "drive force applied in the last substep"),
            PortSpec(path, "effort", "in", "N", True, "double",
                     "commanded joint force, applied every substep (added to any authored drive)"),
        ]
    return []
