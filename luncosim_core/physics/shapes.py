"""Collision shapes from UsdGeom prims: measured dimensions, scale applied, mass properties.

Cylinder-like shapes are expressed along the shape frame's local Z (pybullet's convention); the
rotation from the authored axis is folded into ``Shape.local``. Cones have no pybullet primitive
and become exact convex hulls. Scale is applied to the shape's dimensions, never dropped.
"""

from __future__ import annotations

import math

import numpy as np
from pxr import UsdGeom

from ..diagnostics import Diagnostic
from .frames import Pose, axis_angle_quat, quat_mul
from .model import Shape

# Rotation taking local +Z onto the authored axis.
_AXIS_ROT = {
    "Z": np.array([1.0, 0.0, 0.0, 0.0]),
    "X": axis_angle_quat(np.array([0.0, 1.0, 0.0]), math.pi / 2),
    "Y": axis_angle_quat(np.array([1.0, 0.0, 0.0]), -math.pi / 2),
}
_AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}
CONE_SEGMENTS = 32

SUPPORTED_GPRIMS = ("Cube", "Sphere", "Cylinder", "Capsule", "Cone", "Mesh")


def _diag(severity: str, code: str, msg: str, path: str) -> Diagnostic:
    return Diagnostic(severity, code, msg, path=path, source="physics")  # type: ignore[arg-type]


def _get(prim, name: str, default):
    attr = prim.GetAttribute(name)
    if attr and attr.HasValue():
        v = attr.Get()
        return default if v is None else v
    return default


class _BadDimension(ValueError):
    """A dimension that is not a single finite number above 0 (message says which and why)."""


