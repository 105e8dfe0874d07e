"""Component networks on the composed stage: ``CollectionAPI:components`` scopes.

A network scope's members (Modelica program prims) are compiled together into one generated model
(:mod:`luncosim_core.modelica.network_model`); their acausal ``connectors:`` wires become
``connect()`` equations and their causal wires equations of that model. Only the scope is a
runtime participant: its ``inputs:`` are the network's boundary inputs, its ``outputs:X.connect``
name member outputs it publishes, and every output a member declares is published on the scope
under a stable alias (:func:`member_output_alias`).
"""

from __future__ import annotations

from pxr import Sdf, Usd

from luncosim_core.usd.schemas import has_schema

NETWORK_COLLECTION = "components"
PROGRAM_API = "LunCoProgramAPI"
FORCE_ACTUATOR_API = "LunCoForceActuatorAPI"
ACTUATOR_WRENCH = "actuator-wrench"
_KEYWORDS = frozenset("""algorithm and annotation block break class connect connector constant constrainedby der
discrete each else elseif elsewhen encapsulated end enumeration equation expandable extends external false final
flow for function if import impure in initial inner input loop model not operator or outer output package parameter
partial protected public pure record redeclare replaceable return stream then true type when while within""".split())


def is_network_root(prim: Usd.Prim) -> bool:
    """A scope whose ``CollectionAPI:components`` makes its members one generated model."""
    if has_schema(prim, f"CollectionAPI:{NETWORK_COLLECTION}"):
        return True
    prefix = f"collection:{NETWORK_COLLECTION}:"
    return any(p.GetName().startswith(prefix) for p in prim.GetProperties())


def network_members(prim: Usd.Prim) -> tuple[list[str], str]:
    """``(member paths, error)``: the composed membership of the components collection."""
    coll = Usd.CollectionAPI(prim, NETWORK_COLLECTION)
    rule = coll.GetExpansionRuleAttr().Get() if coll.GetExpansionRuleAttr() else None
    try:
        if rule == "explicitOnly":
            members = [str(t) for t in coll.GetIncludesRel().GetTargets()]
            missing = [t for t in members if not prim.GetStage().GetPrimAtPath(t)]
            if missing:
                return [m for m in members if m not in missing], f"includes {', '.join(missing)}, which is not on this stage"
            return members, ""
        query = coll.ComputeMembershipQuery()
        paths = Usd.CollectionAPI.ComputeIncludedPaths(query, prim.GetStage())
        return sorted(str(p) for p in paths if p.IsPrimPath()), ""
    except Exception as exc:  # noqa: BLE001 - USD reports a malformed collection as an exception
        return [], str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def synthesizer(prim: Usd.Prim, members: list[str]) -> str:
    """Which synthesizer owns a network: authored ``lunco:synthesizer``, else derived from its
    members' roles ("actuator-wrench" when every member is a force actuator); "" is the default
    acausal Modelica network."""
    attr = prim.GetAttribute("lunco:synthesizer")
    if attr and attr.HasAuthoredValue() and attr.Get():
        return str(attr.Get())
    stage = prim.GetStage()
    roles = [has_schema(stage.GetPrimAtPath(m), FORCE_ACTUATOR_API) for m in members if stage.GetPrimAtPath(m)]
    return ACTUATOR_WRENCH if roles and all(roles) else ""


def modelica_source_problem(prim: Usd.Prim) -> str:
    """Why a network member is not a source-asset ``.mo`` program ("" when it is one)."""
    impl = prim.GetAttribute("info:implementationSource")
    impl_value = str(impl.Get()) if impl and impl.HasAuthoredValue() else ""
    asset = prim.GetAttribute("info:sourceAsset")
    if impl_value and impl_value != "sourceAsset":
        return f"info:implementationSource is {impl_value!r}, not 'sourceAsset'"
    if not asset or not asset.HasAuthoredValue():
        return "no info:sourceAsset"
    value = asset.Get()
    text = value.path if isinstance(value, Sdf.AssetPath) else str(value)
    if not text.lower().endswith(".mo"):
        return f"info:sourceAsset @{text}@ is not a .mo file"
    return ""


def modelica_networks(stage: Usd.Stage) -> dict[str, list[str]]:
    """Default-synthesizer networks the runtime compiles: root path -> its Modelica program members.

    Only a ``Scope`` (a non-spatial prim) is a live network; a collection authored on a spatial prim
    (an ``Xform`` guide, as in lint fixtures) is linted but not compiled.
    """
    out: dict[str, list[str]] = {}
    for prim in stage.Traverse():
        if prim.GetTypeName() != "Scope" or not is_network_root(prim):
            continue
        members, _error = network_members(prim)
        if synthesizer(prim, members):
            continue
        progs = [m for m in members if stage.GetPrimAtPath(m) and has_schema(stage.GetPrimAtPath(m), PROGRAM_API)
                 and not modelica_source_problem(stage.GetPrimAtPath(m))]
        if progs:
            out[str(prim.GetPath())] = progs
    return out


def wrench_networks(stage: Usd.Stage) -> dict[str, list[str]]:
    """Actuator-wrench networks the runtime compiles: root path -> its member paths (a ``Scope``
    whose synthesizer is "actuator-wrench"; see :mod:`luncosim_core.modelica.wrench_model`)."""
    out: dict[str, list[str]] = {}
    for prim in stage.Traverse():
        if prim.GetTypeName() != "Scope" or not is_network_root(prim):
            continue
        members, _error = network_members(prim)
        if synthesizer(prim, members) == ACTUATOR_WRENCH:
            out[str(prim.GetPath())] = members
    return out


def member_networks(stage: Usd.Stage) -> dict[str, str]:
    """Member path -> the network root that compiles it (the first by path when several claim it)."""
    out: dict[str, str] = {}
    for root, members in sorted(modelica_networks(stage).items()):
        for m in members:
            out.setdefault(m, root)
    return out


# -- generated names ---------------------------------------------------------------------------
def is_identifier(raw: str) -> bool:
    return bool(raw) and (raw[0].isascii() and (raw[0].isalpha() or raw[0] == "_")) \
        and all(c.isascii() and (c.isalnum() or c == "_") for c in raw) and raw not in _KEYWORDS


def path_identifier(raw: str) -> str:
    """An injective Modelica identifier for arbitrary USD path text (``_`` doubled, other
    punctuation as ``_x<hex>_``)."""
    out = []
    for c in raw:
        if c.isascii() and c.isalnum():
            out.append(c)
        elif c == "_":
            out.append("__")
        else:
            out.append(f"_x{ord(c):x}_")
    result = "".join(out) or "ModelicaNetwork"
    if result[0].isdigit() or not is_identifier(result):
        result = "usd_" + result
    return result


def identifier(raw: str) -> str:
    """``raw`` itself when it is a Modelica identifier, else an escaped spelling of it."""
    if is_identifier(raw):
        return raw
    result = path_identifier(raw)
    return result if result.startswith("usd_") else "usd_" + result


def instance_name(root: str, member: str) -> str:
    """The member's instance name in its network's generated model."""
    rel = member[len(root):] if member.startswith(root + "/") else member
    return path_identifier(rel.strip("/"))


def member_output_alias(root: str, member: str, output: str) -> str:
    """The name under which the network scope publishes a member's output."""
    return f"__member_{instance_name(root, member)}_{identifier(output)}"
