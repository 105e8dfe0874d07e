"""Physics input that would make silent nonsense: found before projection, refused with a reason.

Policy (``docs/physics.md``, "Nonsense in, diagnostics out"): a rigid body whose mass or density
is NaN, infinite or negative, whose mass is over :data:`MAX_MASS_KG`, whose world transform is
not finite, or whose scale (or a collider's under it) is zero, under :data:`MIN_SCALE` or over
:data:`MAX_SCALE` is **refused**: it and everything under it are left out of the projection, and
every joint attached to it is refused too. A static collider with such a transform is refused
alone. A joint whose ``body0``/``body1`` names a prim that is neither a rigid body nor inside one
(a Scope, a static collider) or that attaches a body to itself is refused (lint says the same).
``physics:mass = 0`` keeps its UsdPhysics meaning ("not set": density and geometry decide) and is
a warning; a body mass above zero but under :data:`MIN_MASS_KG` is kept as authored with a warning
(the solver's contacts and joints are unstable against it). The same findings come from
``luncosim validate`` (lint) and from the projection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pxr import Tf, Usd, UsdGeom, UsdPhysics

from luncosim_core.diagnostics import Diagnostic

MAX_MASS_KG = 1.0e9  # more is refused (contacts against kilogram bodies tunnel and explode)
MIN_MASS_KG = 1.0e-6  # a body lighter than a milligram warns (kept: the solver is unstable against it)
MIN_SCALE = 1.0e-6  # a world scale component below this (or zero) is degenerate
MAX_SCALE = 1.0e6  # above this, shapes are wild


@dataclass
class Screen:
    """What the screen found: diagnostics and the prim paths left out of the projection."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)

    def refuses(self, path: str) -> bool:
        """Is ``path`` a refused prim or under one?"""
        return any(path == r or path.startswith(r + "/") for r in self.refused)


def _layer_of(prim, attr_name: str = "") -> str:
    """The file that authors ``attr_name`` on ``prim`` (strongest opinion), else the prim."""
    if attr_name:
        attr = prim.GetAttribute(attr_name)
        for spec in attr.GetPropertyStack(Usd.TimeCode.Default()) if attr else []:
            if spec.layer is not None:
                return spec.layer.realPath or spec.layer.identifier
    for spec in prim.GetPrimStack():
        if spec.layer is not None:
            return spec.layer.realPath or spec.layer.identifier
    return ""


def _err(code: str, prim, message: str, attr: str = "", severity: str = "error") -> Diagnostic:
    path = str(prim.GetPath())
    return Diagnostic(severity, code, message, path=path, layer=_layer_of(prim, attr), source="physics",  # type: ignore[arg-type]
                      data={"attribute": attr} if attr else {})


def _transform_problem(prim, xcache) -> tuple[str, str, str] | None:
    """(code, attribute, why) when the prim's world transform is not finite or its scale is
    degenerate or extreme; None when fine."""
    try:
        m = xcache.GetLocalToWorldTransform(prim)
    except Exception as exc:  # a corrupt xformOp value USD cannot use
        return "physics.transform.invalid", "xformOpOrder", f"its transform cannot be computed ({exc})"
    values = [m[i][j] for i in range(4) for j in range(4)]
    if not all(math.isfinite(v) for v in values):
        return "physics.transform.nonfinite", "xformOp:translate", "its world transform is not finite (NaN or inf)"
    scales = [math.hypot(m[i][0], m[i][1], m[i][2]) for i in range(3)]  # (x ** 2 overflows at 1e155)
    low, high = min(scales), max(scales)
    shown = ", ".join(f"{s:.3g}" for s in scales)
    if low < MIN_SCALE:
        return "physics.scale.degenerate", "xformOp:scale", f"its world scale ({shown}) is below {MIN_SCALE:g}"
    if high > MAX_SCALE:
        return "physics.scale.extreme", "xformOp:scale", f"its world scale ({shown}) is over {MAX_SCALE:g}"
    return None


def _mass_problems(prim, is_body: bool) -> list[Diagnostic]:
    """Mass and density: NaN, inf, negative or over the limit refuse (errors); mass 0 warns."""
    if not prim.HasAPI(UsdPhysics.MassAPI):
        return []
    out = []
    path = str(prim.GetPath())
    what = "body" if is_body else "collider"
    for name, unit in (("physics:mass", "kg"), ("physics:density", "kg/m^3")):
        attr = prim.GetAttribute(name)
        if not attr or not attr.HasAuthoredValue():
            continue
        try:
            v = float(attr.Get())
        except (TypeError, ValueError):
            continue
        if not math.isfinite(v) or v < 0:
            out.append(_err(f"physics.{name[8:]}.invalid", prim,
                            f"{what} {path} has {name} = {v:g} {unit}; it must be a finite number >= 0: "
                            "refused (left out of the simulation)", name))
        elif name == "physics:mass" and v > MAX_MASS_KG:
            out.append(_err("physics.mass.extreme", prim,
                            f"{what} {path} has {name} = {v:g} kg, over the {MAX_MASS_KG:g} kg limit: refused "
                            "(contacts with it would tunnel or explode)", name))
        elif name == "physics:mass" and v == 0 and is_body:
            out.append(_err("physics.mass.zero", prim,
                            f"body {path} authors {name} = 0, which UsdPhysics reads as 'not set': its mass comes "
                            "from density and geometry", name, severity="warning"))
        elif name == "physics:mass" and v < MIN_MASS_KG and is_body:
            out.append(_err("physics.mass.tiny", prim,
                            f"body {path} has {name} = {v:g} kg, under the {MIN_MASS_KG:g} kg floor: kept as "
                            "authored, but contacts and joints against so light a body are unstable", name,
                            severity="warning"))
    return out


