"""Tessellation of UsdGeom primitives into triangle soups (pure numpy, no USD, no GL).

Every function returns a :class:`TriMesh` in the primitive's own local space, in stage units.
Shapes follow the UsdGeom schema definitions: a Cube of ``size`` is centred on the origin, a
Cylinder/Cone/Capsule is centred on the origin along ``axis`` with ``height`` its full length (for
a Capsule, the length of the cylindrical part, caps excluded) and a Cone's apex points to +axis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

AXES = ("X", "Y", "Z")

# Default tessellation density: enough to read as round at viewport sizes, small enough that
# thousands of bodies stay interactive under software GL.
RADIAL_SEGMENTS = 24
SPHERE_RINGS = 12
CAP_RINGS = 6


@dataclass(frozen=True, slots=True)
class TriMesh:
    """Indexed triangles with one normal per vertex (float64 positions, int64 faces)."""

    positions: np.ndarray  # (V, 3)
    normals: np.ndarray  # (V, 3), unit length
    faces: np.ndarray  # (F, 3)

    @property
    def n_vertices(self) -> int:
        return int(self.positions.shape[0])

    @property
    def n_faces(self) -> int:
        return int(self.faces.shape[0])

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned (min, max) corners of the positions."""
        if self.n_vertices == 0:
            zero = np.zeros(3)
            return zero, zero
        return self.positions.min(axis=0), self.positions.max(axis=0)


def empty_mesh() -> TriMesh:
    return TriMesh(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))


def _axis_frame(axis: str) -> np.ndarray:
    """Rotation taking a Z-aligned shape onto ``axis`` (columns: images of x, y, z)."""
    if axis == "Z":
        return np.eye(3)
    if axis == "X":
        return np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    if axis == "Y":
        return np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    raise ValueError(f"axis must be one of X, Y, Z, got {axis!r}")


def _orient(mesh: TriMesh, axis: str) -> TriMesh:
    rot = _axis_frame(axis)
    if axis == "Z":
        return mesh
    return TriMesh(mesh.positions @ rot.T, mesh.normals @ rot.T, mesh.faces)


def concat(parts: list[TriMesh]) -> TriMesh:
    parts = [p for p in parts if p.n_vertices]
    if not parts:
        return empty_mesh()
    offsets = np.cumsum([0] + [p.n_vertices for p in parts[:-1]])
    return TriMesh(
        np.concatenate([p.positions for p in parts]),
        np.concatenate([p.normals for p in parts]),
        np.concatenate([p.faces + off for p, off in zip(parts, offsets, strict=True)]),
    )


def normalize(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n > 0.0, n, 1.0)


