"""Overlay geometry built from physics DebugInfo records (pure, no GL)."""

from __future__ import annotations

import numpy as np
import pytest

from luncosim_core.physics.debug import ColliderInfo, ContactInfo, DebugInfo, JointFrameInfo
from luncosim_workbench.viewport.model import overlays as ov
from luncosim_workbench.viewport.model.transforms import stage_to_view

Z_UP = stage_to_view("Z", 1.0)
Y_UP = stage_to_view("Y", 1.0)
IDENT = (1.0, 0.0, 0.0, 0.0)


def _joint(violation_m=0.0, violation_rad=0.0, axis=(1.0, 0.0, 0.0)):
    return JointFrameInfo(
        "/J",
        "revolute",
        "/A",
        "/B",
        (0, 0, 1),
        IDENT,
        (0, 0, 1.002),
        IDENT,
        axis,
        violation_m,
        violation_rad,
    )


@pytest.mark.parametrize(
    "vm,vr,color",
    [
        (0.0, 0.0, ov.JOINT_OK),
        (0.002, 0.0, ov.JOINT_WARN),
        (0.0, 0.02, ov.JOINT_WARN),
        (0.05, 0.0, ov.JOINT_BAD),
        (0.0, 0.5, ov.JOINT_BAD),
    ],
)
def test_joint_colour_follows_violation(vm, vr, color):
    assert ov.joint_color(_joint(vm, vr)) == color
    lines = ov.joint_lines((_joint(vm, vr),), Z_UP, 0.5)
    # two RGB triads, the joint axis and the frame0-frame1 gap
    assert lines.n_segments == 8
    assert np.allclose(lines.colors[-1], color)


def test_joint_triads_are_in_view_frame_for_y_up_stages():
    j = JointFrameInfo(
        "/J", "fixed", None, "/B", (0, 2, 0), IDENT, (0, 2, 0), IDENT, (0.0, 0.0, 0.0)
    )
    lines = ov.joint_lines((j,), Y_UP, 1.0)
    origin = lines.positions[0]
    assert np.allclose(origin, [0, 0, 2])  # stage +Y is up in the view
    # the stage's local Y axis (green, segment 2) points up in the view
    assert np.allclose(lines.positions[3] - lines.positions[2], [0, 0, 1], atol=1e-6)


def test_box_collider_wireframe_has_12_edges_at_its_pose():
    c = ColliderInfo(
        "/B/col", "/B", "box", {"half_extents": (1.0, 2.0, 0.5)}, (10.0, 0.0, 0.0), IDENT
    )
    lines = ov.collider_lines((c,), Z_UP)
    assert lines.n_segments == 12
    assert np.allclose(lines.positions.min(axis=0), [9, -2, -0.5])
    assert np.allclose(lines.positions.max(axis=0), [11, 2, 0.5])
    assert np.allclose(lines.colors[0], ov.COLLIDER_DYNAMIC)
    static = ov.collider_lines(
        (ColliderInfo("/G", None, "sphere", {"radius": 1.0}, (0, 0, 0), IDENT),), Z_UP
    )
    assert np.allclose(static.colors[0], ov.COLLIDER_STATIC)
    assert np.allclose(np.linalg.norm(static.positions, axis=1), 1.0)


@pytest.mark.parametrize("shape", ["cylinder", "capsule", "cone"])
def test_round_colliders_follow_their_axis(shape):
    c = ColliderInfo(
        "/c", "/B", shape, {"radius": 0.5, "height": 4.0, "axis": "X"}, (0, 0, 0), IDENT
    )
    pts = ov.collider_lines((c,), Z_UP).positions
    ext = pts.max(axis=0) - pts.min(axis=0)
    assert ext[0] >= 4.0 - 1e-6 and np.allclose(ext[1:], 1.0, atol=1e-6)


def test_trimesh_collider_draws_unique_edges_and_unknown_shapes_fail():
    v = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    c = ColliderInfo(
        "/t", None, "trimesh", {"vertices": v, "indices": [0, 1, 2, 1, 3, 2]}, (0, 0, 0), IDENT
    )
    assert ov.collider_lines((c,), Z_UP).n_segments == 5  # shared diagonal drawn once
    with pytest.raises(ValueError, match="unknown shape 'torus'"):
        ov.collider_lines((ColliderInfo("/x", None, "torus", {}, (0, 0, 0), IDENT),), Z_UP)


def test_contacts_draw_point_and_normal_in_view_frame():
    info = DebugInfo(contacts=(ContactInfo("/A", "/G", (1.0, 0.0, 2.0), (0.0, 1.0, 0.0), 9.8),))
    lines, marks = ov.contact_geometry(info, Y_UP, 0.5)
    assert np.allclose(marks.positions[0], [1, -2, 0])
    assert np.allclose(lines.positions[1] - lines.positions[0], [0, 0, 0.5])


def test_com_and_escaped_markers():
    info = DebugInfo(centers_of_mass={"/A": (1.0, 2.0, 3.0)}, escaped_body="/A")
    lines, marks = ov.com_geometry(info, Z_UP, 0.2)
    assert lines.n_segments == 3 and np.allclose(marks.positions[0], [1, 2, 3])
    _, esc = ov.escaped_geometry(info, Z_UP, np.array([7.0, 0.0, 0.0]), 1.0)
    assert np.allclose(esc.positions[0], [7, 0, 0]) and np.allclose(esc.colors[0], ov.ESCAPED_COLOR)
    _, esc = ov.escaped_geometry(info, Z_UP, None, 1.0)  # falls back to the centre of mass
    assert np.allclose(esc.positions[0], [1, 2, 3])
    _, none = ov.escaped_geometry(DebugInfo(), Z_UP, None, 1.0)
    assert none.positions.shape[0] == 0


def test_labels_anchor_only_prims_that_exist():
    labels = ov.label_geometry(
        {"/A": "v=1.0 m/s", "/Gone": "x"}, lambda p: (0, 0, 1) if p == "/A" else None
    )
    assert labels.texts == ("v=1.0 m/s",) and np.allclose(labels.positions, [[0, 0, 1]])


def test_overlay_layers_build_only_when_enabled_and_tell_their_adapters():
    from luncosim_workbench.viewport.model.overlay_layers import (
        OVERLAY_LAYERS,
        JointsLayer,
        OverlayInputs,
    )

    assert tuple(cls.name for cls in OVERLAY_LAYERS) == ov.OVERLAY_NAMES
    info = DebugInfo(joints=(_joint(),))
    inputs = OverlayInputs(info, Z_UP, 0.5)
    layer = JointsLayer()
    seen = []
    layer.changed.connect(lambda: seen.append(layer.lines))
    layer.update(inputs)
    assert seen == [None]  # off: nothing to draw
    layer.set_enabled(True, inputs)
    assert seen[-1] is not None and seen[-1].n_segments > 0
    layer.set_enabled(False, inputs)
    assert seen[-1] is None
