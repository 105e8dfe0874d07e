"""Queries answered between ticks: ports, prims, connections, traces."""

from __future__ import annotations

from pxr import Usd, UsdGeom

from luncosim_core.api.commands import (
    BodyPosition,
    CausalTrace,
    CommandResult,
    EvalRhai,
    GetBrokenConnections,
    Links,
    LintReport,
    ListConnections,
    ListPorts,
    PhysicsDebugInfo,
    Query,
    QueryUsdPrim,
    ReadPorts,
    RuntimeWaypointStatus,
    SolarPose,
    StateHash,
    WifiLinks,
)
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import port_key
from luncosim_core.usd.schemas import applied_schemas


def answer_query(sim, q: Query) -> CommandResult:
    """Answer one query from the simulation's current state."""
    try:
        return _answer(sim, q)
    except KeyError as exc:
        return CommandResult.error(Diagnostic("error", "query-not-found", str(exc).strip("'\""), source="runtime"))


def _answer(sim, q: Query) -> CommandResult:
    reg = sim.registry
    if isinstance(q, ReadPorts):
        return _read_ports(sim, q)
    if isinstance(q, ListPorts):
        infos = reg.infos if q.target is None else reg.ports_of(q.target)
        return CommandResult(True, [i.to_json() for i in infos])
    if isinstance(q, QueryUsdPrim):
        return _query_prim(sim, q)
    if isinstance(q, RuntimeWaypointStatus):
        from luncosim_core.sim.waypoints import waypoint_status

        return waypoint_status(sim, q)
    if isinstance(q, ListConnections):
        wires = sim.fabric.valid + sim.fabric.broken
        if q.target:
            wires = [w for w in wires if q.target in (w.sink_prim, w.source_prim)]
        return CommandResult(True, [w.to_json() for w in sorted(wires, key=lambda w: (w.sink_key, w.source_key))])
    if isinstance(q, GetBrokenConnections):
        return CommandResult(True, [w.to_json() for w in sim.fabric.broken])
    if isinstance(q, CausalTrace):
        return CommandResult(True, sim.trace.explain(q.target, q.correlation_id, sim))
    if isinstance(q, PhysicsDebugInfo):
        return CommandResult(True, sim.world.debug_info() if sim.world is not None else None)
    if isinstance(q, StateHash):
        return CommandResult(True, {"tick": sim.tick_count, "hash": sim.state_hash()})
    if isinstance(q, (Links, WifiLinks, SolarPose, BodyPosition)):
        return _link_query(sim, q)
    if isinstance(q, EvalRhai):
        from luncosim_core.sim.rhai_console import answer_eval_rhai

        return answer_eval_rhai(sim, q)
    if isinstance(q, LintReport):
        from luncosim_core.lint import lint_report, run_lint

        return CommandResult(True, lint_report(run_lint(sim.stage, roots=sim.roots, host=sim.host)))
    return CommandResult.error(Diagnostic("error", "query-unknown", f"unknown query {q!r}", source="runtime"))


def _read_ports(sim, q: ReadPorts) -> CommandResult:
    reg = sim.registry
    ports = reg.ports_of(q.target)
    if not ports and not sim.stage.GetPrimAtPath(q.target):
        return CommandResult.error(Diagnostic("error", "query-not-found", f"no prim at {q.target}", path=q.target, source="runtime"))
    names = q.names or tuple(p.name for p in ports)
    out = {}
    for name in names:
        info = reg.info(port_key(q.target, name))
        if info is None:
            return CommandResult.error(Diagnostic("error", "port-unknown", f"{q.target} has no port '{name}'", path=q.target, source="runtime"))
        out[name] = {"value": sim.read(q.target, name), **info.to_json()}
    return CommandResult(True, out)


def _link_query(sim, q: Links | WifiLinks | SolarPose | BodyPosition) -> CommandResult:
    from luncosim_core.environment.links import EphemerisError, LinkError
    from luncosim_core.sim.link_query import (
        answer_body_position,
        answer_links,
        answer_solar_pose,
        answer_wifi_links,
    )

    try:
        if isinstance(q, Links):
            return CommandResult(True, answer_links(sim))
        if isinstance(q, WifiLinks):
            return CommandResult(True, answer_wifi_links(sim))
        if isinstance(q, SolarPose):
            if not sim.stage.GetPrimAtPath(q.entity):
                return CommandResult.error(Diagnostic("error", "query-not-found", f"no prim at {q.entity}",
                                                      path=q.entity, source="runtime"))
            return CommandResult(True, answer_solar_pose(sim, q.entity))
        return CommandResult(True, answer_body_position(sim, q.body))
    except (LinkError, EphemerisError) as exc:
        return CommandResult.error(Diagnostic("error", "link-placement", str(exc), source="runtime"))


def _query_prim(sim, q: QueryUsdPrim) -> CommandResult:
    prim = sim.stage.GetPrimAtPath(q.path) if q.path else None
    if not prim:
        return CommandResult.error(Diagnostic("error", "query-not-found", f"no prim at {q.path}", path=q.path, source="runtime"))
    attrs = {}
    for attr in prim.GetAttributes():
        if q.attrs and attr.GetName() not in q.attrs:
            continue
        value = attr.Get()
        attrs[attr.GetName()] = _plain(value)
    pose = world_pose(sim, q.path)
    return CommandResult(True, {
        "path": q.path, "type": prim.GetTypeName(), "schemas": applied_schemas(prim),
        "attributes": attrs, "position": pose[0], "orientation": pose[1],
        "children": [c.GetName() for c in prim.GetChildren()],
    })


def world_pose(sim, path: str) -> tuple[list[float], list[float]]:
    """A body's simulated pose, or a prim's composed world transform (metres, w-x-y-z)."""
    world = sim.world
    pose = world.pose_of(path) if world is not None else None
    if pose is not None:
        return pose
    prim = sim.stage.GetPrimAtPath(path)
    while prim and not prim.IsPseudoRoot() and not UsdGeom.Xformable(prim):
        prim = prim.GetParent()  # a joint, material or scope sits where its transformable parent is
    xf = UsdGeom.Xformable(prim) if prim and not prim.IsPseudoRoot() else None
    if not xf:
        return [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
    m = xf.ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    mpu = UsdGeom.GetStageMetersPerUnit(sim.stage)
    t = m.ExtractTranslation()
    q = m.RemoveScaleShear().ExtractRotationQuat()
    im = q.GetImaginary()
    return [t[0] * mpu, t[1] * mpu, t[2] * mpu], [q.GetReal(), im[0], im[1], im[2]]


def _plain(value):
    """USD values to JSON-friendly Python."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "path") and hasattr(value, "resolvedPath"):
        return value.path
    try:
        seq = list(value)
    except TypeError:
        return str(value)
    return [_plain(v) for v in seq]
