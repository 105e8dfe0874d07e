"""The Batch panel, driven like a user: type the sweep, press Enter, watch the progress, read
the results (table, plot, files) of a real sweep on a local Dask cluster."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from PySide6.QtCore import Qt

from tests.batch.conftest import SLED

SHOTS = Path(os.environ.get("LUNCOSIM_SHOTS", Path(__file__).resolve().parents[5] / "missionui-shots"))


def _type(qtbot, edit, text: str) -> None:
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_a_sweep_of_the_open_scene_runs_in_the_background_and_plots(window, qtbot, tmp_path):
    scene = tmp_path / "sled.usda"
    scene.write_text(SLED, encoding="utf-8")
    window.show()
    panel = window.panels["batch"]
    window.docks["batch"].show()
    _type(qtbot, panel.target, "/Yard/Sled.force_x")
    _type(qtbot, panel.values, "0, 20, 40")
    _type(qtbot, panel.output, "/Yard/Sled.position_x")
    panel.ticks.setValue(40)
    panel.workers.setValue(1)
    _type(qtbot, panel.out, str(tmp_path / "results"))
    qtbot.keyClick(panel.out, Qt.Key.Key_Return)
    assert panel.status.text().startswith("Open a scene first")
    assert window.open_path(scene)
    qtbot.keyClick(panel.out, Qt.Key.Key_Return)
    assert not panel.run_button.isEnabled()  # running, and the UI still answers:
    qtbot.wait(50)
    assert panel.running
    qtbot.waitUntil(lambda: panel.done or panel.status.text().startswith("Sweep not run"), timeout=240000)
    assert panel.done, panel.status.text()
    assert panel.progress.value() == 3 and panel.run_button.isEnabled()
    table = [[panel.table.item(r, c).text() for c in range(3)] for r in range(panel.table.rowCount())]
    assert [t[:2] for t in table] == [["0.0", "NO_VERDICT"], ["20.0", "NO_VERDICT"], ["40.0", "NO_VERDICT"]]
    xs, ys = panel.scatter.getData()
    assert list(xs) == [0.0, 20.0, 40.0] and ys[0] < ys[1] < ys[2]  # more force, farther
    plots = window.panels["plots"]  # the results opened in Plots too
    assert plots.results_plot.isVisible() or not window.docks["plots"].isVisible()
    px, py = plots.results.getData()
    assert list(px) == [0.0, 20.0, 40.0] and list(py) == list(ys)
    out = tmp_path / "results"
    assert (out / "sweep.toml").is_file() and (out / "report.html").is_file()
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [float(r["/Yard/Sled.position_x:final"]) for r in rows] == list(ys)
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.docks["batch"].setFloating(True)
    window.docks["batch"].resize(560, 760)
    qtbot.wait(100)
    window.docks["batch"].grab().save(str(SHOTS / "batch_panel.png"))
    assert not window.session.document.journal.can_undo  # a sweep edits nothing


def test_bad_values_are_refused_before_anything_runs(window, qtbot, tmp_path):
    scene = tmp_path / "sled.usda"
    scene.write_text(SLED, encoding="utf-8")
    assert window.open_path(scene)
    panel = window.panels["batch"]
    _type(qtbot, panel.target, "/Yard/Sled.force_x")
    _type(qtbot, panel.output, "/Yard/Sled.position_x")
    _type(qtbot, panel.values, "1, lots")
    qtbot.keyClick(panel.values, Qt.Key.Key_Return)
    assert "numbers separated by commas" in panel.status.text() and not panel.running
    _type(qtbot, panel.target, "Sled")
    qtbot.keyClick(panel.target, Qt.Key.Key_Return)
    assert "the target must be /Prim.name" in panel.status.text()
