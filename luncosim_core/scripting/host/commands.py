"""Host functions over the typed command/query vocabulary: ``cmd``, ``query`` and ``to_json``.

``cmd(name, #{...})`` issues one of ``SCRIPT_COMMANDS`` now, inside the tick, traced to the
scenario; ``query(name, #{...})`` asks one of ``SCRIPT_QUERIES``. Entity ids are accepted
wherever a command or query names a prim path. ``RunLint`` runs the lint policies over the live
scene and keeps the report that ``query("LintReport")`` returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from luncosim_core.api.commands import CausalTrace, LintReport, from_name
from luncosim_core.api.events import Notification
from luncosim_core.scripting.rhai import Unit
from luncosim_core.scripting.values import from_script, to_json_text, to_script

if TYPE_CHECKING:
    from luncosim_core.scripting.host.guard import Guard
    from luncosim_core.scripting.runtime import ScenarioRuntime

#: Commands a scenario may issue with ``cmd`` (beyond the typed port commands).
SCRIPT_COMMANDS = ("SetPorts", "ReleasePorts", "RunLint", "ShowNotification", "SetEnvironmentLight",
                   "PossessVessel", "ReleaseVessel", "SpawnEntity", "AddRuntimeWaypoint",
                   "EngageAutopilot", "SetAutopilotBehavior", "ClearPatrol", "DisengageAutopilot")
#: Commands that name their vessel ``vessel`` rather than ``target``.
VESSEL_COMMANDS = frozenset({"EngageAutopilot", "SetAutopilotBehavior", "ClearPatrol", "DisengageAutopilot"})
#: Queries a scenario may issue with ``query``.
SCRIPT_QUERIES = ("ReadPorts", "ListPorts", "QueryUsdPrim", "ListConnections", "GetBrokenConnections",
                  "CausalTrace", "LintReport", "RuntimeWaypointStatus", "Links", "WifiLinks", "SolarPose",
                  "BodyPosition")
#: Queries that name one target entity; the others are broad and need ``query_reads``.
TARGETED_QUERIES = {"ReadPorts": "target", "ListPorts": "target", "QueryUsdPrim": "path",
                    "CausalTrace": "target", "ListConnections": "target", "RuntimeWaypointStatus": "vessel",
                    "SolarPose": "entity"}


def run_lint_report(rt: ScenarioRuntime) -> dict:
    """Lint the live scene through the host; keep the report for ``LintReport``."""
    res = rt.host.query(LintReport())
    if not res.ok:
        raise ValueError("; ".join(d.message for d in res.diagnostics) or "lint could not run")
    rt.lint_report = res.value
    return res.value


def report_summary(report: dict) -> dict:
    return {k: report[k] for k in ("errors", "warnings", "infos")}


def functions(rt: ScenarioRuntime, guard: Guard) -> dict[str, Callable]:
    api = _CommandApi(rt, guard)
    return {"cmd": api.cmd, "query": api.query, "to_json": to_json_text, "controller": api.controller,
            "is_controlled": api.is_controlled}


class _CommandApi:
    """``cmd`` and ``query`` for the scenarios of one runtime."""

    def __init__(self, rt: ScenarioRuntime, guard: Guard) -> None:
        self.rt, self.guard, self.host = rt, guard, rt.host

    def with_paths(self, params: dict, key: str) -> dict:
        """Entity ids accepted wherever a command/query names a prim path."""
        out = dict(params)
        for k in ("api_id", "entity_id", "id"):
            if k in out and key not in out:
                out[key] = out.pop(k)
        if key in out and not isinstance(out[key], str):
            p = self.rt.path_of(out[key])
            if p is None:
                raise KeyError(f"{key}: id {out[key]!r} names no prim")
            out[key] = p
        if "port_names" in out and "names" not in out:
            out["names"] = out.pop("port_names")
        return out

    def failed(self, kind: str, name: str, exc: Exception) -> str:
        msg = str(exc).strip("'\"")
        where = self.guard.current_path()
        self.guard.warn_once((kind, where, name), f"scenario-{'command' if kind == 'cmd' else 'query'}-failed",
                             f"{kind}({name!r}): {msg}", where or None)
        return msg

    def notify(self, params: dict) -> None:
        now = self.host.time()
        self.host.publish(Notification(now.tick, now.time, self.guard.current_path(),
                                       str(params.get("kind", "info")), str(params.get("text", ""))))

    def cmd(self, name: str, params: Any = None) -> dict:
        self.guard.no_planning("cmd")
        params = from_script(params) if isinstance(params, dict) else {}
        rid = self.host.next_sequence()
        try:
            if name == "RunLint":
                return {"id": rid, "ok": True, "data": to_script(report_summary(run_lint_report(self.rt)))}
            if name == "ShowNotification":
                self.notify(params)
                return {"id": rid, "ok": True}
            res = self.host.execute(self.command(name, params))
        except (KeyError, TypeError, ValueError) as exc:
            return {"id": rid, "ok": False, "error": self.failed("cmd", name, exc)}
        out: dict = {"id": rid, "ok": bool(res.ok)}
        if res.ok:
            key = "vessel" if name in VESSEL_COMMANDS else "target"
            self.rt.emit(f"cmd:{name}", params.get(key, ""))  # what scenarios hear of a command
            if name == "EngageAutopilot":  # an autopilot's claim is a possession, as a pilot's is
                self.rt.emit("cmd:PossessVessel", params.get(key, ""))
        if res.ok and name in ("SpawnEntity", "AddRuntimeWaypoint"):
            self.rt.refresh_paths()  # the new prims get entity ids (appended: existing ids stay)
            res = dataclasses.replace(res, value={**res.value, "entity": self.rt.id_of(res.value["path"])})
        if res.ok and res.value is not None:
            out["data"] = to_script(res.value)
        if not res.ok:
            out["error"] = "; ".join(d.message for d in res.diagnostics)
        return out

    def command(self, name: str, params: dict):
        """The typed command a script's ``cmd(name, params)`` names, traced to the scenario."""
        if name not in SCRIPT_COMMANDS:
            raise KeyError(f"unknown command '{name}' (scenarios may issue: {', '.join(SCRIPT_COMMANDS)})")
        key = "vessel" if name in VESSEL_COMMANDS else "target"
        params = self.with_paths(params, key)
        if key in params:
            self.guard.check_write(params[key], f"cmd({name!r})")
        command = from_name(name, params)
        if command.correlation_id is None:
            command = dataclasses.replace(command, correlation_id=self.guard.correlation_id())
        return command

    def controller(self, ident: Any) -> Any:
        """Who pilots a vessel: ``"session"`` while a session possesses it, else ``()``."""
        p = self.rt.path_of(ident)
        if p is None:
            return Unit
        v = self.host.read_port(p, "piloted")
        return "session" if v is not None and v > 0.5 else Unit

    def is_controlled(self, ident: Any) -> bool:
        """True while a session (a human or an autopilot) pilots the vessel."""
        return self.controller(ident) is not Unit

    def check_plan(self, name: str, key: str | None, params: dict) -> None:
        cur = self.rt.current
        if cur is None or cur.plan is None:
            return
        if key is not None and params.get(key):
            self.guard.check_read(params[key], f"query({name!r})")
        elif name not in cur.plan.queries:
            self.guard.fail(f"query({name!r}) is a broad query not in this scenario's dependency plan "
                            "(add it to query_reads in simulation_dependencies)")

    def query(self, name: str, params: Any = None) -> Any:
        self.guard.no_planning("query")
        params = from_script(params) if isinstance(params, dict) else {}
        try:
            if name not in SCRIPT_QUERIES:
                raise KeyError(f"unknown query '{name}' (scenarios may ask: {', '.join(SCRIPT_QUERIES)})")
            key = TARGETED_QUERIES.get(name)
            if key is not None:
                params = self.with_paths(params, key)
            self.check_plan(name, key, params)
            if name == "LintReport":
                return to_script(self.rt.lint_report if self.rt.lint_report is not None else run_lint_report(self.rt))
            q = from_name(name, params)
            if isinstance(q, CausalTrace) and not q.target:
                raise KeyError("CausalTrace needs a target")
            res = self.host.query(q)
        except (KeyError, TypeError, ValueError) as exc:
            self.failed("query", name, exc)
            return Unit
        if not res.ok:
            return Unit
        return to_script(self.links_by_id(res.value) if name in ("Links", "WifiLinks") else res.value)

    def links_by_id(self, g: dict) -> dict:
        """The ``Links`` graph with every prim path spoken as the entity id ``find()`` returns
        (map keys as strings, as Rhai object keys are)."""
        gid = self.rt.id_of
        out = dict(g)
        out["nodes"] = [{**n, "id": gid(n["path"])} for n in g["nodes"]]
        out["adj"] = {str(gid(k)): [gid(p) for p in v] for k, v in g["adj"].items()}
        out["edges"] = [{**e, "a": gid(e["a"]), "b": gid(e["b"])} for e in g["edges"]]
        if "groups" in g:
            out["groups"] = {k: [gid(p) for p in v] for k, v in g["groups"].items()}
            out["owners"] = {str(gid(k)): [gid(p) for p in v] for k, v in g["owners"].items()}
            out["severed"] = [{**e, "a": gid(e["a"]), "b": gid(e["b"])} for e in g["severed"]]
            out["unplaced"] = [{**u, "id": gid(u["path"])} for u in g["unplaced"]]
        return out
