"""The ``Links``, ``SolarPose`` and ``BodyPosition`` queries: the connectivity kernel
(:mod:`luncosim_core.environment.links`) over the running simulation.

Link nodes are the prims authoring ``lunco:linkNode = true``; each is placed by its nearest
ancestor-or-self that authors a placement: ``lunco:orbit:*`` (Kepler), ``lunco:libration:*``
or ``lunco:anchor:*`` (geodetic; a scene-local node rides the simulated body carrying it, offset
from the anchoring prim in the scene's axes: +X east, up axis up, north = -Z for a Y-up stage).
Occluders are the geometry prims authoring ``lunco:occluder = true``: their box is their extent
(a Cube's ``size``) under their composed world transform. The graph is evaluated at the
scenario epoch (``lunco:time:epochJd``) plus simulated time, when asked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pxr import Usd, UsdGeom

from luncosim_core.environment.links import (
    DEFAULT_MAX_RANGE_M,
    DEFAULT_MIN_ELEVATION_DEG,
    RADII,
    Geodetic,
    Kepler,
    Libration,
    LinkError,
    LinkNode,
    Occluder,
    body_position,
    link_graph,
    place,
    site_axes,
    wifi_edges,
)
from luncosim_core.environment.scene import J2000_JD, scenario_epoch_jd

WIFI_DEFAULT_RANGE_M = 5000.0


def _attr(prim: Usd.Prim, name: str, default=None):
    a = prim.GetAttribute(name)
    if a and a.HasAuthoredValue():
        v = a.Get()
        return v if v is not None else default
    return default


def _num(prim: Usd.Prim, name: str, default: float) -> float:
    v = _attr(prim, name)
    return float(v) if isinstance(v, (int, float)) and math.isfinite(float(v)) else default


@dataclass(frozen=True)
class _Anchor:
    """The prim that places a node and how: a placement, or a geodetic site frame."""

    path: str
    placement: Geodetic | Kepler | Libration


def _placement_of(prim: Usd.Prim) -> Geodetic | Kepler | Libration | None:
    if _attr(prim, "lunco:orbit:body") is not None:
        return Kepler(int(_num(prim, "lunco:orbit:body", 301)), _num(prim, "lunco:orbit:semiMajorAxisM", 0.0),
                      _num(prim, "lunco:orbit:eccentricity", 0.0), _num(prim, "lunco:orbit:inclinationDeg", 0.0),
                      _num(prim, "lunco:orbit:raanDeg", 0.0), _num(prim, "lunco:orbit:argPeriapsisDeg", 0.0),
                      _num(prim, "lunco:orbit:meanAnomalyDeg", 0.0), _num(prim, "lunco:orbit:epochJd", J2000_JD))
    if _attr(prim, "lunco:libration:primary") is not None:
        return Libration(int(_num(prim, "lunco:libration:primary", 399)),
                         int(_num(prim, "lunco:libration:secondary", 301)), str(_attr(prim, "lunco:libration:point", "")))
    if _attr(prim, "lunco:anchor:lat") is not None:
        return Geodetic(int(_num(prim, "lunco:anchor:body", 301)), _num(prim, "lunco:anchor:lat", 0.0),
                        _num(prim, "lunco:anchor:lon", 0.0), _num(prim, "lunco:anchor:height", 0.0))
    return None


def anchor_of(prim: Usd.Prim) -> _Anchor | None:
    """The nearest ancestor-or-self authoring a placement."""
    while prim and not prim.IsPseudoRoot():
        p = _placement_of(prim)
        if p is not None:
            return _Anchor(str(prim.GetPath()), p)
        prim = prim.GetParent()
    return None


class LinkScene:
    """The link nodes and occluders of one simulation, posed at its current time."""

    def at_now(self) -> LinkScene:
        """The same nodes and occluders at the simulation's current time (no stage walk)."""
        other = object.__new__(LinkScene)
        other.__dict__.update(self.__dict__)
        other.jd = scenario_epoch_jd(self.stage) + float(self.sim.time) / 86400.0
        other.unplaced = {p: w for p, w in self.unplaced.items() if p not in self._placed_paths()}
        other.surface_up = {}
        return other

    def _placed_paths(self) -> set[str]:
        return {n.path for n in self.nodes}

    def __init__(self, sim) -> None:
        self.sim = sim
        self.stage = sim.stage
        self.y_up = UsdGeom.GetStageUpAxis(self.stage) != UsdGeom.Tokens.z
        self.jd = scenario_epoch_jd(self.stage) + float(sim.time) / 86400.0
        self.nodes: list[LinkNode] = []
        self.anchors: dict[str, _Anchor] = {}
        self.unplaced: dict[str, str] = {}
        self.occluder_prims: list[Usd.Prim] = []
        self.surface_up: dict[str, np.ndarray | None] = {}
        self.wifi: dict[str, float] = {}  # Wi-Fi endpoints: path -> lunco:wifi:maxRangeM
        for prim in self.stage.Traverse():
            if _attr(prim, "lunco:occluder") is True:
                self.occluder_prims.append(prim)
            if _attr(prim, "lunco:linkNode") is not True:
                continue
            path = str(prim.GetPath())
            anchor = anchor_of(prim)
            if anchor is None:
                self.unplaced[path] = "no lunco:orbit, lunco:libration or lunco:anchor on it or above it"
                continue
            self.anchors[path] = anchor
            if _attr(prim, "lunco:wifiNode") is True:
                self.wifi[path] = _num(prim, "lunco:wifi:maxRangeM", WIFI_DEFAULT_RANGE_M)
            self.nodes.append(LinkNode(path, anchor.placement, str(_attr(prim, "lunco:link:class", "") or ""),
                                       _num(prim, "lunco:link:maxRangeM", DEFAULT_MAX_RANGE_M),
                                       _num(prim, "lunco:link:minElevationDeg", DEFAULT_MIN_ELEVATION_DEG)))

    # -- frames ---------------------------------------------------------------------------------
    def _to_enu(self, v) -> np.ndarray:
        """Scene axes to (east, north, up)."""
        x, y, z = (float(c) for c in v)
        return np.array([x, -z, y]) if self.y_up else np.array([x, y, z])

    def _live(self, path: str) -> np.ndarray:
        from luncosim_core.sim.host import live_pose

        return np.asarray(live_pose(self.sim, path)[0], dtype=float)

    def solar_pose(self, path: str) -> tuple[np.ndarray, np.ndarray | None] | None:
        """(solar-frame position, local up or None) of any prim with a placement above it."""
        prim = self.stage.GetPrimAtPath(path)
        anchor = self.anchors.get(path) or (anchor_of(prim) if prim else None)
        if anchor is None:
            return None
        if not isinstance(anchor.placement, Geodetic):
            return place(anchor.placement, self.jd)
        origin, enu = site_axes(anchor.placement, self.jd)
        offset = self._to_enu(self._live(path) - self._live(anchor.path)) if path != anchor.path else np.zeros(3)
        return origin + enu @ offset, enu[:, 2]

    def occluders(self) -> tuple[Occluder, ...]:
        out = []
        for prim in self.occluder_prims:
            anchor = anchor_of(prim)
            if anchor is None or not isinstance(anchor.placement, Geodetic):
                continue  # an occluder with no site frame cannot be placed among the nodes
            out.append(self._occluder(prim, anchor))
        return tuple(out)

    def _occluder(self, prim: Usd.Prim, anchor: _Anchor) -> Occluder:
        lo, hi = _local_extent(prim)
        m = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
        a = UsdGeom.Xformable(self.stage.GetPrimAtPath(anchor.path)).ComputeLocalToWorldTransform(
            Usd.TimeCode.Default()) if anchor.path != "/" else None
        mpu = UsdGeom.GetStageMetersPerUnit(self.stage)
        m3 = np.array([[m[r][c] for c in range(3)] for r in range(3)]).T * mpu  # columns: local axes in world
        centre_local = (lo + hi) / 2.0
        centre_world = m3 @ centre_local + np.array([m[3][0], m[3][1], m[3][2]]) * mpu
        if a is not None:
            centre_world = centre_world - np.array([a[3][0], a[3][1], a[3][2]]) * mpu
        scales = np.linalg.norm(m3, axis=0)
        rot_world = m3 / np.where(scales > 0, scales, 1.0)
        origin, enu = site_axes(anchor.placement, self.jd)
        to_enu = np.column_stack([self._to_enu(rot_world[:, i]) for i in range(3)])
        return Occluder(str(prim.GetPath()), origin + enu @ self._to_enu(centre_world), enu @ to_enu,
                        (hi - lo) / 2.0 * scales)

    # -- answers --------------------------------------------------------------------------------
    def wifi_graph(self) -> dict:
        """The Wi-Fi graph: ``{nodes: [#{id, path, name, max_range_m}], adj, edges}``."""
        g = self._kernel_graph()
        edges = wifi_edges(g, self.wifi)
        radios = {p: r for p, r in self.wifi.items() if p in g.positions}
        adj: dict[str, list[str]] = {p: [] for p in radios}
        for e in edges:
            adj[e.a].append(e.b)
            adj[e.b].append(e.a)
        return {"nodes": [{"id": p, "path": p, "name": p.rsplit("/", 1)[-1], "max_range_m": r}
                          for p, r in radios.items()],
                "adj": adj,
                "edges": [{"a": e.a, "b": e.b, "range_m": e.range_m, "light_time_s": e.light_time_s} for e in edges]}

    def _kernel_graph(self):
        positions = {}
        for n in self.nodes:
            if isinstance(n.placement, Geodetic):
                try:
                    positions[n.path] = self.solar_pose(n.path)
                except LinkError as exc:
                    self.unplaced[n.path] = str(exc)
        self.surface_up = {p: v[1] for p, v in positions.items()}
        g = link_graph([n for n in self.nodes if n.path not in self.unplaced], self.jd, self.occluders(), positions)
        self.unplaced.update(g.unplaced)
        return g

    def graph(self) -> dict:
        g = self._kernel_graph()
        adj: dict[str, list[str]] = {n.path: [] for n in g.nodes}
        for e in g.edges:
            adj[e.a].append(e.b)
            adj[e.b].append(e.a)
        groups: dict[str, list[str]] = {}
        owners: dict[str, list[str]] = {}
        for n in g.nodes:
            if n.cls:
                groups.setdefault(n.cls, []).append(n.path)
            up = n.path.rsplit("/", 1)[0]
            while up:
                owners.setdefault(up, []).append(n.path)
                up = up.rsplit("/", 1)[0]
        return {
            "jd": self.jd,
            "nodes": [{"id": n.path, "path": n.path, "name": n.path.rsplit("/", 1)[-1], "class": n.cls,
                       "pos": [float(x) for x in g.positions[n.path]]} for n in g.nodes],
            "adj": adj,
            "edges": [{"a": e.a, "b": e.b, "range_m": e.range_m, "light_time_s": e.light_time_s} for e in g.edges],
            "groups": groups,
            "owners": owners,
            "severed": [{"a": a, "b": b, "why": why} for (a, b), why in g.severed.items()],
            "unplaced": [{"path": p, "why": why} for p, why in sorted(self.unplaced.items())],
        }