def screen_stage(stage: Usd.Stage, prims: list | None = None, xcache=None) -> Screen:
    """Check the composed stage's bodies, colliders and joints (see the module doc). ``prims``
    and ``xcache`` may be the reader's own (its traversal, its transform cache)."""
    prims = prims if prims is not None else list(Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(
        Usd.PrimDefaultPredicate)))
    xcache = xcache or UsdGeom.XformCache(Usd.TimeCode.Default())
    screen = Screen()
    bodies = [p for p in prims if p.HasAPI(UsdPhysics.RigidBodyAPI)]
    body_paths = {str(p.GetPath()) for p in bodies}
    for prim in prims:
        path = str(prim.GetPath())
        is_body = path in body_paths
        if not is_body and not prim.HasAPI(UsdPhysics.CollisionAPI):
            continue
        owner = is_body and path or _owner(path, body_paths) or path
        if screen.refuses(owner):
            continue
        found = _mass_problems(prim, is_body)
        bad = _transform_problem(prim, xcache)
        if bad is not None:
            code, attr, why = bad
            kind = "body" if is_body else "collider of body " + owner if owner != path else "static collider"
            found.append(_err(code, prim, f"{kind} {path}: {why}; "
                              f"{'the body ' + owner if owner != path or is_body else 'it'} is refused "
                              "(left out of the simulation)", attr))
        errors = [d for d in found if d.is_error]
        screen.diagnostics += found
        if errors:
            screen.refused.add(owner)
    for prim in prims:
        if prim.IsA(UsdPhysics.Joint):
            _screen_joint(prim, body_paths, screen)
    return screen


def _owner(path: str, body_paths: set[str]) -> str:
    """The nearest rigid body at or above ``path`` ("" when none)."""
    p = path
    while p and p != "/":
        if p in body_paths:
            return p
        p = p.rpartition("/")[0]
    return ""


def _screen_joint(prim, body_paths: set[str], screen: Screen) -> None:
    path = str(prim.GetPath())
    if screen.refuses(path):
        return
    joint = UsdPhysics.Joint(prim)
    owners = []
    for rel_name, rel in (("physics:body0", joint.GetBody0Rel()), ("physics:body1", joint.GetBody1Rel())):
        try:
            targets = rel.GetTargets() if rel else []
        except Tf.ErrorException:  # authored as an attribute (``float physics:body0``), not a relationship
            screen.diagnostics.append(_err(
                "physics.joint.invalid-target", prim,
                f"joint {path} {rel_name} is not a relationship naming a body (it is authored as an attribute): "
                "the joint is refused", rel_name))
            screen.refused.add(path)
            return
        if len(targets) != 1:
            owners.append(None)  # unset: the world (several targets: the joint reader says so)
            continue
        target = str(targets[0])
        target_prim = prim.GetStage().GetPrimAtPath(target)
        if not target_prim:
            owners.append(None)  # does not exist: the joint reader says so
            continue
        owner = _owner(target, body_paths)
        if not owner:
            kind = target_prim.GetTypeName() or "typeless prim"
            screen.diagnostics.append(_err(
                "joint-target-not-a-body", prim,  # the lint rule's id: one kind
                f"joint {path} {rel_name} names {target} ({kind}), which is neither a rigid body nor inside one: "
                "the joint is refused (it would otherwise pin its other body to the world)", rel_name))
            screen.refused.add(path)
            return
        if screen.refuses(owner):
            screen.diagnostics.append(_err(
                "physics.joint.body-refused", prim,
                f"joint {path} {rel_name} attaches body {owner}, which was refused: the joint is refused too",
                rel_name))
            screen.refused.add(path)
            return
        owners.append(owner)
    if owners[0] is not None and owners[0] == owners[1]:
        screen.diagnostics.append(_err(
            "physics.joint.self", prim,
            f"joint {path} attaches body {owners[0]} to itself (body0 and body1 resolve to the same body): refused",
            "physics:body1"))
        screen.refused.add(path)