def box(half_extents: tuple[float, float, float] | np.ndarray) -> TriMesh:
    """Axis-aligned box centred on the origin: 24 vertices (flat faces), 12 triangles."""
    h = np.asarray(half_extents, dtype=np.float64)
    positions, normals, faces = [], [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = np.zeros(3)
            n[axis] = sign
            u = np.zeros(3)
            u[(axis + 1) % 3] = 1.0
            v = np.cross(n, u)
            base = len(positions)
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                positions.append((n + a * u + b * v) * h)
                normals.append(n)
            faces += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return TriMesh(np.array(positions), np.array(normals), np.array(faces, dtype=np.int64))


def cube(size: float) -> TriMesh:
    """UsdGeom.Cube: edge length ``size`` centred on the origin."""
    return box((size / 2.0,) * 3)


def _lathe(profile: np.ndarray, profile_normals: np.ndarray, segments: int) -> TriMesh:
    """Revolve a (r, z) profile polyline around Z into a quad-strip surface.

    Each profile point is its own ring of ``segments + 1`` vertices (the seam is duplicated so
    normals stay continuous); consecutive rings are stitched into triangles.
    """
    theta = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    c, s = np.cos(theta), np.sin(theta)
    r, z = profile[:, 0:1], profile[:, 1:2]
    nr, nz = profile_normals[:, 0:1], profile_normals[:, 1:2]
    pos = np.stack([r * c, r * s, np.broadcast_to(z, r.shape[:1] + c.shape)], axis=-1)
    nrm = np.stack([nr * c, nr * s, np.broadcast_to(nz, nr.shape[:1] + c.shape)], axis=-1)
    rings, cols = profile.shape[0], segments + 1
    i = np.arange(rings - 1)[:, None] * cols + np.arange(segments)[None, :]
    a, b, c2, d = i, i + 1, i + cols + 1, i + cols
    faces = np.concatenate(
        [np.stack([a, b, c2], -1).reshape(-1, 3), np.stack([a, c2, d], -1).reshape(-1, 3)]
    )
    # Drop triangles collapsed onto the axis (poles, apex): two equal corners.
    p = pos.reshape(-1, 3)
    tri = p[faces]
    degenerate = (
        (np.linalg.norm(tri[:, 0] - tri[:, 1], axis=1) < 1e-12)
        | (np.linalg.norm(tri[:, 1] - tri[:, 2], axis=1) < 1e-12)
        | (np.linalg.norm(tri[:, 0] - tri[:, 2], axis=1) < 1e-12)
    )
    return TriMesh(p, normalize(nrm.reshape(-1, 3)), faces[~degenerate].astype(np.int64))


def _disk(radius: float, z: float, up: bool, segments: int) -> TriMesh:
    theta = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    rim = np.stack([radius * np.cos(theta), radius * np.sin(theta), np.full(segments, z)], -1)
    pos = np.concatenate([[[0.0, 0.0, z]], rim])
    nrm = np.tile([0.0, 0.0, 1.0 if up else -1.0], (segments + 1, 1))
    k = np.arange(segments)
    nxt = (k + 1) % segments + 1
    faces = np.stack([np.zeros(segments, dtype=np.int64), k + 1, nxt], -1)
    if not up:
        faces = faces[:, [0, 2, 1]]
    return TriMesh(pos, nrm, faces)


def sphere(radius: float, segments: int = RADIAL_SEGMENTS, rings: int = SPHERE_RINGS) -> TriMesh:
    """UsdGeom.Sphere: UV sphere centred on the origin."""
    phi = np.linspace(-np.pi / 2.0, np.pi / 2.0, rings + 1)
    unit = np.stack([np.cos(phi), np.sin(phi)], -1)
    unit[0, 0] = unit[-1, 0] = 0.0
    return _lathe(unit * radius, unit, segments)


def cylinder(
    radius: float, height: float, axis: str = "Z", segments: int = RADIAL_SEGMENTS
) -> TriMesh:
    """UsdGeom.Cylinder: side plus two capping disks."""
    hz = height / 2.0
    side = _lathe(
        np.array([[radius, -hz], [radius, hz]]), np.array([[1.0, 0.0], [1.0, 0.0]]), segments
    )
    mesh = concat([side, _disk(radius, hz, True, segments), _disk(radius, -hz, False, segments)])
    return _orient(mesh, axis)


def cone(radius: float, height: float, axis: str = "Z", segments: int = RADIAL_SEGMENTS) -> TriMesh:
    """UsdGeom.Cone: apex at +height/2 along ``axis``, base disk at -height/2."""
    hz = height / 2.0
    slope = np.array([height, radius]) / max(np.hypot(height, radius), 1e-300)
    side = _lathe(np.array([[radius, -hz], [0.0, hz]]), np.array([slope, slope]), segments)
    return _orient(concat([side, _disk(radius, -hz, False, segments)]), axis)


def capsule(
    radius: float,
    height: float,
    axis: str = "Z",
    segments: int = RADIAL_SEGMENTS,
    cap_rings: int = CAP_RINGS,
) -> TriMesh:
    """UsdGeom.Capsule: a cylinder of length ``height`` with hemispherical caps of ``radius``."""
    hz = height / 2.0
    phi_lo = np.linspace(-np.pi / 2.0, 0.0, cap_rings + 1)
    phi_hi = np.linspace(0.0, np.pi / 2.0, cap_rings + 1)
    n_lo = np.stack([np.cos(phi_lo), np.sin(phi_lo)], -1)
    n_hi = np.stack([np.cos(phi_hi), np.sin(phi_hi)], -1)
    n_lo[0, 0] = n_hi[-1, 0] = 0.0
    profile = np.concatenate([n_lo * radius + [0.0, -hz], n_hi * radius + [0.0, hz]])
    normals = np.concatenate([n_lo, n_hi])
    return _orient(_lathe(profile, normals, segments), axis)


def plane(width: float, length: float, axis: str = "Z") -> TriMesh:
    """UsdGeom.Plane: a rectangle through the origin with normal along ``axis``.

    ``width`` runs along the first other axis and ``length`` along the second (UsdGeom: for
    axis Z, width is X and length is Y).
    """
    pos = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float64)
    pos *= [width / 2.0, length / 2.0, 0.0]
    mesh = TriMesh(pos, np.tile([0.0, 0.0, 1.0], (4, 1)), np.array([[0, 1, 2], [0, 2, 3]]))
    return _orient(mesh, axis)


