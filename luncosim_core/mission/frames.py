"""The mission's ground plane: task poses (x, y, yaw) against the stage's world frame.

Poses are right-handed seen from above, in metres and radians: on a Z-up stage x = X, y = Y; on a
Y-up stage x = X, y = -Z. Height is the up coordinate. Yaw turns about the up axis, 0 along +X.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def wrap(angle: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


@dataclass(frozen=True)
class GroundFrame:
    up: str  # "Y" or "Z"

    def __post_init__(self) -> None:
        if self.up not in ("Y", "Z"):
            raise ValueError(f"up axis must be Y or Z, got {self.up!r}")

    @property
    def up_vector(self) -> np.ndarray:
        return np.array([0.0, 1.0, 0.0]) if self.up == "Y" else np.array([0.0, 0.0, 1.0])

    def to_plane(self, p) -> tuple[float, float, float]:
        """World point (metres) -> (x, y, height)."""
        if self.up == "Z":
            return float(p[0]), float(p[1]), float(p[2])
        return float(p[0]), -float(p[2]), float(p[1])

    def to_plane_array(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n,3) world points -> ((n,2) plane xy, (n,) heights)."""
        pts = np.asarray(pts, dtype=float).reshape(-1, 3)
        if self.up == "Z":
            return pts[:, :2].copy(), pts[:, 2].copy()
        return np.stack([pts[:, 0], -pts[:, 2]], axis=1), pts[:, 1].copy()

    def to_world(self, x: float, y: float, height: float) -> np.ndarray:
        if self.up == "Z":
            return np.array([x, y, height], dtype=float)
        return np.array([x, height, -y], dtype=float)

    def yaw_of(self, q) -> float:
        """Heading of a body's local +X axis, projected on the ground plane (radians)."""
        w, x, y, z = (float(v) for v in q)
        fx = 1 - 2 * (y * y + z * z)
        fy = 2 * (x * y + w * z)
        fz = 2 * (x * z - w * y)
        px, py, _h = self.to_plane((fx, fy, fz))
        return math.atan2(py, px)

    def yaw_quat(self, yaw: float) -> np.ndarray:
        """Quaternion (w, x, y, z) turning +X to heading ``yaw`` about the up axis."""
        h = 0.5 * yaw
        axis = self.up_vector
        return np.array([math.cos(h), *(math.sin(h) * axis)])

    def yaw_rate(self, angular_velocity) -> float:
        """Rate of yaw (rad/s, counter-clockwise seen from above) from a world angular velocity."""
        return float(angular_velocity[1] if self.up == "Y" else angular_velocity[2])

    def plane_vector(self, v) -> tuple[float, float]:
        x, y, _h = self.to_plane(v)
        return x, y