def _local_extent(prim: Usd.Prim) -> tuple[np.ndarray, np.ndarray]:
    """The prim's own-space box: its authored ``extent``, a Cube's ``size``, else a unit cube."""
    ext = _attr(prim, "extent")
    if ext is not None and len(ext) == 2:
        return np.array(ext[0], dtype=float), np.array(ext[1], dtype=float)
    if prim.IsA(UsdGeom.Cube):
        h = _num(prim, "size", 2.0) / 2.0
        return np.full(3, -h), np.full(3, h)
    return np.full(3, -0.5), np.full(3, 0.5)


def answer_links(sim) -> dict:
    return LinkScene(sim).graph()


def answer_wifi_links(sim) -> dict:
    return LinkScene(sim).wifi_graph()


def answer_solar_pose(sim, entity: str) -> dict:
    scene = LinkScene(sim)
    try:
        pose = scene.solar_pose(entity)
    except LinkError as exc:
        return {"found": False, "why": str(exc)}
    if pose is None:
        return {"found": False, "why": f"{entity} has no placement (no lunco:anchor/orbit/libration above it)"}
    return {"found": True, "pos": [float(x) for x in pose[0]], "jd": scene.jd}


def answer_body_position(sim, body: int) -> dict:
    jd = scenario_epoch_jd(sim.stage) + float(sim.time) / 86400.0
    try:
        pos = body_position(int(body), jd)
    except LinkError as exc:
        return {"found": False, "body": int(body), "why": str(exc)}
    return {"found": True, "body": int(body), "pos": [float(x) for x in pos], "radius": RADII.get(int(body), 0.0),
            "jd": jd}


