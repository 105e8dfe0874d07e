"""Offscreen rendering checked by pixels (EGL surfaceless, or an X display under xvfb-run)."""

from __future__ import annotations

import numpy as np
import pytest
from pxr import Gf, UsdGeom
from viewport_helpers import color_near

from luncosim_core.physics.debug import ContactInfo, DebugInfo, JointFrameInfo
from luncosim_workbench.viewport import headless, render_stage_to_png

pytestmark = pytest.mark.gl

SCENE = """
def Xform "World"
{
    def Cube "Ground" { double size = 1
        double3 xformOp:translate = (0, 0, -0.05)
        float3 xformOp:scale = (12, 12, 0.1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
        color3f[] primvars:displayColor = [(0.45, 0.45, 0.43)] }
    def Cube "Red" { double size = 1
        double3 xformOp:translate = (-2, 0, 0.5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        color3f[] primvars:displayColor = [(0.9, 0.05, 0.05)] }
    def Xform "Cart" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        double3 xformOp:translate = (2, 0, 0.5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Sphere "Ball" { double radius = 0.5
            color3f[] primvars:displayColor = [(0.05, 0.2, 0.95)] } }
}
"""
FRONT = {"eye": (0, -10, 4), "center": (0, 0, 0.5)}


def _reddish(img, xy, radius=2):
    x, y = int(round(xy[0])), int(round(xy[1]))
    p = img[y - radius : y + radius + 1, x - radius : x + radius + 1, :3].astype(int)
    return bool(np.any((p[..., 0] > 90) & (p[..., 1] < 50) & (p[..., 2] < 50)))


def _bluish(img, xy, radius=2):
    x, y = int(round(xy[0])), int(round(xy[1]))
    p = img[y - radius : y + radius + 1, x - radius : x + radius + 1, :3].astype(int)
    return bool(np.any((p[..., 2] > 90) & (p[..., 0] < 60)))


@pytest.fixture
def scene(stage_from, gl_canvas):
    stage = stage_from(SCENE)
    vc = gl_canvas(320, 240)
    vc.set_stage(stage)
    vc.set_camera(FRONT)
    return stage, vc


def test_png_is_written_and_not_blank(stage_from, tmp_path, gl_canvas):
    gl_canvas(8, 8)  # skips cleanly when this machine has no OpenGL at all
    from PySide6.QtGui import QImage  # decodes the PNG file independently of the writer

    out = render_stage_to_png(
        stage_from(SCENE), tmp_path / "shots" / "scene.png", width=200, height=120
    )
    q = QImage(str(out)).convertToFormat(QImage.Format.Format_RGBA8888)
    assert not q.isNull()
    img = np.frombuffer(q.constBits(), np.uint8).reshape(q.height(), q.bytesPerLine())[
        :, : q.width() * 4
    ]
    img = img.reshape(q.height(), q.width(), 4)
    assert img.shape[:2] == (120, 200)
    rgb = img[..., :3].reshape(-1, 3).astype(int)
    assert len(np.unique(rgb, axis=0)) > 50  # shaded geometry, grid and gizmo, not one flat colour
    assert np.any((rgb[:, 0] > 90) & (rgb[:, 1] < 50) & (rgb[:, 2] < 50))  # the red cube is in view


def test_known_cube_appears_where_its_projection_says(scene):
    _, vc = scene
    img = vc.render()
    assert img.shape[:2] == (240, 320)
    red_px = vc.project([[-2, 0, 0.5]])[0]
    ball_px = vc.project([[2, 0, 0.5]])[0]
    assert _reddish(img, red_px) and not _bluish(img, red_px)
    assert _bluish(img, ball_px) and not _reddish(img, ball_px)
    # left of the screen centre in a front view, as the stage places it at -X
    assert red_px[0] < 160 < ball_px[0]


def test_selection_highlight_appears_on_the_selected_prim_only(scene):
    _, vc = scene
    red_px = vc.project([[-2, 0, 0.5]])[0]
    ball_px = vc.project([[2, 0, 0.5]])[0]
    before = vc.render()
    vc.set_selection(["/World/Red"])
    after = vc.render()
    # highlight: the red cube turns orange (green channel rises), the ball is untouched
    y, x = int(red_px[1]), int(red_px[0])
    assert int(after[y, x, 1]) > int(before[y, x, 1]) + 40
    assert _reddish(before, red_px) and not _reddish(after, red_px, radius=0)
    yb, xb = int(ball_px[1]), int(ball_px[0])
    assert np.array_equal(after[yb, xb], before[yb, xb])


