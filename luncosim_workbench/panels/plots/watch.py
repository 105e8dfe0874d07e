"""Watched values: series that are not ports (so not in the telemetry ring), fed by a panel that
reads them — the Modelica diagram samples a model's internal variables (``resistor.v``) with the
``ModelVariables`` query a few times a second and publishes each answer on ``ctx.events``. The
Plots panel draws each key as a curve beside the port curves.

Panels do not import each other, so the event is matched by its shape: any event whose ``kind`` is
:data:`WATCH_KIND` with the fields of :class:`WatchSamples` (the diagram's own copy of it is
``luncosim_workbench.panels.diagram.live.WatchSamples``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

MAX_SAMPLES = 20_000  # per watched key; the oldest go first
WATCH_KIND = "watch-samples"


@dataclass(frozen=True, slots=True)
class WatchSamples:
    """One reading at simulation ``time`` (s): ``values`` as ``(key, value)`` pairs (key
    ``/Prim.resistor.v``; NaN: no value), ``units`` as ``(key, unit)`` pairs for the legend."""

    kind: ClassVar[str] = WATCH_KIND
    time: float
    values: tuple[tuple[str, float], ...]
    units: tuple[tuple[str, str], ...] = ()


def is_watch_samples(event: object) -> bool:
    return getattr(event, "kind", None) == WATCH_KIND


class WatchSeries:
    """The samples of one watched key (a reset of the simulation, time going back, starts anew)."""

    def __init__(self, unit: str = "") -> None:
        self.unit = unit
        self.times: list[float] = []
        self.values: list[float] = []

    def add(self, time: float, value: float) -> None:
        if self.times and time < self.times[-1]:
            self.times.clear()
            self.values.clear()
        if self.times and time == self.times[-1]:
            self.values[-1] = value
            return
        self.times.append(time)
        self.values.append(value)
        if len(self.times) > MAX_SAMPLES:
            del self.times[:len(self.times) - MAX_SAMPLES]
            del self.values[:len(self.values) - MAX_SAMPLES]

    def since(self, t0: float) -> tuple[list[float], list[float]]:
        import bisect

        i = bisect.bisect_left(self.times, t0)
        return self.times[i:], self.values[i:]
