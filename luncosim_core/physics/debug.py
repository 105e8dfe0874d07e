"""What the physics projection exposes for visual debugging (viewport overlays, reports).

Positions are world coordinates in stage units after the stage's own frame (upAxis as authored);
rotations are quaternions (w, x, y, z). These records are plain data: producing them never
touches the engine state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # w, x, y, z


@dataclass(frozen=True, slots=True)
class JointFrameInfo:
    """Both authored frames of one joint, in world space, and its measured violation at build."""

    joint_path: str
    kind: str  # fixed, revolute, prismatic, spherical, distance, generic
    body0: str | None
    body1: str | None
    frame0_pos: Vec3
    frame0_rot: Quat
    frame1_pos: Vec3
    frame1_rot: Quat
    axis: Vec3  # joint axis in world space (unit); (0,0,0) for fixed/spherical
    violation_m: float = 0.0
    violation_rad: float = 0.0


@dataclass(frozen=True, slots=True)
class ColliderInfo:
    """One collision shape as the engine sees it.

    ``shape`` is one of box, sphere, cylinder, capsule, cone, convex, trimesh. ``dims`` holds the
    measured dimensions in world units: ``half_extents`` (box), ``radius``/``height`` (sphere,
    cylinder, capsule, cone; cylinder-like shapes along local ``axis`` "X"|"Y"|"Z"),
    ``vertices`` (convex/trimesh, local space, list of 3-tuples) and ``indices`` (trimesh).
    """

    prim_path: str
    body_path: str | None  # None: static geometry
    shape: str
    dims: dict
    world_pos: Vec3
    world_rot: Quat
    purpose: str = "default"


@dataclass(frozen=True, slots=True)
class ContactInfo:
    """One contact point of the last tick."""

    body_a: str
    body_b: str
    position: Vec3
    normal: Vec3  # on body_b, pointing towards body_a
    normal_force: float


@dataclass(frozen=True, slots=True)
class DebugInfo:
    """Everything an overlay needs, for one moment of the world."""

    joints: tuple[JointFrameInfo, ...] = ()
    colliders: tuple[ColliderInfo, ...] = ()
    contacts: tuple[ContactInfo, ...] = ()
    centers_of_mass: dict[str, Vec3] = field(default_factory=dict)
    escaped_body: str | None = None
