"""``SimulationHost``: the :class:`~luncosim_core.api.host.Host` protocol served by a Simulation.

Scenarios, lint policies and test runners reach the running world only through it. It reads the
simulation's registry, stage and physics world on the simulation's thread and hands out plain
values.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pxr import Gf, Usd, UsdGeom

from luncosim_core.api.commands import Command, CommandResult, Query
from luncosim_core.api.events import SimEvent
from luncosim_core.api.host import Pose, SimTime
from luncosim_core.ports.model import port_key
from luncosim_core.usd.programs import read_param

if TYPE_CHECKING:
    from luncosim_core.sim.simulation import Simulation

MAX_PENDING_EVENTS = 10_000


class SimulationHost:
    """One simulation's side of the Host protocol (see :mod:`luncosim_core.api.host`)."""

    def __init__(self, sim: Simulation) -> None:
        self._sim = sim
        self._paths: tuple[str, ...] | None = None
        self._stage_id: int | None = None

    # -- time ------------------------------------------------------------------------------
    def time(self) -> SimTime:
        sim = self._sim
        return SimTime(sim.tick_count, sim.time, sim.dt)

    # -- the scene -----------------------------------------------------------------------------
    def prim_paths(self) -> tuple[str, ...]:
        stage = self._sim.stage
        if self._paths is None or self._stage_id != id(stage):
            self._paths = tuple(str(p.GetPath()) for p in stage.Traverse())
            self._stage_id = id(stage)
        return self._paths

    def forget_paths(self) -> None:
        """The scene changed in place (a structural edit on the same stage): re-list its prims."""
        self._paths = None

    def _string(self, path: str, name: str) -> str:
        prim = self._sim.stage.GetPrimAtPath(path) if path.startswith("/") else None
        attr = prim.GetAttribute(name) if prim else None
        value = attr.Get() if attr else None
        return value if isinstance(value, str) else ""

    def display_name(self, path: str) -> str:
        return self._string(path, "lunco:displayName")

    def catalog_id(self, path: str) -> str:
        return self._string(path, "lunco:catalogId")

    def prim_type(self, path: str) -> str:
        prim = self._sim.stage.GetPrimAtPath(path)
        return str(prim.GetTypeName()) if prim else ""

    def prim_param(self, path: str, key: str) -> Any | None:
        return read_param(self._sim.stage.GetPrimAtPath(path), key)

    def program_kind(self, path: str) -> str:
        for part in self._sim.participants:
            if part.prim_path == path:
                return str(getattr(part, "kind", ""))
        return ""

    # -- ports ---------------------------------------------------------------------------------
    def port_names(self, path: str) -> tuple[str, ...]:
        reg = self._sim.registry
        return tuple(sorted(i.name for i in reg.ports_of(path))) if reg is not None else ()

    def has_port(self, path: str, name: str) -> bool:
        reg = self._sim.registry
        return reg is not None and port_key(path, name) in reg.index

    def read_port(self, path: str, name: str) -> float | None:
        reg = self._sim.registry
        key = port_key(path, name)
        return reg.value(key) if reg is not None and key in reg.index else None

    def drive_mix(self, path: str):
        """The drive allocation of the vessel at ``path`` (None when it has none)."""
        world = self._sim.world
        if world is None:
            return None
        return next((v.mix for v in world.vehicles.vessels if v.path == path), None)

    def wheel(self, path: str):
        """The live state of the wheel at ``path`` (None when it is not a wheel)."""
        world = self._sim.world
        return world.vehicles.wheel_state(path) if world is not None else None

    # -- poses ---------------------------------------------------------------------------------
    def pose(self, path: str) -> Pose | None:
        if not self._sim.stage.GetPrimAtPath(path):
            return None
        pos, q = live_pose(self._sim, path)
        if not all(math.isfinite(x) for x in (*pos, *q)):
            return None
        return Pose(tuple(float(x) for x in pos), tuple(float(x) for x in q))

    # -- commands, queries, events --------------------------------------------------------------
    def execute(self, command: Command) -> CommandResult:
        return self._sim.execute(command, 0)

    def query(self, query: Query) -> CommandResult:
        return self._sim.query(query)

    def next_sequence(self) -> int:
        return self._sim.sequence + 1

    def publish(self, event: SimEvent) -> None:
        self._sim.publish(event)


def live_pose(sim: Simulation, path: str) -> tuple[list[float], list[float]]:
    """World pose (metres; quaternion w, x, y, z) of a prim as simulated: a body's own pose; a
    prim inside a body rides on that body (its authored offset from the body, carried by the
    body's simulated pose); anything else is its composed transform."""
    world = sim.world
    bodies = world.body_index if world is not None else {}
    if path in bodies or not bodies:
        return sim.world_pose(path)
    host = path.rsplit("/", 1)[0]
    while host and host not in bodies:
        host = host.rsplit("/", 1)[0]
    if not host:
        return sim.world_pose(path)
    a_body, a_prim = _authored_pose(sim.stage, host), _authored_pose(sim.stage, path)
    if a_body is None or a_prim is None:
        return sim.world_pose(path)
    mpu = UsdGeom.GetStageMetersPerUnit(sim.stage)
    (tb, qb), (tc, qc) = a_body, a_prim
    offset = qb.GetInverse().Transform(Gf.Vec3d(tc - tb) * mpu)  # in the body's frame, metres
    rel = qb.GetInverse() * qc
    p_live, q_live = sim.world_pose(host)
    ql = Gf.Quatd(q_live[0], Gf.Vec3d(q_live[1], q_live[2], q_live[3]))
    d = ql.Transform(offset)
    qw = ql * rel
    im = qw.GetImaginary()
    return ([p_live[0] + d[0], p_live[1] + d[1], p_live[2] + d[2]],
            [qw.GetReal(), im[0], im[1], im[2]])


def _authored_pose(stage: Usd.Stage, prim_path: str):
    """Composed pose of a prim; a prim that is not transformable (a joint, a material, a scope)
    sits where its nearest transformable ancestor is."""
    prim = stage.GetPrimAtPath(prim_path)
    while prim and not prim.IsPseudoRoot() and not UsdGeom.Xformable(prim):
        prim = prim.GetParent()
    xf = UsdGeom.Xformable(prim) if prim and not prim.IsPseudoRoot() else None
    if not xf:
        return None
    m = xf.ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    return m.ExtractTranslation(), m.RemoveScaleShear().ExtractRotationQuat()
