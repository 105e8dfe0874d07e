"""Events the simulation publishes beside its state: what scenarios print and announce.

They travel in the snapshot (``WorkbenchSnapshot.events``, those new since the previous snapshot),
so any consumer of snapshots (the workbench, a sim server's client, a recorder) sees every one
exactly once. They are plain frozen values: no callbacks, nothing that needs the simulation's
thread to read.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SimEvent:
    """Base of published events: the tick and sim time they happened at and who caused them."""

    tick: int
    time: float
    source: str  # prim path of the emitting program ("" for the runtime itself)


@dataclass(frozen=True, slots=True)
class ConsoleLine(SimEvent):
    """One line a scenario printed (``print`` / ``debug``)."""

    text: str = ""


@dataclass(frozen=True, slots=True)
class Notification(SimEvent):
    """A scenario's ``cmd("ShowNotification", #{kind, text})``."""

    kind: str = "info"
    text: str = ""