def test_overlay_toggle_changes_pixels_and_back(scene):
    _, vc = scene
    info = DebugInfo(
        contacts=(
            ContactInfo("/World/Cart", "/World/Ground", (2.0, 0.0, 0.0), (0.0, 0.0, 1.0), 5.0),
        ),
        joints=(
            JointFrameInfo(
                "/World/J",
                "fixed",
                None,
                "/World/Cart",
                (0, 0, 2),
                (1, 0, 0, 0),
                (0, 0, 2),
                (1, 0, 0, 0),
                (0, 0, 0),
                0.5,
                0.0,
            ),
        ),
    )
    vc.set_debug_info(info)
    off = vc.render()
    vc.set_overlay("contacts", True)
    on = vc.render()
    px = vc.project([[2.0, 0.0, 0.0]])[0]
    assert color_near(on, px, (255, 51, 230), radius=4, tol=80)  # magenta contact marker
    assert not color_near(off, px, (255, 51, 230), radius=4, tol=80)
    vc.set_overlay("joints", True)
    joints = vc.render()
    jpx = vc.project([[0.0, 0.0, 2.0]])[0]
    # a violation of 0.5 m draws the joint in the "broken" red
    assert color_near(joints, jpx, (255, 25, 25), radius=3, tol=90)
    vc.set_overlay("contacts", False)
    vc.set_overlay("joints", False)
    assert np.array_equal(vc.render(), off)
    with pytest.raises(ValueError, match="unknown overlay"):
        vc.set_overlay("wind", True)


def test_document_edit_moves_the_drawn_prim(scene):
    stage, vc = scene
    old_px = vc.project([[-2, 0, 0.5]])[0]
    UsdGeom.XformCommonAPI(stage.GetPrimAtPath("/World/Red")).SetTranslate(Gf.Vec3d(-2, 0, 3.0))
    vc.update_prims(["/World/Red"])
    img = vc.render()
    new_px = vc.project([[-2, 0, 3.0]])[0]
    assert _reddish(img, new_px)
    assert not _reddish(img, old_px)


def test_body_pose_moves_the_drawn_body(scene):
    _, vc = scene
    vc.set_body_poses(["/World/Cart"], [[0.0, 0.0, 2.5]], [[1.0, 0.0, 0.0, 0.0]])
    img = vc.render()
    assert _bluish(img, vc.project([[0.0, 0.0, 2.5]])[0])
    assert not _bluish(img, vc.project([[2.0, 0.0, 0.5]])[0])


def test_many_prims_draw_with_few_visuals(stage_from, gl_canvas):
    cubes = "\n".join(
        f'def Cube "C{i}" {{ double size = 0.5\n double3 xformOp:translate = ({i % 10}, {i // 10}, 0)\n'
        f'uniform token[] xformOpOrder = ["xformOp:translate"] }}'
        for i in range(100)
    )
    vc = gl_canvas(160, 120)
    vc.set_stage(stage_from(cubes))
    assert vc.n_mesh_visuals == 1
    assert vc.render()[..., :3].std() > 5


def test_y_up_stage_draws_upright(stage_from, gl_canvas):
    stage = stage_from(
        """
    def Cube "Tall" { double size = 1
        float3 xformOp:scale = (0.5, 4, 0.5)
        uniform token[] xformOpOrder = ["xformOp:scale"]
        color3f[] primvars:displayColor = [(0.9, 0.05, 0.05)] }
    """,
        up="Y",
    )
    vc = gl_canvas(200, 200)
    vc.set_stage(stage)
    vc.set_camera("front")
    img = vc.render()
    red = (img[..., 0] > 90) & (img[..., 1] < 50) & (img[..., 2] < 50)
    ys, xs = np.nonzero(red)
    assert (ys.max() - ys.min()) > 3 * (xs.max() - xs.min())  # tall on screen, not wide


def test_named_view_and_eye_center_camera(scene):
    _, vc = scene
    vc.set_camera("top")
    top = vc.render()
    vc.set_camera({"view": "front"})
    assert not np.array_equal(vc.render(), top)
    with pytest.raises(ValueError, match="unknown view"):
        vc.set_camera("sideways")
    with pytest.raises(ValueError, match="missing center"):
        vc.set_camera({"eye": (1, 2, 3)})


