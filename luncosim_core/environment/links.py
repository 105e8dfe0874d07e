"""The connectivity kernel: where link nodes are, and which pairs of them can talk.

Pure geometry over the DE421 ephemeris. Every position is in the *solar frame*: ICRF axes,
origin at the solar-system barycentre, metres. A node is placed one of four ways:

- :class:`Geodetic` -- latitude/longitude/height on a body (Earth 399 through skyfield's WGS84
  with Earth rotation; the Moon 301 as a sphere of 1737.4 km turning with the IAU model), plus
  an optional local offset in the site's east/north/up axes (a scene-local antenna);
- :class:`Kepler` -- classical elements about a body, referenced to that body's equator
  (inclination from its equatorial plane, RAAN from the equator's ascending node on the ICRF
  equator), propagated from the elements' epoch by the two-body mean motion;
- :class:`Libration` -- an Earth-Moon Lagrange point: L1/L2/L3 by the first-order collinear
  series, L4/L5 exactly (the equilateral points in the instantaneous orbit plane).

A pair is linked when (the *builtin* verdict) its range is within both nodes' ``maxRangeM``, the
peer stands at or above each endpoint's ``minElevationDeg`` over that endpoint's own horizon
(only surface nodes have one), no body (Earth, Moon) and no occluder box crosses the segment;
then the class policy: a ``rover`` talks only to an ``earth`` or a ``relay`` node. Two nodes
nested one inside the other never link (one assembly, one radio).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from luncosim_core.environment.ephemeris import (
    EPHEMERIS_LOCK,
    MOON_RADIUS_M,
    EphemerisError,
    ephemeris_at,
    moon_orientation,
)

SPEED_OF_LIGHT_M_S = 299_792_458.0
EARTH_NAIF = 399
MOON_NAIF = 301
EARTH_RADIUS_M = 6_371_000.0
#: Gravitational parameters (m^3/s^2) of the bodies an orbit may be authored about.
GM = {EARTH_NAIF: 3.986004418e14, MOON_NAIF: 4.9028e12}
#: Mean radii (m) of the bodies that occult a sight-line.
RADII = {EARTH_NAIF: EARTH_RADIUS_M, MOON_NAIF: MOON_RADIUS_M}
_SKYFIELD_NAME = {10: "sun", 399: "earth", 301: "moon", 0: "ssb"}
#: A rover node talks only to these classes (LunCoSim's default ``link.connected`` policy).
ROVER_PEERS = ("earth", "relay")
DEFAULT_MAX_RANGE_M = 1.0e12
DEFAULT_MIN_ELEVATION_DEG = -90.0


class LinkError(ValueError):
    """A node's placement cannot be resolved (unsupported body, unknown libration point)."""


@dataclass(frozen=True)
class Geodetic:
    body: int
    lat_deg: float
    lon_deg: float
    height_m: float = 0.0
    enu_offset_m: tuple[float, float, float] = (0.0, 0.0, 0.0)  # east, north, up from the anchor


@dataclass(frozen=True)
class Kepler:
    body: int
    a_m: float
    e: float = 0.0
    i_deg: float = 0.0
    raan_deg: float = 0.0
    argp_deg: float = 0.0
    mean_anomaly_deg: float = 0.0
    epoch_jd: float = 2451545.0


@dataclass(frozen=True)
class Libration:
    primary: int
    secondary: int
    point: str


@dataclass(frozen=True)
class LinkNode:
    path: str
    placement: Geodetic | Kepler | Libration
    cls: str = ""
    max_range_m: float = DEFAULT_MAX_RANGE_M
    min_elevation_deg: float = DEFAULT_MIN_ELEVATION_DEG


@dataclass(frozen=True)
class Occluder:
    """An oriented box that severs any sight-line through it (solar frame)."""

    path: str
    center: np.ndarray
    rotation: np.ndarray  # 3x3, box axes to solar axes
    half_extents: np.ndarray


@dataclass
class Edge:
    a: str
    b: str
    range_m: float
    light_time_s: float


@dataclass
class LinkGraph:
    nodes: list[LinkNode]
    positions: dict[str, np.ndarray]
    edges: list[Edge] = field(default_factory=list)
    severed: dict[tuple[str, str], str] = field(default_factory=dict)  # why each down pair is down
    geometry: list[Edge] = field(default_factory=list)  # pairs whose geometry is clear, before the class policy
    unplaced: dict[str, str] = field(default_factory=dict)  # nodes whose placement failed, and why


