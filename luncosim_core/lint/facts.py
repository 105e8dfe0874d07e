"""Facts the lint policies judge: a plain projection of the composed stage.

``facts`` (a script map):
  stage            #{ default_prim, up_axis, meters_per_unit, authored: [metadata keys] }
  physics_scenes   [paths of PhysicsScene prims]
  bodies           [#{ path, type, kinematic, simulated, collider, subtree_collider,
                       host_body, jointed, scale_nonuniform, vehicle_wheel,
                       collider_min, collider_max }]
                   (collider_min/max: world bounds of the body's colliders short of a nested
                   body, [x, y, z]; [] when none has statable bounds)
                   (vehicle_wheel: a wheel the vehicle model realises, marked by
                   PhysxVehicleWheelAPI or authored physxVehicleWheel:* attributes)
  joints           [#{ path, type, targets[], bodies[], missing[] }]
  filtered_pairs   [#{ path, owner, targets[], target_owners[], missing[] }]
  collision_groups [#{ path, includes[], filtered[], missing_includes[], missing_filtered[] }]
  prims            [#{ path, type, parent, schemas[], attributes[], values, connected_attributes[] }]
                   (every prim with an applied schema or an authored physics:/inputs:/outputs:/
                   connectors:/info:/lunco: property; ``values`` maps those attributes to
                   their authored bool/number/string values)
  connectors       [#{ path, prim, name, connected }]
  wires            [#{ source, sink, broken, implicit }]  (broken: "" or why the wire cannot
                   connect; implicit: the source is a compiled model's undeclared output)
  ports            #{ strict_public_outputs }  (twin.toml [ports])
Programs, connectors and component networks: see :mod:`luncosim_core.lint.network_facts`.
Bodies are prims applying PhysicsRigidBodyAPI; a joint target that is not a body resolves to its
nearest ancestor body (a mount point under a body), and is ``missing`` when there is none."""

from __future__ import annotations

from pxr import Tf, Usd, UsdGeom, UsdPhysics, UsdShade

from luncosim_core.api.commands import ListConnections
from luncosim_core.api.host import Host
from luncosim_core.lint.network_facts import program_network_facts
from luncosim_core.ports.surface import STRICT_REFUSAL, ports_policy
from luncosim_core.usd.schemas import applied_schemas

BODY_API = "PhysicsRigidBodyAPI"
COLLISION_API = "PhysicsCollisionAPI"
FILTER_API = "PhysicsFilteredPairsAPI"
_FACT_PREFIXES = ("physics:", "inputs:", "outputs:", "connectors:", "info:", "lunco:")


def _targets(rel) -> list:
    """A relationship's targets; none when USD cannot compose them (a property authored as an
    attribute where a relationship belongs: the physics screen refuses such a joint)."""
    try:
        return list(rel.GetTargets()) if rel else []
    except Tf.ErrorException:
        return []


def _get(prim, name, default=None):
    attr = prim.GetAttribute(name)
    if attr and attr.HasAuthoredValue():
        return attr.Get()
    return default


class _Owners:
    """The body a prim belongs to: itself or its nearest ancestor body ("" for none)."""

    def __init__(self, body_paths: set[str]) -> None:
        self.body_paths = body_paths

    def of(self, path: str) -> str:
        p = path
        while p and p != "/":
            if p in self.body_paths:
                return p
            p = p.rsplit("/", 1)[0] or "/"
        return ""

    def host_of(self, path: str) -> str:
        parent = path.rsplit("/", 1)[0]
        return self.of(parent) if parent else ""


def extract_facts(stage: Usd.Stage, host: Host | None = None, roots=None) -> dict:
    """The facts map of ``stage``; with a running simulation's ``host``, wires are judged against
    its live ports (``ListConnections``), without one against the authored surface and (``roots``
    given) the programs' compiled models."""
    prims = list(stage.Traverse())
    schemas = {str(p.GetPath()): applied_schemas(p) for p in prims}
    owners = _Owners({str(p.GetPath()) for p in prims if BODY_API in schemas[str(p.GetPath())]})
    joints, jointed = [], set()
    filtered_pairs, groups, scenes, prim_facts = [], [], [], []
    for prim in prims:
        path = str(prim.GetPath())
        if prim.IsA(UsdPhysics.Joint):
            joints.append(_joint_fact(stage, prim, owners, jointed))
        if prim.IsA(UsdPhysics.Scene):
            scenes.append(path)
        if FILTER_API in schemas[path]:
            filtered_pairs.append(_filtered_pair_fact(stage, prim, owners))
        if prim.IsA(UsdPhysics.CollisionGroup):
            groups.append(_collision_group_fact(stage, prim))
        fact = _prim_fact(prim, schemas[path])
        if fact is not None:
            prim_facts.append(fact)
    bbox = UsdGeom.BBoxCache(Usd.TimeCode.Default(), [UsdGeom.Tokens.default_, UsdGeom.Tokens.proxy,
                                                      UsdGeom.Tokens.render, UsdGeom.Tokens.guide])
    bodies = [_body_fact(prim, schemas, owners, jointed, bbox) for prim in prims
              if str(prim.GetPath()) in owners.body_paths]
    return {
        **program_network_facts(prims),
        "stage": _stage_meta(stage),
        "physics_scenes": scenes,
        "bodies": bodies,
        "joints": joints,
        "filtered_pairs": filtered_pairs,
        "collision_groups": groups,
        "prims": prim_facts,
        "connectors": _connector_facts(prims),
        "wires": _wires(stage, host, roots),
        "ports": {"strict_public_outputs": ports_policy(roots if roots is not None else getattr(host, "roots", None))
                  .strict_public_outputs},
    }