def test_no_backend_gives_a_clear_error(monkeypatch, stage_from, tmp_path):
    monkeypatch.setattr(headless, "_backend_order", lambda: ["no-such-backend"])
    with pytest.raises(headless.HeadlessRenderError, match="no OpenGL backend.*no-such-backend"):
        render_stage_to_png(stage_from(SCENE), tmp_path / "x.png")


def test_loading_a_second_stage_replaces_the_drawing(stage_from, gl_canvas):
    vc = gl_canvas(200, 150)
    vc.set_stage(stage_from(SCENE, name="first.usda"))
    vc.set_stage(
        stage_from(
            """
    def Cube "Only" { double size = 2
        color3f[] primvars:displayColor = [(0.05, 0.2, 0.95)] }
    """,
            name="second.usda",
        )
    )
    vc.set_camera("front")
    img = vc.render()
    assert _bluish(img, vc.project([[0, 0, 0]])[0])
    assert not np.any(
        (img[..., 0] > 90) & (img[..., 1] < 50) & (img[..., 2] < 50)
    )  # no red cube left


def test_empty_stage_renders_grid_only(stage_from, gl_canvas):
    vc = gl_canvas(160, 120)
    vc.set_stage(stage_from('def Xform "Empty" {}'))
    vc.set_overlay("contacts", True)
    img = vc.render()
    assert vc.n_mesh_visuals == 0
    assert img[..., :3].std() > 1.0  # the grid and gizmo are drawn over the background


def test_repeated_headless_renders_do_not_accumulate_contexts(stage_from, gl_canvas):
    gl_canvas(8, 8)
    if headless._backend_order()[0] != "egl" or "egl" not in headless._APP_CACHE:
        pytest.skip("EGL is not the headless backend here")
    from vispy.app.backends import _egl

    stage = stage_from(SCENE)
    headless.render_stage_to_array(stage, width=64, height=48)
    windows = len(_egl._VP_EGL_ALL_WINDOWS)
    for _ in range(3):
        headless.render_stage_to_array(stage, width=64, height=48)
    assert len(_egl._VP_EGL_ALL_WINDOWS) == windows


@pytest.mark.parametrize("name", ["joints", "colliders", "contacts", "com", "escaped", "labels"])
def test_each_overlay_toggle_changes_the_picture(scene, name):
    from luncosim_core.physics.debug import ColliderInfo

    _, vc = scene
    vc.set_debug_info(
        DebugInfo(
            joints=(
                JointFrameInfo(
                    "/World/J",
                    "revolute",
                    None,
                    "/World/Cart",
                    (0, 0, 1),
                    (1, 0, 0, 0),
                    (0, 0, 1),
                    (1, 0, 0, 0),
                    (0, 1, 0),
                ),
            ),
            colliders=(
                ColliderInfo(
                    "/World/Red",
                    None,
                    "box",
                    {"half_extents": (0.6, 0.6, 0.6)},
                    (-2, 0, 0.5),
                    (1, 0, 0, 0),
                ),
            ),
            contacts=(ContactInfo("/World/Cart", "/World/Ground", (2, 0, 0), (0, 0, 1), 1.0),),
            centers_of_mass={"/World/Cart": (2.0, 0.0, 0.5)},
            escaped_body="/World/Cart",
        )
    )
    vc.set_labels({"/World/Red": "T = 21.5 degC"})
    off = vc.render()
    vc.set_overlay(name, True)
    on = vc.render()
    changed = np.any(on[..., :3] != off[..., :3], axis=-1)
    assert changed.sum() > 20, name
    vc.set_overlay(name, False)
    assert np.array_equal(vc.render(), off)


def test_every_overlay_layer_has_an_adapter_that_unsubscribes_on_close(scene):
    from luncosim_workbench.viewport._vispy.overlay_adapters import OVERLAY_ADAPTERS, make_adapter
    from luncosim_workbench.viewport.model.overlay_layers import OVERLAY_LAYERS, OverlayLayer

    _, vc = scene
    assert set(OVERLAY_ADAPTERS) == set(OVERLAY_LAYERS)
    for layer in vc.overlay_layers.values():
        assert len(layer.changed) == 1  # its adapter, connected in __init__
    extra = type(OVERLAY_LAYERS[0])("Derived", (OVERLAY_LAYERS[0],), {})()  # a subclass finds its base's adapter
    adapter = make_adapter(extra, vc.view.scene)
    assert len(extra.changed) == 1
    adapter.close()
    assert len(extra.changed) == 0
    with pytest.raises(TypeError, match="no overlay adapter"):
        make_adapter(type("Loose", (OverlayLayer,), {"name": "loose"})(), vc.view.scene)