# -- bodies ---------------------------------------------------------------------------------------

def body_position(naif: int, jd_tdb: float) -> np.ndarray:
    """Solar-frame position (m) of a body's centre at a TDB Julian date."""
    return np.array(_body_position(int(naif), float(jd_tdb)))


@lru_cache(maxsize=256)
def _body_position(naif: int, jd_tdb: float) -> tuple[float, float, float]:
    name = _SKYFIELD_NAME.get(naif)
    if name is None:
        raise LinkError(f"body {naif} is not in the ephemeris (known: {sorted(_SKYFIELD_NAME)})")
    if naif == 0:
        return (0.0, 0.0, 0.0)
    with EPHEMERIS_LOCK:
        eph, t = ephemeris_at(jd_tdb)
        try:
            return tuple(float(x) for x in eph[name].at(t).position.m)
        except Exception as exc:  # noqa: BLE001 - skyfield raises its own out-of-range error types
            raise EphemerisError(f"the DE421 ephemeris does not cover JD {jd_tdb}: {exc}") from None


def body_equator(naif: int, jd_tdb: float) -> np.ndarray:
    """3x3 rotation from a body's inertial equatorial frame (z = its pole, x = the equator's
    ascending node on the ICRF equator) to ICRF."""
    if naif == MOON_NAIF:
        r = moon_orientation(jd_tdb)
        w = _prime_meridian_rotation(jd_tdb)
        return r @ w.T
    if naif == EARTH_NAIF:
        return np.eye(3)  # ICRF is Earth's mean equator of J2000 (precession neglected)
    raise LinkError(f"orbits about body {naif} are not supported (Earth 399 and the Moon 301 are)")


def _prime_meridian_rotation(jd_tdb: float) -> np.ndarray:
    """The Moon's Rz(W): moon_orientation = Rz(ra + 90) Rx(90 - dec) Rz(W)."""
    r = moon_orientation(jd_tdb)
    pole = r[:, 2]
    node = np.cross([0.0, 0.0, 1.0], pole)
    node /= np.linalg.norm(node)
    x_body = r[:, 0]
    w = math.atan2(float(np.dot(np.cross(node, x_body), pole)), float(np.dot(node, x_body)))
    c, s = math.cos(w), math.sin(w)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


# -- placements -----------------------------------------------------------------------------------

def place(p: Geodetic | Kepler | Libration, jd_tdb: float) -> tuple[np.ndarray, np.ndarray | None]:
    """``(solar-frame position, local up or None)``: only surface placements have a horizon."""
    if isinstance(p, Geodetic):
        return _geodetic(p, jd_tdb)
    if isinstance(p, Kepler):
        return body_position(p.body, jd_tdb) + body_equator(p.body, jd_tdb) @ kepler_position(p, jd_tdb), None
    return libration_position(p, jd_tdb), None


def site_axes(p: Geodetic, jd_tdb: float) -> tuple[np.ndarray, np.ndarray]:
    """``(solar-frame origin of the site, 3x3 whose columns are east, north, up in ICRF)``."""
    la, lo = math.radians(p.lat_deg), math.radians(p.lon_deg)
    up_b = np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])
    east_b = np.array([-math.sin(lo), math.cos(lo), 0.0])
    north_b = np.cross(up_b, east_b)
    if p.body == MOON_NAIF:
        rot = moon_orientation(jd_tdb)
        origin = body_position(MOON_NAIF, jd_tdb) + rot @ up_b * (MOON_RADIUS_M + p.height_m)
    elif p.body == EARTH_NAIF:
        rot = _earth_orientation(jd_tdb)
        from skyfield.api import wgs84

        with EPHEMERIS_LOCK:
            _eph, t = ephemeris_at(jd_tdb)
            site = np.asarray(wgs84.latlon(p.lat_deg, p.lon_deg, elevation_m=p.height_m).at(t).position.m, dtype=float)
        origin = body_position(EARTH_NAIF, jd_tdb) + site
    else:
        raise LinkError(f"geodetic placement on body {p.body} is not supported (Earth 399 and the Moon 301 are)")
    return origin, rot @ np.column_stack([east_b, north_b, up_b])


def _geodetic(p: Geodetic, jd_tdb: float) -> tuple[np.ndarray, np.ndarray]:
    origin, enu = site_axes(p, jd_tdb)
    return origin + enu @ np.asarray(p.enu_offset_m, dtype=float), enu[:, 2]


