"""The pure scene model: stage reading, transforms, visibility, purpose, units, poses, edits."""

from __future__ import annotations

import numpy as np
import pytest
from pxr import Gf, Sdf, UsdGeom

from luncosim_workbench.viewport.model.scene_model import HIGHLIGHT_COLOR, SceneModel

ROVER = """
def Xform "World"
{
    def Cube "Ground"
    {
        double size = 1
        double3 xformOp:translate = (0, 0, -0.5)
        float3 xformOp:scale = (20, 20, 1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
        color3f[] primvars:displayColor = [(0.5, 0.5, 0.5)]
    }
    def Xform "Rover" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    )
    {
        double3 xformOp:translate = (1, 2, 3)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "Body"
        {
            double size = 1
            color3f[] primvars:displayColor = [(1, 0, 0)]
        }
        def Sphere "Mast"
        {
            double radius = 0.25
            double3 xformOp:translate = (0, 0, 1)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
}
"""


def _box(model, path):
    lo, hi = model.bounds([path])
    return np.round(lo, 6), np.round(hi, 6)


def test_reads_every_visible_gprim_into_few_batches(stage_from):
    m = SceneModel(stage_from(ROVER))
    assert m.prim_paths == ("/World/Ground", "/World/Rover/Body", "/World/Rover/Mast")
    assert m.body_paths == ("/World/Rover",)
    # one static bucket and one moving bucket, not one visual per prim
    assert sorted((k.dynamic, len(b.prim_paths)) for k, b in m.buckets.items()) == [
        (False, 1),
        (True, 2),
    ]


def test_batches_many_prims_into_one_bucket(stage_from):
    cubes = "\n".join(
        f'def Cube "C{i}" {{ double size = 1\n double3 xformOp:translate = ({i}, 0, 0)\n'
        f'uniform token[] xformOpOrder = ["xformOp:translate"]\n'
        f"color3f[] primvars:displayColor = [({i / 50}, 0.5, 0.5)] }}"
        for i in range(50)
    )
    m = SceneModel(stage_from(cubes))
    assert len(m.buckets) == 1
    (b,) = m.buckets.values()
    assert b.n_faces == 50 * 12 and len(b.prim_paths) == 50
    # each prim keeps its own colour inside the merged batch
    i = b.prim_paths.index("/C10")
    assert np.allclose(b.colors[b.prim_vertex_slice(i), 0], 0.2)


def test_translate_rotatexyz_and_scale_ops(stage_from):
    m = SceneModel(
        stage_from("""
    def Xform "A"
    {
        double3 xformOp:translate = (10, 0, 0)
        float3 xformOp:rotateXYZ = (0, 0, 90)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
        def Cube "C"
        {
            double size = 1
            float3 xformOp:scale = (4, 1, 1)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }
    }
    """)
    )
    lo, hi = _box(m, "/A/C")
    # the 4 m long local X edge turned onto world Y by the parent's 90 degree yaw
    assert np.allclose(lo, [9.5, -2, -0.5]) and np.allclose(hi, [10.5, 2, 0.5])


def test_orient_op(stage_from):
    m = SceneModel(
        stage_from("""
    def Cube "C"
    {
        double size = 2
        quatf xformOp:orient = (0.70710677, 0.70710677, 0, 0)
        float3 xformOp:scale = (1, 3, 1)
        uniform token[] xformOpOrder = ["xformOp:orient", "xformOp:scale"]
    }
    """)
    )
    lo, hi = _box(m, "/C")
    # +90 degrees about X carries the 6 m local Y extent onto world Z
    assert np.allclose(lo, [-1, -1, -3], atol=1e-5) and np.allclose(hi, [1, 1, 3], atol=1e-5)


def test_inherited_visibility_hides_descendants(stage_from):
    m = SceneModel(
        stage_from("""
    def Xform "Hidden" { token visibility = "invisible"
        def Cube "C" { double size = 1 } }
    def Cube "Shown" { double size = 1 }
    """)
    )
    assert m.prim_paths == ("/Shown",)


def test_purpose_render_and_default_shown_proxy_and_guide_toggle(stage_from):
    m = SceneModel(
        stage_from("""
    def Cube "Default" { double size = 1 }
    def Cube "Render" { double size = 1
        uniform token purpose = "render"
        double3 xformOp:translate = (10, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"] }
    def Xform "ProxyGroup" { uniform token purpose = "proxy"
        def Cube "P" { double size = 1
            double3 xformOp:translate = (0, 20, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"] } }
    def Cube "Guide" { double size = 1
        uniform token purpose = "guide"
        double3 xformOp:translate = (0, 0, 30)
        uniform token[] xformOpOrder = ["xformOp:translate"] }
    """)
    )
    lo, hi = m.bounds()
    assert np.allclose(hi, [10.5, 0.5, 0.5])
    assert m.prim_record("/ProxyGroup/P").purpose == "proxy"  # inherited purpose
    m.set_purpose_visible("proxy", True)
    assert np.isclose(m.bounds()[1][1], 20.5)
    m.set_purpose_visible("guide", True)
    assert np.isclose(m.bounds()[1][2], 30.5)
    m.set_purpose_visible("proxy", False)
    assert np.isclose(m.bounds()[1][1], 0.5)
    with pytest.raises(ValueError, match="unknown purpose"):
        m.set_purpose_visible("hero", True)