def _joint_fact(stage, prim, owners: _Owners, jointed: set[str]) -> dict:
    """A joint's targets, the bodies they resolve to (added to ``jointed``) and the missing ones."""
    j = UsdPhysics.Joint(prim)
    targets, resolved, missing = [], [], []
    for rel in (j.GetBody0Rel(), j.GetBody1Rel()):
        for t in _targets(rel):
            t = str(t)
            targets.append(t)
            owner = owners.of(t) if stage.GetPrimAtPath(t) else ""
            if owner:
                resolved.append(owner)
                jointed.add(owner)
            else:
                missing.append(t)
    return {"path": str(prim.GetPath()), "type": prim.GetTypeName(), "targets": targets,
            "bodies": resolved, "missing": missing}


def _filtered_pair_fact(stage, prim, owners: _Owners) -> dict:
    path = str(prim.GetPath())
    rel = prim.GetRelationship("physics:filteredPairs")
    targets = [str(t) for t in _targets(rel)]
    return {
        "path": path, "owner": owners.of(path), "targets": targets,
        "target_owners": [owners.of(t) if stage.GetPrimAtPath(t) else "" for t in targets],
        "missing": [t for t in targets if not stage.GetPrimAtPath(t)],
    }


def _collision_group_fact(stage, prim) -> dict:
    g = UsdPhysics.CollisionGroup(prim)
    coll = g.GetCollidersCollectionAPI()
    includes = [str(t) for t in _targets(coll.GetIncludesRel())] if coll else []
    filt = [str(t) for t in _targets(g.GetFilteredGroupsRel())]
    return {
        "path": str(prim.GetPath()), "includes": includes, "filtered": filt,
        "missing_includes": [t for t in includes if not stage.GetPrimAtPath(t)],
        "missing_filtered": [t for t in filt if not stage.GetPrimAtPath(t)
                             or not stage.GetPrimAtPath(t).IsA(UsdPhysics.CollisionGroup)],
    }


def _prim_fact(prim, schemas: list[str]) -> dict | None:
    """A prim with an applied schema or an authored fact attribute (None for any other)."""
    attrs = [a.GetName() for a in prim.GetAttributes()
             if a.GetName().startswith(_FACT_PREFIXES) and (a.HasAuthoredValue() or a.HasAuthoredConnections())]
    if not schemas and not attrs:
        return None
    return {
        "path": str(prim.GetPath()), "type": prim.GetTypeName(), "parent": str(prim.GetParent().GetPath()),
        "schemas": schemas, "attributes": attrs, "values": _scalar_values(prim, attrs),
        "connected_attributes": [a.GetName() for a in prim.GetAttributes() if a.HasAuthoredConnections()],
    }


def _body_fact(prim, schemas, owners: _Owners, jointed: set[str], bbox) -> dict:
    path = str(prim.GetPath())
    lo, hi = _collider_bounds(prim, schemas, owners.body_paths, bbox)
    return {
        "collider_min": lo, "collider_max": hi,
        "path": path, "type": prim.GetTypeName(),
        "kinematic": bool(_get(prim, "physics:kinematicEnabled", False)),
        "simulated": bool(_get(prim, "physics:rigidBodyEnabled", True)),
        "collider": COLLISION_API in schemas[path],
        "subtree_collider": _subtree_collider(prim, schemas, owners.body_paths),
        "host_body": owners.host_of(path),
        "jointed": path in jointed,
        "scale_nonuniform": _nonuniform_scale(prim),
        "vehicle_wheel": _vehicle_wheel(prim, schemas[path]),
    }


def _connector_facts(prims) -> list[dict]:
    """Every ``connectors:`` attribute and whether a wire touches it (either end)."""
    connected = set()
    for prim in prims:
        for attr in prim.GetAttributes():
            if attr.GetName().startswith("connectors:"):
                for src in attr.GetConnections():
                    connected.add(str(src))
                    connected.add(str(attr.GetPath()))
    return [{"path": str(attr.GetPath()), "prim": str(prim.GetPath()), "name": attr.GetName(),
             "connected": str(attr.GetPath()) in connected}
            for prim in prims for attr in prim.GetAttributes() if attr.GetName().startswith("connectors:")]


