"""Pose and quaternion helpers, checked against USD's own matrix math."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pxr import Gf

from luncosim_core.physics.frames import (
    Pose,
    axis_angle_quat,
    matrix_to_quat,
    pose_from_usd_matrix,
    quat_angle,
    quat_to_matrix,
)

angles = st.floats(-math.pi, math.pi, allow_nan=False)
coords = st.floats(-100, 100, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(angles, angles, angles, coords, coords, coords)
def test_usd_matrix_to_pose_matches_gf(rx, ry, rz, x, y, z):
    rot = Gf.Rotation(Gf.Vec3d(1, 0, 0), math.degrees(rx)) * Gf.Rotation(Gf.Vec3d(0, 1, 0), math.degrees(ry)) \
        * Gf.Rotation(Gf.Vec3d(0, 0, 1), math.degrees(rz))
    m = Gf.Matrix4d().SetScale(Gf.Vec3d(2.0, 0.5, 3.0)) * Gf.Matrix4d().SetRotate(rot) \
        * Gf.Matrix4d().SetTranslate(Gf.Vec3d(x, y, z))
    pose, scale = pose_from_usd_matrix(m, 0.5)
    assert scale == pytest.approx([2.0, 0.5, 3.0])
    p_local = Gf.Vec3d(0.3, -0.7, 1.1)
    expect = np.array(m.Transform(Gf.Vec3d(p_local[0] / 2.0, p_local[1] / 0.5, p_local[2] / 3.0))) * 0.5
    got = pose.apply(np.array(p_local) * 0.5)
    assert got == pytest.approx(expect, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(angles, angles, angles)
def test_quaternion_matrix_round_trip_and_inverse(a, b, c):
    q = axis_angle_quat(np.array([math.cos(a), math.sin(a) * math.cos(b), math.sin(a) * math.sin(b)]), c)
    q2 = matrix_to_quat(quat_to_matrix(q))
    assert min(np.abs(q2 - q).max(), np.abs(q2 + q).max()) < 1e-9
    p = Pose(np.array([1.0, 2.0, 3.0]), q)
    ident = p * p.inverse()
    assert ident.p == pytest.approx([0, 0, 0], abs=1e-12)
    assert quat_angle(ident.q) < 1e-7
    assert quat_angle(q) == pytest.approx(abs(c) if abs(c) <= math.pi else 2 * math.pi - abs(c), abs=1e-7)


def test_physics_package_imports_no_gui_toolkit():
    code = ("import sys, luncosim_core.physics\n"
            "bad = [m for m in ('PySide6', 'vispy', 'pyqtgraph') if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
