"""The viewport overlays in the workbench with the real viewport (Xvfb): each one switched on while
the simulation is paused draws at once (no frame arrives while paused), and the Labels overlay
shows live port values. Screenshots go to $LUNCOSIM_SHOTS when set."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from luncosim_workbench.testing import DEMO

pytestmark = [
    pytest.mark.gl,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (run under xvfb-run)"),
]

ROVER_A = "/PracticeYard/RoverA"


@pytest.fixture
def paused(qtbot, tmp_path):
    """The demo in a window with the viewport, stepped 20 ticks and paused."""
    from luncosim_workbench.main_window import MainWindow

    twin = tmp_path / "yard"
    shutil.copytree(DEMO, twin)
    w = MainWindow(settings=tmp_path / "settings")
    w.ask_unsaved = lambda _why: "discard"
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_path(twin) and w.viewport is not None
    qtbot.waitUntil(w.simulation_ready, timeout=60000)
    w.bridge.step(20)
    qtbot.waitUntil(lambda: w.bridge.latest.tick == 20, timeout=60000)
    seen = [w.bridge.frames, time.monotonic()]

    def settled() -> bool:  # the newest snapshot shown, then no frame for 0.3 s: the paused simulation has said all it will
        if w.bridge.frames != seen[0] or not w.bridge.caught_up:  # (a paced frame can wait up to 0.5 s)
            seen[:] = [w.bridge.frames, time.monotonic()]
        return time.monotonic() - seen[1] >= 0.3

    qtbot.waitUntil(settled, timeout=30000)
    yield w
    w.close()


def _shot(widget, name):
    folder = os.environ.get("LUNCOSIM_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(folder) / name))


def _drawn(layer) -> int:
    """How much the layer draws: segments, markers, labels and image cells."""
    n = layer.lines.n_segments if layer.lines is not None else 0
    n += len(layer.markers.positions) if layer.markers is not None else 0
    n += len(layer.labels.texts) if layer.labels is not None else 0
    return n + int(getattr(layer, "image", None) is not None)


@pytest.mark.parametrize("name", ["joints", "colliders", "contacts", "com", "labels"])
def test_an_overlay_switched_on_while_paused_draws_at_once(paused, qtbot, name):
    vp = paused.viewport
    layer = vp.viewport.overlay_layers[name]
    frames = paused.bridge.frames
    before = vp.render()
    paused.action(f"view.overlay.{name}").trigger()
    assert layer.enabled and paused.action(f"view.overlay.{name}").isChecked()
    qtbot.waitUntil(lambda: _drawn(layer) > 0, timeout=10000)
    assert paused.bridge.latest.tick == 20 and paused.bridge.latest.status == "paused"
    assert paused.bridge.frames == frames  # drawn without a new frame
    assert vp.viewport._scale() < 1.5  # triads sized to the rovers, not to the 120 m ground (5 m)
    qtbot.wait(50)
    after = vp.render()
    assert np.abs(after.astype(int) - before.astype(int)).sum() > 0  # the picture shows it
    _shot(paused, f"overlay-{name}-paused.png")
    paused.action(f"view.overlay.{name}").trigger()
    assert not layer.enabled and _drawn(layer) == 0


def test_the_escaped_and_mission_overlays_toggle_while_paused(paused, qtbot):
    from luncosim_core.mission.drawing import MissionDrawing

    escaped = paused.viewport.viewport.overlay_layers["escaped"]
    paused.set_overlay("escaped", True)
    qtbot.wait(300)  # the debug records came back: nothing escaped, nothing drawn, nothing raised
    assert escaped.enabled and _drawn(escaped) == 0
    mission = paused.viewport.viewport.overlay_layers["mission"]
    paused.show_mission(MissionDrawing(path=np.array([[10.0, 0.0, 0.0], [12.0, 0.0, 3.0], [14.0, 0.0, 3.0]])))
    assert _drawn(mission) > 0
    paused.set_overlay("mission", False)
    assert _drawn(mission) == 0
    paused.set_overlay("mission", True)
    assert _drawn(mission) > 0  # the kept drawing is drawn again at once


def test_labels_show_the_wired_ports_then_the_selection_and_follow_the_run(paused, qtbot):
    vp = paused.viewport
    layer = vp.viewport.overlay_layers["labels"]
    paused.set_overlay("labels", True)
    qtbot.waitUntil(lambda: ROVER_A in paused._labels_shown, timeout=10000)
    text = paused._labels_shown[ROVER_A]
    # nothing selected: the ports feeding the rover's wires, on the rover (programs draw nothing)
    assert "Controller.torque_left = " in text and "Odometer.speed = " in text and "throttle = " in text
    assert "Controller.torque_left = " in paused._labels_shown["/PracticeYard/RoverB"]
    assert len(layer.labels.texts) == 2
    vp.viewport.set_camera({"eye": (4, 5, 9), "center": (0, 0, 0)})
    qtbot.wait(100)
    _shot(paused, "labels-wired.png")
    chassis = f"{ROVER_A}/Chassis"
    paused.session.selection.set([chassis])
    labels = paused._labels_shown
    assert list(labels) == [chassis] and "+" in labels[chassis].split("\n")[-1]  # 42 ports: cut, counted
    paused.session.selection.set([f"{ROVER_A}/Joints/Axle_FL"])  # a joint draws nothing: on its rover
    axle = paused._labels_shown[ROVER_A].split("\n")
    assert axle[0].startswith("Axle_FL.effort = ") and any(line.startswith("Axle_FL.velocity = ") for line in axle)
    assert all(" rad/s" in line for line in axle if ".velocity = " in line)
    # live: a drive command makes the wheel turn; the label follows at display rate
    from luncosim_core.api.commands import SetPorts

    paused.bridge.send(SetPorts(target=ROVER_A, writes={"throttle": 1.0}))
    first = paused._labels_shown[ROVER_A]
    paused.bridge.step(30)
    qtbot.waitUntil(lambda: paused.bridge.latest.tick >= 50, timeout=60000)
    qtbot.waitUntil(lambda: paused._labels_shown[ROVER_A] != first, timeout=5000)
    assert vp.viewport.overlay_layers["labels"].labels.texts == (paused._labels_shown[ROVER_A],)
    _shot(paused, "labels-selected.png")
    paused.set_overlay("labels", False)
    assert paused._labels_shown == {} and layer.labels is None
