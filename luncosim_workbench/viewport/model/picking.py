"""Ray picking against the scene model's tessellated triangles (pure numpy).

Per bucket: a ray/AABB slab test culls prims, then a vectorised Moller-Trumbore test runs on the
surviving prims' triangles. Rays are in the view frame (metres, +Z up).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .scene_model import SceneModel


@dataclass(frozen=True, slots=True)
class PickHit:
    prim_path: str
    distance: float  # along the normalised ray direction, metres
    point: tuple[float, float, float]


def _prim_boxes(positions: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.diff(starts)
    nonempty = counts > 0
    lo = np.full((counts.size, 3), np.inf)
    hi = np.full((counts.size, 3), -np.inf)
    if positions.shape[0]:
        idx = starts[:-1][nonempty]
        lo[nonempty] = np.minimum.reduceat(positions, idx, axis=0)
        hi[nonempty] = np.maximum.reduceat(positions, idx, axis=0)
    return lo, hi


def _ray_boxes(
    origin: np.ndarray, direction: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / direction
        t1 = (lo - origin) * inv
        t2 = (hi - origin) * inv
    # axis-parallel rays: inside the slab -> (-inf, inf), outside -> empty
    parallel = direction == 0.0
    inside = (origin >= lo) & (origin <= hi)
    t1 = np.where(parallel, np.where(inside, -np.inf, np.inf), t1)
    t2 = np.where(parallel, np.where(inside, np.inf, -np.inf), t2)
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    return (tmax >= np.maximum(tmin, 0.0)) & np.isfinite(lo).all(axis=1)


def ray_triangles(
    origin: np.ndarray, direction: np.ndarray, tri: np.ndarray, eps: float = 1e-12
) -> np.ndarray:
    """Distances along the ray to (F, 3, 3) triangles; inf where missed (two-sided)."""
    e1 = tri[:, 1] - tri[:, 0]
    e2 = tri[:, 2] - tri[:, 0]
    p = np.cross(direction, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > eps
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origin - tri[:, 0]
    u = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    v = (q @ direction) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    hit = ok & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t > 0.0)
    return np.where(hit, t, np.inf)


def pick_hit(model: SceneModel, ray_origin, ray_dir) -> PickHit | None:
    """The nearest visible prim hit by the ray, with distance and point; None when nothing is hit."""
    o = np.asarray(ray_origin, dtype=np.float64).reshape(3)
    d = np.asarray(ray_dir, dtype=np.float64).reshape(3)
    n = np.linalg.norm(d)
    if not n > 0.0 or not np.all(np.isfinite(o)):
        raise ValueError(f"pick: ray direction must be a non-zero finite vector, got {ray_dir!r}")
    d = d / n
    best: tuple[float, str] | None = None
    for key, b in model.buckets.items():
        if not model.is_bucket_visible(key) or b.n_faces == 0:
            continue
        pos = b.positions.astype(np.float64)
        lo, hi = _prim_boxes(pos, b.vertex_starts)
        cand = np.flatnonzero(_ray_boxes(o, d, lo, hi))
        if cand.size == 0:
            continue
        fs, fe = b.face_starts[cand], b.face_starts[cand + 1]
        lengths = fe - fs
        face_ids = np.repeat(fs - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        t = ray_triangles(o, d, pos[b.faces[face_ids].astype(np.int64)])
        k = int(np.argmin(t)) if t.size else 0
        if t.size and np.isfinite(t[k]) and (best is None or t[k] < best[0]):
            prim = int(b.prim_index_of_face(face_ids[k]))
            best = (float(t[k]), b.prim_paths[prim])
    if best is None:
        return None
    point = o + d * best[0]
    return PickHit(best[1], best[0], (float(point[0]), float(point[1]), float(point[2])))


def pick(model: SceneModel, ray_origin, ray_dir) -> str | None:
    """Path of the nearest visible prim the ray hits, or None."""
    hit = pick_hit(model, ray_origin, ray_dir)
    return None if hit is None else hit.prim_path


def ground_point(model: SceneModel, ray_origin, ray_dir, *, ground_z: float = 0.0) -> np.ndarray | None:
    """Where something dropped along the ray lands (view frame): the nearest visible surface it
    hits, else the ground plane ``z = ground_z`` in front of the ray; None when it meets neither
    (a ray pointing at the sky over empty space)."""
    hit = pick_hit(model, ray_origin, ray_dir)
    if hit is not None:
        return np.asarray(hit.point, np.float64)
    o = np.asarray(ray_origin, np.float64).reshape(3)
    d = np.asarray(ray_dir, np.float64).reshape(3)
    if abs(d[2]) < 1e-9:
        return None
    t = (ground_z - o[2]) / d[2]
    return o + d * t if t > 0 else None


def view_to_stage(model: SceneModel, point) -> tuple[float, float, float]:
    """A view-frame point (metres, +Z up) in the stage's own axes and units."""
    p = np.linalg.inv(model.stage_to_view) @ np.r_[np.asarray(point, np.float64).reshape(3), 1.0]
    return float(p[0]), float(p[1]), float(p[2])
