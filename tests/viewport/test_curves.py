"""Curves drawn as tubes: NURBS / basis-curve evaluation and the sweep."""

from __future__ import annotations

import numpy as np
import pytest

from luncosim_workbench.viewport import SceneModel
from luncosim_workbench.viewport.model import curves as crv

P = np.array([[0.0, 0, 0], [1, 2, 0], [3, 2, 0], [4, 0, 0]])
CLAMPED = [0, 0, 0, 0, 1, 1, 1, 1]


def test_bspline_basis_is_a_partition_of_unity():
    knots = np.array([0, 0, 0, 1, 2, 3, 3, 3], float)
    n = crv.bspline_basis(knots, 2, np.linspace(0, 3, 31))
    assert n.shape == (31, 5)
    assert np.allclose(n.sum(axis=1), 1.0) and np.all(n >= -1e-12)


def test_clamped_cubic_nurbs_matches_the_bezier_curve():
    c = crv.nurbs_curve(P, 4, CLAMPED)
    assert np.allclose(c[0], P[0]) and np.allclose(c[-1], P[-1])
    mid = c[len(c) // 2]
    assert np.allclose(mid, (P[0] + 3 * P[1] + 3 * P[2] + P[3]) / 8)
    assert np.allclose(crv.basis_curve(P, "cubic", "bezier", "nonperiodic"), c)


def test_rational_weights_give_an_exact_quarter_circle():
    pts = np.array([[1.0, 0, 0], [1, 1, 0], [0, 1, 0]])
    c = crv.nurbs_curve(pts, 3, [0, 0, 0, 1, 1, 1], weights=np.array([1, np.sqrt(0.5), 1]))
    assert np.allclose(np.linalg.norm(c, axis=1), 1.0)


def test_catmull_rom_passes_through_its_inner_points_and_linear_keeps_points():
    pts = np.array([[0.0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0], [4, 0, 0]])
    c = crv.basis_curve(pts, "cubic", "catmullRom", "nonperiodic", samples_per_span=4)
    for p in pts[1:-1]:
        assert np.min(np.linalg.norm(c - p, axis=1)) < 1e-12
    assert np.array_equal(crv.basis_curve(pts, "linear", "bezier", "nonperiodic"), pts)
    with pytest.raises(ValueError, match="at least 4 points"):
        crv.basis_curve(pts[:3], "cubic", "bspline", "nonperiodic")


def test_nurbs_rejects_a_wrong_knot_count():
    with pytest.raises(ValueError, match="need 8 knots, got 7"):
        crv.nurbs_curve(P, 4, CLAMPED[:-1])


def test_tube_surface_sits_at_the_radius_around_the_centreline():
    centre = crv.nurbs_curve(P, 4, CLAMPED)
    mesh = crv.tube(centre, np.full(len(centre), 0.1))
    rings = mesh.positions.reshape(len(centre), crv.TUBE_SIDES + 1, 3)
    assert np.allclose(np.linalg.norm(rings - centre[:, None, :], axis=2), 0.1)
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0)


def test_stage_curves_are_drawn_with_their_widths(stage_from):
    m = SceneModel(
        stage_from("""
    def NurbsCurves "Arm" {
        int[] curveVertexCounts = [4]
        int[] order = [4]
        double[] knots = [0, 0, 0, 0, 1, 1, 1, 1]
        point3f[] points = [(0, 0, 0), (1, 2, 0), (3, 2, 0), (4, 0, 0)]
        float[] widths = [0.2]
    }
    def BasisCurves "Cable" {
        uniform token type = "linear"
        int[] curveVertexCounts = [2]
        point3f[] points = [(0, 0, 5), (0, 3, 5)]
        float[] widths = [0.5]
    }
    def NurbsCurves "Broken" {
        int[] curveVertexCounts = [4]
        int[] order = [4]
        double[] knots = [0, 0, 1]
        point3f[] points = [(0, 0, 0), (1, 2, 0), (3, 2, 0), (4, 0, 0)]
    }
    """)
    )
    assert m.prim_paths == ("/Arm", "/Cable")
    lo, hi = m.bounds(["/Arm"])
    assert np.isclose(lo[2], -0.1) and np.isclose(hi[2], 0.1)  # 0.2 wide tube in the z=0 plane
    assert -0.1 <= lo[0] < 0.0 and 4.0 < hi[0] <= 4.1
    assert np.isclose(hi[1], 1.5 + 0.1, atol=1e-2)  # the curve peaks at y = 1.5
    lo, hi = m.bounds(["/Cable"])
    assert np.allclose(hi - lo, [0.5, 3.0, 0.5], atol=1e-6)
    (bad,) = [d for d in m.diagnostics if d.path == "/Broken"]
    assert bad.code == "viewport.bad-curves" and "knots" in bad.message