def _earth_orientation(jd_tdb: float) -> np.ndarray:
    """Earth-fixed (ITRS) to ICRF/GCRS at a TDB Julian date (skyfield's full rotation model)."""
    return np.array(_earth_rotation(float(jd_tdb)))


@lru_cache(maxsize=64)
def _earth_rotation(jd_tdb: float) -> tuple:
    from skyfield.framelib import itrs

    with EPHEMERIS_LOCK:
        _eph, t = ephemeris_at(jd_tdb)
        return tuple(map(tuple, np.asarray(itrs.rotation_at(t), dtype=float).T))


def kepler_position(k: Kepler, jd_tdb: float) -> np.ndarray:
    """Body-centred position (m) in the body's equatorial frame, by two-body propagation."""
    if k.body not in GM:
        raise LinkError(f"orbits about body {k.body} are not supported (known: {sorted(GM)})")
    if not (k.a_m > 0.0 and 0.0 <= k.e < 1.0):
        raise LinkError(f"orbit elements a={k.a_m} m, e={k.e} do not describe an ellipse")
    n = math.sqrt(GM[k.body] / k.a_m ** 3)
    m = math.radians(k.mean_anomaly_deg) + n * (jd_tdb - k.epoch_jd) * 86400.0
    m = math.remainder(m, 2.0 * math.pi)
    ecc = m if k.e < 0.8 else math.pi
    for _ in range(50):
        step = (ecc - k.e * math.sin(ecc) - m) / (1.0 - k.e * math.cos(ecc))
        ecc -= step
        if abs(step) < 1e-14:
            break
    x = k.a_m * (math.cos(ecc) - k.e)
    y = k.a_m * math.sqrt(1.0 - k.e * k.e) * math.sin(ecc)
    rot = _rz(math.radians(k.raan_deg)) @ _rx(math.radians(k.i_deg)) @ _rz(math.radians(k.argp_deg))
    return rot @ np.array([x, y, 0.0])


def libration_position(lp: Libration, jd_tdb: float) -> np.ndarray:
    """Solar-frame position of a Lagrange point of the (primary, secondary) pair."""
    if (lp.primary, lp.secondary) != (EARTH_NAIF, MOON_NAIF):
        raise LinkError(f"libration pair ({lp.primary}, {lp.secondary}) is not supported (Earth-Moon 399/301 is)")
    p1 = body_position(lp.primary, jd_tdb)
    p2 = body_position(lp.secondary, jd_tdb)
    r = p2 - p1
    d = float(np.linalg.norm(r))
    u = r / d
    mu = GM[MOON_NAIF] / (GM[MOON_NAIF] + GM[EARTH_NAIF])
    hill = (mu / 3.0) ** (1.0 / 3.0)
    point = lp.point.upper()
    if point == "L1":
        return p2 - u * d * hill
    if point == "L2":
        return p2 + u * d * hill
    if point == "L3":
        return p1 - u * d * (1.0 + 5.0 * mu / 12.0)
    if point in ("L4", "L5"):
        v = (body_position(lp.secondary, jd_tdb + 1e-3) - body_position(lp.primary, jd_tdb + 1e-3)) - r
        normal = np.cross(r, v)
        normal /= np.linalg.norm(normal)
        ang = math.radians(60.0 if point == "L4" else -60.0)
        rotated = r * math.cos(ang) + np.cross(normal, r) * math.sin(ang)
        return p1 + rotated
    raise LinkError(f"libration point '{lp.point}' is not one of L1..L5")


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


# -- verdicts -------------------------------------------------------------------------------------

def segment_hits_sphere(p1: np.ndarray, p2: np.ndarray, center: np.ndarray, radius: float) -> bool:
    """Does the open segment pass inside the sphere (half a metre of grace, so an endpoint standing
    on the surface does not occult itself)?"""
    d = p2 - p1
    len_sq = float(d @ d)
    if len_sq < 1.0:
        return False
    t = float((center - p1) @ d) / len_sq
    if t <= 0.0 or t >= 1.0:
        return False
    return float(np.linalg.norm(p1 + d * t - center)) < radius - 0.5


def segment_hits_box(p1: np.ndarray, p2: np.ndarray, box: Occluder) -> bool:
    """Slab test of the segment against an oriented box; both endpoints inside counts as a hit."""
    he = np.abs(box.half_extents)
    if he.min() <= 0.0:
        return False
    a = box.rotation.T @ (p1 - box.center)
    b = box.rotation.T @ (p2 - box.center)
    d = b - a
    lo_t, hi_t = 0.0, 1.0
    for axis in range(3):
        o, di, h = a[axis], d[axis], he[axis]
        if abs(di) < 1e-12:
            if o < -h or o > h:
                return False
            continue
        t0, t1 = sorted(((-h - o) / di, (h - o) / di))
        lo_t, hi_t = max(lo_t, t0), min(hi_t, t1)
        if lo_t > hi_t:
            return False
    return True


