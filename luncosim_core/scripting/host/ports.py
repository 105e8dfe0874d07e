"""Host functions over ports: ``get`` and ``set`` (a ``SetPorts`` traced to the scenario)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from luncosim_core.api.commands import SetPorts
from luncosim_core.scripting.rhai import Unit
from luncosim_core.scripting.values import from_script

if TYPE_CHECKING:
    from luncosim_core.api.host import Host
    from luncosim_core.scripting.host.guard import Guard
    from luncosim_core.scripting.runtime import ScenarioRuntime

#: Other spellings scenarios use for the runtime's port names.
PORT_ALIASES = {
    "position": "displacement",  # prismatic joints
    "quat_w": "orientation_w", "quat_x": "orientation_x", "quat_y": "orientation_y",
    "quat_z": "orientation_z",
    "linvel_x": "velocity_x", "linvel_y": "velocity_y", "linvel_z": "velocity_z",
}


def resolve_port(host: Host, path: str, name: str) -> str | None:
    """The published port ``name`` (or its alias) names on ``path``; None when neither exists."""
    if host.has_port(path, name):
        return name
    alias = PORT_ALIASES.get(name)
    if alias and host.has_port(path, alias):
        return alias
    return None


def drive_mix_field(host: Host, path: str, name: str) -> Any:
    """``DriveMix.kernel`` / ``.ports`` / ``.entries`` of a vessel: its drive allocation as the
    runtime built it (entries as maps ``#{port, forward, steer, brake}``); ``()`` without one."""
    reader = getattr(host, "drive_mix", None)
    mix = reader(path) if reader is not None else None
    if mix is None:
        return Unit
    field = name.split(".", 1)[1]
    if field == "kernel":
        return mix.name
    if field == "ports":
        return list(mix.ports)
    if field == "entries":
        return [{"port": e.port, "forward": e.throttle, "steer": e.steer, "brake": e.brake} for e in mix.entries]
    return Unit


#: reflected wheel state: ``WheelRaycast.<field>`` / ``SteeringActuator.<field>`` -> attribute
WHEEL_FIELDS = {"spin_velocity": "omega", "last_normal_force": "normal_force", "wheel_radius": "radius",
                "output_angle": "steer_angle"}


def wheel_field(host: Host, path: str, name: str) -> Any:
    """A raycast wheel's live state (spin velocity rad/s, normal force N, radius m, steer angle
    rad); ``()`` for a prim that is not a wheel."""
    reader = getattr(host, "wheel", None)
    wheel = reader(path) if reader is not None else None
    attr = WHEEL_FIELDS.get(name.split(".", 1)[1])
    if wheel is None or attr is None:
        return Unit
    return float(getattr(wheel, attr))


def functions(rt: ScenarioRuntime, guard: Guard) -> dict[str, Callable]:
    host = rt.host

    def get(ident: Any, name: str) -> Any:
        guard.no_planning("get")
        p = rt.path_of(ident)
        if p is None or not isinstance(name, str):
            return Unit
        guard.check_read(p, f"get({name!r})")
        if name.startswith("DriveMix."):
            return drive_mix_field(host, p, name)
        if name.startswith(("WheelRaycast.", "SteeringActuator.")):
            return wheel_field(host, p, name)
        port = resolve_port(host, p, name)
        if port is None:
            guard.warn_once(("get", p, name), "scenario-port-unknown",
                            f"get: {p} has no port '{name}' (ports: {', '.join(host.port_names(p)) or 'none'})", p)
            return Unit
        v = host.read_port(p, port)
        return Unit if v is None else v

    def set_(ident: Any, name: str, value: Any) -> bool:
        guard.no_planning("set")
        p = rt.path_of(ident)
        if p is None or not isinstance(name, str):
            return False
        guard.check_write(p, f"set({name!r})")
        port = resolve_port(host, p, name) or name
        if isinstance(value, bool):
            value = 1.0 if value else 0.0
        res = host.execute(SetPorts(target=p, writes={port: from_script(value)}, correlation_id=guard.correlation_id()))
        if not res.ok:
            guard.warn_once(("set", p, name), "scenario-set-refused",
                            f"set({p}, {name!r}) refused: " + "; ".join(d.message for d in res.diagnostics), p)
        return bool(res.ok)

    return {"get": get, "set": set_}
