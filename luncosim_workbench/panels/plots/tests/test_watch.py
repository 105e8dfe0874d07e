"""Watched values on the Plots: series that are not ports, fed as WatchSamples on the event stream."""

from __future__ import annotations

import math

from luncosim_workbench.events import WatchSamples
from luncosim_workbench.panels.plots.watch import WatchSeries


def test_a_series_appends_replaces_a_repeated_time_and_restarts_when_time_goes_back():
    s = WatchSeries("A")
    for t, v in ((0.1, 1.0), (0.2, 2.0), (0.2, 2.5), (0.3, 3.0)):
        s.add(t, v)
    assert s.times == [0.1, 0.2, 0.3] and s.values == [1.0, 2.5, 3.0]
    assert s.since(0.15) == ([0.2, 0.3], [2.5, 3.0])
    s.add(0.05, 9.0)  # the simulation was reset
    assert s.times == [0.05] and s.values == [9.0]


def test_watch_samples_on_the_stream_draw_a_curve_cleared_with_the_others(window):
    plots = window.panels["plots"]
    key = "/Lab/RC.capacitor.i"
    for t, v in ((0.0, 0.5), (0.2, 0.4), (0.4, math.nan)):
        window.ctx.events.emit((WatchSamples(t, ((key, v),), ((key, "A"),)),))
    assert plots.watches[key].unit == "A" and plots.watches[key].times == [0.0, 0.2, 0.4]
    plots.redraw()
    xs, _ys = plots.curves[key].getData()
    assert list(xs) == [0.0, 0.2, 0.4]
    assert any("capacitor.i [A] (sampled)" in label.text for _sample, label in plots.legend.items)
    plots.clear_channels()
    assert not plots.watches and key not in plots.curves
