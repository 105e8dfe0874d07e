"""Rigid transforms as (position, quaternion w-x-y-z) pairs, and conversion from USD matrices.

Everything here is plain numpy float64; pybullet's x-y-z-w order appears only in ``to_xyzw`` /
``from_xyzw`` so the rest of the package never mixes conventions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a*b, both (w, x, y, z)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def quat_conj(q: np.ndarray) -> np.ndarray:
    return np.array([q[0], -q[1], -q[2], -q[3]])


def quat_normalize(q: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(q))
    if n < 1e-15 or not math.isfinite(n):
        return IDENTITY_Q.copy()
    return np.asarray(q, dtype=float) / n


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vector v by unit quaternion q."""
    return quat_to_matrix(q) @ np.asarray(v, dtype=float)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Column-convention rotation matrix R (v_world = R @ v_local)."""
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def matrix_to_quat(m: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a column-convention rotation matrix, w >= 0."""
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    out = quat_normalize(np.array(q))
    return -out if out[0] < 0 else out


def quat_angle(q: np.ndarray) -> float:
    """Rotation angle in [0, pi] of a unit quaternion."""
    w = min(1.0, abs(float(q[0])))
    return 2.0 * math.acos(w)


def axis_angle_quat(axis: np.ndarray, angle: float) -> np.ndarray:
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    s = math.sin(angle / 2)
    return np.array([math.cos(angle / 2), a[0] * s, a[1] * s, a[2] * s])


def to_xyzw(q: np.ndarray) -> list[float]:
    return [float(q[1]), float(q[2]), float(q[3]), float(q[0])]


def from_xyzw(q) -> np.ndarray:
    return np.array([q[3], q[0], q[1], q[2]], dtype=float)


@dataclass(frozen=True)
class Pose:
    """A rigid transform: x_world = R(q) x_local + p."""

    p: np.ndarray
    q: np.ndarray

    @staticmethod
    def identity() -> Pose:
        return Pose(np.zeros(3), IDENTITY_Q.copy())

    def __mul__(self, other: Pose) -> Pose:
        return Pose(self.p + quat_rotate(self.q, other.p), quat_normalize(quat_mul(self.q, other.q)))

    def inverse(self) -> Pose:
        qi = quat_conj(self.q)
        return Pose(-quat_rotate(qi, self.p), qi)

    def apply(self, v: np.ndarray) -> np.ndarray:
        return self.p + quat_rotate(self.q, v)


def decompose_usd_matrix(m) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split a USD (row-vector) Gf.Matrix4d into (translation, rotation matrix, scale).

    Scale is the length of each basis row; a negative determinant flips the z scale so the
    rotation stays proper. Shear is not represented (it is folded into the rotation fit).
    """
    a = np.array(m, dtype=float).reshape(4, 4)
    basis = a[:3, :3]
    scale = np.linalg.norm(basis, axis=1)
    scale = np.where(scale < 1e-15, 1e-15, scale)
    rows = basis / scale[:, None]
    if np.linalg.det(rows) < 0:
        scale[2] = -scale[2]
        rows[2] = -rows[2]
    # Re-orthonormalise (Gram-Schmidt) so slight shear never yields an invalid rotation.
    x = rows[0] / np.linalg.norm(rows[0])
    y = rows[1] - np.dot(rows[1], x) * x
    y = y / max(np.linalg.norm(y), 1e-15)
    z = np.cross(x, y)
    rot = np.stack([x, y, z], axis=1)  # columns are the local axes in world -> column convention
    return a[3, :3].copy(), rot, np.abs(scale)


def pose_from_usd_matrix(m, meters_per_unit: float = 1.0) -> tuple[Pose, np.ndarray]:
    """(rigid pose in metres, scale) of a USD local-to-world matrix."""
    t, rot, scale = decompose_usd_matrix(m)
    return Pose(t * meters_per_unit, matrix_to_quat(rot)), scale


def gf_quat_to_np(q) -> np.ndarray:
    """Gf.Quatf/Quatd -> (w, x, y, z); the all-zero sentinel becomes identity."""
    im = q.GetImaginary()
    arr = np.array([q.GetReal(), im[0], im[1], im[2]], dtype=float)
    return quat_normalize(arr)
