"""Read the authored port surface and its wires from a composed stage."""

from __future__ import annotations

import math

from pxr import Sdf, Usd

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import NAMESPACES, SCALAR_TYPES, PortDecl, Wire


def _scalar(value) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _meta(attr: Usd.Attribute) -> tuple[str, float | None, float | None, str]:
    data = attr.GetCustomData() or {}
    unit = str(data.get("unit", "") or attr.GetMetadata("unit") or "") if hasattr(attr, "GetMetadata") else str(data.get("unit", ""))
    lo = _scalar(data.get("min"))
    hi = _scalar(data.get("max"))
    return unit, lo, hi, attr.GetDocumentation() or ""


# UsdShade networks also use inputs:/outputs: with connections; they are shading, not signals
SHADING_TYPES = frozenset({"Material", "Shader", "NodeGraph"})


def signal_prims(stage: Usd.Stage):
    """Prims whose inputs:/outputs: are signal ports (everything but shading networks)."""
    it = iter(Usd.PrimRange(stage.GetPseudoRoot()))
    for prim in it:
        if prim.GetTypeName() in SHADING_TYPES:
            it.PruneChildren()
            continue
        if prim.IsPseudoRoot():
            continue
        yield prim


def read_declarations(stage: Usd.Stage) -> tuple[list[PortDecl], list[Diagnostic]]:
    """Every ``inputs:``/``outputs:``/``connectors:`` attribute on the composed stage, by path."""
    decls: list[PortDecl] = []
    diags: list[Diagnostic] = []
    for prim in signal_prims(stage):
        for attr in prim.GetAttributes():
            name = attr.GetName()
            ns, sep, bare = name.partition(":")
            if not sep or ns not in NAMESPACES or ":" in bare and ns != "connectors":
                continue
            type_name = str(attr.GetTypeName().scalarType)
            if ns != "connectors" and (type_name not in SCALAR_TYPES or attr.GetTypeName().isArray):
                # a program prim's numeric array is its model's array: one port per element
                program = prim.HasAttribute("info:sourceAsset") or prim.HasAttribute("info:sourceCode")
                if type_name not in ("token", "string") and not (program and type_name in SCALAR_TYPES):
                    diags.append(Diagnostic("info", "port-not-scalar",
                                            f"{name} is {attr.GetTypeName()}, not a scalar port type; not a causal port",
                                            path=str(attr.GetPath()), source="ports"))
                continue
            unit, lo, hi, doc = _meta(attr)
            default = _scalar(attr.Get()) if attr.HasAuthoredValue() else None
            decls.append(PortDecl(str(prim.GetPath()), ns, bare, type_name, unit, lo, hi, default, doc))
    return decls, diags


def native_port_names(prim: Usd.Prim) -> set[str]:
    """Ports the physics projection publishes on a prim without any declaration.

    The public-output rule guards model outputs; a body's pose or a joint's angle is the engine's
    own native port and may be wired as ``outputs:<name>`` (or ``inputs:<name>``) directly.
    """
    from luncosim_core.physics.ports import body_port_specs, joint_port_specs

    names: set[str] = set()
    if "PhysicsRigidBodyAPI" in prim.GetAppliedSchemas():
        names |= {spec.name for spec in body_port_specs("", False)}
    kind = {"PhysicsRevoluteJoint": "revolute", "PhysicsPrismaticJoint": "prismatic"}.get(prim.GetTypeName())
    if kind:
        names |= {spec.name for spec in joint_port_specs("", kind)}
    return names


def read_wires(stage: Usd.Stage, declared: dict[str, PortDecl]) -> list[Wire]:
    """Every ``.connect`` on a port attribute, resolved (or marked broken with a reason).

    ``declared`` maps ``/Prim.namespace:name`` (attribute path) to its declaration. A source may be
    a declared port, or a physics-native port of a body or joint (see :func:`native_port_names`).
    """
    wires: list[Wire] = []
    for prim in signal_prims(stage):
        for attr in prim.GetAttributes():
            if not attr.HasAuthoredConnections():
                continue
            name = attr.GetName()
            ns, _, bare = name.partition(":")
            if ns not in ("inputs", "outputs"):
                continue
            sink_type = str(attr.GetTypeName().scalarType)
            for src in attr.GetConnections():
                src_prim_path = str(src.GetPrimPath())
                src_attr = src.name
                s_ns, _, s_bare = src_attr.partition(":")
                broken = ""
                src_prim = stage.GetPrimAtPath(src.GetPrimPath())
                src_decl = declared.get(f"{src_prim_path}.{src_attr}")
                native = src_prim and src_decl is None and s_ns in ("inputs", "outputs") \
                    and s_bare in native_port_names(src_prim)
                if not src_prim:
                    broken = f"source prim {src_prim_path} does not exist (renamed or removed?)"
                elif native:
                    broken = ""  # the engine publishes it: connectable without a declaration
                elif not src_prim.GetAttribute(src_attr):
                    broken = f"source property {src} is not declared on {src_prim_path} (public-output rule: declare it as outputs:{s_bare or src_attr})"
                elif s_ns not in ("inputs", "outputs") or src_decl is None:
                    broken = f"source {src} is not a causal port (inputs:/outputs: scalar)"
                elif (src_decl.type == "bool") != (sink_type == "bool"):
                    broken = f"type mismatch: source is {src_decl.type}, sink is {sink_type}"
                wires.append(Wire(src_prim_path, s_bare or src_attr, str(prim.GetPath()), bare, sink_type,
                                  source_attr=src_attr, sink_attr=name, broken=broken))
    return wires


def connector_diagnostics(stage: Usd.Stage) -> list[Diagnostic]:
    """``connectors:`` properties with no connection either way are orphans (a warning)."""
    connected: set[str] = set()
    connectors: list[Usd.Attribute] = []
    for prim in signal_prims(stage):
        for attr in prim.GetAttributes():
            if attr.GetName().startswith("connectors:"):
                connectors.append(attr)
                for src in attr.GetConnections():
                    connected.add(str(src))
                    connected.add(str(attr.GetPath()))
    out = []
    for attr in connectors:
        if str(attr.GetPath()) not in connected:
            out.append(Diagnostic("warning", "orphan-connector",
                                  f"connector {attr.GetName()} has no connection; it is not a causal port",
                                  path=str(attr.GetPath()), source="ports"))
    return out


def attr_path(prim_path: str, attribute: str) -> str:
    return str(Sdf.Path(prim_path).AppendProperty(attribute))
