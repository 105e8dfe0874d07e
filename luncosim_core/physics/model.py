"""The engine-neutral description of a physics scene, read from a composed stage.

Lengths are metres, masses kilograms, angles radians, poses in world space (stage axes, scaled
by metersPerUnit). The builder turns this into pybullet objects; nothing here touches pybullet.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .frames import Pose

_AXES = {"X": np.array([1.0, 0, 0]), "Y": np.array([0, 1.0, 0]), "Z": np.array([0, 0, 1.0])}


@dataclass
class Shape:
    """One collision shape, posed relative to its owner (body frame, or world for static)."""

    prim_path: str
    kind: str  # box, sphere, cylinder, capsule, convex, trimesh
    local: Pose  # shape frame relative to the owner frame; cylinder/capsule along local Z
    half_extents: np.ndarray | None = None
    radius: float = 0.0
    height: float = 0.0
    vertices: np.ndarray | None = None  # (n,3) in the shape frame, metres
    indices: np.ndarray | None = None  # (m,) triangle indices (trimesh)
    purpose: str = "default"
    collides: bool = True
    axis: str = "Z"  # authored axis of cylinder-like shapes (debug info)
    volume: float = 0.0
    centroid: np.ndarray = field(default_factory=lambda: np.zeros(3))  # in the shape frame
    unit_inertia: np.ndarray = field(default_factory=lambda: np.zeros(3))  # diag per kg, shape frame
    mass: float | None = None  # authored per-collider mass
    density: float | None = None  # authored per-collider density (kg/m^3)
    material: str | None = None


@dataclass
class Material:
    path: str
    static_friction: float
    dynamic_friction: float
    restitution: float


@dataclass
class Body:
    path: str
    pose: Pose  # body frame (prim origin, rotation; scale removed) in world, metres
    kinematic: bool
    shapes: list[Shape] = field(default_factory=list)
    mass: float = 1.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))  # body frame, metres
    principal: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))
    inertia: np.ndarray = field(default_factory=lambda: np.ones(3))  # principal diag, kg m^2
    material: Material | None = None
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))  # initial, m/s world
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))  # initial, rad/s world
    declared_inputs: frozenset[str] = frozenset()  # names of the prim's authored ``inputs:*``
    linear_damping: float = 0.0  # physxRigidBody:linearDamping, 1/s
    angular_damping: float = 0.0  # physxRigidBody:angularDamping, 1/s

    @property
    def com_frame(self) -> Pose:
        """Centre-of-mass frame (principal axes) relative to the body frame."""
        return Pose(self.com.copy(), self.principal.copy())


@dataclass
class Drive:
    kind: str  # angular | linear
    type: str  # force | acceleration
    stiffness: float  # SI (N/m or N*m/rad)
    damping: float  # SI (N*s/m or N*m*s/rad)
    max_force: float  # N or N*m; inf when unlimited
    target_position: float  # m or rad
    target_velocity: float  # m/s or rad/s
    target_authored: bool


@dataclass
class Joint:
    path: str
    kind: str  # fixed, revolute, prismatic, spherical, distance
    body0: str | None
    body1: str | None
    frame0: Pose  # joint frame in body0 frame (world frame when body0 is None)
    frame1: Pose
    axis: str = "X"  # cardinal axis in the joint frame
    lower: float = -np.inf  # m or rad
    upper: float = np.inf
    min_distance: float = -1.0
    max_distance: float = -1.0
    collision_enabled: bool = False
    exclude_from_tree: bool = False  # physics:excludeFromArticulation: always a constraint
    drive: Drive | None = None
    generic_from: str | None = None  # the free DOF (rotX, transY, ...) of a mapped generic joint
    servo_input: bool = False  # the prim declares inputs:angle / inputs:displacement: position-held from the start
    damping: float = 0.0  # LunCoJointDampingAPI along the free DOF: N*s/m or N*m*s/rad
    suspension: tuple[float, float, float, float, float] | None = None  # rest, k, c, yield, max (SI)
    initial_coord: float = 0.0  # rest angle (rad) / displacement (m) measured at build
    initial_rot: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))  # spherical

    @property
    def axis_vec(self) -> np.ndarray:
        """The unit vector of :attr:`axis`. The physics screen refuses a revolute or prismatic
        joint whose ``physics:axis`` is not X, Y or Z (``physics.joint.invalid-axis``); any other
        joint's axis is only a convention (X)."""
        return _AXES.get(self.axis, _AXES["X"]).copy()


@dataclass
class StaticCollider:
    shape: Shape
    pose: Pose  # owner frame in world (the shape's ``local`` is relative to it)
    material: Material | None = None


@dataclass
class SceneModel:
    meters_per_unit: float
    up_axis: str
    gravity: np.ndarray  # m/s^2, world
    bodies: dict[str, Body]
    statics: list[StaticCollider]
    joints: list[Joint]
    filtered_pairs: list[tuple[str, str]]  # (body path or static collider path) pairs
