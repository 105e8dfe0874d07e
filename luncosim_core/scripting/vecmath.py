"""Vector and angle helpers for scripts: ``[x, y, z]`` arrays in, arrays (or ``()``) out.

A helper given something that is not a finite 3-vector returns ``()`` instead of raising, so a
script that read a missing pose sees "nothing measured" rather than a crash or a NaN."""

from __future__ import annotations

import math
from typing import Any

from luncosim_core.scripting.rhai import Engine, Unit


def _num(v: Any) -> float | None:
    if type(v) in (int, float):
        return float(v)
    return None


def vec3(v: Any) -> tuple[float, float, float] | None:
    """A finite 3-vector from a script array, or None."""
    if type(v) is not list or len(v) != 3:
        return None
    out = []
    for c in v:
        x = _num(c)
        if x is None or not math.isfinite(x):
            return None
        out.append(x)
    return out[0], out[1], out[2]


def quat_xyzw(q: Any) -> tuple[float, float, float, float] | None:
    """A normalised quaternion ``(x, y, z, w)`` from a script array, or None."""
    if type(q) is not list or len(q) != 4:
        return None
    c = [_num(v) for v in q]
    if any(x is None or not math.isfinite(x) for x in c):
        return None
    n = math.sqrt(sum(x * x for x in c))  # type: ignore[operator]
    if n < 1e-6:
        return None
    return c[0] / n, c[1] / n, c[2] / n, c[3] / n  # type: ignore[operator]


def rotate(q: tuple[float, float, float, float], v: tuple[float, float, float]) -> list[float]:
    """Rotate ``v`` by unit quaternion ``q`` (x, y, z, w)."""
    x, y, z, w = q
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return [v[0] + w * tx + (y * tz - z * ty),
            v[1] + w * ty + (z * tx - x * tz),
            v[2] + w * tz + (x * ty - y * tx)]


def _cross(a, b) -> list[float]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def _len(a) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


def _angle(a, b) -> float:
    # atan2 of |a x b| and a.b: accurate for tiny and near-opposite angles alike
    return math.atan2(_len(_cross(a, b)), a[0] * b[0] + a[1] * b[1] + a[2] * b[2])


def _direction(v) -> bool:
    return 0.5 <= _len(v) <= 2.0


def vadd(a, b):
    a, b = vec3(a), vec3(b)
    return Unit if a is None or b is None else [a[0] + b[0], a[1] + b[1], a[2] + b[2]]


def vsub(a, b):
    a, b = vec3(a), vec3(b)
    return Unit if a is None or b is None else [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def vdot(a, b):
    a, b = vec3(a), vec3(b)
    return Unit if a is None or b is None else a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def vcross(a, b):
    a, b = vec3(a), vec3(b)
    return Unit if a is None or b is None else _cross(a, b)


def vlen(a):
    a = vec3(a)
    return Unit if a is None else _len(a)


def vnorm(a):
    a = vec3(a)
    if a is None:
        return Unit
    n = _len(a)
    return [0.0, 0.0, 0.0] if n == 0.0 else [a[0] / n, a[1] / n, a[2] / n]


def vscale(a, k):
    a, s = vec3(a), _num(k)
    return Unit if a is None or s is None else [a[0] * s, a[1] * s, a[2] * s]


def qrot(q, v):
    qq, vv = quat_xyzw(q), vec3(v)
    return Unit if qq is None or vv is None else rotate(qq, vv)


def clamp(x, lo, hi):
    x, lo, hi = _num(x), _num(lo), _num(hi)
    if x is None or lo is None or hi is None:
        return Unit
    if x != x:
        return lo
    return min(max(x, lo), hi)


def angle_deg(a, b):
    a, b = vec3(a), vec3(b)
    if a is None or b is None or not _direction(a) or not _direction(b):
        return Unit
    return math.degrees(_angle(a, b))


def yaw_delta_deg(f0, f1):
    """Signed heading change in degrees; positive turns clockwise seen from +Y (up)."""
    a, b = vec3(f0), vec3(f1)
    if a is None or b is None or not _direction(a) or not _direction(b):
        return Unit
    mag = math.degrees(_angle(a, b))
    return -mag if _cross(a, b)[1] > 0.0 else mag


HELPERS = {
    "vadd": vadd, "vsub": vsub, "vdot": vdot, "vcross": vcross, "vlen": vlen, "vnorm": vnorm,
    "vscale": vscale, "qrot": qrot, "clamp": clamp, "angle_deg": angle_deg,
    "yaw_delta_deg": yaw_delta_deg,
}


def register_vector_helpers(engine: Engine) -> None:
    """Expose the helpers above to scripts under their own names."""
    for name, fn in HELPERS.items():
        engine.register_fn(name, fn)
