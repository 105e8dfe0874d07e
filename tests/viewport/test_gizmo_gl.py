"""The transform gizmo in the workbench under a real X display: select a prim, drag its X handle
with the mouse; the drag is one SetTransform op by the user (one undo), snapped to the grid, and
the camera did not move. Screenshots go to $LUNCOSIM_SHOTS when set."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytestmark = [
    pytest.mark.gl,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (run under xvfb-run)"),
]

MARKER = "/PracticeYard/Marker"


@pytest.fixture
def window(qtbot, tmp_path, demo_twin):
    from luncosim_workbench.main_window import MainWindow

    twin = tmp_path / "yard"
    shutil.copytree(demo_twin, twin)
    w = MainWindow(settings=tmp_path / "settings")
    w.ask_unsaved = lambda _why: "discard"
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_path(twin) and w.viewport is not None
    yield w
    w.close()


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


def _shot(widget, name):
    folder = os.environ.get("LUNCOSIM_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(folder) / name))


def test_dragging_the_x_handle_is_one_undoable_snapped_move(window, qtbot):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    vp = window.viewport
    doc = window.session.document
    window.session.selection.set([MARKER])
    vp.viewport.set_camera({"eye": (10, 6, 12), "center": (10, 0.25, 0)})  # stage axes, looking at the marker
    qtbot.wait(100)
    frame, length, lines = vp.manipulator_handles()
    px = vp.viewport.project(lines[0])  # the X handle
    start = px[0] + 0.7 * (px[1] - px[0])
    per_m = np.linalg.norm(px[1] - px[0]) / length
    end = start + (px[1] - px[0]) / np.linalg.norm(px[1] - px[0]) * per_m * 1.1  # about 1.1 m along +X
    native = vp.surface
    cam_before = (vp.viewport.turntable.azimuth, vp.viewport.turntable.elevation, tuple(vp.viewport.turntable.center))
    QTest.mousePress(native, Qt.MouseButton.LeftButton, pos=QPoint(*map(int, start)))
    for k in range(1, 6):
        p = start + (end - start) * k / 5
        QTest.mouseMove(native, QPoint(*map(int, p)))
        qtbot.wait(20)
    _shot(window, "gizmo-drag.png")
    assert _journal(doc) == []  # nothing journaled while dragging: the preview is in the view layer
    QTest.mouseRelease(native, Qt.MouseButton.LeftButton, pos=QPoint(*map(int, end)))
    assert _journal(doc) == [(f"transform {MARKER}", "user")]
    value = tuple(doc.stage.GetPrimAtPath(MARKER).GetAttribute("xformOp:translate").Get())
    assert value == (11.0, 0.25, 0.0)  # 1.1 m snapped to the 0.25 m grid
    assert not doc.view.GetPrimAtPath(MARKER) or not doc.view.GetPrimAtPath(MARKER).properties
    assert cam_before == (vp.viewport.turntable.azimuth, vp.viewport.turntable.elevation,
                          tuple(vp.viewport.turntable.center))
    qtbot.wait(50)
    _shot(window, "gizmo.png")
    window.action("edit.undo").trigger()
    assert tuple(doc.stage.GetPrimAtPath(MARKER).GetAttribute("xformOp:translate").Get()) == (10.0, 0.25, 0.0)


def test_keys_switch_to_rotate_rings_and_local_axes(window, qtbot):
    vp = window.viewport
    window.session.selection.set([MARKER])
    vp.set_manipulator(mode="rotate", space="local")
    frame, length, lines = vp.manipulator_handles()
    assert len(lines) == 3 and len(lines[0]) > 10  # rings
    vp.set_manipulator(mode="translate", space="world")
    assert len(vp.manipulator_handles()[2][0]) == 2


def test_the_corner_triad_follows_the_stage_up_axis(window):
    # the practice yard is Y-up: the triad's Y label points up the screen (+Z of the view frame)
    labels = window.viewport.viewport.gizmo.labels.pos
    assert list(labels[1]) == pytest.approx([0.0, 0.0, 1.25])
    assert list(labels[2]) == pytest.approx([0.0, -1.25, 0.0])


def _drag(window, qtbot, start, end, steps=5):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    native = window.viewport.surface
    QTest.mousePress(native, Qt.MouseButton.LeftButton, pos=QPoint(*map(int, start)))
    for k in range(1, steps + 1):
        QTest.mouseMove(native, QPoint(*map(int, start + (end - start) * k / steps)))
        qtbot.wait(20)
    return lambda: QTest.mouseRelease(native, Qt.MouseButton.LeftButton, pos=QPoint(*map(int, end)))


def test_r_shows_scale_handles_and_a_drag_is_one_undoable_snapped_scale(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    vp = window.viewport
    doc = window.session.document
    window.session.selection.set([MARKER])
    vp.viewport.set_camera({"eye": (10, 6, 12), "center": (10, 0.25, 0)})
    QTest.keyClick(vp.surface, Qt.Key.Key_R)
    assert vp.manip_mode == "scale"
    qtbot.wait(100)
    frame, length, lines = vp.manipulator_handles()
    assert lines[0].shape == (7, 3)  # a shaft ending in a square
    px = vp.viewport.project(lines[0][:2])  # the X handle's shaft
    start = px[0] + 0.5 * (px[1] - px[0])
    end = px[0] + 1.04 * (px[1] - px[0])  # about 2.08 x as far from the prim's origin
    release = _drag(window, qtbot, start, end)
    assert _journal(doc) == []  # previewed in the view layer only
    assert doc.view.GetPrimAtPath(MARKER).attributes["xformOp:scale"].default[0] == pytest.approx(2.1)
    _shot(window, "gizmo-scale-drag.png")
    release()
    assert _journal(doc) == [(f"transform {MARKER}", "user")]
    prim = doc.stage.GetPrimAtPath(MARKER)
    assert tuple(prim.GetAttribute("xformOp:scale").Get()) == pytest.approx((2.1, 1.0, 1.0))  # snapped to 0.1
    assert list(prim.GetAttribute("xformOpOrder").Get()) == ["xformOp:translate", "xformOp:scale"]
    assert not doc.view.GetPrimAtPath(MARKER) or not doc.view.GetPrimAtPath(MARKER).properties
    window.action("edit.undo").trigger()
    assert not prim.GetAttribute("xformOp:scale") or prim.GetAttribute("xformOp:scale").Get() is None
    assert list(prim.GetAttribute("xformOpOrder").Get()) == ["xformOp:translate"]


def test_scale_is_refused_on_a_rigid_body_with_a_status_message(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    vp = window.viewport
    doc = window.session.document
    chassis = "/PracticeYard/RoverA/Chassis"
    window.session.selection.set([chassis])
    assert vp.manipulator_handles() is not None  # translate handles on a body
    QTest.keyClick(vp.surface, Qt.Key.Key_R)
    assert vp.manip_mode == "scale" and vp.manipulator_handles() is None
    assert window.statusBar().currentMessage() == \
        f"no scale handles on {chassis}: it is a rigid body (scale the shapes under it instead)"
    window._commit_transform(chassis, "scale", (2.0, 1.0, 1.0))  # however it is asked
    assert _journal(doc) == [] and window.statusBar().currentMessage().startswith("not scaled: ")
    window.session.selection.set([MARKER])  # a prim that is no body gets its handles back
    assert vp.manipulator_handles() is not None
    QTest.keyClick(vp.surface, Qt.Key.Key_W)
    assert vp.manip_mode == "translate"
