"""Earth's direction in a lunar site's local sky, from the JPL DE421 ephemeris.

Positions come from skyfield with the DE421 kernel bundled by ``skyfield-data`` (nothing is
downloaded). The Moon's orientation is the IAU WGCCRE model (pole right ascension and declination
and prime-meridian angle W with the E1..E13 lunar arguments), which fixes the body frame a
selenographic latitude/longitude is measured in. The result is a unit vector in the site's
east-north-up axes.
"""

from __future__ import annotations

import math
import threading
import warnings
from functools import lru_cache

import numpy as np

J2000_JD = 2451545.0
MOON_RADIUS_M = 1_737_400.0
MOON_NAIF = 301
_LOCK = threading.RLock()
#: Held around every skyfield computation (its kernel objects are not thread-safe).
EPHEMERIS_LOCK = _LOCK


class EphemerisError(ValueError):
    """The direction cannot be computed (epoch outside the kernel, unsupported body)."""


@lru_cache(maxsize=1)
def _kernel():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # skyfield-data warns about its (unused) Earth-rotation table
        from skyfield.api import load, load_file
        from skyfield_data import get_skyfield_data_path

        eph = load_file(f"{get_skyfield_data_path()}/de421.bsp")
        ts = load.timescale(builtin=True)
    return eph, ts


def ephemeris_at(jd_tdb: float):
    """``(the DE421 kernel, a skyfield Time at the TDB Julian date)``; call under EPHEMERIS_LOCK."""
    with _LOCK:
        eph, ts = _kernel()
        return eph, ts.tdb_jd(jd_tdb)


def moon_orientation(jd_tdb: float) -> np.ndarray:
    """3x3 rotation taking Moon body-fixed vectors to ICRF (IAU WGCCRE model)."""
    d = jd_tdb - J2000_JD
    t = d / 36525.0
    e = [math.radians(a + b * d) for a, b in (
        (125.045, -0.0529921), (250.089, -0.1059842), (260.008, 13.0120009), (176.625, 13.3407154),
        (357.529, 0.9856003), (311.589, 26.4057084), (134.963, 13.0649930), (276.617, 0.3287146),
        (34.226, 1.7484877), (15.134, -0.1589763), (119.743, 0.0036096), (239.961, 0.1643573),
        (25.053, 12.9590088))]
    s = [math.sin(x) for x in e]
    c = [math.cos(x) for x in e]
    ra = (269.9949 + 0.0031 * t - 3.8787 * s[0] - 0.1204 * s[1] + 0.0700 * s[2] - 0.0172 * s[3]
          + 0.0072 * s[5] - 0.0052 * s[9] + 0.0043 * s[12])
    dec = (66.5392 + 0.0130 * t + 1.5419 * c[0] + 0.0239 * c[1] - 0.0278 * c[2] + 0.0068 * c[3]
           - 0.0029 * c[5] + 0.0009 * c[6] + 0.0008 * c[9] - 0.0009 * c[12])
    w = (38.3213 + 13.17635815 * d - 1.4e-12 * d * d + 3.5610 * s[0] + 0.1208 * s[1] - 0.0642 * s[2]
         + 0.0158 * s[3] + 0.0252 * s[4] - 0.0066 * s[5] - 0.0047 * s[6] - 0.0046 * s[7] + 0.0028 * s[8]
         + 0.0052 * s[9] + 0.0040 * s[10] + 0.0019 * s[11] - 0.0044 * s[12])
    return _rz(math.radians(ra) + math.pi / 2) @ _rx(math.pi / 2 - math.radians(dec)) @ _rz(math.radians(w))


def _rz(a: float) -> np.ndarray:
    ca, sa = math.cos(a), math.sin(a)
    return np.array([[ca, -sa, 0.0], [sa, ca, 0.0], [0.0, 0.0, 1.0]])


def _rx(a: float) -> np.ndarray:
    ca, sa = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])


def site_enu_axes(lat_deg: float, lon_deg: float) -> np.ndarray:
    """Rows east, north, up of a site at selenographic latitude/longitude (east positive), body frame."""
    la, lo = math.radians(lat_deg), math.radians(lon_deg)
    up = np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])
    east = np.array([-math.sin(lo), math.cos(lo), 0.0])
    north = np.cross(up, east)
    return np.array([east, north, up])


def earth_direction_enu(jd_tdb: float, lat_deg: float, lon_deg: float, height_m: float = 0.0,
                        body: int = MOON_NAIF) -> np.ndarray:
    """Unit vector toward Earth's centre from a lunar surface site, in the site's (east, north, up).

    Geometric positions (no light-time or aberration) at the TDB Julian date ``jd_tdb``; the site
    offset from the Moon's centre (its radius plus ``height_m``) is included (topocentric).
    """
    if body != MOON_NAIF:
        raise EphemerisError(f"site body {body} is not supported (Earth directions are computed for Moon sites, 301)")
    with _LOCK:
        eph, ts = _kernel()
        t = ts.tdb_jd(jd_tdb)
        try:
            moon_to_earth_km = (eph["earth"] - eph["moon"]).at(t).position.km
        except Exception as exc:  # noqa: BLE001 - skyfield raises its own out-of-range error types
            raise EphemerisError(f"the DE421 ephemeris does not cover JD {jd_tdb}: {exc}") from None
    rot = moon_orientation(jd_tdb)
    enu = site_enu_axes(lat_deg, lon_deg)
    site_km = rot @ enu[2] * (MOON_RADIUS_M + height_m) / 1000.0
    v = np.asarray(moon_to_earth_km, dtype=float) - site_km
    v_body = rot.T @ v
    out = enu @ v_body
    return out / np.linalg.norm(out)