def _collider_bounds(prim, schemas, body_paths, bbox) -> tuple[list[float], list[float]]:
    """World-space bounds of everything the body can touch the world with (its colliders, short of
    a nested body): ``([x, y, z], [x, y, z])``, or ``([], [])`` when nothing has statable bounds."""
    lo = [float("inf")] * 3
    hi = [float("-inf")] * 3
    it = iter(Usd.PrimRange(prim))
    for p in it:
        path = str(p.GetPath())
        if p != prim and path in body_paths:
            it.PruneChildren()
            continue
        if COLLISION_API not in schemas.get(path, ()):
            continue
        try:
            box = bbox.ComputeWorldBound(p).ComputeAlignedRange()
        except Tf.ErrorException:  # an xformOpOrder naming no op: the physics screen says so
            continue
        if box.IsEmpty():
            continue
        for i in range(3):
            lo[i] = min(lo[i], box.GetMin()[i])
            hi[i] = max(hi[i], box.GetMax()[i])
    if lo[0] == float("inf"):
        return [], []
    return lo, hi


def _scalar_values(prim, names: list[str]) -> dict:
    """Authored bool / number / string values of the listed attributes."""
    out = {}
    for n in names:
        v = prim.GetAttribute(n).Get()
        if isinstance(v, (bool, int, float, str)):
            out[n] = v
    return out


def _vehicle_wheel(prim, applied: list[str]) -> bool:
    """A wheel the vehicle model realises (suspension cast, tyre model), not a free body."""
    if "PhysxVehicleWheelAPI" in applied:
        return True
    return any(a.GetName().startswith("physxVehicleWheel:") and a.HasAuthoredValue() for a in prim.GetAttributes())


def _subtree_collider(prim, schemas, body_paths) -> bool:
    """Does the body, or anything under it short of a nested body, apply PhysicsCollisionAPI?"""
    it = iter(Usd.PrimRange(prim))
    for p in it:
        path = str(p.GetPath())
        if p != prim and path in body_paths:
            it.PruneChildren()
            continue
        if COLLISION_API in schemas.get(path, ()):
            return True
    return False


def _nonuniform_scale(prim) -> bool:
    xf = UsdGeom.Xformable(prim)
    if not xf:
        return False
    try:
        ops = xf.GetOrderedXformOps()
    except Tf.ErrorException:  # an xformOpOrder naming no op
        return False
    for op in ops:
        if op.GetOpType() == UsdGeom.XformOp.TypeScale:
            s = op.Get()
            if s is not None and (abs(s[0] - s[1]) > 1e-9 or abs(s[1] - s[2]) > 1e-9):
                return True
    return False


def _stage_meta(stage: Usd.Stage) -> dict:
    root = stage.GetRootLayer()
    authored = [k for k in ("metersPerUnit", "upAxis", "defaultPrim") if root.pseudoRoot.HasInfo(k) or
                (k == "defaultPrim" and root.defaultPrim)]
    return {"default_prim": root.defaultPrim or "", "up_axis": str(UsdGeom.GetStageUpAxis(stage)),
            "meters_per_unit": float(UsdGeom.GetStageMetersPerUnit(stage)), "authored": authored,
            "layer": root.realPath or root.identifier}


def _wires(stage: Usd.Stage, host: Host | None, roots=None) -> list[dict]:
    live = host.query(ListConnections(None)) if host is not None else None
    if live is not None and live.ok:
        wires = [(w["source_prim"], w["source"], w["sink_prim"], w["sink"], w["broken"], bool(w.get("implicit")))
                 for w in live.value]
    else:
        from luncosim_core.modelica.program_outputs import model_outputs
        from luncosim_core.ports.declarations import read_declarations, read_wires

        decls, _ = read_declarations(stage)
        wires = [(w.source_prim, f"{w.source_prim}.{w.source_attr or w.source_port}",
                  w.sink_prim, f"{w.sink_prim}.{w.sink_attr or w.sink_port}", w.broken, bool(w.implicit))
                 for w in read_wires(stage, {f"{d.prim_path}.{d.attribute}": d for d in decls},
                                     strict=ports_policy(roots).strict_public_outputs,
                                     model_outputs=lambda prim: model_outputs(prim, roots))]
    # a wire refused only by strict_public_outputs is the implicit-public-output finding
    out = [{"source": source, "sink": sink, "implicit": implicit,
            "broken": "" if implicit and broken.startswith(STRICT_REFUSAL) else broken}
           for source_prim, source, sink_prim, sink, broken, implicit in wires
           if not _is_shading(stage, source_prim, sink_prim)]
    return sorted(out, key=lambda w: (w["sink"], w["source"]))


def is_shading_connection(stage, wire) -> bool:
    """A material/shader network connection (UsdShade) carries no simulation signal."""
    return _is_shading(stage, wire.sink_prim, wire.source_prim)


def _is_shading(stage, *paths: str) -> bool:
    for path in paths:
        prim = stage.GetPrimAtPath(path)
        if prim and (prim.IsA(UsdShade.Material) or prim.IsA(UsdShade.Shader) or prim.IsA(UsdShade.NodeGraph)):
            return True
    return False
