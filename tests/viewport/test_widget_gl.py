"""The Qt ViewportWidget under a real X display (xvfb-run): clicks, hover, selection, keys."""

from __future__ import annotations

import os

import numpy as np
import pytest
from viewport_helpers import write_stage

from luncosim_workbench.viewport._qt.surface import direct_embedding

pytestmark = [
    pytest.mark.gl,
    pytest.mark.skipif(
        not os.environ.get("DISPLAY"), reason="needs an X display (run under xvfb-run)"
    ),
]

SCENE = """
def Cube "Ground" { double size = 1
    double3 xformOp:translate = (0, 0, -0.05)
    float3 xformOp:scale = (12, 12, 0.1)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"] }
def Cube "Red" { double size = 1
    double3 xformOp:translate = (-2, 0, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    color3f[] primvars:displayColor = [(0.9, 0.05, 0.05)] }
def Sphere "Ball" { double radius = 0.5
    double3 xformOp:translate = (2, 0, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
"""


@pytest.fixture
def widget(qtbot, tmp_path):
    from luncosim_workbench.viewport import ViewportWidget

    w = ViewportWidget(size=(400, 300))
    qtbot.addWidget(w)
    w.resize(400, 300)
    w.show()
    qtbot.waitExposed(w)
    w.set_stage(write_stage(tmp_path, SCENE))
    w.viewport.set_camera({"eye": (0, -10, 4), "center": (0, 0, 0.5)})
    return w


def _px(w, point):
    x, y = w.viewport.project([point])[0]
    from PySide6.QtCore import QPoint

    return QPoint(int(round(x)), int(round(y)))


def test_vispy_uses_pyside6(widget):
    assert widget.canvas.app.backend_name.lower() == "pyside6"


