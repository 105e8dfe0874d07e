"""Read drawable geometry from a composed ``Usd.Stage`` into plain records.

One :class:`PrimGeometry` per visible gprim: its triangles in the frame of its owning rigid body
(or the stage world for static geometry), in stage units, with per-vertex colours. Unsupported or
malformed prims produce a :class:`~luncosim_core.diagnostics.Diagnostic` and are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pxr import Usd, UsdGeom, UsdPhysics

from luncosim_core.diagnostics import Diagnostic

from . import curves as crv
from . import geometry as geo
from .transforms import gf_to_numpy, rigid_part

DEFAULT_COLOR = (0.72, 0.72, 0.70)
SUPPORTED_GPRIMS = (
    "Cube",
    "Sphere",
    "Cylinder",
    "Capsule",
    "Cone",
    "Mesh",
    "Plane",
    "NurbsCurves",
    "BasisCurves",
)


@dataclass(slots=True)
class PrimGeometry:
    """Triangles of one gprim, expressed in its owner frame (body frame or stage world)."""

    path: str
    body_path: str | None
    purpose: str
    mesh: geo.TriMesh
    colors: np.ndarray  # (V, 4) float32 RGBA
    translucent: bool = False  # any vertex with opacity below 1


@dataclass(slots=True)
class SubtreeRead:
    geometry: list[PrimGeometry]
    bodies: dict[str, np.ndarray]  # body path -> rigid 4x4 world pose (stage units)
    diagnostics: list[Diagnostic]


def _diag(code: str, message: str, path: str, severity: str = "warning") -> Diagnostic:
    return Diagnostic(severity, code, message, path=path, source="viewport")  # type: ignore[arg-type]


def is_body(prim: Usd.Prim) -> bool:
    return prim.HasAPI(UsdPhysics.RigidBodyAPI)


def owning_body(prim: Usd.Prim) -> Usd.Prim | None:
    """The nearest ancestor-or-self carrying RigidBodyAPI, or None for static geometry."""
    p = prim
    while p and not p.IsPseudoRoot():
        if is_body(p):
            return p
        p = p.GetParent()
    return None


def _primvar_values(prim: Usd.Prim, name: str) -> tuple[np.ndarray | None, str]:
    pv = UsdGeom.PrimvarsAPI(prim).FindPrimvarWithInheritance(name)
    if not pv or not pv.HasValue():
        return None, "constant"
    value = pv.ComputeFlattened(Usd.TimeCode.Default())
    if value is None or len(value) == 0:
        return None, "constant"
    return np.asarray(value, dtype=np.float64), pv.GetInterpolation()


def _spread(
    values: np.ndarray | None,
    interp: str,
    n_vertices: int,
    sources: tuple[np.ndarray, np.ndarray | None, np.ndarray | None] | None,
    default: np.ndarray,
) -> np.ndarray:
    """Map a primvar onto output vertices; anything not mappable uses its first value."""
    if values is None:
        return np.broadcast_to(default, (n_vertices,) + default.shape).copy()
    if sources is not None:
        point_ids, corner_ids, face_ids = sources
        if interp in ("vertex", "varying") and len(values) > int(point_ids.max(initial=-1)):
            return values[point_ids]
        if (
            interp == "faceVarying"
            and corner_ids is not None
            and len(values) > int(corner_ids.max(initial=-1))
        ):
            return values[corner_ids]
        if (
            interp == "uniform"
            and face_ids is not None
            and len(values) > int(face_ids.max(initial=-1))
        ):
            return values[face_ids]
    return np.broadcast_to(values[0], (n_vertices,) + values[0].shape).copy()


def _axis(gprim, path: str, diags: list[Diagnostic]) -> str | None:
    axis = gprim.GetAxisAttr().Get()
    if axis not in geo.AXES:
        diags.append(_diag("viewport.bad-axis", f"axis {axis!r} is not X, Y or Z", path))
        return None
    return axis


def _positive(
    value, name: str, path: str, diags: list[Diagnostic], allow_zero: bool = False
) -> bool:
    ok = value is not None and np.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        diags.append(
            _diag("viewport.bad-dimension", f"{name} = {value!r} must be a positive number", path)
        )
    return ok


def tessellate_prim(
    prim: Usd.Prim, diags: list[Diagnostic]
) -> tuple[geo.TriMesh, tuple[np.ndarray, np.ndarray | None, np.ndarray | None] | None] | None:
    """Local-space triangles of a supported gprim, or None (with a diagnostic) if it cannot be drawn."""
    path = str(prim.GetPath())
    type_name = prim.GetTypeName()
    if prim.IsA(UsdGeom.Cube):
        size = UsdGeom.Cube(prim).GetSizeAttr().Get()
        return (geo.cube(size), None) if _positive(size, "size", path, diags) else None
    if prim.IsA(UsdGeom.Sphere):
        r = UsdGeom.Sphere(prim).GetRadiusAttr().Get()
        return (geo.sphere(r), None) if _positive(r, "radius", path, diags) else None
    for schema, fn in (
        (UsdGeom.Cylinder, geo.cylinder),
        (UsdGeom.Cone, geo.cone),
        (UsdGeom.Capsule, geo.capsule),
    ):
        if prim.IsA(schema):
            g = schema(prim)
            r, h = g.GetRadiusAttr().Get(), g.GetHeightAttr().Get()
            axis = _axis(g, path, diags)
            ok = _positive(r, "radius", path, diags) and _positive(
                h, "height", path, diags, allow_zero=schema is UsdGeom.Capsule
            )
            return (fn(r, h, axis), None) if ok and axis else None
    if prim.IsA(UsdGeom.Plane):
        g = UsdGeom.Plane(prim)
        w, length = g.GetWidthAttr().Get(), g.GetLengthAttr().Get()
        axis = _axis(g, path, diags)
        ok = _positive(w, "width", path, diags) and _positive(length, "length", path, diags)
        return (geo.plane(w, length, axis), None) if ok and axis else None
    if prim.IsA(UsdGeom.Mesh):
        m = UsdGeom.Mesh(prim)
        points = m.GetPointsAttr().Get()
        counts = m.GetFaceVertexCountsAttr().Get()
        indices = m.GetFaceVertexIndicesAttr().Get()
        if points is None or counts is None or indices is None or len(points) == 0:
            diags.append(
                _diag("viewport.empty-mesh", "Mesh has no points or faces to draw", path, "info")
            )
            return None
        normals = m.GetNormalsAttr().Get()
        interp = m.GetNormalsInterpolation()
        left = m.GetOrientationAttr().Get() == UsdGeom.Tokens.leftHanded
        try:
            mesh, *sources = geo.polygon_mesh_with_sources(
                np.asarray(points),
                np.asarray(counts),
                np.asarray(indices),
                None if normals is None else np.asarray(normals),
                interp,
                left,
            )
        except ValueError as exc:
            diags.append(
                _diag("viewport.bad-mesh", f"Mesh topology is invalid: {exc}", path, "error")
            )
            return None
        return mesh, (sources[0], sources[1], sources[2])
    if prim.IsA(UsdGeom.NurbsCurves) or prim.IsA(UsdGeom.BasisCurves):
        try:
            mesh = _curves_mesh(prim)
        except ValueError as exc:
            diags.append(
                _diag("viewport.bad-curves", f"curves cannot be drawn: {exc}", path, "error")
            )
            return None
        return (mesh, None) if mesh.n_vertices else None
    diags.append(
        _diag(
            "viewport.unsupported-gprim",
            f"{type_name} is not drawn by the viewport (supported: {', '.join(SUPPORTED_GPRIMS)})",
            path,
            "info",
        )
    )
    return None


def _curves_mesh(prim: Usd.Prim) -> geo.TriMesh:
    """Every curve of a NurbsCurves/BasisCurves prim swept into a tube."""
    curves = UsdGeom.Curves(prim)
    points = np.asarray(curves.GetPointsAttr().Get() or [], float).reshape(-1, 3)
    counts = np.asarray(curves.GetCurveVertexCountsAttr().Get() or [], int)
    if counts.size == 0 or points.shape[0] == 0:
        return geo.empty_mesh()
    if int(counts.sum()) != points.shape[0]:
        raise ValueError(
            f"curveVertexCounts sum to {int(counts.sum())} but there are {points.shape[0]} points"
        )
    widths = curves.GetWidthsAttr().Get()
    widths = None if widths is None else np.asarray(widths, float)
    starts = np.concatenate([[0], np.cumsum(counts)])
    parts = []
    if prim.IsA(UsdGeom.NurbsCurves):
        nc = UsdGeom.NurbsCurves(prim)
        orders = np.asarray(nc.GetOrderAttr().Get() or [], int)
        knots = np.asarray(nc.GetKnotsAttr().Get() or [], float)
        weights = nc.GetPointWeightsAttr().Get()
        weights = None if weights is None else np.asarray(weights, float)
        if orders.size != counts.size:
            raise ValueError(f"{counts.size} curves but {orders.size} orders")
        knot_starts = np.concatenate([[0], np.cumsum(counts + orders)])
        if knots.size != knot_starts[-1]:
            raise ValueError(
                f"knots has {knots.size} values, the curves need {int(knot_starts[-1])}"
            )
    else:
        bc = UsdGeom.BasisCurves(prim)
        ctype, basis, wrap = bc.GetTypeAttr().Get(), bc.GetBasisAttr().Get(), bc.GetWrapAttr().Get()
    for i in range(counts.size):
        pts = points[starts[i] : starts[i + 1]]
        if prim.IsA(UsdGeom.NurbsCurves):
            w = (
                None
                if weights is None or weights.size != points.shape[0]
                else weights[starts[i] : starts[i + 1]]
            )
            centre = crv.nurbs_curve(
                pts, int(orders[i]), knots[knot_starts[i] : knot_starts[i + 1]], w
            )
        else:
            centre = crv.basis_curve(pts, str(ctype), str(basis), str(wrap))
        length = float(np.linalg.norm(np.diff(centre, axis=0), axis=1).sum())
        if widths is not None and widths.size == points.shape[0]:
            cw = widths[starts[i] : starts[i + 1]]
        elif widths is not None and widths.size == counts.size:
            cw = widths[i : i + 1]
        else:
            cw = widths
        parts.append(crv.tube(centre, crv.curve_radii(cw, len(pts), len(centre), length)))
    return geo.concat(parts)


def read_subtree(stage: Usd.Stage, root: Usd.Prim, xform_cache: UsdGeom.XformCache) -> SubtreeRead:
    """Every drawable gprim and rigid body at or below ``root``."""
    out = SubtreeRead([], {}, [])
    if not root or not root.IsValid():
        return out
    body_cache: dict[str, np.ndarray] = {}

    def body_pose(body: Usd.Prim) -> np.ndarray:
        key = str(body.GetPath())
        if key not in body_cache:
            body_cache[key] = rigid_part(gf_to_numpy(xform_cache.GetLocalToWorldTransform(body)))
        return body_cache[key]

    it = iter(Usd.PrimRange(root, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)))
    for prim in it:
        img = UsdGeom.Imageable(prim)
        if is_body(prim):
            out.bodies[str(prim.GetPath())] = body_pose(prim)
        if not img:
            continue
        if img.ComputeVisibility(Usd.TimeCode.Default()) == UsdGeom.Tokens.invisible:
            continue
        if not prim.IsA(UsdGeom.Gprim):
            continue
        path = str(prim.GetPath())
        local = tessellate_prim(prim, out.diagnostics)
        if local is None:
            continue
        mesh, sources = local
        world = gf_to_numpy(xform_cache.GetLocalToWorldTransform(prim))
        body = owning_body(prim)
        if body is not None:
            rel = np.linalg.inv(body_pose(body)) @ world
            body_path: str | None = str(body.GetPath())
        else:
            rel, body_path = world, None
        if not np.all(np.isfinite(rel)):
            out.diagnostics.append(
                _diag("viewport.bad-transform", "world transform is not finite", path, "error")
            )
            continue
        mesh = geo.transformed(mesh, rel)
        colors, c_interp = _primvar_values(prim, "displayColor")
        opac, o_interp = _primvar_values(prim, "displayOpacity")
        n = mesh.n_vertices
        rgb = _spread(colors, c_interp, n, sources, np.asarray(DEFAULT_COLOR))
        alpha = _spread(opac, o_interp, n, sources, np.asarray(1.0))
        rgba = np.concatenate([rgb.reshape(n, 3), alpha.reshape(n, 1)], axis=1)
        rgba = np.clip(rgba, 0.0, 1.0).astype(np.float32)
        purpose = str(img.ComputePurpose())
        translucent = bool(n and float(rgba[:, 3].min()) < 1.0)
        out.geometry.append(PrimGeometry(path, body_path, purpose, mesh, rgba, translucent))
    return out
