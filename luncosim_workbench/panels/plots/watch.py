"""Watched values: series that are not ports (so not in the telemetry ring), fed by a panel that
reads them — the Modelica diagram samples a model's internal variables (``resistor.v``) with the
``ModelVariables`` query a few times a second and publishes each answer on ``ctx.events`` as a
:class:`luncosim_workbench.events.WatchSamples`. The Plots panel draws each key as a curve beside
the port curves."""

from __future__ import annotations

from luncosim_workbench.events import WatchSamples

MAX_SAMPLES = 20_000  # per watched key; the oldest go first


def is_watch_samples(event: object) -> bool:
    return isinstance(event, WatchSamples)


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
