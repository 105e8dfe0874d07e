"""What a co-simulation participant (Modelica program, FMU, Rhai scenario) offers the scheduler."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import PortInfo

if TYPE_CHECKING:
    from luncosim_core.sim.simulation import Simulation


class Participant(Protocol):
    """A stepped owner of ports. ``phase`` orders it in the tick: "script" runs before "model"."""

    prim_path: str
    kind: str  # modelica | fmu | scenario
    phase: str  # script | model

    def port_infos(self) -> list[tuple[PortInfo, float]]:
        """The ports this participant owns, with their initial values (NaN = pending)."""

    def wait_reason(self, sim: Simulation) -> str:
        """Why this participant cannot step yet ("" when ready)."""

    def step(self, sim: Simulation) -> None:
        """Read inputs from ``sim.registry``, advance one tick, write outputs back."""

    def reset(self, sim: Simulation) -> None:
        """Back to the initial state."""

    def state_bytes(self) -> bytes:
        """Everything that determines future behaviour, for hashing."""

    def take_diagnostics(self) -> list[Diagnostic]:
        """Diagnostics produced since the last call."""

    def close(self) -> None:
        """Release resources."""
