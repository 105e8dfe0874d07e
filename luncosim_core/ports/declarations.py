"""Read the authored port surface and its wires from a composed stage."""

from __future__ import annotations

import math
from collections.abc import Callable

from pxr import Sdf, Usd

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports import surface
from luncosim_core.ports.model import NAMESPACES, SCALAR_TYPES, PortDecl, Wire
from luncosim_core.usd.networks import member_networks
from luncosim_core.usd.schemas import has_schema


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
    if has_schema(prim, "PhysicsRigidBodyAPI"):
        names |= {spec.name for spec in body_port_specs("", False)}
    kind = {"PhysicsRevoluteJoint": "revolute", "PhysicsPrismaticJoint": "prismatic"}.get(prim.GetTypeName())
    if kind:
        names |= {spec.name for spec in joint_port_specs("", kind)}
    return names


def read_wires(stage: Usd.Stage, declared: dict[str, PortDecl], *, strict: bool = False,
               model_outputs: Callable[[Usd.Prim], frozenset[str] | None] | None = None) -> list[Wire]:
    """Every ``.connect`` on a port attribute, resolved (or marked broken with a reason).

    ``declared`` maps ``/Prim.namespace:name`` (attribute path) to its declaration. A source may be
    a declared port, a physics-native port of a body or joint (:func:`native_port_names`), a port
    an applied API schema declares, a vessel's command surface, or an undeclared output of a
    compiled model (an *implicit public output*, see :mod:`luncosim_core.ports.surface`): such a
    wire is marked ``implicit`` and resolves against the live registry, unless ``strict``
    (``[ports] strict_public_outputs``) refuses it. ``model_outputs(prim)`` (static checks without
    a runtime) returns a program's compiled output names, or None when they cannot be known.
    """
    wires: list[Wire] = []
    in_network = member_networks(stage)
    roots = set(in_network.values())
    for prim in signal_prims(stage):
        path = str(prim.GetPath())
        if path in in_network:
            continue  # a network member's wires are equations of its network's generated model
        for attr in prim.GetAttributes():
            if not attr.HasAuthoredConnections():
                continue
            name = attr.GetName()
            ns, _, bare = name.partition(":")
            if ns not in ("inputs", "outputs") or (ns == "outputs" and path in roots):
                continue  # a network scope's outputs are equations of its generated model too
            sink_type = str(attr.GetTypeName().scalarType)
            for src in attr.GetConnections():
                src_prim_path = str(src.GetPrimPath())
                src_attr = src.name
                s_ns, _, s_bare = src_attr.partition(":")
                src_prim = stage.GetPrimAtPath(src.GetPrimPath())
                src_decl = declared.get(f"{src_prim_path}.{src_attr}")
                broken, implicit, port = _resolve_source(src_prim, src_prim_path, src, s_ns, s_bare, src_decl,
                                                         sink_type, strict, model_outputs)
                wires.append(Wire(src_prim_path, port or s_bare or src_attr, path, bare, sink_type,
                                  source_attr=src_attr, sink_attr=name, broken=broken, implicit=implicit))
    return wires


def _resolve_source(src_prim, src_prim_path: str, src, s_ns: str, s_bare: str, src_decl: PortDecl | None,
                    sink_type: str, strict: bool, model_outputs) -> tuple[str, bool, str]:
    """``(broken reason or "", implicit, port name)`` for one wire source ("" port: the bare name).

    Ports are keyed by prim and bare name. When a prim's *produced* side shares its name with one
    of its inputs (a rigid-body program's ``output Real force_y`` next to the body's
    ``inputs:force_y``; a vessel's ``outputs:piloted`` next to its program's ``inputs:piloted``),
    the produced side is the port ``outputs:<name>``.
    """
    if not src_prim:
        return f"source prim {src_prim_path} does not exist (renamed or removed?)", False, ""
    causal = s_ns in ("inputs", "outputs")
    if src_decl is not None:
        if (src_decl.type == "bool") != (sink_type == "bool"):
            return f"type mismatch: source is {src_decl.type}, sink is {sink_type}", False, ""
        return "", False, ""
    produced = s_ns == "outputs"
    body_program = produced and surface.is_rigid_body(src_prim) and surface.is_model_program(src_prim) \
        and s_bare in surface.RIGID_BODY_INPUTS
    if causal and s_bare in native_port_names(src_prim) and not body_program:
        return "", False, ""  # the engine publishes it: connectable without a declaration
    if produced and surface.schema_declares(src_prim, s_bare):
        return "", False, ""  # declared by an applied API schema
    if s_ns == "inputs" and s_bare in surface.command_ports(src_prim):
        return "", False, ""  # a vessel's command surface
    if produced and s_bare == surface.PILOTED and surface.has_command_surface(src_prim):
        return "", False, surface.produced_port(src_prim, s_bare)
    if produced and surface.is_model_program(src_prim):
        port = surface.produced_port(src_prim, s_bare)
        if strict:
            return (f"{surface.STRICT_REFUSAL}: {src_prim_path} must declare outputs:{s_bare} to publish "
                    f"its model output '{s_bare}'"), True, port
        outs = model_outputs(src_prim) if model_outputs is not None else None
        if outs is not None and s_bare not in outs:
            known = ", ".join(sorted(outs)) or "none"
            return (f"{src_prim_path} declares no outputs:{s_bare} and its compiled model has no output "
                    f"'{s_bare}' (model outputs: {known})"), False, port
        return "", True, port
    if src_prim.GetAttribute(src.name):
        return f"source {src} is not a causal port (inputs:/outputs: scalar)", False, ""
    return (f"source property {src} is not declared on {src_prim_path} "
            f"(public-output rule: declare it as outputs:{s_bare or src.name})"), False, ""


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