def _dimension(prim, name: str, default: float) -> float:
    """``prim``'s ``name`` (size, radius, height) as a float; :class:`_BadDimension` when it is not
    a single finite number above 0 (a vector, text, NaN, inf, 0 or negative)."""
    v = _get(prim, name, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _BadDimension(f"its {name} is {v!r}, not a single number")
    if not math.isfinite(v) or v <= 0:
        raise _BadDimension(f"its {name} = {float(v):g}; it must be a finite number above 0")
    return float(v)


def _box_inertia(h: np.ndarray) -> np.ndarray:
    a, b, c = (2 * h) ** 2
    return np.array([b + c, a + c, a + b]) / 12.0


def _cyl_inertia(r: float, h: float) -> np.ndarray:
    side = (3 * r * r + h * h) / 12.0
    return np.array([side, side, 0.5 * r * r])


def _points_props(pts: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume, centroid and unit inertia of a point cloud's bounding box (convex approximation)."""
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    half = np.maximum((hi - lo) / 2, 1e-9)
    return float(np.prod(2 * half)), (lo + hi) / 2, _box_inertia(half)


def shape_from_prim(
    prim, rel: Pose, scale: np.ndarray, mpu: float, dynamic: bool, diags: list[Diagnostic]
) -> Shape | None:
    """The collision shape of a gprim whose frame sits at ``rel`` (metres) with ``scale``.

    Returns None (with a diagnostic) for unsupported prim types and for a dimension that is not a
    single finite number above 0 (the physics screen refuses those bodies first: this is the
    last line).
    """
    try:
        return _shape_from_prim(prim, rel, scale, mpu, dynamic, diags)
    except _BadDimension as exc:
        path = str(prim.GetPath())
        diags.append(_diag("error", "physics.shape.invalid", f"{prim.GetTypeName()} collider {path}: {exc}; it is "
                           "left out of the simulation", path))
        return None


def _shape_from_prim(
    prim, rel: Pose, scale: np.ndarray, mpu: float, dynamic: bool, diags: list[Diagnostic]
) -> Shape | None:
    path = str(prim.GetPath())
    tname = prim.GetTypeName()
    s = np.asarray(scale, dtype=float) * mpu
    if tname == "Cube":
        size = _dimension(prim, "size", 2.0)
        half = np.abs(s) * size / 2.0
        return Shape(path, "box", rel, half_extents=half, volume=float(np.prod(2 * half)),
                     unit_inertia=_box_inertia(half))
    if tname == "Sphere":
        r0 = _dimension(prim, "radius", 1.0)
        if np.ptp(s) > 1e-9 * max(float(np.max(s)), 1e-12):
            diags.append(_diag(
                "warning", "physics-sphere-nonuniform-scale",
                f"sphere collider {path} has non-uniform scale {tuple(round(float(v / mpu), 6) for v in s)}; "
                "pybullet has no ellipsoid, so it collides as a sphere of the mean scaled radius "
                "(author a Mesh or Capsule for an elongated shape)", path))
        r = r0 * float(np.mean(s))
        return Shape(path, "sphere", rel, radius=r, volume=4.0 / 3.0 * math.pi * r**3,
                     unit_inertia=np.full(3, 0.4 * r * r))
    if tname in ("Cylinder", "Capsule", "Cone"):
        axis = str(_get(prim, "axis", "Z"))
        if axis not in _AXIS_INDEX:
            diags.append(_diag("error", "physics-invalid-axis", f"{tname} {path} has axis {axis!r}", path))
            return None
        r0 = _dimension(prim, "radius", 1.0)
        h0 = _dimension(prim, "height", 2.0 if tname != "Capsule" else 1.0)
        ai = _AXIS_INDEX[axis]
        perp = [s[i] for i in range(3) if i != ai]
        h = h0 * s[ai]
        if tname == "Cone":
            return _cone(path, rel, r0, h0, axis, s)
        if abs(perp[0] - perp[1]) > 1e-9 * max(perp):
            diags.append(_diag(
                "warning", "physics-nonuniform-radius-scale",
                f"{tname} collider {path} is scaled differently across its axis; it collides with "
                "the mean radius (an elliptic section is not expressible)", path))
        r = r0 * float(np.mean(perp))
        local = Pose(rel.p, quat_mul(rel.q, _AXIS_ROT[axis]))
        if tname == "Cylinder":
            return Shape(path, "cylinder", local, radius=r, height=h, axis=axis,
                         volume=math.pi * r * r * h, unit_inertia=_cyl_inertia(r, h))
        if abs(s[ai] - float(np.mean(perp))) > 1e-9 * max(float(np.max(s)), 1e-12):
            diags.append(_diag(
                "warning", "physics-capsule-nonuniform-scale",
                f"capsule collider {path} has non-uniform scale: the length is exact, the caps "
                "stay hemispheres of the mean radius", path))
        vol = math.pi * r * r * h + 4.0 / 3.0 * math.pi * r**3
        return Shape(path, "capsule", local, radius=r, height=h, axis=axis, volume=vol,
                     unit_inertia=_cyl_inertia(r, h + 2 * r))
    if tname == "Mesh":
        return _mesh(prim, path, rel, s, dynamic, diags)
    diags.append(_diag(
        "warning", "physics-collider-unsupported",
        f"{path} applies PhysicsCollisionAPI on a {tname or 'typeless'} prim; only "
        f"{', '.join(SUPPORTED_GPRIMS)} become colliders, so it is ignored", path))
    return None


def _mesh(prim, path: str, rel: Pose, s: np.ndarray, dynamic: bool, diags: list[Diagnostic]) -> Shape | None:
    """A mesh collider: a convex hull (dynamic, or faces that do not index its points) or a
    triangle mesh (static)."""
    mesh = UsdGeom.Mesh(prim)
    pts = mesh.GetPointsAttr().Get()
    try:
        verts = np.array(pts if pts is not None else [], dtype=float).reshape(-1, 3) * s
    except (TypeError, ValueError):
        raise _BadDimension("its points are not a list of 3D points") from None
    if len(verts) < 4:
        diags.append(_diag("error", "physics-mesh-empty", f"mesh collider {path} has fewer than 4 points", path))
        return None
    if not np.isfinite(verts).all():
        raise _BadDimension("its points are not all finite")
    counts = [int(n) for n in mesh.GetFaceVertexCountsAttr().Get() or []]
    fidx = [int(i) for i in mesh.GetFaceVertexIndicesAttr().Get() or []]
    tris: list[int] = []
    if any(n < 0 for n in counts) or sum(counts) != len(fidx) or any(i < 0 or i >= len(verts) for i in fidx):
        if not dynamic:
            diags.append(_diag("warning", "physics-mesh-topology",
                               f"mesh collider {path}: its faceVertexCounts and faceVertexIndices do not describe "
                               f"faces of its {len(verts)} points; it collides as their convex hull", path))
        counts = []
    k = 0
    for n in counts:
        for j in range(1, n - 1):
            tris.extend((fidx[k], fidx[k + j], fidx[k + j + 1]))
        k += n
    vol, cen, ui = _points_props(verts)
    if dynamic or not tris:
        return Shape(path, "convex", rel, vertices=verts, volume=vol, centroid=cen, unit_inertia=ui)
    return Shape(path, "trimesh", rel, vertices=verts, indices=np.array(tris, dtype=np.int64),
                 volume=vol, centroid=cen, unit_inertia=ui)


def _cone(path: str, rel: Pose, r0: float, h0: float, axis: str, s: np.ndarray) -> Shape:
    """Exact convex hull of a USD cone (apex at +h/2 along the axis) under any scale."""
    ai = _AXIS_INDEX[axis]
    others = [i for i in range(3) if i != ai]
    pts = []
    for k in range(CONE_SEGMENTS):
        ang = 2 * math.pi * k / CONE_SEGMENTS
        v = np.zeros(3)
        v[others[0]] = r0 * math.cos(ang)
        v[others[1]] = r0 * math.sin(ang)
        v[ai] = -h0 / 2
        pts.append(v)
    apex = np.zeros(3)
    apex[ai] = h0 / 2
    pts.append(apex)
    verts = np.array(pts) * s
    r = r0 * float(np.mean([s[i] for i in others]))
    h = h0 * s[ai]
    vol = math.pi * r * r * h / 3.0
    cen = np.zeros(3)
    cen[ai] = -h / 4.0
    side = 3.0 / 20.0 * r * r + 3.0 / 80.0 * h * h
    ui = np.full(3, side)
    ui[ai] = 0.3 * r * r
    return Shape(path, "convex", rel, vertices=verts, radius=r, height=h, axis=axis,
                 volume=vol, centroid=cen, unit_inertia=ui)


def shape_props_in_owner(shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """(centroid, 3x3 unit inertia tensor about the centroid), both in the owner frame."""
    from .frames import quat_to_matrix

    rot = quat_to_matrix(shape.local.q)
    c = shape.local.apply(shape.centroid)
    tensor = rot @ np.diag(shape.unit_inertia) @ rot.T
    return c, tensor
