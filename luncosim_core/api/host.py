"""``Host``: what a scenario, a lint policy or a test runner may ask of a running simulation.

The simulation (``luncosim_core.sim``) implements it; scripting and lint receive it and import
nothing from ``sim``. Everything crosses as plain values (paths, floats, frozen records, the
``api`` commands and queries), so the same protocol can be served by a simulation in another
process.

Calls happen on the simulation's thread, between or inside ticks (scenario hooks run inside a
tick): :meth:`Host.execute` applies a command *now*, in the running tick, which is what a
scenario's ``set``/``cmd`` mean; a client outside the tick queues commands instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from luncosim_core.api.commands import Command, CommandResult, Query
from luncosim_core.api.events import SimEvent

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # w, x, y, z


@dataclass(frozen=True, slots=True)
class SimTime:
    """The clock: ticks done, simulated seconds, the fixed step."""

    tick: int
    time: float
    dt: float


@dataclass(frozen=True, slots=True)
class Pose:
    """A world pose as simulated: metres, quaternion (w, x, y, z)."""

    position: Vec3
    orientation: Quat


@runtime_checkable
class Host(Protocol):
    """The simulation as seen from scripting, lint and test runners (see the module doc)."""

    # -- time ------------------------------------------------------------------------------
    def time(self) -> SimTime:
        """The clock now."""
        ...

    # -- the scene (read-only) -----------------------------------------------------------------
    def prim_paths(self) -> tuple[str, ...]:
        """Every prim of the composed scene, in traversal order (stable for a scene)."""
        ...

    def prim_type(self, path: str) -> str:
        """The prim's schema type name ("" when there is no such prim)."""
        ...

    def display_name(self, path: str) -> str:
        """The prim's ``lunco:displayName`` (a spawned catalog entry's, e.g. "Ackermann Rover"), or ""."""
        ...

    def catalog_id(self, path: str) -> str:
        """The catalog entry a spawned prim came from (``lunco:catalogId``), or ""."""
        ...

    def prim_param(self, path: str, key: str) -> Any | None:
        """A parameter authored as ``lunco:param:<key>`` (number, bool or text); None if absent."""
        ...

    def program_kind(self, path: str) -> str:
        """``modelica``, ``fmu``, ``scenario`` for a program prim the simulation runs, else ""."""
        ...

    # -- ports ---------------------------------------------------------------------------------
    def port_names(self, path: str) -> tuple[str, ...]:
        """The names of the ports the prim publishes, sorted."""
        ...

    def has_port(self, path: str, name: str) -> bool:
        ...

    def read_port(self, path: str, name: str) -> float | None:
        """The port's current value; None while pending or when there is no such port."""
        ...

    # -- poses ---------------------------------------------------------------------------------
    def pose(self, path: str) -> Pose | None:
        """The prim's world pose as simulated (a prim inside a body rides on it); None when the
        prim is absent or its pose is not finite."""
        ...

    # -- commands, queries, events --------------------------------------------------------------
    def execute(self, command: Command) -> CommandResult:
        """Apply a command now, inside the current tick (stamped with the next sequence)."""
        ...

    def query(self, query: Query) -> CommandResult:
        """Answer a query from the current state."""
        ...

    def next_sequence(self) -> int:
        """The sequence number the next command will get (request ids scripts see)."""
        ...

    def publish(self, event: SimEvent) -> None:
        """Hand an event to the simulation's event stream (it reaches the next snapshot)."""
        ...