CUBE_AT = """
def Cube "C"
{{
    double size = 2
    double3 xformOp:translate = ({x}, {y}, {z})
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
"""


def test_up_axis_y_is_drawn_with_y_as_vertical(stage_from):
    y_up = SceneModel(stage_from(CUBE_AT.format(x=1, y=5, z=2), up="Y"))
    lo, hi = y_up.bounds()
    # stage +Y -> view +Z, stage +Z -> view -Y
    assert np.allclose((lo + hi) / 2, [1, -2, 5])
    z_up = SceneModel(stage_from(CUBE_AT.format(x=1, y=5, z=2), up="Z", name="z.usda"))
    assert np.allclose(np.mean(z_up.bounds(), axis=0), [1, 5, 2])


def test_meters_per_unit_scales_to_metres(stage_from):
    m = SceneModel(stage_from(CUBE_AT.format(x=0, y=0, z=300), mpu=0.01))
    lo, hi = m.bounds()
    assert np.allclose(lo, [-0.01, -0.01, 2.99]) and np.allclose(hi, [0.01, 0.01, 3.01])


def test_display_color_and_opacity_make_a_translucent_batch(stage_from):
    m = SceneModel(
        stage_from("""
    def Cube "Glass" { double size = 1
        color3f[] primvars:displayColor = [(0, 0, 1)]
        float[] primvars:displayOpacity = [0.25] }
    def Cube "Solid" { double size = 1 }
    """)
    )
    keys = {k.translucent: b for k, b in m.buckets.items()}
    assert set(keys) == {True, False}
    assert np.allclose(keys[True].colors[0], [0, 0, 1, 0.25])
    assert np.allclose(keys[False].colors[0, :3], [0.72, 0.72, 0.70], atol=1e-6)  # default grey


def test_mesh_uniform_display_color_maps_to_faces(stage_from):
    m = SceneModel(
        stage_from("""
    def Mesh "M" {
        point3f[] points = [(0,0,0), (1,0,0), (1,1,0), (0,1,0), (2,0,0), (2,1,0)]
        int[] faceVertexCounts = [4, 4]
        int[] faceVertexIndices = [0, 1, 2, 3, 1, 4, 5, 2]
        color3f[] primvars:displayColor = [(1, 0, 0), (0, 1, 0)] (interpolation = "uniform")
    }
    """)
    )
    (b,) = m.buckets.values()
    assert b.n_faces == 4
    red = b.colors[:, 0] > 0.5
    green_x = b.positions[~red, 0]
    assert red.sum() == 6 and np.all(green_x >= 1.0) and np.all(b.positions[red, 0] <= 1.0)


def test_bodies_move_rigidly_static_geometry_stays(stage_from):
    m = SceneModel(stage_from(ROVER))
    ground_before = _box(m, "/World/Ground")
    lo, hi = _box(m, "/World/Rover/Mast")
    assert np.allclose((lo + hi) / 2, [1, 2, 4])
    # turn the rover 90 degrees about X and move it to (5, 0, 0)
    q = [np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0]
    unknown = m.set_body_poses(
        ["/World/Rover", "/World/NotABody"], [[5, 0, 0], [0, 0, 0]], [q, [1, 0, 0, 0]]
    )
    assert unknown == ("/World/NotABody",)
    lo, hi = _box(m, "/World/Rover/Mast")
    # the mast sat 1 m above the body origin; after +90 deg about X it sits 1 m along -Y
    assert np.allclose((lo + hi) / 2, [5, -1, 0], atol=1e-6)
    for got, want in zip(_box(m, "/World/Ground"), ground_before, strict=True):
        assert np.allclose(got, want)


def test_body_poses_are_metres_on_a_centimetre_stage(stage_from):
    m = SceneModel(
        stage_from(
            """
    def Xform "B" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        def Cube "C" { double size = 100 } }
    """,
            mpu=0.01,
        )
    )
    m.set_body_poses(["/B"], [[0, 0, 2.0]], [[1, 0, 0, 0]])
    lo, hi = _box(m, "/B/C")
    assert np.allclose(lo, [-0.5, -0.5, 1.5]) and np.allclose(hi, [0.5, 0.5, 2.5])


