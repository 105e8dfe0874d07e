"""Visual-only fluid: a deterministic particle stream from an outlet, as plain data.

The stream claims nothing about where the liquid lands or how much a container receives: it is
a visualization overlay. The same outlet, direction, rate, duration and seed give the same
particles at the same time, in every process.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

PARTICLES_PER_ML = 2.0
PARTICLE_LIFETIME_S = 1.0
VISUAL_GRAVITY_M_S2 = 9.81


@dataclass
class FluidStream:
    """Particles leaving ``outlet`` (world, metres) along ``direction`` within a cone."""

    operation_id: str
    fluid: str
    outlet: np.ndarray
    direction: np.ndarray
    up: np.ndarray
    rate_ml_s: float
    display_s: float
    speed_m_s: float
    spray_half_angle_deg: float
    seed: int
    _births: np.ndarray = field(init=False, repr=False)
    _velocities: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        d = np.asarray(self.direction, dtype=float)
        d = d / np.linalg.norm(d)
        self.direction = d
        n = max(1, int(math.ceil(self.rate_ml_s * self.display_s * PARTICLES_PER_ML)))
        rng = np.random.Generator(np.random.PCG64(self.seed))
        self._births = np.arange(n) / (self.rate_ml_s * PARTICLES_PER_ML)
        # directions uniform in a cone of the spray half angle about ``direction``
        half = math.radians(self.spray_half_angle_deg)
        cos_t = 1.0 - rng.random(n) * (1.0 - math.cos(half))
        sin_t = np.sqrt(np.maximum(0.0, 1.0 - cos_t * cos_t))
        phi = rng.random(n) * 2.0 * math.pi
        a = np.cross(d, [1.0, 0.0, 0.0])
        if np.linalg.norm(a) < 1e-6:
            a = np.cross(d, [0.0, 1.0, 0.0])
        a /= np.linalg.norm(a)
        b = np.cross(d, a)
        dirs = (cos_t[:, None] * d + sin_t[:, None] * (np.cos(phi)[:, None] * a + np.sin(phi)[:, None] * b))
        self._velocities = dirs * self.speed_m_s

    @property
    def count(self) -> int:
        return len(self._births)

    def particles(self, t: float) -> np.ndarray:
        """(k, 3) world positions of the particles alive ``t`` seconds after the stream started."""
        age = t - self._births
        alive = (age >= 0.0) & (age <= PARTICLE_LIFETIME_S)
        a = age[alive][:, None]
        return self.outlet + self._velocities[alive] * a - 0.5 * VISUAL_GRAVITY_M_S2 * self.up * a * a

    def digest(self) -> str:
        h = hashlib.sha256()
        for arr in (self.outlet, self.direction, self._births, self._velocities):
            h.update(np.ascontiguousarray(arr, dtype="<f8").tobytes())
        return h.hexdigest()

    def to_json(self) -> dict:
        return {"operation_id": self.operation_id, "fluid": self.fluid, "outlet": self.outlet.tolist(),
                "direction": self.direction.tolist(), "rate_ml_s": self.rate_ml_s, "display_s": self.display_s,
                "particles": self.count, "seed": self.seed, "digest": self.digest()}
