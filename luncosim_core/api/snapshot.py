"""``WorkbenchSnapshot``: the frozen, read-only picture of one tick that every consumer reads.

It is part of the ``api`` vocabulary: plain values and read-only numpy arrays, so the same value
can be made in the simulation's thread, sent to another process and drawn by any client."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from luncosim_core.api.events import SimEvent
from luncosim_core.diagnostics import Diagnostic


def frozen(array: np.ndarray) -> np.ndarray:
    out = np.array(array, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class WorkbenchSnapshot:
    """One tick: time, status, body poses (stable index of prim paths), port values, diagnostics.

    Arrays are read-only copies; the snapshot never changes after it is published.
    ``status`` is one of ``running``, ``paused``, ``waiting`` (admission held: ``reason`` says why)
    or ``faulted`` (``reason`` names the fault).
    """

    tick: int
    time: float
    status: str
    reason: str
    body_paths: tuple[str, ...]
    positions: np.ndarray  # (N, 3) metres, stage frame
    orientations: np.ndarray  # (N, 4) w, x, y, z
    linear_velocities: np.ndarray  # (N, 3)
    angular_velocities: np.ndarray  # (N, 3)
    port_keys: tuple[str, ...]  # "/Prim.port", sorted: the stable port index
    port_values: np.ndarray  # (P,) float64, NaN = pending
    diagnostics: tuple[Diagnostic, ...] = ()  # new since the previous snapshot
    events: tuple[SimEvent, ...] = ()  # printed lines, notifications: new since the previous snapshot
    faults: tuple[Diagnostic, ...] = ()
    scene: str = ""
    generation: int = 0  # bumps when the projection is rebuilt (topology may have changed)
    real_time_factor: float = 0.0
    extra: dict = field(default_factory=dict)

    @cached_property
    def _port_slots(self) -> dict[str, int]:
        return {k: i for i, k in enumerate(self.port_keys)}

    @cached_property
    def _body_slots(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.body_paths)}

    def port(self, key: str) -> float | None:
        """The value of ``/Prim.port`` (None while pending or unknown)."""
        i = self._port_slots.get(key)
        if i is None:
            return None
        v = float(self.port_values[i])
        return None if v != v else v

    def body_index(self, path: str) -> int | None:
        return self._body_slots.get(path)

    def pose(self, path: str) -> tuple[np.ndarray, np.ndarray] | None:
        i = self.body_index(path)
        if i is None:
            return None
        return self.positions[i], self.orientations[i]

    def to_json(self) -> dict:
        """The ``luncosim run --json`` shape (without hashes)."""
        bodies = {
            p: {
                "position": [float(x) for x in self.positions[i]],
                "orientation": [float(x) for x in self.orientations[i]],
                "linear_velocity": [float(x) for x in self.linear_velocities[i]],
            }
            for i, p in enumerate(self.body_paths)
        }
        ports = {k: (None if v != v else float(v)) for k, v in zip(self.port_keys, self.port_values.tolist(), strict=True)}
        return {
            "tick": self.tick,
            "time": self.time,
            "status": self.status,
            "bodies": bodies,
            "ports": ports,
        }
