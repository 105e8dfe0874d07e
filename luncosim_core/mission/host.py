"""What the mission needs from a running simulation, and its implementation over ``Simulation``.

The mission drives robots only through commands (``SetPorts``, ``AttachBodies`` ...) and reads
the world through ports, world poses and the collision geometry of the projection. Everything
goes through :class:`MissionHost`, so the mission runs unchanged on any runtime offering it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from pxr import UsdGeom

from luncosim_core.api.commands import Command, CommandResult, ListPorts, QueryUsdPrim


@dataclass(frozen=True)
class ColliderGeometry:
    """One collision shape at one moment: world pose (metres, w-x-y-z) and its measured geometry.

    ``kind``: box (``half_extents``), sphere (``radius``), cylinder / capsule (``radius``,
    ``height``, along local Z), convex (``vertices``), trimesh (``vertices``, ``indices``).
    ``body`` is the rigid body carrying it (None: static geometry).
    """

    prim_path: str
    body: str | None
    kind: str
    position: tuple[float, float, float]
    rotation: tuple[float, float, float, float]
    half_extents: tuple[float, float, float] | None = None
    radius: float = 0.0
    height: float = 0.0
    vertices: np.ndarray | None = None
    indices: np.ndarray | None = None


class MissionHost(Protocol):
    """The runtime surface a mission uses."""

    @property
    def tick_count(self) -> int: ...
    @property
    def dt(self) -> float: ...
    @property
    def up_axis(self) -> str: ...
    def tick(self) -> bool: ...
    def submit(self, command: Command) -> Receipt: ...
    def read(self, prim: str, port: str) -> float | None: ...
    def ports(self, prim: str) -> list[dict]: ...
    def prim_attributes(self, prim: str) -> dict | None: ...
    def body_paths(self) -> tuple[str, ...]: ...
    def body_state(self, path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
    def colliders(self) -> list[ColliderGeometry]: ...
    def attachments(self) -> dict[str, tuple[str, str]]: ...
    def filtered_pairs(self) -> frozenset[tuple[str, str]]: ...
    def joints(self) -> list: ...


class SimulationHost:
    """:class:`MissionHost` over a headless :class:`~luncosim_core.sim.simulation.Simulation`
    (the caller owns the simulation thread)."""

    def __init__(self, sim) -> None:
        self.sim = sim

    @property
    def tick_count(self) -> int:
        return self.sim.tick_count

    @property
    def dt(self) -> float:
        return self.sim.dt

    @property
    def up_axis(self) -> str:
        return "Z" if UsdGeom.GetStageUpAxis(self.sim.stage) == UsdGeom.Tokens.z else "Y"

    def tick(self) -> bool:
        """Advance one tick; commands submitted before it are admitted first."""
        if self.sim.tick():
            return True
        if self.sim.fault is None and self.sim.wait_until_ready() == "":
            return self.sim.tick()
        return False

    @property
    def fault(self) -> str | None:
        f = self.sim.fault
        return None if f is None else f.message

    def submit(self, command: Command) -> Receipt:
        """Queue a command; it is admitted at the start of the next tick, when its receipt fills."""
        receipt = Receipt()
        self.sim.submit(command, receipt.fill)
        return receipt

    def read(self, prim: str, port: str) -> float | None:
        return self.sim.read(prim, port)

    def ports(self, prim: str) -> list[dict]:
        result = self.sim.query(ListPorts(target=prim))
        return list(result.value or []) if result.ok else []

    def prim_attributes(self, prim: str) -> dict | None:
        result = self.sim.query(QueryUsdPrim(path=prim))
        return result.value if result.ok else None

    def body_paths(self) -> tuple[str, ...]:
        return tuple(self.sim.world.body_paths)

    def body_state(self, path: str):
        """(position, orientation w-x-y-z, linear velocity, angular velocity) of a body, metres."""
        w = self.sim.world
        i = w.body_paths.index(path)
        return (np.array(w.positions()[i]), np.array(w.orientations()[i]), np.array(w.linear_velocities()[i]),
                np.array(w.angular_velocities()[i]))

    def colliders(self) -> list[ColliderGeometry]:
        """Every colliding shape of the projection at the current poses (sorted by prim path)."""
        from luncosim_core.physics.frames import Pose

        world = self.sim.world
        model = world.model
        out: list[ColliderGeometry] = []
        for path in world.body_paths:
            pos, orn, _v, _w = self.body_state(path)
            pose = Pose(pos, orn)
            for s in model.bodies[path].shapes:
                if s.collides:
                    out.append(_geometry(s, path, pose * s.local))
        for sc in model.statics:
            if sc.shape.collides:
                out.append(_geometry(sc.shape, None, sc.pose * sc.shape.local))
        out.sort(key=lambda g: g.prim_path)
        return out

    def attachments(self) -> dict[str, tuple[str, str]]:
        return self.sim.world.attachments()

    def filtered_pairs(self) -> frozenset[tuple[str, str]]:
        """Pairs (sorted) of body paths or static collider paths that never collide: filtered
        pairs and collision groups, as the projection reads them."""
        return frozenset((min(a, b), max(a, b)) for a, b in self.sim.world.model.filtered_pairs)

    def joints(self) -> list:
        """Joint frames in world space (``JointFrameInfo``; positions in stage units)."""
        return list(self.sim.world.debug_info().joints)

    @property
    def meters_per_unit(self) -> float:
        return float(UsdGeom.GetStageMetersPerUnit(self.sim.stage))


class Receipt:
    """The result of a submitted command once its tick has run (``result`` is None until then)."""

    def __init__(self) -> None:
        self.result: CommandResult | None = None

    def fill(self, result: CommandResult) -> None:
        self.result = result


def _geometry(s, body: str | None, pose) -> ColliderGeometry:
    return ColliderGeometry(
        s.prim_path, body, s.kind, tuple(float(v) for v in pose.p), tuple(float(v) for v in pose.q),
        tuple(float(v) for v in s.half_extents) if s.half_extents is not None else None,
        float(s.radius), float(s.height),
        None if s.vertices is None else np.asarray(s.vertices, dtype=float),
        None if s.indices is None else np.asarray(s.indices, dtype=np.int64))
