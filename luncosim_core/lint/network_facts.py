"""Lint facts about programs, acausal connectors and component networks.

``network_scopes``   [#{ path, parent, members[], synthesizer, modelica_member_count,
                         units[#{members[]}], dangling_connectors[], invalid_program_sources[],
                         invalid_causal_properties[], ambiguous_boundary_sources[],
                         collection_error }]
                     every prim that declares a ``CollectionAPI:components`` collection (a
                     component network compiled into one generated Modelica model)
``connector_programs`` [#{ path, source_asset, connectors[], connected[] }]
                     program prims declaring ``connectors:*`` (``connected``: those with an
                     authored ``.connect``; a bare declaration is an interface, not topology)
``unsupported_program_prims`` [paths authored with the retired concrete type ``LunCoProgram``]
``link_nodes``       [#{ path, parent_link }] prims applying ``LunCoLinkAPI`` (parent_link: the
                     nearest ancestor that is itself a link node, "" when none)
"""

from __future__ import annotations

from collections import defaultdict

from pxr import Sdf, Usd

from luncosim_core.usd.networks import (
    is_network_root,
    modelica_source_problem,
    network_members,
    synthesizer,
)
from luncosim_core.usd.schemas import has_schema


def _connections(prim: Usd.Prim, name: str) -> list[str]:
    attr = prim.GetAttribute(name)
    return [str(t) for t in attr.GetConnections()] if attr else []


def _union_find(nodes: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    parent = {n: n for n in nodes}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in edges:
        if a in parent and b in parent:
            parent[find(a)] = find(b)
    groups: dict[str, list[str]] = defaultdict(list)
    for n in nodes:
        groups[find(n)].append(n)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def network_scope_fact(prim: Usd.Prim) -> dict:
    stage = prim.GetStage()
    path = str(prim.GetPath())
    members, collection_error = network_members(prim)
    invalid_causal: list[str] = []
    boundary: dict[str, list[str]] = defaultdict(list)
    for attr in prim.GetAttributes():
        name = attr.GetName()
        conns = _connections(prim, name)
        if (name.startswith("outputs:") and len(conns) != 1) or (name.startswith("inputs:") and len(conns) > 1):
            invalid_causal.append(f"{path}.{name}")
        if name.startswith("inputs:") and len(conns) == 1:
            boundary[conns[0]].append(name.partition(":")[2])
    ambiguous = [f"{path} inputs {', '.join(sorted(names))} resolve to {src}"
                 for src, names in sorted(boundary.items()) if len(names) > 1]
    invalid_sources, modelica, dangling, edges = _member_facts(stage, members, invalid_causal)
    edges += _causal_edges(stage, modelica)
    return {
        "path": path,
        "parent": str(prim.GetParent().GetPath()),
        "members": members,
        "synthesizer": synthesizer(prim, members),
        "units": [{"members": u} for u in _union_find(modelica, edges)],
        "modelica_member_count": len(modelica),
        "collection_error": collection_error,
        "dangling_connectors": dangling,
        "invalid_program_sources": invalid_sources,
        "invalid_causal_properties": invalid_causal,
        "ambiguous_boundary_sources": ambiguous,
    }


def _member_facts(stage, members: list[str], invalid_causal: list[str]):
    """``(invalid sources, Modelica members, dangling connectors, connector edges)`` of the members;
    scalar ports with several connections are added to ``invalid_causal``."""
    member_set = set(members)
    invalid_sources: list[str] = []
    modelica: list[str] = []
    dangling: list[str] = []
    edges: list[tuple[str, str]] = []
    for member in members:
        mprim = stage.GetPrimAtPath(member)
        if not mprim or not has_schema(mprim, "LunCoProgramAPI"):
            continue
        if modelica_source_problem(mprim):
            invalid_sources.append(member)
            continue
        modelica.append(member)
        for attr in mprim.GetAttributes():
            name = attr.GetName()
            conns = _connections(mprim, name)
            if name.startswith(("inputs:", "outputs:")) and len(conns) > 1:
                invalid_causal.append(f"{member}.{name}")
            if not name.startswith("connectors:"):
                continue
            for target in conns:
                if _connector_target_exists(stage, target, member_set):
                    edges.append((member, target.partition(".connectors:")[0]))
                else:
                    dangling.append(f"{member}.{name}")
    return invalid_sources, modelica, dangling, edges


def _connector_target_exists(stage, target: str, member_set: set[str]) -> bool:
    tprim, sep, tconn = target.partition(".connectors:")
    if not sep or tprim not in member_set:
        return False
    prim = stage.GetPrimAtPath(tprim)
    return bool(prim) and bool(prim.GetAttribute(f"connectors:{tconn}"))


def _causal_edges(stage, modelica: list[str]) -> list[tuple[str, str]]:
    """Member inputs wired from another Modelica member's output join the two in one unit."""
    modelica_set = set(modelica)
    edges: list[tuple[str, str]] = []
    for member in modelica:
        mprim = stage.GetPrimAtPath(member)
        for attr in mprim.GetAttributes():
            if not attr.GetName().startswith("inputs:"):
                continue
            conns = _connections(mprim, attr.GetName())
            if len(conns) == 1:
                src_prim, sep, _ = conns[0].partition(".outputs:")
                if sep and src_prim in modelica_set:
                    edges.append((member, src_prim))
    return edges


def program_network_facts(prims: list[Usd.Prim]) -> dict:
    """``network_scopes``, ``connector_programs``, ``unsupported_program_prims``, ``link_nodes``."""
    scopes, connector_programs, unsupported, links = [], [], [], []
    link_paths = {str(p.GetPath()) for p in prims if has_schema(p, "LunCoLinkAPI")}
    for prim in prims:
        path = str(prim.GetPath())
        if prim.GetTypeName() == "LunCoProgram":
            unsupported.append(path)
        if is_network_root(prim):
            scopes.append(network_scope_fact(prim))
        if path in link_paths:
            parent = prim.GetParent()
            while parent and str(parent.GetPath()) not in link_paths and not parent.IsPseudoRoot():
                parent = parent.GetParent()
            links.append({"path": path, "parent_link": str(parent.GetPath()) if parent and
                          str(parent.GetPath()) in link_paths else ""})
        if has_schema(prim, "LunCoProgramAPI"):
            connectors, connected = [], []
            for attr in prim.GetAttributes():
                name = attr.GetName()
                if not name.startswith("connectors:"):
                    continue
                connectors.append(name.partition(":")[2])
                if attr.GetConnections():
                    connected.append(name.partition(":")[2])
            if connectors:
                asset = prim.GetAttribute("info:sourceAsset")
                value = asset.Get() if asset and asset.HasAuthoredValue() else None
                text = value.path if isinstance(value, Sdf.AssetPath) else str(value or "")
                connector_programs.append({"path": path, "source_asset": text, "connectors": connectors,
                                           "connected": connected})
    return {"network_scopes": scopes, "connector_programs": connector_programs,
            "unsupported_program_prims": unsupported, "link_nodes": links}