def test_scaled_body_keeps_its_scale_when_posed(stage_from):
    m = SceneModel(
        stage_from("""
    def Xform "B" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        float3 xformOp:scale = (3, 1, 1)
        uniform token[] xformOpOrder = ["xformOp:scale"]
        def Cube "C" { double size = 1 } }
    """)
    )
    m.set_body_poses(["/B"], [[0, 0, 0]], [[np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)]])
    lo, hi = _box(m, "/B/C")
    assert np.allclose(hi - lo, [1, 3, 1], atol=1e-6)  # 3 m long X turned onto Y


def test_bad_pose_input_is_rejected_with_a_message(stage_from):
    m = SceneModel(stage_from(ROVER))
    with pytest.raises(ValueError, match="1 paths but 2 positions"):
        m.set_body_poses(["/World/Rover"], np.zeros((2, 3)), np.zeros((1, 4)))
    with pytest.raises(ValueError, match="non-finite pose for /World/Rover"):
        m.set_body_poses(["/World/Rover"], [[np.nan, 0, 0]], [[1, 0, 0, 0]])


def test_update_prims_retessellates_only_the_edited_prims(stage_from):
    stage = stage_from(ROVER)
    m = SceneModel(stage)
    static = next(b for k, b in m.buckets.items() if not k.dynamic)
    dynamic_key = next(k for k in m.buckets if k.dynamic)
    dyn_version = m.buckets[dynamic_key].geometry_version
    UsdGeom.Sphere(stage.GetPrimAtPath("/World/Rover/Mast")).GetRadiusAttr().Set(1.0)
    dirty = m.update_prims(["/World/Rover/Mast"])
    assert dirty == {dynamic_key}
    assert m.buckets[dynamic_key].geometry_version > dyn_version
    assert next(b for k, b in m.buckets.items() if not k.dynamic) is static  # untouched
    lo, hi = _box(m, "/World/Rover/Mast")
    assert np.allclose(hi - lo, 2.0, atol=1e-6)


def test_update_prims_handles_moved_added_and_removed_prims(stage_from):
    stage = stage_from(ROVER)
    m = SceneModel(stage)
    m.set_body_poses(["/World/Rover"], [[0, 0, 10]], [[1, 0, 0, 0]])
    # move the static ground, add a cone under the rover, remove the mast
    UsdGeom.XformCommonAPI(stage.GetPrimAtPath("/World/Ground")).SetTranslate(Gf.Vec3d(0, 0, -5))
    cone = UsdGeom.Cone.Define(stage, "/World/Rover/Antenna")
    UsdGeom.XformCommonAPI(cone).SetTranslate(Gf.Vec3d(0, 3, 0))
    stage.RemovePrim("/World/Rover/Mast")
    m.update_prims(["/World/Ground", "/World/Rover/Antenna", "/World/Rover/Mast"])
    assert m.prim_paths == ("/World/Ground", "/World/Rover/Antenna", "/World/Rover/Body")
    assert np.isclose(np.mean(_box(m, "/World/Ground"), axis=0)[2], -5.0)
    # the new prim follows the live body pose, offset as authored relative to the body
    assert np.allclose(np.mean(_box(m, "/World/Rover/Antenna"), axis=0), [0, 3, 10])


def test_selection_highlights_the_prim_and_its_descendants_only(stage_from):
    m = SceneModel(stage_from(ROVER))
    m.set_selection(["/World/Rover"])
    for b in m.buckets.values():
        for i, p in enumerate(b.prim_paths):
            c = b.colors[b.prim_vertex_slice(i), :3]
            base = b.base_colors[b.prim_vertex_slice(i), :3]
            if p.startswith("/World/Rover/"):
                assert np.all(
                    np.linalg.norm(c - HIGHLIGHT_COLOR[:3], axis=1)
                    < np.linalg.norm(base - HIGHLIGHT_COLOR[:3], axis=1)
                )
            else:
                assert np.array_equal(c, base)
    m.set_selection([])
    assert all(np.array_equal(b.colors, b.base_colors) for b in m.buckets.values())


def test_unsupported_and_malformed_prims_give_diagnostics(stage_from):
    m = SceneModel(
        stage_from("""
    def Points "Dust" { point3f[] points = [(0, 0, 0)] }
    def Mesh "Broken" { point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2] }
    def Sphere "Neg" { double radius = -1 }
    def Cube "Ok" { double size = 1 }
    """)
    )
    assert m.prim_paths == ("/Ok",)
    by_path = {d.path: d for d in m.diagnostics}
    assert (
        by_path["/Dust"].code == "viewport.unsupported-gprim"
        and "Points" in by_path["/Dust"].message
    )
    assert (
        by_path["/Broken"].severity == "error" and "faceVertexCounts" in by_path["/Broken"].message
    )
    assert by_path["/Neg"].code == "viewport.bad-dimension" and "radius" in by_path["/Neg"].message