# -- link ports ---------------------------------------------------------------------------------

#: Seconds of simulated time between recomputes of the graph the ports read (LunCoSim's cadence).
LINK_PORT_INTERVAL_S = 0.25
_PORT_SUFFIXES = (("range_m", "m", "range to the best peer of this class (connected beats nearer)"),
                  ("connected", "", "1 while the best peer of this class is linked, else 0"),
                  ("elevation_deg", "deg", "elevation of that peer above this node's horizon"))


def _port_token(cls: str) -> str:
    """A class as a port-name token: anything outside [a-z0-9] folds to ``_``."""
    return "".join(ch.lower() if ch.isascii() and ch.isalnum() else "_" for ch in cls)


class LinkPorts:
    """Every link node publishes, per class of its peers, ``link_<class>_range_m``,
    ``link_<class>_connected`` and (surface nodes) ``link_<class>_elevation_deg`` of its best peer
    of that class: a connected one before a nearer one, then the nearest. Recomputed every
    ``LINK_PORT_INTERVAL_S`` of simulated time; pending (NaN) until the first graph."""

    kind = "environment"
    phase = "script"

    def __init__(self, sim, scene: LinkScene) -> None:
        self.sim = sim
        self.prim_path = scene.nodes[0].path
        self.ports: list[tuple[str, str, str, str]] = []  # (node, port name, peer class token, suffix)
        self._diags: list = []
        self._reported: set[str] = set()
        tokens = sorted({_port_token(n.cls) for n in scene.nodes if n.cls})
        for n in scene.nodes:
            others = sorted({_port_token(o.cls) for o in scene.nodes if o.cls and o.path != n.path})
            for tok in (t for t in tokens if t in others):
                for suffix, _unit, _doc in _PORT_SUFFIXES:
                    if suffix == "elevation_deg" and not isinstance(n.placement, Geodetic):
                        continue
                    self.ports.append((n.path, f"link_{tok}_{suffix}", tok, suffix))
        self.values = [math.nan] * len(self.ports)
        self.scene = scene
        self._key: float | None = None
        self._up: set[tuple[str, str]] = set()

    def port_infos(self) -> list:
        from luncosim_core.ports.model import PortInfo

        self._compute(self.sim)
        docs = {s: (u, d) for s, u, d in _PORT_SUFFIXES}
        return [(PortInfo(node, name, "out", "double", docs[suffix][0], None, None, "links", "links", False, False,
                          docs[suffix][1]), self.values[i])
                for i, (node, name, _tok, suffix) in enumerate(self.ports)]

    def wait_reason(self, sim) -> str:
        return ""

    def step(self, sim) -> None:
        from luncosim_core.ports.model import port_key

        self._compute(sim)
        reg = sim.registry
        for (node, name, _tok, _suffix), value in zip(self.ports, self.values, strict=True):
            i = reg.index.get(port_key(node, name))
            if i is not None:
                reg.values[i] = value

    def _compute(self, sim) -> None:
        key = math.floor(float(sim.time) / LINK_PORT_INTERVAL_S) * LINK_PORT_INTERVAL_S
        if key == self._key:
            return
        self._key = key
        try:
            scene = self.scene.at_now()
            graph = scene.graph()
            best = _best_per_class(scene, graph)
        except LinkError as exc:
            self._diags.append(_diag(self.prim_path, f"link ports are pending: {exc}"))
            self.values = [math.nan] * len(self.ports)
            return
        self._announce(sim, {(e["a"], e["b"]) for e in graph["edges"]})
        for path, why in scene.unplaced.items():
            if path not in self._reported:
                self._reported.add(path)
                self._diags.append(_diag(path, f"link node {path} is not placed, its link ports stay pending: {why}"))
        for i, (node, _name, tok, suffix) in enumerate(self.ports):
            peer = best.get((node, tok))
            self.values[i] = math.nan if peer is None else peer[suffix]

    def _announce(self, sim, up: set[tuple[str, str]]) -> None:
        """``link.aos`` / ``link.los`` to every scenario for each edge that came up / went down since
        the last recompute (value ``"<id>-<id>"``, lower id first; from the lower-id node)."""
        gained, lost = up - self._up, self._up - up
        self._up = up
        if not gained and not lost:
            return
        runtimes = {id(rt): rt for rt in (getattr(p, "runtime", None) for p in sim.participants)
                    if rt is not None and hasattr(rt, "inject")}
        for rt in runtimes.values():
            for name, pairs in (("link.aos", gained), ("link.los", lost)):
                for lo, hi in sorted(tuple(sorted(((rt.id_of(a), a), (rt.id_of(b), b)))) for a, b in pairs):
                    rt.inject(name, f"{lo[0]}-{hi[0]}", lo[1])

    def reset(self, sim) -> None:
        self._key = None
        self._up = set()

    def state_bytes(self) -> bytes:
        import struct

        up = "\n".join(sorted(f"{a}|{b}" for a, b in self._up)).encode()
        return struct.pack(f"<{len(self.values)}d", *self.values) + up

    def take_diagnostics(self) -> list:
        out, self._diags = self._diags, []
        return out

    def close(self) -> None:
        pass


