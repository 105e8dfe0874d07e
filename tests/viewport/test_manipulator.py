"""The transform gizmo's math (no GL): handles in the view frame of a Y-up stage, hit tests,
translate drags along an axis (snapped to the grid) and rotate drags around a ring."""

from __future__ import annotations

import numpy as np
import pytest
from pxr import Usd

from luncosim_workbench.viewport.model.manipulator import Drag, handle_lines, hit_axis, prim_frame
from luncosim_workbench.viewport.model.transforms import stage_to_view

SCENE = """#usda 1.0
(
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "W"
{
    double3 xformOp:translate = (0, 0, 10)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Box"
    {
        double3 xformOp:translate = (1, 2, 3)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""


@pytest.fixture
def frame(tmp_path):
    path = tmp_path / "s.usda"
    path.write_text(SCENE)
    stage = Usd.Stage.Open(str(path))
    return prim_frame(stage, "/W/Box", stage_to_view("Y", 1.0))


def _ortho(points):
    """A top-down orthographic 'projection': 100 px per metre, x right, y down (view frame)."""
    pts = np.asarray(points, float).reshape(-1, 3)
    return np.c_[pts[:, 0] * 100.0, -pts[:, 1] * 100.0]


def _ray(px, py):
    return np.array([px / 100.0, -py / 100.0, 50.0]), np.array([0.0, 0.0, -1.0])


def test_the_handles_stand_at_the_prim_in_the_view_frame(frame):
    # stage (1, 2, 13) on a Y-up stage is view (1, -13, 2); stage +Y (up) is view +Z
    assert np.allclose(frame.origin, [1.0, -13.0, 2.0])
    assert np.allclose(frame.axes, [[1, 0, 0], [0, 0, 1], [0, -1, 0]])
    lines = handle_lines(frame, "translate", 1.0)
    assert np.allclose(lines[0][1], [2.0, -13.0, 2.0])


def test_a_click_on_the_x_handle_hits_it_and_elsewhere_misses(frame):
    x0, y0 = _ortho(frame.origin)[0]
    assert hit_axis(frame, "translate", 1.0, _ortho, (x0 + 60, y0 + 2)) == 0
    assert hit_axis(frame, "translate", 1.0, _ortho, (x0 + 60, y0 + 40)) is None


def test_dragging_along_x_moves_the_translate_by_snapped_metres(frame):
    x0, y0 = _ortho(frame.origin)[0]
    drag = Drag.begin(frame, "translate", 0, *_ray(x0 + 50, y0), grid_step=0.25)
    assert drag.value(*_ray(x0 + 50 + 137, y0 + 30)) == ("translate", (2.25, 2.0, 3.0))  # 1.37 m -> 1.25
    drag.snapping = False
    kind, value = drag.value(*_ray(x0 + 50 + 137, y0))
    assert value == pytest.approx((2.37, 2.0, 3.0))


def test_dragging_along_the_stage_z_axis_moves_stage_z(frame):
    # stage +Z is view -Y: a drag towards the bottom of the top-down view
    x0, y0 = _ortho(frame.origin)[0]
    drag = Drag.begin(frame, "translate", 2, *_ray(x0, y0 + 40), grid_step=0.5)
    assert drag.value(*_ray(x0, y0 + 140)) == ("translate", (1.0, 2.0, 4.0))


def test_a_ring_drag_turns_the_rotate_component_in_angle_steps(frame):
    x0, y0 = _ortho(frame.origin)[0]
    # the ring about stage Y (view +Z) lies in the view's XY plane: a quarter turn counterclockwise
    drag = Drag.begin(frame, "rotate", 1, *_ray(x0, y0 - 80), angle_step=15.0)  # stage -Z side of the ring
    kind, value = drag.value(*_ray(x0 - 80, y0 - 3))
    assert kind == "rotate" and value[1] in (90.0, -90.0) and value[0] == value[2] == 0.0


def test_scale_handles_end_in_squares_and_a_drag_multiplies_the_scale_in_steps(tmp_path):
    path = tmp_path / "scaled.usda"
    path.write_text(SCENE.replace('double3 xformOp:translate = (1, 2, 3)\n        uniform token[] xformOpOrder = ["xformOp:translate"]',
                                  'double3 xformOp:translate = (1, 2, 3)\n        float3 xformOp:scale = (1.5, 1, 1)\n'
                                  '        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]'))
    frame = prim_frame(Usd.Stage.Open(str(path)), "/W/Box", stage_to_view("Y", 1.0), "local")
    assert frame.scale == (1.5, 1.0, 1.0)
    lines = handle_lines(frame, "scale", 1.0)
    assert len(lines) == 3 and lines[0].shape == (7, 3)  # shaft + a closed square at the tip
    assert np.allclose(lines[0][1], frame.origin + frame.axes[0])
    x0, y0 = _ortho(frame.origin)[0]
    assert hit_axis(frame, "scale", 1.0, _ortho, (x0 + 100, y0 + 6)) == 0  # on the square
    drag = Drag.begin(frame, "scale", 0, *_ray(x0 + 50, y0))  # pressed half-way along X
    assert drag.value(*_ray(x0 + 100, y0)) == ("scale", (3.0, 1.0, 1.0))  # twice as far: twice the scale
    assert drag.value(*_ray(x0 + 63, y0 + 20)) == ("scale", (1.9, 1.0, 1.0))  # 1.89 snapped to 0.1
    assert drag.value(*_ray(x0 - 80, y0)) == ("scale", (0.1, 1.0, 1.0))  # past the origin: one step, no flip
    drag.snapping = False
    assert drag.value(*_ray(x0 + 63, y0))[1][0] == pytest.approx(1.89)
    assert Drag.begin(frame, "scale", 0, *_ray(x0, y0)) is None  # at the origin a ratio means nothing
