"""Curves drawn as tubes: NURBS and basis-curve evaluation plus a tube sweep (pure numpy).

A curve's centreline is sampled, then swept by a circle whose diameter is the authored width
(``widths``), so cables, feed arms and antennas read as solid in the viewport.
"""

from __future__ import annotations

import numpy as np

from .geometry import TriMesh, empty_mesh, normalize

TUBE_SIDES = 8
SAMPLES_PER_SPAN = 8

# Cubic basis matrices (rows: t^3, t^2, t, 1) and the step between consecutive segments.
_BASIS = {
    "bezier": (np.array([[-1, 3, -3, 1], [3, -6, 3, 0], [-3, 3, 0, 0], [1, 0, 0, 0]], float), 3),
    "bspline": (
        np.array([[-1, 3, -3, 1], [3, -6, 3, 0], [-3, 0, 3, 0], [1, 4, 1, 0]], float) / 6.0,
        1,
    ),
    "catmullRom": (
        np.array([[-1, 3, -3, 1], [2, -5, 4, -1], [-1, 0, 1, 0], [0, 2, 0, 0]], float) / 2.0,
        1,
    ),
}


def bspline_basis(knots: np.ndarray, degree: int, u: np.ndarray) -> np.ndarray:
    """Cox-de Boor basis functions N_i,degree(u): shape (len(u), len(knots) - degree - 1)."""
    k = np.asarray(knots, float)
    u = np.asarray(u, float)
    n_basis = k.size - degree - 1
    last = np.flatnonzero(k[:-1] < k[1:]).max()  # last non-empty span closes at its right end
    n = ((k[:-1][None, :] <= u[:, None]) & (u[:, None] < k[1:][None, :])).astype(float)
    n[u >= k[last + 1], :] = 0.0
    n[u >= k[last + 1], last] = 1.0
    for p in range(1, degree + 1):
        left_den = k[p:-1] - k[: -p - 1]
        right_den = k[p + 1 :] - k[1:-p]
        with np.errstate(divide="ignore", invalid="ignore"):
            left = np.where(left_den > 0, (u[:, None] - k[: -p - 1]) / left_den, 0.0)
            right = np.where(right_den > 0, (k[p + 1 :] - u[:, None]) / right_den, 0.0)
        n = left * n[:, :-1] + right * n[:, 1:]
    return n[:, :n_basis]


def nurbs_curve(
    points: np.ndarray,
    order: int,
    knots: np.ndarray,
    weights: np.ndarray | None = None,
    samples_per_span: int = SAMPLES_PER_SPAN,
) -> np.ndarray:
    """Sampled centreline of one (rational) NURBS curve. ValueError when the data disagree."""
    pts = np.asarray(points, float).reshape(-1, 3)
    degree = int(order) - 1
    if degree < 1:
        raise ValueError(f"order {order} must be 2 or more")
    if len(knots) != len(pts) + order:
        raise ValueError(
            f"{len(pts)} points of order {order} need {len(pts) + order} knots, got {len(knots)}"
        )
    k = np.asarray(knots, float)
    if np.any(np.diff(k) < 0):
        raise ValueError("knots must not decrease")
    lo, hi = k[degree], k[len(pts)]
    if not hi > lo:
        raise ValueError("the knot vector has an empty parameter range")
    spans = max(1, int(np.count_nonzero(np.diff(k[degree : len(pts) + 1]) > 0)))
    u = np.linspace(lo, hi, spans * samples_per_span + 1)
    basis = bspline_basis(k, degree, u)
    w = (
        np.ones(len(pts))
        if weights is None or len(weights) != len(pts)
        else np.asarray(weights, float)
    )
    bw = basis * w[None, :]
    return (bw @ pts) / np.maximum(bw.sum(axis=1, keepdims=True), 1e-300)


def basis_curve(
    points: np.ndarray,
    curve_type: str,
    basis: str,
    wrap: str,
    samples_per_span: int = SAMPLES_PER_SPAN,
) -> np.ndarray:
    """Sampled centreline of one UsdGeom.BasisCurves curve (linear or cubic)."""
    pts = np.asarray(points, float).reshape(-1, 3)
    periodic = wrap == "periodic"
    if curve_type == "linear":
        return np.concatenate([pts, pts[:1]]) if periodic else pts
    if basis not in _BASIS:
        raise ValueError(f"cubic basis {basis!r} is not drawn (supported: {', '.join(_BASIS)})")
    m, step = _BASIS[basis]
    if periodic:
        pts = np.concatenate([pts, pts[: 4 - step]])
    n_seg = (len(pts) - 4) // step + 1
    if n_seg < 1:
        raise ValueError(f"a cubic {basis} curve needs at least 4 points, got {len(pts)}")
    t = np.linspace(0.0, 1.0, samples_per_span + 1)
    tt = np.stack([t**3, t**2, t, np.ones_like(t)], axis=1) @ m  # (S, 4)
    out = [tt @ pts[s * step : s * step + 4] for s in range(n_seg)]
    return np.concatenate([o if i == 0 else o[1:] for i, o in enumerate(out)])


def tube(centre: np.ndarray, radii: np.ndarray, sides: int = TUBE_SIDES) -> TriMesh:
    """Sweep a circle of ``radii`` (one per centreline sample) along ``centre``."""
    c = np.asarray(centre, float).reshape(-1, 3)
    keep = np.concatenate([[True], np.linalg.norm(np.diff(c, axis=0), axis=1) > 1e-12])
    c, r = c[keep], np.broadcast_to(np.asarray(radii, float), keep.shape)[keep]
    if len(c) < 2:
        return empty_mesh()
    t = np.gradient(c, axis=0)
    t = normalize(t)
    # parallel transport: start from any perpendicular and re-project along the curve
    seed = np.array([0.0, 0.0, 1.0]) if abs(t[0, 2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    normals = np.empty_like(c)
    n = normalize(np.cross(t[0], seed))
    for i in range(len(c)):
        n = n - (n @ t[i]) * t[i]
        n = n / max(np.linalg.norm(n), 1e-300)
        normals[i] = n
    binormals = np.cross(t, normals)
    theta = np.linspace(0.0, 2.0 * np.pi, sides + 1)
    radial = (
        np.cos(theta)[None, :, None] * normals[:, None, :]
        + np.sin(theta)[None, :, None] * binormals[:, None, :]
    )  # (S, sides+1, 3)
    pos = c[:, None, :] + r[:, None, None] * radial
    cols = sides + 1
    i = np.arange(len(c) - 1)[:, None] * cols + np.arange(sides)[None, :]
    faces = np.concatenate(
        [
            np.stack([i, i + 1, i + cols + 1], -1).reshape(-1, 3),
            np.stack([i, i + cols + 1, i + cols], -1).reshape(-1, 3),
        ]
    )
    return TriMesh(pos.reshape(-1, 3), radial.reshape(-1, 3), faces.astype(np.int64))


def curve_radii(
    widths: np.ndarray | None, n_points: int, n_samples: int, length: float
) -> np.ndarray:
    """Tube radius per sample: half the authored width (constant, or per point resampled along
    the curve); unauthored widths draw a tube 1% of the curve's length across."""
    if widths is None or len(widths) == 0:
        return np.full(n_samples, 0.005 * max(length, 1e-9))
    w = np.asarray(widths, float).reshape(-1)
    if len(w) == n_points and n_points > 1:
        return 0.5 * np.interp(np.linspace(0, n_points - 1, n_samples), np.arange(n_points), w)
    return np.full(n_samples, 0.5 * float(w[0]))
