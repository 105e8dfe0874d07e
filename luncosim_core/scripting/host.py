"""The host API scenarios call: entities, ports, poses, time, events, commands and queries.

Every function acts for the scenario running right now (``runtime.current``). Ids are entity
ids from ``find``; a bad id or a missing value gives ``()`` (or -1 / false where the shape says
so), never a crash. When the scenario declared a dependency plan, a port, pose or query access
it did not declare is a runtime error at the call, naming what was not declared.

Port names are those the runtime publishes (bodies: ``position_x`` .. ``angvel_z``, ``contact``,
``contact_count``, ``contact_force``, ``mass``, ``force_*``, ``torque_*``; revolute joints:
``angle``, ``velocity``, ``target_velocity``, ``torque``; prismatic: ``displacement``,
``velocity``, ``target_velocity``, ``force``; declared ``inputs:``/``outputs:``; program ports).
A few aliases used by existing scenarios map onto them (see ``PORT_ALIASES``)."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import TYPE_CHECKING, Any

from luncosim_core.api.commands import CausalTrace, CommandResult, from_name
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import port_key
from luncosim_core.scripting.rhai import Engine, RhaiRuntimeError, Unit
from luncosim_core.scripting.values import from_script, to_json_text, to_script
from luncosim_core.scripting.vecmath import register_vector_helpers, rotate

if TYPE_CHECKING:
    from luncosim_core.scripting.runtime import ScenarioRuntime

#: Other spellings scenarios use for the runtime's port names.
PORT_ALIASES = {
    "position": "displacement",  # prismatic joints
    "quat_w": "orientation_w", "quat_x": "orientation_x", "quat_y": "orientation_y",
    "quat_z": "orientation_z",
    "linvel_x": "velocity_x", "linvel_y": "velocity_y", "linvel_z": "velocity_z",
}

#: Commands a scenario may issue with ``cmd`` (beyond the typed port commands).
SCRIPT_COMMANDS = ("SetPorts", "ReleasePorts", "RunLint", "ShowNotification", "SetEnvironmentLight")
#: Queries a scenario may issue with ``query``.
SCRIPT_QUERIES = ("ReadPorts", "ListPorts", "QueryUsdPrim", "ListConnections", "GetBrokenConnections",
                  "CausalTrace", "LintReport")
#: Queries that name one target entity; the others are broad and need ``query_reads``.
TARGETED_QUERIES = {"ReadPorts": "target", "ListPorts": "target", "QueryUsdPrim": "path",
                    "CausalTrace": "target", "ListConnections": "target"}


def bind_host_api(engine: Engine, rt: ScenarioRuntime) -> None:
    """Register the host functions on ``engine``, acting through ``rt``."""
    sim = rt.sim
    register_vector_helpers(engine)

    def fail(msg: str) -> None:
        raise RhaiRuntimeError(msg)

    def no_planning(what: str) -> None:
        if rt.planning:
            fail(f"{what} is not allowed in simulation_dependencies (planning may only resolve ids)")

    def check_read(path: str, what: str) -> None:
        cur = rt.current
        if cur is not None and cur.plan is not None and not cur.plan.may_read(path):
            fail(f"{what}: {path} is not in this scenario's dependency plan "
                 "(add its id to entity_reads in simulation_dependencies)")

    def check_write(path: str, what: str) -> None:
        cur = rt.current
        if cur is not None and cur.plan is not None and not cur.plan.may_write(path):
            fail(f"{what}: {path} is not in this scenario's dependency plan "
                 "(add its id to entity_writes in simulation_dependencies)")

    def resolve_port(path: str, name: str) -> str | None:
        reg = sim.registry
        if port_key(path, name) in reg.index:
            return name
        alias = PORT_ALIASES.get(name)
        if alias and port_key(path, alias) in reg.index:
            return alias
        return None

    # -- entities --------------------------------------------------------------------
    def find(name: str) -> int:
        if not isinstance(name, str):
            return -1
        if name.startswith("/"):
            return rt.id_of(name)
        for i, p in enumerate(rt.paths):
            if p.rsplit("/", 1)[-1] == name:
                return i + 1
        return -1

    def name_of(ident: Any) -> Any:
        p = rt.path_of(ident)
        return Unit if p is None else p.rsplit("/", 1)[-1]

    def parent(ident: Any) -> Any:
        p = rt.path_of(ident)
        if p is None:
            return Unit
        up = p.rsplit("/", 1)[0]
        return rt.id_of(up) if up in rt.ids else Unit

    def children(ident: Any) -> list:
        p = rt.path_of(ident)
        if p is None:
            return []
        prim = sim.stage.GetPrimAtPath(p)
        return [rt.id_of(str(c.GetPath())) for c in prim.GetChildren() if str(c.GetPath()) in rt.ids]

    def list_entities() -> list:
        out = []
        for i, p in enumerate(rt.paths):
            prim = sim.stage.GetPrimAtPath(p)
            out.append({"id": i + 1, "name": p.rsplit("/", 1)[-1], "path": p, "type": prim.GetTypeName()})
        return out

    def path_fn(ident: Any) -> Any:
        p = rt.path_of(ident)
        return Unit if p is None else p

    # -- ports -----------------------------------------------------------------------
    def get(ident: Any, name: str) -> Any:
        no_planning("get")
        p = rt.path_of(ident)
        if p is None or not isinstance(name, str):
            return Unit
        check_read(p, f"get({name!r})")
        port = resolve_port(p, name)
        if port is None:
            rt.warn_once(("get", p, name), Diagnostic(
                "warning", "scenario-port-unknown", f"get: {p} has no port '{name}' "
                f"(ports: {', '.join(i.name for i in sim.registry.ports_of(p)) or 'none'})",
                path=p, source="scenario"))
            return Unit
        v = sim.registry.value(port_key(p, port))
        return Unit if v is None else v

    def set_(ident: Any, name: str, value: Any) -> bool:
        no_planning("set")
        p = rt.path_of(ident)
        if p is None or not isinstance(name, str):
            return False
        check_write(p, f"set({name!r})")
        port = resolve_port(p, name) or name
        if isinstance(value, bool):
            value = 1.0 if value else 0.0
        res = _execute(from_name("SetPorts", {"target": p, "writes": {port: from_script(value)},
                                              "correlation_id": _cid()}))
        if not res.ok:
            rt.warn_once(("set", p, name), Diagnostic(
                "warning", "scenario-set-refused",
                f"set({p}, {name!r}) refused: " + "; ".join(d.message for d in res.diagnostics),
                path=p, source="scenario"))
        return bool(res.ok)

    def param(ident: Any, key: str, default: Any = None) -> Any:
        p = rt.path_of(ident)
        v = None
        if p is not None and isinstance(key, str):
            v = read_param(sim.stage.GetPrimAtPath(p), key)
        if v is None:
            return Unit if default is None else default
        return v

    # -- poses -----------------------------------------------------------------------
    def pose(ident: Any, what: str):
        p = rt.path_of(ident)
        if p is None:
            return None
        check_read(p, what)
        prim = sim.stage.GetPrimAtPath(p)
        if not prim:
            return None
        pos, q = live_pose(sim, p)
        if not all(math.isfinite(x) for x in pos + q):
            return None
        return pos, (q[1], q[2], q[3], q[0])

    def world_pos(ident: Any) -> Any:
        r = pose(ident, "world_pos")
        return Unit if r is None else [float(x) for x in r[0]]

    def world_rotation(ident: Any) -> Any:
        r = pose(ident, "world_rotation")
        return Unit if r is None else [float(x) for x in r[1]]

    def world_forward(ident: Any) -> Any:
        r = pose(ident, "world_forward")
        return Unit if r is None else rotate(r[1], (0.0, 0.0, -1.0))

    # -- time ------------------------------------------------------------------------
    def dt() -> float:
        return float(sim.dt)

    def sim_tick() -> int:
        return int(sim.tick_count)

    def elapsed_seconds() -> float:
        return float(sim.time)

    # -- events ----------------------------------------------------------------------
    def emit(name: str, value: Any = True) -> bool:
        no_planning("emit")
        if not isinstance(name, str):
            fail(f"emit: the event name must be a string, got {type(name).__name__}")
        rt.emit(name, value)
        return True

    def subscribe(name: str) -> None:
        if rt.current is not None:
            rt.current.subscriptions.add(str(name))

    def subscribe_prefix(prefix: str) -> None:
        if rt.current is not None:
            rt.current.subscription_prefixes.add(str(prefix))

    # -- commands and queries ------------------------------------------------------------
    def _cid() -> str:
        cur = rt.current
        return f"scenario:{cur.prim_path}" if cur is not None else "scenario"

    def _execute(command) -> CommandResult:
        return sim.execute(command, 0)

    def _target(params: dict, key: str) -> dict:
        """Entity ids accepted wherever a command/query names a prim path."""
        out = dict(params)
        for k in ("api_id", "entity_id", "id"):
            if k in out and key not in out:
                out[key] = out.pop(k)
        if key in out and not isinstance(out[key], str):
            p = rt.path_of(out[key])
            if p is None:
                raise KeyError(f"{key}: id {out[key]!r} names no prim")
            out[key] = p
        if "port_names" in out and "names" not in out:
            out["names"] = out.pop("port_names")
        return out

    def cmd(name: str, params: Any = None) -> dict:
        no_planning("cmd")
        cur = rt.current
        params = from_script(params) if isinstance(params, dict) else {}
        rid = sim.sequence + 1
        try:
            if name == "RunLint":
                report = run_lint_report(rt)
                return {"id": rid, "ok": True, "data": to_script(report_summary(report))}
            if name == "ShowNotification":
                rt.notifications.append((sim.tick_count, str(params.get("kind", "info")), str(params.get("text", ""))))
                return {"id": rid, "ok": True}
            if name not in SCRIPT_COMMANDS:
                raise KeyError(f"unknown command '{name}' (scenarios may issue: {', '.join(SCRIPT_COMMANDS)})")
            params = _target(params, "target")
            if "target" in params:
                check_write(params["target"], f"cmd({name!r})")
            command = from_name(name, params)
            if hasattr(command, "correlation_id") and command.correlation_id is None:
                command = dataclasses.replace(command, correlation_id=_cid())
            res = _execute(command)
        except (KeyError, TypeError, ValueError) as exc:
            msg = str(exc).strip("'\"")
            rt.warn_once(("cmd", cur.prim_path if cur else "", name), Diagnostic(
                "warning", "scenario-command-failed", f"cmd({name!r}): {msg}",
                path=cur.prim_path if cur else None, source="scenario"))
            return {"id": rid, "ok": False, "error": msg}
        out: dict = {"id": rid, "ok": bool(res.ok)}
        if res.ok and res.value is not None:
            out["data"] = to_script(res.value)
        if not res.ok:
            out["error"] = "; ".join(d.message for d in res.diagnostics)
        return out

    def query(name: str, params: Any = None) -> Any:
        no_planning("query")
        cur = rt.current
        params = from_script(params) if isinstance(params, dict) else {}
        try:
            if name not in SCRIPT_QUERIES:
                raise KeyError(f"unknown query '{name}' (scenarios may ask: {', '.join(SCRIPT_QUERIES)})")
            key = TARGETED_QUERIES.get(name)
            if key is not None:
                params = _target(params, key)
            if cur is not None and cur.plan is not None:
                if key is not None and params.get(key):
                    check_read(params[key], f"query({name!r})")
                elif name not in cur.plan.queries:
                    fail(f"query({name!r}) is a broad query not in this scenario's dependency plan "
                         "(add it to query_reads in simulation_dependencies)")
            if name == "LintReport":
                report = rt.lint_report if rt.lint_report is not None else run_lint_report(rt)
                return to_script(report)
            q = from_name(name, params)
            if isinstance(q, CausalTrace) and not q.target:
                raise KeyError("CausalTrace needs a target")
            res = sim.query(q)
        except (KeyError, TypeError, ValueError) as exc:
            msg = str(exc).strip("'\"")
            rt.warn_once(("query", cur.prim_path if cur else "", name), Diagnostic(
                "warning", "scenario-query-failed", f"query({name!r}): {msg}",
                path=cur.prim_path if cur else None, source="scenario"))
            return Unit
        return to_script(res.value) if res.ok else Unit

    # -- determinism-safe randomness ---------------------------------------------------
    def rand() -> float:
        cur = rt.current
        key = f"{cur.prim_path if cur else ''}|{sim.tick_count}|{cur.rand_calls if cur else 0}"
        if cur is not None:
            cur.rand_calls += 1
        h = hashlib.blake2b(key.encode(), digest_size=8).digest()
        return int.from_bytes(h, "little") / 2.0**64

    def rand_range(lo: Any, hi: Any) -> float:
        return float(lo) + (float(hi) - float(lo)) * rand()

    def rand_int(lo: int, hi: int) -> int:
        return lo if hi <= lo else lo + int(rand() * (hi - lo))

    def is_unattended() -> bool:
        return bool(rt.unattended)

    def track_entity_read(ident: Any) -> bool:
        p = rt.path_of(ident)
        cur = rt.current
        if p is None or cur is None or cur.plan is None:
            return p is not None
        cur.plan.reads.add(p)
        return True

    def track_entity_write(ident: Any) -> bool:
        p = rt.path_of(ident)
        cur = rt.current
        if p is None or cur is None or cur.plan is None:
            return p is not None
        cur.plan.writes.add(p)
        return True

    fns = {
        "find": find, "name": name_of, "parent": parent, "children": children, "path": path_fn,
        "list_entities": list_entities, "get": get, "set": set_, "param": param,
        "world_pos": world_pos, "world_rotation": world_rotation, "world_forward": world_forward,
        "dt": dt, "sim_tick": sim_tick, "elapsed_seconds": elapsed_seconds,
        "emit": emit, "subscribe": subscribe, "subscribe_prefix": subscribe_prefix,
        "cmd": cmd, "query": query, "to_json": to_json_text,
        "rand": rand, "rand_range": rand_range, "rand_int": rand_int,
        "track_entity_read": track_entity_read, "track_entity_write": track_entity_write,
        "is_unattended": is_unattended,
    }
    for n, f in fns.items():
        engine.register_fn(n, f)


def live_pose(sim, path: str) -> tuple[list[float], list[float]]:
    """World pose (metres; quaternion w, x, y, z) of a prim as simulated: a body's own pose; a
    prim inside a body rides on that body (its authored offset from the body, carried by the
    body's simulated pose); anything else is its composed transform."""
    world = sim.world
    bodies = set(world.body_paths) if world is not None else set()
    if path in bodies or not bodies:
        return sim.world_pose(path)
    host = path.rsplit("/", 1)[0]
    while host and host not in bodies:
        host = host.rsplit("/", 1)[0]
    if not host:
        return sim.world_pose(path)
    from pxr import Gf, Usd, UsdGeom

    def authored(prim_path: str):
        prim = sim.stage.GetPrimAtPath(prim_path)
        xf = UsdGeom.Xformable(prim)
        if not xf:
            return None
        m = xf.ComputeLocalToWorldTransform(Usd.TimeCode.Default())
        return m.ExtractTranslation(), m.RemoveScaleShear().ExtractRotationQuat()

    a_body, a_prim = authored(host), authored(path)
    if a_body is None or a_prim is None:
        return sim.world_pose(path)
    mpu = UsdGeom.GetStageMetersPerUnit(sim.stage)
    (tb, qb), (tc, qc) = a_body, a_prim
    offset = qb.GetInverse().Transform(Gf.Vec3d(tc - tb) * mpu)  # in the body's frame, metres
    rel = qb.GetInverse() * qc
    p_live, q_live = sim.world_pose(host)
    ql = Gf.Quatd(q_live[0], Gf.Vec3d(q_live[1], q_live[2], q_live[3]))
    d = ql.Transform(offset)
    qw = ql * rel
    im = qw.GetImaginary()
    return ([p_live[0] + d[0], p_live[1] + d[1], p_live[2] + d[2]],
            [qw.GetReal(), im[0], im[1], im[2]])


def read_param(prim, key: str) -> Any:
    """A scenario parameter authored as ``lunco:param:<key>`` (or ``lunco:params:<key>``)."""
    if not prim:
        return None
    for ns in ("lunco:param:", "lunco:params:"):
        attr = prim.GetAttribute(ns + key)
        if attr and attr.HasAuthoredValue():
            return _param_value(attr.Get())
    return None


def _param_value(v: Any) -> Any:
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if hasattr(v, "path"):
        return v.path
    return str(v)


def run_lint_report(rt: ScenarioRuntime) -> dict:
    """Run the lint policies over the simulation's stage; keep the report for LintReport."""
    from luncosim_core.lint import lint_report, run_lint

    report = lint_report(run_lint(rt.sim.stage, roots=getattr(rt.sim, "roots", None), sim=rt.sim))
    rt.lint_report = report
    return report


def report_summary(report: dict) -> dict:
    return {k: report[k] for k in ("errors", "warnings", "infos")}
