"""What travels on ``PanelContext.events``: one tuple of these per display frame, in order.

- :class:`~luncosim_core.api.events.ConsoleLine` and :class:`~luncosim_core.api.events.Notification`
  from the simulation (scenario ``print`` and ``ShowNotification``), as published in snapshots;
- :class:`DiagnosticEvent`: every diagnostic the simulation reported (faults included), with the
  sim time it arrived at;
- :class:`LogLine`: the workbench's own messages (opened, saved, play, projection restarted);
- :class:`ResultsPlot`: a panel's result series to show in Plots (a sweep's parameter against an
  output), published with ``PanelContext.show_results``;
- :class:`WatchSamples`: sampled values of variables that are not ports (the Modelica diagram's
  model variables), which Plots draws beside the port curves.
"""

from __future__ import annotations

from dataclasses import dataclass

from luncosim_core.api.events import ConsoleLine, Notification
from luncosim_core.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class DiagnosticEvent:
    time: float  # sim seconds when the snapshot carrying it was made
    diagnostic: Diagnostic


@dataclass(frozen=True, slots=True)
class LogLine:
    text: str


@dataclass(frozen=True, slots=True)
class ResultsPlot:
    """Points to plot against each other (not over time): ``xs``/``ys`` of equal length."""

    title: str
    x_label: str
    y_label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    source: str = ""  # where the results live (a folder), shown with the plot


WorkbenchEvent = ConsoleLine | Notification | DiagnosticEvent | LogLine | ResultsPlot

__all__ = ["ConsoleLine", "DiagnosticEvent", "LogLine", "Notification", "ResultsPlot", "WorkbenchEvent"]


@dataclass(frozen=True, slots=True)
class WatchSamples:
    """One reading at simulation ``time`` (s): ``values`` as ``(key, value)`` pairs (key
    ``/Prim.resistor.v``; NaN: no value), ``units`` as ``(key, unit)`` pairs for the legend."""

    time: float
    values: tuple[tuple[str, float], ...]
    units: tuple[tuple[str, str], ...] = ()