def nested(a: str, b: str) -> bool:
    return a.startswith(b + "/") or b.startswith(a + "/")


def policy_allows(cls_a: str, cls_b: str) -> bool:
    """LunCoSim's default class policy: a rover links only to Earth stations and relays."""
    if cls_a == "rover" or cls_b == "rover":
        other = cls_b if cls_a == "rover" else cls_a
        return other in ROVER_PEERS
    return True


def wifi_edges(graph: LinkGraph, wifi_range_m: dict[str, float]) -> list[Edge]:
    """The radio graph over the Wi-Fi endpoints (path -> its ``lunco:wifi:maxRangeM``): every pair
    whose geometry is clear (range, masks, bodies, occluders; no class policy) within both radios'
    reach."""
    return [e for e in graph.geometry if e.a in wifi_range_m and e.b in wifi_range_m
            and e.range_m <= min(wifi_range_m[e.a], wifi_range_m[e.b])]


def link_graph(nodes: list[LinkNode], jd_tdb: float, occluders: tuple[Occluder, ...] = (),
               positions: dict[str, tuple[np.ndarray, np.ndarray | None]] | None = None) -> LinkGraph:
    """The pairwise verdicts at one instant. ``positions`` (path -> (position, up)) overrides a
    node's placement (a scene-local node riding a simulated body)."""
    poses, unplaced = {}, {}
    for n in nodes:
        try:
            poses[n.path] = positions[n.path] if positions and n.path in positions else place(n.placement, jd_tdb)
        except LinkError as exc:  # one bad placement leaves that node out, not the whole graph
            unplaced[n.path] = str(exc)
    nodes = [n for n in nodes if n.path in poses]
    bodies = [(naif, body_position(naif, jd_tdb), r) for naif, r in sorted(RADII.items())]
    graph = LinkGraph(nodes, {p: v[0] for p, v in poses.items()}, unplaced=unplaced)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            if nested(a.path, b.path):
                continue
            why = _severed(a, b, poses, bodies, occluders)
            rng = float(np.linalg.norm(poses[b.path][0] - poses[a.path][0]))
            edge = Edge(a.path, b.path, rng, rng / SPEED_OF_LIGHT_M_S)
            if not why:
                graph.geometry.append(edge)
                if not policy_allows(a.cls, b.cls):
                    why = f"class policy: a rover links only to {', '.join(ROVER_PEERS)}"
            if why:
                graph.severed[(a.path, b.path)] = why
                continue
            graph.edges.append(edge)
    return graph


def _elevation_deg(up: np.ndarray | None, direction: np.ndarray) -> float | None:
    if up is None:
        return None
    return math.degrees(math.asin(max(-1.0, min(1.0, float(up @ direction)))))


def _severed(a: LinkNode, b: LinkNode, poses: dict, bodies: list, occluders: tuple[Occluder, ...]) -> str:
    """Why the pair is down, or "" when it is up."""
    (pa, up_a), (pb, up_b) = poses[a.path], poses[b.path]
    d = pb - pa
    rng = float(np.linalg.norm(d))
    if rng > min(a.max_range_m, b.max_range_m):
        return f"range {rng:.0f} m beyond {min(a.max_range_m, b.max_range_m):.0f} m"
    direction = d / rng if rng > 1e-6 else np.zeros(3)
    for node, up, dirn in ((a, up_a, direction), (b, up_b, -direction)):
        el = _elevation_deg(up, dirn)
        if el is not None and el < node.min_elevation_deg:
            return f"{node.path} sees its peer at {el:.2f} deg, below its {node.min_elevation_deg} deg mask"
    for naif, c, r in bodies:
        if segment_hits_sphere(pa, pb, c, r):
            return f"body {naif} occults the sight-line"
    for box in occluders:
        if segment_hits_box(pa, pb, box):
            return f"occluder {box.path} blocks the sight-line"
    return ""


__all__ = ["EphemerisError", "Edge", "Geodetic", "Kepler", "Libration", "LinkError", "LinkGraph", "LinkNode",
           "Occluder", "body_position", "link_graph", "place", "site_axes"]
