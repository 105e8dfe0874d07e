"""The Mission panel with the real viewport: its run reaches the viewport's mission layer."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from luncosim_workbench.panels.mission.tests.test_mission_panel import SHOTS, TASK
from tests.mission.yard import block, yard


@pytest.fixture
def debug_tmp(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "tmp"


@pytest.mark.gl
@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (run under xvfb-run)")
def test_the_viewport_draws_the_running_mission(qtbot, tmp_path, debug_tmp):
    """The whole path with the real viewport: panel thread -> ctx.show_mission -> mission layer."""
    from luncosim_workbench.main_window import MainWindow

    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Rock", 2.0, 2.5, 1.0, 1.0),
                                                block("Z", "Wall", 1.0, -1.5, 3.0, 0.4)), size=12.0)
    task = tmp_path / "task.yaml"
    task.write_text(TASK, encoding="utf-8")
    w = MainWindow(settings=tmp_path / "settings", viewport=True)
    w.ask_unsaved = lambda _why: "discard"
    qtbot.addWidget(w)
    w.apply_perspective("Debug")
    w.show()
    qtbot.waitExposed(w)
    assert w.open_path(scene)
    panel = w.panels["mission"]
    qtbot.keyClicks(panel.task_edit, str(task))
    qtbot.keyClick(panel.task_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.result is not None, timeout=120000)
    layer = w.viewport.viewport.overlay_layers["mission"]
    assert layer.enabled and layer.image is not None and layer.lines.n_segments > 0
    w.viewport.viewport.set_camera({"eye": (1.0, -6.0, 7.0), "center": (1.0, 0.5, 0.0)})
    qtbot.wait(100)
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.grab().save(str(SHOTS / "workbench_mission_run.png"))
    # the overlay toggles off from the View menu like the others
    w.set_overlay("mission", False)
    assert layer.image is None and "mission" not in w.overlays_on
    w.close()
