"""Tessellation of each UsdGeom primitive: counts, extents, axes, normals."""

from __future__ import annotations

import numpy as np
import pytest

from luncosim_workbench.viewport.model import geometry as geo


def _unit_normals(m: geo.TriMesh) -> None:
    assert np.allclose(np.linalg.norm(m.normals, axis=1), 1.0)


def test_cube_is_12_flat_triangles_spanning_its_size():
    m = geo.cube(3.0)
    assert (m.n_vertices, m.n_faces) == (24, 12)
    lo, hi = m.extent()
    assert np.allclose(lo, -1.5) and np.allclose(hi, 1.5)
    _unit_normals(m)
    # flat faces: each vertex normal is an axis direction and points outwards
    assert np.allclose(np.abs(m.normals).max(axis=1), 1.0)
    assert np.all(np.einsum("ij,ij->i", m.normals, m.positions) > 0)


def test_sphere_extent_and_outward_normals():
    m = geo.sphere(2.0)
    lo, hi = m.extent()
    assert np.allclose(lo, -2.0, atol=1e-9) and np.allclose(hi, 2.0, atol=1e-9)
    assert np.allclose(np.linalg.norm(m.positions, axis=1), 2.0)
    assert np.allclose(m.normals, m.positions / 2.0)
    # no degenerate triangles left at the poles
    tri = m.positions[m.faces]
    area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    assert area.min() > 1e-9


@pytest.mark.parametrize("axis,long_index", [("X", 0), ("Y", 1), ("Z", 2)])
@pytest.mark.parametrize("kind", ["cylinder", "cone"])
def test_cylinder_and_cone_lie_along_their_axis(kind, axis, long_index):
    m = getattr(geo, kind)(0.5, 4.0, axis)
    lo, hi = m.extent()
    expect_hi = np.full(3, 0.5)
    expect_hi[long_index] = 2.0
    assert np.allclose(hi, expect_hi, atol=1e-9)
    assert np.allclose(lo, -expect_hi, atol=1e-9)
    _unit_normals(m)


def test_cone_apex_points_to_plus_axis():
    m = geo.cone(1.0, 2.0, "Z")
    top = m.positions[np.isclose(m.positions[:, 2], 1.0)]
    assert np.allclose(top[:, :2], 0.0)  # only the apex reaches +h/2
    base = m.positions[np.isclose(m.positions[:, 2], -1.0)]
    assert np.isclose(np.linalg.norm(base[:, :2], axis=1).max(), 1.0)


@pytest.mark.parametrize("axis,long_index", [("X", 0), ("Y", 1), ("Z", 2)])
def test_capsule_height_excludes_caps(axis, long_index):
    m = geo.capsule(0.5, 2.0, axis)
    lo, hi = m.extent()
    assert np.isclose(hi[long_index], 1.5) and np.isclose(lo[long_index], -1.5)
    other = [i for i in range(3) if i != long_index]
    assert np.allclose(hi[other], 0.5, atol=1e-9)


def test_polygon_mesh_fan_triangulates_quads_and_pentagons():
    pts = np.array(
        [
            [0, 0, 0],
            [1, 0, 0],
            [1, 1, 0],
            [0, 1, 0],
            [2, 0, 0],
            [3, 0, 0],
            [3, 1, 0],
            [2.5, 2, 0],
            [2, 1, 0],
        ],
        float,
    )
    m = geo.polygon_mesh(pts, [4, 5], [0, 1, 2, 3, 4, 5, 6, 7, 8])
    assert m.n_faces == 2 + 3
    assert np.allclose(m.normals, [0, 0, 1])
    # area is preserved by the triangulation: 1 (square) + 1.5 (pentagon)
    tri = m.positions[m.faces]
    area = (
        0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    )
    assert np.isclose(area, 2.5)


def test_polygon_mesh_keeps_shared_points_with_vertex_normals():
    pts = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    m = geo.polygon_mesh(pts, [4], [0, 1, 2, 3], normals=np.tile([0, 0, 1.0], (4, 1)))
    assert m.n_vertices == 4 and m.n_faces == 2


def test_left_handed_orientation_flips_winding():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float)
    right = geo.polygon_mesh(pts, [3], [0, 1, 2])
    left = geo.polygon_mesh(pts, [3], [0, 1, 2], left_handed=True)
    assert np.allclose(right.normals, [0, 0, 1]) and np.allclose(left.normals, [0, 0, -1])


@pytest.mark.parametrize(
    "counts,indices,message",
    [
        ([4], [0, 1, 2], "sum to 4"),
        ([2], [0, 1], "3 or more"),
        ([3], [0, 1, 9], "reference point 9"),
    ],
)
def test_polygon_mesh_rejects_inconsistent_topology(counts, indices, message):
    pts = np.zeros((4, 3))
    with pytest.raises(ValueError, match=message):
        geo.polygon_mesh(pts, counts, indices)


def test_transformed_applies_scale_and_mirrors_keep_outward_normals():
    m = geo.cube(2.0)
    mat = np.diag([2.0, 1.0, 1.0, 1.0])
    t = geo.transformed(m, mat)
    lo, hi = t.extent()
    assert np.allclose(hi, [2, 1, 1])
    mirror = geo.transformed(m, np.diag([-1.0, 1.0, 1.0, 1.0]))
    assert np.all(np.einsum("ij,ij->i", mirror.normals, mirror.positions) > 0)
