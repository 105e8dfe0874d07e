"""The Batch panel: sweep one parameter of the open scene over a list of values, one fresh
simulation per value on a local Dask cluster (``luncosim_core.batch``, exactly what
``luncosim batch --sweep`` runs), and plot the recorded output against the parameter (in the panel, and in the Plots panel through
``PanelContext.show_results``).

The sweep is written as ``sweep.toml`` into the results folder first (so the command line can
repeat it), then a background thread starts the cluster, runs the tasks and writes
``results.csv``, ``results.parquet`` and ``report.html`` there. The UI only receives rows.
"""

from __future__ import annotations

import json
import math
import tempfile
import threading
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from luncosim_workbench.context import PanelContext
from luncosim_workbench.events import ResultsPlot
from luncosim_workbench.plugins import PanelWidget

STATS = ("final", "max", "min", "mean")


class _Relay(QObject):
    row = Signal(object, object)  # a finished task's row, verdict counts so far
    finished = Signal(object)  # (rows, result paths) or an error message (str)


def sweep_toml(scene: Path, kind: str, target: str, values: list[float], output: str, stat: str, ticks: int) -> str:
    """The sweep file for one parameter over ``values`` recording ``output``'s ``stat``."""
    return (f"scene = {json.dumps(str(scene))}\nticks = {ticks}\n\n[[parameter]]\n{kind} = {json.dumps(target)}\n"
            f"values = [{', '.join(repr(float(v)) for v in values)}]\n\n[[output]]\nport = {json.dumps(output)}\n"
            f"stats = [{json.dumps(stat)}]\n")


def run_sweep(sweep: Path, workers: int, relay: _Relay, timeout_s: float = 600.0) -> None:
    """The batch thread: tasks from ``sweep``, a LocalCluster, rows to ``relay``, results written."""
    from luncosim_core.batch.driver import ClusterError, open_client, run_batch
    from luncosim_core.batch.report import write_results
    from luncosim_core.batch.spec import SweepError, load_sweep

    try:
        tasks = load_sweep(sweep)
        client = open_client(workers=workers, scheduler=None)
    except (SweepError, ClusterError) as exc:
        relay.finished.emit(str(exc))
        return
    try:
        rows = run_batch(tasks, client, timeout_s=timeout_s, memory_mb=4096,
                         on_result=lambda row, counts: relay.row.emit(row, dict(counts)))
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None:
            cluster.close()
    paths = write_results(rows, sweep.parent, title=f"LunCoSim sweep: {len(rows)} tasks")
    relay.finished.emit((rows, paths))


class BatchPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        form = QFormLayout()
        self.kind = QComboBox()
        self.kind.addItems(["port", "attribute"])
        self.target = QLineEdit()
        self.target.setPlaceholderText("/Prim.inputs:name (a port) or /Prim.attr (an attribute)")
        self.values = QLineEdit()
        self.values.setPlaceholderText("values, e.g. 0.25, 0.5, 1.0")
        self.output = QLineEdit()
        self.output.setPlaceholderText("/Prim.port to record")
        self.stat = QComboBox()
        self.stat.addItems(list(STATS))
        self.ticks = QSpinBox()
        self.ticks.setRange(1, 10_000_000)
        self.ticks.setValue(600)
        self.workers = QSpinBox()
        self.workers.setRange(1, 256)
        self.workers.setValue(2)
        self.out = QLineEdit()
        self.out.setPlaceholderText("results folder (default: a new temporary folder)")
        for label, w in (("Parameter", self.kind), ("Target", self.target), ("Values", self.values),
                         ("Output", self.output), ("Statistic", self.stat), ("Ticks", self.ticks),
                         ("Workers", self.workers), ("Results", self.out)):
            form.addRow(label, w)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.run_button = QPushButton("Run Sweep")
        self.run_button.clicked.connect(self.run)
        self.progress = QProgressBar()
        self.progress.setFormat("%v/%m")
        row.addWidget(self.run_button)
        row.addWidget(self.progress, 1)
        layout.addLayout(row)
        self.status = QLabel("Sweep a parameter of the open scene.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Value", "Verdict", "Output", "Wall (s)"])
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(160)
        self.table.setMinimumHeight(90)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.plot)
        layout.addWidget(split, 1)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.scatter = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(80, 160, 255, 220))
        self.plot.addItem(self.scatter)
        self.relay = _Relay(self)
        self.relay.row.connect(self._on_row)
        self.relay.finished.connect(self._on_finished)
        self.rows: list[dict] = []
        self.result_paths: dict[str, Path] = {}
        self.done = False
        self._thread: threading.Thread | None = None
        for edit in (self.target, self.values, self.output, self.out):
            edit.returnPressed.connect(self.run)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _values(self) -> list[float] | str:
        parts = [p for p in self.values.text().replace(";", ",").split(",") if p.strip()]
        try:
            values = [float(p) for p in parts]
        except ValueError:
            return f"values must be numbers separated by commas, got {self.values.text()!r}"
        if not values or not all(math.isfinite(v) for v in values):
            return "give at least one finite value"
        return values

    def _problem(self) -> str:
        if self.running:
            return "A sweep is already running."
        if self.ctx.workspace.scene is None:
            return "Open a scene first: the sweep runs the open scene."
        for name, edit in (("target", self.target), ("output", self.output)):
            if not edit.text().strip().startswith("/") or "." not in edit.text():
                return f"the {name} must be /Prim.name, got {edit.text()!r}"
        values = self._values()
        return values if isinstance(values, str) else ""

    def run(self) -> bool:
        """Write the sweep file and start it in the background (False, with the reason, if not)."""
        problem = self._problem()
        if problem:
            self.status.setText(problem)
            return False
        values = self._values()
        out = Path(self.out.text().strip()) if self.out.text().strip() else Path(tempfile.mkdtemp(prefix="luncosim-sweep-"))
        try:
            out.mkdir(parents=True, exist_ok=True)
            sweep = out / "sweep.toml"
            tmp = out / ".sweep.toml.tmp"
            tmp.write_text(sweep_toml(Path(self.ctx.workspace.scene).resolve(), self.kind.currentText(),
                                      self.target.text().strip(), values, self.output.text().strip(),
                                      self.stat.currentText(), self.ticks.value()), encoding="utf-8")
            tmp.replace(sweep)
        except OSError as exc:
            self.status.setText(f"cannot write the sweep into {out}: {exc.strerror or exc}")
            return False
        self.out.setText(str(out))
        self.rows.clear()
        self.result_paths = {}
        self.done = False
        self.table.setRowCount(0)
        self.scatter.setData([], [])
        self.progress.setRange(0, len(values))
        self.progress.setValue(0)
        self.run_button.setEnabled(False)
        doc = self.ctx.documents.scene
        note = " (the saved file: unsaved edits are not part of it)" if doc is not None and doc.dirty else ""
        self.status.setText(f"Running {len(values)} tasks on a local cluster of {self.workers.value()} "
                            f"workers{note}…")
        self._thread = threading.Thread(target=run_sweep, args=(sweep, self.workers.value(), self.relay),
                                        name="batch", daemon=True)
        self._thread.start()
        return True

    @property
    def output_column(self) -> str:
        return f"{self.output.text().strip()}:{self.stat.currentText()}"

    def _on_row(self, row: dict, counts: dict) -> None:
        self.rows.append(row)
        self.progress.setValue(len(self.rows))
        self.status.setText("Running… " + " ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    def _on_finished(self, result) -> None:
        self._thread = None
        self.run_button.setEnabled(True)
        if isinstance(result, str):
            self.status.setText(f"Sweep not run: {result}")
            return
        rows, self.result_paths = result
        self.rows = list(rows)
        self._show_results()
        self.done = True

    def _show_results(self) -> None:
        target, col = self.target.text().strip(), self.output_column
        self.table.setRowCount(len(self.rows))
        xs, ys = [], []
        for i, r in enumerate(self.rows):
            value = r["params"].get(target)
            out = r.get("outputs", {}).get(col)
            shown = f"{out:.6g}" if isinstance(out, float) else out
            for c, text in enumerate((value, r["verdict"], shown, f"{r['wall_s']:.2f}")):
                self.table.setItem(i, c, QTableWidgetItem("" if text is None else str(text)))
            if isinstance(value, (int, float)) and isinstance(out, (int, float)) and math.isfinite(out):
                xs.append(float(value))
                ys.append(float(out))
        self.scatter.setData(xs, ys)
        self.ctx.show_results(ResultsPlot(f"sweep of {len(self.rows)} tasks", target, col, tuple(xs), tuple(ys),
                                          str(self.result_paths["csv"].parent)))
        self.plot.setLabel("bottom", target)
        self.plot.setLabel("left", col)
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        self.status.setText("Done: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
                            f". Results in {self.result_paths['csv'].parent}")
        self.ctx.log(f"sweep of {len(self.rows)} tasks done; results in {self.result_paths['csv'].parent}")

    def close_panel(self) -> None:
        if self._thread is not None:
            self._thread.join(120.0)