def _diag(path: str, message: str):
    from luncosim_core.diagnostics import Diagnostic

    return Diagnostic("warning", "link-pending", message, path=path, source="links")


def _best_per_class(scene: LinkScene, g: dict | None = None) -> dict[tuple[str, str], dict]:
    """(node, peer class token) -> {range_m, connected, elevation_deg} of the best peer."""
    g = scene.graph() if g is None else g
    pos = {n["path"]: np.asarray(n["pos"]) for n in g["nodes"]}
    up = scene.surface_up
    linked = {(e["a"], e["b"]) for e in g["edges"]} | {(e["b"], e["a"]) for e in g["edges"]}
    cls = {n.path: _port_token(n.cls) for n in scene.nodes if n.cls}
    best: dict[tuple[str, str], dict] = {}
    placed = [n for n in scene.nodes if n.path in pos]
    for a in placed:
        for b in placed:
            if a.path == b.path or b.path not in cls or a.path.startswith(b.path + "/") or \
                    b.path.startswith(a.path + "/"):
                continue
            d = pos[b.path] - pos[a.path]
            rng = float(np.linalg.norm(d))
            u = up.get(a.path)
            elev = math.degrees(math.asin(max(-1.0, min(1.0, float(u @ d) / rng)))) if u is not None and rng > 0 \
                else math.nan
            cand = {"range_m": rng, "connected": 1.0 if (a.path, b.path) in linked else 0.0, "elevation_deg": elev}
            cur = best.get((a.path, cls[b.path]))
            if cur is None or (cand["connected"], -rng) > (cur["connected"], -cur["range_m"]):
                best[(a.path, cls[b.path])] = cand
    return best


def link_port_participants(sim) -> list[LinkPorts]:
    """One participant publishing the link ports of every node, when the scene has two nodes."""
    scene = LinkScene(sim)
    return [LinkPorts(sim, scene)] if len(scene.nodes) >= 2 else []
