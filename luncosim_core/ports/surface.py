"""The port surface a prim offers without an authored attribute for each port.

A wire source is resolved against the *live* port surface, not only the authored attributes:

* **schema ports**: an applied API schema declares them (an environment probe's gravity and
  Sun/Earth directions, a raycast's hit, a link node's per-class link state, a rigid body's
  solved acceleration and attitude). They count as declared; the runtime resolves them against the
  backend that publishes them (a wire to one that no backend publishes yet reports itself broken).
* **physics-native ports**: a body's pose or a joint's angle
  (:func:`luncosim_core.ports.declarations.native_port_names`). They count as declared.
* **command surface**: a vessel whose ``Controls`` child binds intents to ports
  (``string lunco:port``) accepts those names as ``inputs:`` (authored value or 0.0 when
  unauthored) and reports ``outputs:piloted`` (1 while a session possesses it; nobody does
  until a pilot takes it, so 0). They count as declared.
* **implicit public outputs**: an ``output`` of a compiled model (Modelica or FMU program) that
  the prim does not redeclare. The wire resolves at runtime when the compiled model has that
  output, with the lint warning ``implicit-public-output``; ``twin.toml``
  ``[ports] strict_public_outputs = true`` refuses such wires (the documented public-output rule).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pxr import Usd

from luncosim_core.usd.programs import is_model_program  # noqa: F401 - part of the surface API
from luncosim_core.usd.schemas import applied_schemas, has_schema

PROBE_API = "LunCoEnvironmentProbeAPI"
RAYCAST_API = "LunCoRaycastAPI"
LINK_API = "LunCoLinkAPI"

PROBE_GRAVITY = ("gravity_accel", "gravity_x", "gravity_y", "gravity_z")
PROBE_SUN = ("sun_mount_x", "sun_mount_y", "sun_mount_z")
PROBE_EARTH = ("earth_mount_x", "earth_mount_y", "earth_mount_z")
PROBE_OUTPUTS = PROBE_GRAVITY + PROBE_SUN + PROBE_EARTH

RAYCAST_OUTPUTS = (
    "ray_distance", "ray_hit_valid",
    "ray_hit_position_x", "ray_hit_position_y", "ray_hit_position_z",
    "ray_hit_normal_x", "ray_hit_normal_y", "ray_hit_normal_z",
    "ray_sample_time",
)

# the rigid-body port contract beyond what every body already publishes (see native_port_names):
# solved acceleration, attitude quaternion and angles, speed, sample validity
RIGID_BODY_OUTPUTS = (
    "acceleration_x", "acceleration_y", "acceleration_z", "acceleration_valid",
    "quat_w", "quat_x", "quat_y", "quat_z", "yaw", "pitch", "roll", "speed", "state_valid",
)

SCHEMA_OUTPUTS: dict[str, tuple[str, ...]] = {
    PROBE_API: PROBE_OUTPUTS,
    RAYCAST_API: RAYCAST_OUTPUTS,
    "PhysicsRigidBodyAPI": RIGID_BODY_OUTPUTS,
}
# per-peer-class link state: link_<class>_range_m / _connected / _elevation_deg
SCHEMA_OUTPUT_PATTERNS: dict[str, re.Pattern[str]] = {
    LINK_API: re.compile(r"^link_[A-Za-z0-9]+_(range_m|connected|elevation_deg)$"),
}

# A Modelica program that is itself a rigid body: these ``inputs:`` are the body's physics sinks,
# never model inputs (the physics backend stays their single writer).
RIGID_BODY_INPUTS = frozenset(
    [f"force_{a}" for a in "xyz"] + [f"force_local_{a}" for a in "xyz"] + [f"torque_{a}" for a in "xyz"]
    + ["mass", "inertia_xx", "inertia_yy", "inertia_zz", "com_x", "com_y", "com_z"]
)

PILOTED = "piloted"
# the reason a wire is refused only because of strict_public_outputs (lint reports it once, as
# implicit-public-output, rather than also as broken-wire)
STRICT_REFUSAL = "strict_public_outputs is on"


def schema_declares(prim: Usd.Prim, name: str) -> str:
    """The API schema that declares output ``name`` on ``prim`` ("" when none does)."""
    for schema in applied_schemas(prim):
        if name in SCHEMA_OUTPUTS.get(schema, ()):
            return schema
        pattern = SCHEMA_OUTPUT_PATTERNS.get(schema)
        if pattern is not None and pattern.match(name):
            return schema
    return ""


def command_ports(prim: Usd.Prim) -> dict[str, float]:
    """The command surface of a vessel: input name -> initial value (authored, else 0.0).

    A ``Controls`` child whose children author ``string lunco:port`` binds intents to ports; the
    named ports are the vessel's pilot inputs.
    """
    controls = prim.GetChild("Controls")
    if not controls:
        return {}
    out: dict[str, float] = {}
    for binding in controls.GetChildren():
        attr = binding.GetAttribute("lunco:port")
        if not attr or not attr.HasAuthoredValue():
            continue
        port = str(attr.Get() or "")
        if not port or port in out:
            continue
        authored = prim.GetAttribute(f"inputs:{port}")
        value = authored.Get() if authored and authored.HasAuthoredValue() else None
        out[port] = float(value) if isinstance(value, (int, float)) else 0.0
    return out


def produced_port(prim: Usd.Prim, name: str) -> str:
    """The port name of a prim's produced value ``name``: ``outputs:<name>`` when the bare name is
    also one of its inputs (an authored ``inputs:<name>``, or a rigid body's physics input), else
    the bare name."""
    if prim.HasAttribute(f"inputs:{name}") or (is_rigid_body(prim) and name in RIGID_BODY_INPUTS):
        return f"outputs:{name}"
    return name


def has_command_surface(prim: Usd.Prim) -> bool:
    return bool(command_ports(prim))


def is_rigid_body(prim: Usd.Prim) -> bool:
    return has_schema(prim, "PhysicsRigidBodyAPI")


@dataclass(frozen=True)
class PortsPolicy:
    """``twin.toml`` ``[ports]``: how strictly wire sources are resolved."""

    strict_public_outputs: bool = False


@lru_cache(maxsize=64)
def _policy_at(manifest: str, mtime_ns: int) -> PortsPolicy:
    from luncosim_core.fsutil import read_text_limited

    try:  # a bad manifest is reported where the twin is opened; here it only means the defaults
        data = tomllib.loads(read_text_limited(manifest, "manifest"))
    except (OSError, ValueError, RecursionError):  # ValueError: UnreadableFile, TOMLDecodeError
        return PortsPolicy()
    ports = data.get("ports")
    strict = isinstance(ports, dict) and ports.get("strict_public_outputs") is True
    return PortsPolicy(strict_public_outputs=strict)


def ports_policy(roots) -> PortsPolicy:
    """The ports policy of the twin that owns ``roots`` (defaults without a manifest)."""
    twin_root = getattr(roots, "twin_root", None)
    if twin_root is None:
        return PortsPolicy()
    manifest = Path(twin_root) / "twin.toml"
    try:
        mtime = manifest.stat().st_mtime_ns
    except OSError:
        return PortsPolicy()
    return _policy_at(str(manifest), mtime)


def command_surface_ports(stage: Usd.Stage, authored: set[str]):
    """Ports of every vessel command surface on ``stage``.

    Returns ``(decls, backend)``: a writable ``inputs:<port>`` declaration for each bound port the
    vessel does not author itself (``authored`` holds ``/Prim.inputs:name`` attribute paths), and a
    read-only ``piloted`` port (0: no session possesses the vessel).
    """
    from luncosim_core.ports.declarations import signal_prims
    from luncosim_core.ports.model import PortDecl, PortInfo

    decls: list = []
    backend: list = []
    for prim in signal_prims(stage):
        ports = command_ports(prim)
        if not ports:
            continue
        path = str(prim.GetPath())
        for name, value in sorted(ports.items()):
            if f"{path}.inputs:{name}" not in authored:
                decls.append(PortDecl(path, "inputs", name, "double", "", None, None, value,
                                      "command surface input (bound by the vessel's Controls)"))
        if f"{path}.outputs:{PILOTED}" not in authored:
            backend.append((PortInfo(path, produced_port(prim, PILOTED), "out", "double", "", 0.0, 1.0, "session",
                                     "session", False, True, "1 while a session possesses this vessel, else 0"), 0.0))
    return decls, backend


def wire_demand(wires, implicit_only: bool = False) -> dict[str, frozenset[str]]:
    """Per source prim, the port names wires read from it (valid wires only; ``implicit_only``:
    only implicit public outputs, the ones a model program must publish)."""
    out: dict[str, set[str]] = {}
    for w in wires:
        if not w.broken and (w.implicit or not implicit_only):
            out.setdefault(w.source_prim, set()).add(w.source_port)
    return {k: frozenset(v) for k, v in out.items()}
