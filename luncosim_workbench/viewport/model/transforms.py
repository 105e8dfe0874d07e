"""Rotations and frames used by the scene model (pure numpy).

Conventions: matrices are 4x4 *column-vector* affines (``p' = M @ [p, 1]``); quaternions are
(w, x, y, z). The *view frame* is the frame the viewport draws in: metres, +Z up. A stage
frame maps onto it by :func:`stage_to_view` (upAxis Y is rotated +90 degrees about X, then
everything is scaled by metersPerUnit).
"""

from __future__ import annotations

import numpy as np


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 4) wxyz quaternions -> (..., 3, 3) rotation matrices (normalised first)."""
    q = np.asarray(q, dtype=np.float64)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    q = q / np.where(n > 0.0, n, 1.0)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty(q.shape[:-1] + (3, 3))
    out[..., 0, 0] = 1 - 2 * (y * y + z * z)
    out[..., 0, 1] = 2 * (x * y - w * z)
    out[..., 0, 2] = 2 * (x * z + w * y)
    out[..., 1, 0] = 2 * (x * y + w * z)
    out[..., 1, 1] = 1 - 2 * (x * x + z * z)
    out[..., 1, 2] = 2 * (y * z - w * x)
    out[..., 2, 0] = 2 * (x * z - w * y)
    out[..., 2, 1] = 2 * (y * z + w * x)
    out[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def gf_to_numpy(gf_matrix) -> np.ndarray:
    """A ``Gf.Matrix4d`` (row-vector convention) as a column-vector numpy 4x4."""
    return np.array(gf_matrix, dtype=np.float64).T


def rigid_part(matrix: np.ndarray) -> np.ndarray:
    """Rotation and translation of an affine, scale and shear removed (polar decomposition)."""
    u, _s, vt = np.linalg.svd(matrix[:3, :3])
    rot = u @ vt
    if np.linalg.det(rot) < 0:
        u[:, -1] *= -1.0
        rot = u @ vt
    out = np.eye(4)
    out[:3, :3] = rot
    out[:3, 3] = matrix[:3, 3]
    return out


def stage_to_view(up_axis: str, meters_per_unit: float) -> np.ndarray:
    """The 4x4 taking stage coordinates (stage units, authored up axis) to the view frame."""
    if up_axis not in ("Y", "Z"):
        raise ValueError(f"upAxis must be 'Y' or 'Z', got {up_axis!r}")
    if not meters_per_unit > 0.0:
        raise ValueError(f"metersPerUnit must be positive, got {meters_per_unit!r}")
    out = np.eye(4)
    if up_axis == "Y":
        out[:3, :3] = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    out[:3, :3] *= meters_per_unit
    return out


def apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 4x4 affine to (N, 3) points."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return pts @ matrix[:3, :3].T + matrix[:3, 3]
