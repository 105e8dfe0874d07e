"""The Mission panel, driven like a user: type a task file's path, press Enter, watch each
action's result, open the debug PNG; the mission's drawing reaches the viewport channel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.mission.yard import NAV_HEAD, block, yard

SHOTS = Path(os.environ.get("LUNCOSIM_SHOTS", Path(__file__).resolve().parents[5] / "missionui-shots"))
TASK = NAV_HEAD + """scenario:
  aliases: {rover: /Yard/Rover, rock: /Yard/Rock}
  behavior:
    task:
      - name: go-east
        type: navigate
        robot: rover
        motions:
          navigate: {kind: navigation, solver_profile: navigation, pose: {x: 2.0, y: 0.0, yaw: 0.0}}
      - name: into-rock
        type: navigate
        robot: rover
        motions:
          navigate: {kind: navigation, solver_profile: navigation, pose: {x: 2.0, y: 2.5, yaw: 0.0}}
      - name: never
        type: navigate
        robot: rover
        motions:
          navigate: {kind: navigation, solver_profile: navigation, pose: {x: 0.0, y: 0.0, yaw: 0.0}}
"""


@pytest.fixture
def debug_tmp(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "tmp"


def test_running_a_task_file_shows_each_action_and_its_evidence(window, qtbot, tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Rock", 2.0, 2.5, 1.0, 1.0),
                                                block("Z", "Wall", 1.0, -1.5, 3.0, 0.4)), size=12.0)
    task = tmp_path / "task.yaml"
    task.write_text(TASK, encoding="utf-8")
    window.show()
    assert window.open_path(scene)
    panel = window.panels["mission"]
    window.docks["mission"].show()
    qtbot.mouseClick(panel.task_edit, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(panel.task_edit, str(task))
    qtbot.keyClick(panel.task_edit, Qt.Key.Key_Return)
    assert not panel.run_button.isEnabled() and panel.stop_button.isEnabled()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=120000)
    rows = [[panel.tree.topLevelItem(i).text(c) for c in range(5)] for i in range(panel.tree.topLevelItemCount())]
    assert [r[:3] for r in rows] == [["go-east", "navigate", "success"], ["into-rock", "navigate", "failure"],
                                     ["never", "navigate", "skipped"]]
    assert rows[1][3].startswith("goal-in-collision") and "/Yard/Rock" in rows[1][3]
    assert float(rows[0][4]) > 0.5 and rows[2][3] == "an earlier action failed"
    assert panel.status.text().startswith("Mission failure: 1/3")
    # the drawing came through the narrow channel: costmap, path and the mission's poses
    d = window.mission_drawing
    assert d is not None and d.lethal is not None and len(d.path) > 1 and "/Yard/Rover/Chassis" in d.body_paths
    # the debug PNG of the failed attempt opens
    assert len(panel.evidence) == 2 and all(Path(p).parent.parent == debug_tmp / "luncosim-navigation-debug"
                                            for p in panel.evidence)
    qtbot.mouseClick(panel.png_button, Qt.MouseButton.LeftButton)
    image = panel.png_dialog.findChild(type(panel.status), "debugImage")
    assert not image.pixmap().isNull() and panel.png_dialog.isVisible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.docks["mission"].setFloating(True)
    window.docks["mission"].resize(640, 300)
    qtbot.wait(100)
    window.docks["mission"].grab().save(str(SHOTS / "mission_panel.png"))
    panel.png_dialog.grab().save(str(SHOTS / "mission_debug_png_dialog.png"))
    panel.png_dialog.close()
    # running a mission edits nothing: the journal holds no op
    assert not window.session.document.journal.can_undo


def test_an_invalid_task_file_is_refused_with_its_field(window, qtbot, tmp_path):
    scene = yard(tmp_path / "yard.usda", "Z", size=8.0)
    bad = tmp_path / "bad.yaml"
    bad.write_text(TASK.replace("solver_profile: navigation, pose", "solver_profile: navigation, colour: red, pose"),
                   encoding="utf-8")
    window.show()
    panel = window.panels["mission"]
    qtbot.keyClicks(panel.task_edit, str(bad))
    qtbot.keyClick(panel.task_edit, Qt.Key.Key_Return)
    assert "Open a scene first" in panel.status.text()
    assert window.open_path(scene)
    qtbot.keyClick(panel.task_edit, Qt.Key.Key_Return)
    assert panel.status.text().startswith("Invalid task file") and "colour" in panel.status.text()
    assert not panel.running and panel.tree.topLevelItemCount() == 0



def test_stop_ends_the_running_action(window, qtbot, tmp_path, debug_tmp):
    scene = yard(tmp_path / "yard.usda", "Z", (block("Z", "Rock", 2.0, 2.5, 1.0, 1.0),), size=24.0)
    task = tmp_path / "far.yaml"
    task.write_text(TASK.replace("pose: {x: 2.0, y: 0.0, yaw: 0.0}", "pose: {x: 9.0, y: 0.0, yaw: 0.0}"),
                    encoding="utf-8")
    assert window.open_path(scene)
    panel = window.panels["mission"]
    qtbot.keyClicks(panel.task_edit, str(task))
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.running  # the scene is still opening in the thread: the stop comes before its first tick
    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result is not None, timeout=60000)
    first = panel.tree.topLevelItem(0)
    assert first.text(2) == "failure" and first.text(3).startswith("simulation-stopped"), first.text(3)
    assert panel.run_button.isEnabled() and not panel.stop_button.isEnabled()