def test_click_emits_the_prim_under_the_cursor(widget, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    with qtbot.waitSignal(widget.primClicked, timeout=2000) as sig:
        QTest.mouseClick(
            widget.surface,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            _px(widget, (-2, 0, 0.5)),
        )
    assert sig.args == ["/Red"]
    with qtbot.waitSignal(widget.primClicked, timeout=2000) as sig:
        QTest.mouseClick(
            widget.surface,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            _px(widget, (0, 0, 6)),
        )  # sky
    assert sig.args == [""]


def test_hover_emits_path_and_sets_tooltip(widget, qtbot):
    from PySide6.QtTest import QTest

    with qtbot.waitSignal(widget.primHovered, timeout=2000) as sig:
        QTest.mouseMove(widget.surface, _px(widget, (2, 0, 0.5)))
    assert sig.args == ["/Ball"]
    assert widget.surface.toolTip() == "/Ball"


def test_set_selection_highlights_in_the_widget(widget):
    p = _px(widget, (-2, 0, 0.5))
    before = widget.render()[p.y(), p.x()].astype(int)
    widget.set_selection(["/Red"])
    after = widget.render()[p.y(), p.x()].astype(int)
    assert after[1] > before[1] + 40  # red turned orange


def test_f_frames_the_selection(widget, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    widget.set_selection(["/Ball"])
    QTest.keyClick(widget.surface, Qt.Key.Key_F)
    assert np.allclose(widget.viewport.turntable.center, (2, 0, 0.5))
    far = widget.viewport.turntable.distance
    widget.set_selection([])
    QTest.keyClick(widget.surface, Qt.Key.Key_Home)
    assert widget.viewport.turntable.distance > far  # fit-all frames the 12 m ground


def test_standard_views_and_fly_mode(widget, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    QTest.keyClick(widget.surface, Qt.Key.Key_7)
    assert widget.viewport.turntable.elevation == 90
    QTest.keyClick(widget.surface, Qt.Key.Key_C)
    assert widget.viewport.camera_mode == "fly"
    assert widget.viewport.view.camera is widget.viewport.fly
    widget.set_camera_mode("turntable")
    assert widget.viewport.view.camera is widget.viewport.turntable


def test_fly_mode_starts_looking_at_the_orbit_centre(widget):
    vc = widget.viewport
    vc.turntable.center = (2.0, 0.0, 0.5)
    vc.turntable.azimuth, vc.turntable.elevation = 30.0, 20.0
    vc.set_camera_mode("fly")
    x, y = vc.project([(2.0, 0.0, 0.5)])[0]
    w, h = widget.canvas.size
    assert abs(x - w / 2) < 2 and abs(y - h / 2) < 2


def test_drag_orbits_instead_of_selecting(widget, qtbot):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    clicks = []
    widget.primClicked.connect(clicks.append)
    native = widget.surface
    azimuth = widget.viewport.turntable.azimuth
    start = _px(widget, (-2, 0, 0.5))
    QTest.mousePress(native, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(native, start + QPoint(40, 0))
    QTest.mouseRelease(
        native, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(40, 0)
    )
    qtbot.wait(50)
    assert clicks == []
    assert widget.viewport.turntable.azimuth != azimuth  # the turntable orbited


def test_fly_camera_moves_forward_with_w(widget, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    widget.set_camera_mode("fly")
    start = np.array(widget.viewport.fly.center, float)
    native = widget.surface
    QTest.keyPress(native, Qt.Key.Key_W)
    qtbot.wait(150)
    QTest.keyRelease(native, Qt.Key.Key_W)
    assert np.linalg.norm(np.array(widget.viewport.fly.center, float) - start) > 1e-3


def test_fit_scene_frames_the_moving_bodies_not_the_ground(qtbot, tmp_path):
    """With nothing selected, F (Fit View) frames the vehicles; Home (Fit All) frames everything
    but the 200 m ground: the rover and the static crate beside it."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from luncosim_workbench.viewport import ViewportWidget

    w = ViewportWidget(size=(400, 300))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.set_stage(write_stage(tmp_path, """
def Cube "Ground" { double size = 1
    float3 xformOp:scale = (200, 200, 0.1)
    uniform token[] xformOpOrder = ["xformOp:scale"] }
def Cube "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) { double size = 1
    double3 xformOp:translate = (30, 20, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
def Cube "Crate" { double size = 1
    double3 xformOp:translate = (34, 20, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
"""))
    cam = w.viewport.turntable
    w.viewport.set_view("iso", frame="keep")
    QTest.keyClick(w.surface, Qt.Key.Key_Home)
    assert np.allclose(cam.center, (32, 20, 0.5), atol=0.6)  # the rover and the crate, not (0, 0)
    home = cam.distance
    assert home < 20  # framing the ground took about 280
    w.fit_scene()
    assert np.allclose(cam.center, (30, 20, 0.5), atol=0.6)
    assert cam.distance < home


@pytest.mark.skipif(direct_embedding(), reason="LUNCOSIM_VIEWPORT_DIRECT embeds the GL widget itself")
def test_the_surface_shows_the_canvas_frame_and_the_window_stays_raster(widget, qtbot):
    """What the user sees is the canvas's own frame, read back at the surface's size (the red
    cube where the camera puts it), and no OpenGL widget lives in the window: a GL child would
    make every panel repaint compose the whole window through OpenGL."""
    from PySide6.QtOpenGLWidgets import QOpenGLWidget

    widget.canvas.update()
    qtbot.waitUntil(lambda: widget.surface.frames > 0 and widget.surface.image.size() == widget.surface.size(),
                    timeout=5000)
    shown = widget.surface.grab().toImage()
    x, y = _px(widget, (-2, 0, 0.5)).toTuple()
    red = shown.pixelColor(x, y)
    assert red.red() > 150 and red.green() < 80 and red.blue() < 80
    assert widget.canvas.native.isHidden() is False and widget.canvas.native.window() is widget.canvas.native
    assert not widget.findChildren(QOpenGLWidget)
    widget.resize(320, 240)
    qtbot.waitUntil(lambda: widget.canvas.native.size() == widget.surface.size(), timeout=5000)