def polygon_mesh(
    points: np.ndarray,
    face_vertex_counts: np.ndarray,
    face_vertex_indices: np.ndarray,
    normals: np.ndarray | None = None,
    normals_interpolation: str = "vertex",
    left_handed: bool = False,
) -> TriMesh:
    """UsdGeom.Mesh polygons fan-triangulated (see :func:`polygon_mesh_with_sources`)."""
    return polygon_mesh_with_sources(
        points, face_vertex_counts, face_vertex_indices, normals, normals_interpolation, left_handed
    )[0]


def polygon_mesh_with_sources(
    points: np.ndarray,
    face_vertex_counts: np.ndarray,
    face_vertex_indices: np.ndarray,
    normals: np.ndarray | None = None,
    normals_interpolation: str = "vertex",
    left_handed: bool = False,
) -> tuple[TriMesh, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Fan-triangulate UsdGeom.Mesh polygons.

    Without authored normals, or with faceVarying/uniform normals, every triangle gets its own
    three vertices and a flat (or authored) normal; with ``vertex`` normals the points are shared.
    Returns the mesh and, per output vertex, the source point index, face-vertex (corner) index
    and face index (the last two None when points are shared) so primvars of any
    interpolation can be carried over. Raises ValueError naming the inconsistency when counts
    and indices disagree.
    """
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    counts = np.asarray(face_vertex_counts, dtype=np.int64).reshape(-1)
    indices = np.asarray(face_vertex_indices, dtype=np.int64).reshape(-1)
    if counts.size == 0 or points.shape[0] == 0:
        return empty_mesh(), np.zeros(0, np.int64), None, None
    if np.any(counts < 3):
        bad = int(np.flatnonzero(counts < 3)[0])
        raise ValueError(
            f"faceVertexCounts[{bad}] = {int(counts[bad])}: a face needs 3 or more vertices"
        )
    if int(counts.sum()) != indices.size:
        raise ValueError(
            f"faceVertexCounts sum to {int(counts.sum())} but faceVertexIndices has {indices.size} entries"
        )
    if indices.min() < 0 or indices.max() >= points.shape[0]:
        raise ValueError(
            f"faceVertexIndices reference point {int(indices.max())} but the mesh has {points.shape[0]} points"
        )
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    n_tris = counts - 2
    face_of_tri = np.repeat(np.arange(counts.size), n_tris)
    k = np.arange(int(n_tris.sum())) - np.repeat(np.cumsum(n_tris) - n_tris, n_tris)
    corner0 = starts[face_of_tri]
    corners = np.stack([corner0, corner0 + k + 1, corner0 + k + 2], -1)  # face-varying slots
    if left_handed:
        corners = corners[:, [0, 2, 1]]
    tri_points = indices[corners]
    if normals is not None and normals_interpolation == "vertex" and len(normals) == len(points):
        mesh = TriMesh(points, normalize(np.asarray(normals, dtype=np.float64)), tri_points)
        return mesh, np.arange(points.shape[0]), None, None
    pos = points[tri_points].reshape(-1, 3)
    if (
        normals is not None
        and normals_interpolation == "faceVarying"
        and len(normals) == indices.size
    ):
        nrm = np.asarray(normals, dtype=np.float64)[corners].reshape(-1, 3)
    elif normals is not None and normals_interpolation == "uniform" and len(normals) == counts.size:
        nrm = np.repeat(np.asarray(normals, dtype=np.float64)[face_of_tri], 3, axis=0)
    else:
        tri = pos.reshape(-1, 3, 3)
        flat = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        nrm = np.repeat(flat, 3, axis=0)
    faces = np.arange(pos.shape[0], dtype=np.int64).reshape(-1, 3)
    mesh = TriMesh(pos, normalize(nrm), faces)
    return mesh, tri_points.reshape(-1), corners.reshape(-1), np.repeat(face_of_tri, 3)


def transformed(mesh: TriMesh, matrix: np.ndarray) -> TriMesh:
    """Apply a 4x4 column-vector affine ``matrix``; normals use the inverse transpose."""
    lin = matrix[:3, :3]
    pos = mesh.positions @ lin.T + matrix[:3, 3]
    det = np.linalg.det(lin)
    if abs(det) < 1e-300:
        nrm = mesh.normals
    else:
        nrm = normalize(mesh.normals @ np.linalg.inv(lin))
    faces = mesh.faces if det >= 0 else mesh.faces[:, [0, 2, 1]]
    return TriMesh(pos, nrm, faces)