def test_instance_proxies_are_drawn(stage_from, tmp_path):
    (tmp_path / "asset.usda").write_text(
        '#usda 1.0\n(\n    defaultPrim = "A"\n)\ndef Xform "A"\n{\n    def Cube "C"\n    {\n        double size = 1\n    }\n}\n'
    )
    m = SceneModel(
        stage_from("""
    def Xform "I1" (
        instanceable = true
        prepend references = @./asset.usda@
    ) {
        double3 xformOp:translate = (5, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"] }
    def Xform "I2" (
        instanceable = true
        prepend references = @./asset.usda@
    ) {}
    """)
    )
    assert m.prim_paths == ("/I1/C", "/I2/C")
    assert np.allclose(np.mean(_box(m, "/I1/C"), axis=0), [5, 0, 0])


def test_same_stage_gives_bit_identical_buffers(stage_from, tmp_path):
    a = SceneModel(stage_from(ROVER, name="a.usda"))
    b = SceneModel(stage_from(ROVER, name="b.usda"))
    for k in a.buckets:
        assert a.buckets[k].positions.tobytes() == b.buckets[k].positions.tobytes()
        assert a.buckets[k].faces.tobytes() == b.buckets[k].faces.tobytes()
    assert Sdf  # pxr imported for authoring helpers above


def test_empty_stage_draws_nothing_and_picks_nothing(stage_from):
    from luncosim_workbench.viewport import pick

    m = SceneModel(stage_from('def Xform "Empty" {}'))
    assert m.buckets == {} and m.bounds() is None
    assert pick(m, (0, -5, 0), (0, 1, 0)) is None
    assert m.set_body_poses([], np.zeros((0, 3)), np.zeros((0, 4))) == ()


def test_selecting_a_prim_does_not_highlight_a_sibling_with_a_longer_name(stage_from):
    m = SceneModel(
        stage_from("""
    def Cube "A" { double size = 1 }
    def Cube "AB" { double size = 1 }
    def Xform "A_" { def Cube "C" { double size = 1 } }
    """)
    )
    m.set_selection(["/A"])
    (b,) = m.buckets.values()
    changed = [
        p
        for i, p in enumerate(b.prim_paths)
        if not np.array_equal(
            b.colors[b.prim_vertex_slice(i)], b.base_colors[b.prim_vertex_slice(i)]
        )
    ]
    assert changed == ["/A"]


YARD = """
def Cube "Ground" { double size = 1
    double3 xformOp:translate = (0, 0, -0.5)
    float3 xformOp:scale = (120, 120, 1)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"] }
def Cube "Pad" { double size = 1
    double3 xformOp:translate = (0, 0, 0.05)
    float3 xformOp:scale = (4, 4, 0.1)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"] }
def Cube "Marker" { double size = 1
    double3 xformOp:translate = (10, 0, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
def Cube "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) { double size = 2
    double3 xformOp:translate = (-3, 2, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
"""


def test_fit_all_bounds_leave_out_a_ground_far_wider_than_the_rest(stage_from):
    m = SceneModel(stage_from(YARD))
    assert m.ground_paths() == ("/Ground",)  # the 4 m pad is flat but not far wider than the rest
    lo, hi = m.framing_bounds()
    assert np.allclose(lo, [-4, -2, 0]) and np.allclose(hi, [10.5, 3, 2])  # rover, pad and marker
    assert np.isclose(m.bounds()[1][0], 60)  # bounds() still holds everything


def test_a_scene_of_only_ground_or_of_comparable_prims_is_framed_whole(stage_from):
    only = SceneModel(stage_from("""
def Cube "Ground" { double size = 1
    float3 xformOp:scale = (120, 120, 1)
    uniform token[] xformOpOrder = ["xformOp:scale"] }
"""))
    assert only.ground_paths() == () and np.isclose(only.framing_bounds()[1][0], 60)
    # a 10 m slab under a 6 m wide layout of boxes is part of the layout, not a far ground
    near = SceneModel(stage_from("""
def Cube "Slab" { double size = 1
    float3 xformOp:scale = (10, 10, 0.2)
    uniform token[] xformOpOrder = ["xformOp:scale"] }
def Cube "A" { double size = 1
    double3 xformOp:translate = (-3, 0, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
def Cube "B" { double size = 1
    double3 xformOp:translate = (3, 0, 0.5)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
""", name="near.usda"))
    assert near.ground_paths() == ()
    assert np.allclose(near.framing_bounds()[0], near.bounds()[0])
