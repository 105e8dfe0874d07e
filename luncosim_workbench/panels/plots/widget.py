"""Plots: pyqtgraph strip charts over the telemetry ring (every tick's sample, not only drawn ones).

Drop ports from the Ports panel (or call :meth:`PlotsPanel.add_channel`); one curve per channel,
clipped to the view and peak-downsampled so long windows of many channels stay fluid. A
:class:`~luncosim_workbench.events.ResultsPlot` on the event stream (the Batch panel's sweep)
shows as a scatter under the strip chart. Watch samples on the stream
(:mod:`luncosim_workbench.panels.plots.watch`: values that are not ports, a Modelica model's
internal variables the diagram samples) are drawn as "watched" curves on the same time axis.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
)

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench import resources
from luncosim_workbench.context import PanelContext, PlotPorts
from luncosim_workbench.events import ResultsPlot
from luncosim_workbench.mime import PORT_MIME
from luncosim_workbench.panels.plots.grid import PlotGrid
from luncosim_workbench.panels.plots.watch import WatchSamples, WatchSeries, is_watch_samples
from luncosim_workbench.plugins import PanelWidget

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


class PlotsPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.channels: list[str] = []
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.watches: dict[str, WatchSeries] = {}  # watched keys (not ports): their samples; curves in ``curves``
        self.setAcceptDrops(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Window"))
        self.window = QDoubleSpinBox()
        self.window.setRange(0.5, 3600.0)
        self.window.setValue(20.0)
        self.window.setSuffix(" s")
        bar.addWidget(self.window)
        self.paused = QCheckBox("Pause (scroll freely)")
        bar.addWidget(self.paused)
        export = QPushButton("Export CSV…")
        export.clicked.connect(self.ask_export)
        bar.addWidget(export)
        clear = QPushButton("Clear")
        clear.clicked.connect(self.clear_channels)
        bar.addWidget(clear)
        bar.addStretch(1)
        self.readout = QLabel("Drop ports here from the Ports panel")
        bar.addWidget(self.readout)
        layout.addLayout(bar)
        theme = resources.current_theme()
        self.plot = pg.PlotWidget(background=theme.plot_background)
        self.grids = [PlotGrid(self.plot.getPlotItem())]
        self.plot.setLabel("bottom", "sim time", units="s")
        self.plot.setClipToView(True)
        self.plot.setDownsampling(auto=True, mode="peak")
        self.legend = self.plot.addLegend(offset=(5, 5))
        self.plot.setAcceptDrops(False)  # drops go to the panel
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888", style=pg.QtCore.Qt.PenStyle.DashLine))
        self.plot.addItem(self.cursor, ignoreBounds=True)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse)
        self.results_plot = pg.PlotWidget(background=theme.plot_background)
        self.grids.append(PlotGrid(self.results_plot.getPlotItem()))
        self.results = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(PALETTE[1]))
        self.results_plot.addItem(self.results)
        self.results_plot.setVisible(False)  # until a panel publishes results
        split = QSplitter(pg.QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.plot)
        split.addWidget(self.results_plot)
        layout.addWidget(split, 1)
        self._apply_theme()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self._apply_theme()

    def on_theme_changed(self) -> None:
        self._apply_theme()

    def _apply_theme(self) -> None:
        """Plot colours follow the workbench theme: backgrounds, axes and the legend (its
        text in the theme's foreground on a box of the plot's background, so it reads in both)."""
        theme = resources.current_theme()
        for widget in (self.plot, self.results_plot):
            widget.setBackground(theme.plot_background)
            item = widget.getPlotItem()
            for axis in ("left", "bottom"):
                ax = item.getAxis(axis)
                ax.setPen(theme.plot_foreground)
                ax.setTextPen(theme.plot_foreground)
        for grid in self.grids:
            grid.set_color(theme.plot_foreground)
        box = pg.mkColor(theme.plot_background)
        box.setAlpha(215)
        self.legend.setBrush(pg.mkBrush(box))
        self.legend.setPen(pg.mkPen(theme.plot_foreground, width=0.5))
        self.legend.setLabelTextColor(theme.plot_foreground)
        for _sample, label in self.legend.items:  # setLabelTextColor does not redraw existing labels
            label.setText(label.text, color=theme.plot_foreground)

    # ------------------------------------------------------------------ channels
    def add_channel(self, key: str) -> bool:
        if key in self.channels:
            return False
        self.channels.append(key)
        pen = pg.mkPen(PALETTE[(len(self.channels) - 1) % len(PALETTE)], width=1.5)
        curve = self.plot.plot([], [], pen=pen, name=key)
        curve.setClipToView(True)
        curve.setDownsampling(auto=True, method="peak")
        curve.setSkipFiniteCheck(False)
        self.curves[key] = curve
        self.redraw()
        return True

    def remove_channel(self, key: str) -> None:
        if key in self.curves:
            curve = self.curves.pop(key)
            self.legend.removeItem(curve)
            self.plot.removeItem(curve)
            if key in self.watches:
                del self.watches[key]
            else:
                self.channels.remove(key)

    def clear_channels(self) -> None:
        for key in [*self.channels, *self.watches]:
            self.remove_channel(key)

    def add_watch_samples(self, samples: WatchSamples) -> None:
        """Append a reading of watched values (a new key gets its curve, "(sampled)" in the legend)."""
        units = dict(samples.units)
        for key, value in samples.values:
            series = self.watches.get(key)
            if series is None:
                series = self.watches[key] = WatchSeries(units.get(key, ""))
                pen = pg.mkPen(PALETTE[(len(self.curves)) % len(PALETTE)], width=1.5,
                               style=pg.QtCore.Qt.PenStyle.DashLine)
                unit = f" [{series.unit}]" if series.unit and series.unit != "1" else ""
                curve = self.plot.plot([], [], pen=pen, name=f"{key}{unit} (sampled)")
                curve.setSkipFiniteCheck(False)
                self.curves[key] = curve
            series.add(samples.time, value)

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasFormat(PORT_MIME):
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasFormat(PORT_MIME):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        text = bytes(event.mimeData().data(PORT_MIME)).decode("utf-8")
        for key in filter(None, text.splitlines()):
            self.add_channel(key)
        event.acceptProposedAction()

    # ------------------------------------------------------------------ results
    def on_events(self, events: tuple) -> None:
        for event in events:
            if isinstance(event, ResultsPlot):
                self.show_results(event)
            elif isinstance(event, PlotPorts):  # "Plot" in the Ports panel (PanelContext.plot_ports)
                for key in event.keys:
                    self.add_channel(key)
            elif is_watch_samples(event):  # the diagram's sampled model variables (matched by shape)
                self.add_watch_samples(event)

    def show_results(self, plot: ResultsPlot) -> None:
        """Show a result series (parameter against output) under the strip chart."""
        self.results.setData(list(plot.xs), list(plot.ys))
        self.results_plot.setTitle(plot.title + (f"  ({plot.source})" if plot.source else ""), size="9pt",
                                   color=resources.current_theme().plot_foreground)
        self.results_plot.setLabel("bottom", plot.x_label)
        self.results_plot.setLabel("left", plot.y_label)
        self.results_plot.setVisible(True)

    # ------------------------------------------------------------------ drawing
    def on_frame(self, _snap: WorkbenchSnapshot) -> None:
        if not self.paused.isChecked():
            self.redraw()

    def redraw(self) -> None:
        if not self.channels and not self.watches:
            return
        ring = self.ctx.telemetry
        _ticks, times, _vals = ring.read([], None)
        ends = [float(times[-1])] if len(times) else []
        ends += [w.times[-1] for w in self.watches.values() if w.times]
        if not ends:
            for c in self.curves.values():
                c.setData([], [])
            return
        t_end = max(ends)
        t_start = t_end - self.window.value()
        first = t_start
        if self.channels:
            _ticks, times, values = ring.read(self.channels, since_time=t_start)
            for j, key in enumerate(self.channels):
                self.curves[key].setData(times, values[:, j], connect="finite")
            first = float(times[0]) if len(times) else t_start
        for key, series in self.watches.items():
            ts, vs = series.since(t_start)
            self.curves[key].setData(ts, vs, connect="finite")
            first = min(first, ts[0]) if ts else first
        self.plot.setXRange(max(t_start, first), max(t_end, t_start + 1e-3), padding=0)

    def _on_mouse(self, pos) -> None:
        if not self.channels:
            return
        vb = self.plot.getPlotItem().vb
        if not self.plot.sceneBoundingRect().contains(pos):
            return
        t = float(vb.mapSceneToView(pos).x())
        self.cursor.setPos(t)
        self.readout.setText(self.readout_at(t))

    def readout_at(self, t: float) -> str:
        """``t = ...  key = value`` at the sample nearest ``t``."""
        _ticks, times, values = self.ctx.telemetry.read(self.channels)
        if not len(times):
            return "no samples"
        i = int(np.clip(np.searchsorted(times, t), 0, len(times) - 1))
        parts = [f"t={times[i]:.3f}s"]
        for j, key in enumerate(self.channels):
            v = values[i, j]
            parts.append(f"{key.rsplit('/', 1)[-1]}={'pending' if v != v else f'{v:.4g}'}")
        return "  ".join(parts)

    # ------------------------------------------------------------------ export
    def ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export telemetry", "telemetry.csv", "CSV (*.csv)")
        if path:
            self.export_csv(Path(path))

    def export_csv(self, path: Path) -> Path:
        """Every recorded sample of the plotted channels (all ports when none is plotted)."""
        out = self.ctx.telemetry.to_csv(path, self.channels or None)
        self.ctx.notify(f"Exported telemetry to {out}")
        return out
