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
(the solver's contacts and joints are unstable against it).

The stage's units come first: a ``metersPerUnit`` or ``kilogramsPerUnit`` that is not a finite
number in [:data:`MIN_UNIT`, :data:`MAX_UNIT`] refuses the **whole projection** (every length or
mass would be nonsense, and derived densities overflow): no body, collider or joint of the stage
is simulated. A collider's dimension (``size``, ``radius``, ``height``) that is not a single
finite number above 0, or whose extent in the world is over :data:`MAX_EXTENT_M`, and a mesh
point that is not finite refuse its body (or the static collider). A physics attribute whose value
is not of its schema's type (``double3 size``, a vector as ``physics:mass``) or holds NaN (or inf
where USD gives inf no meaning) refuses the body, collider, joint, PhysicsScene or physics
material that authors it; a revolute or prismatic joint whose ``physics:axis`` is not X, Y or Z is
refused. The same findings come from ``luncosim validate`` (lint) and from the projection.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from pxr import Tf, Usd, UsdGeom, UsdPhysics

from luncosim_core.diagnostics import Diagnostic

MAX_MASS_KG = 1.0e9  # more is refused (contacts against kilogram bodies tunnel and explode)
MIN_MASS_KG = 1.0e-6  # a body lighter than a milligram warns (kept: the solver is unstable against it)
MIN_SCALE = 1.0e-6  # a world scale component below this (or zero) is degenerate
MAX_SCALE = 1.0e6  # above this, shapes are wild
MIN_UNIT = 1.0e-6  # metersPerUnit / kilogramsPerUnit below this (or <= 0, NaN, inf) refuse the projection
MAX_UNIT = 1.0e6  # ... and above this
MAX_EXTENT_M = 1.0e6  # a collider dimension over this many metres in the world is refused
# Attributes whose value may be infinite by UsdPhysics' own convention (no limit, no break, "earth").
INFINITE_OK = re.compile(r"physics:(lowerLimit|upperLimit|maxForce|breakForce|breakTorque|gravityMagnitude|"
                         r"coneAngle[01]Limit|minDistance|maxDistance|centerOfMass|low|high)$")
GEOMETRY_ATTRS = ("size", "radius", "height", "axis", "points", "faceVertexCounts", "faceVertexIndices")
_DIMENSIONS = {"Cube": ("size",), "Sphere": ("radius",), "Cylinder": ("radius", "height"),
               "Capsule": ("radius", "height"), "Cone": ("radius", "height")}


@dataclass
class Screen:
    """What the screen found: diagnostics and the prim paths left out of the projection."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)
    everything: bool = False  # the stage's units are refused: nothing of it is projected
    ignored: set[str] = field(default_factory=set)  # PhysicsScenes and physics materials refused alone (not their children)

    def refuses(self, path: str) -> bool:
        """Is ``path`` a refused prim or under one?"""
        return self.everything or any(path == r or path.startswith(r + "/") for r in self.refused)


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


def _number(value) -> float | None:
    """``value`` as a float when it is a single number (not a bool, a vector or text), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _shown(value, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _authored_type(attr) -> str:
    """The type name the strongest opinion authors ``attr`` with (may differ from the schema's)."""
    for spec in attr.GetPropertyStack(Usd.TimeCode.Default()):
        name = str(getattr(spec, "typeName", "") or "")
        if name:
            return name
    return str(attr.GetTypeName())


def _kind(value_type: type) -> str:
    """A value's type as far as the physics reader cares: precision and int/float folded."""
    if value_type is bool:
        return "bool"
    if value_type in (int, float):
        return "number"
    if value_type is str:
        return "text"
    name = value_type.__name__
    if name in ("FloatArray", "DoubleArray", "HalfArray"):
        return "RealArray"
    return re.sub(r"(?<=Quat)[fdh]|(?<=\d)[fdhi]", "", name)  # Vec3f / Vec3d -> Vec3, Quatd -> Quat


def _type_problem(attr, value) -> str | None:
    """Why ``value`` is not of the type ``attr``'s schema declares (a sentence), or None."""
    declared = attr.GetTypeName()
    try:
        want = _kind(type(declared.defaultValue))
    except Exception:  # noqa: BLE001 - an unknown type name: nothing to compare against
        return None
    got = _kind(type(value))
    if got == want or (want == "bool" and got == "number"):
        return None
    return (f"authors {attr.GetName()} as {_authored_type(attr)} ({_shown(value)}), but its schema declares "
            f"{declared}")


def _nonfinite_problem(name: str, value) -> str | None:
    """Why ``value`` holds NaN (never meaningful) or inf (meaningful only for :data:`INFINITE_OK`)."""
    import numpy as np

    if isinstance(value, (str, bool)) or value is None:
        return None
    try:
        if hasattr(value, "GetReal") and hasattr(value, "GetImaginary"):
            values = np.array([value.GetReal(), *value.GetImaginary()], dtype=float)
        else:
            values = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if values.size == 0:
        return None
    if np.isnan(values).any():
        return f"{name} holds NaN"
    if np.isinf(values).any() and not INFINITE_OK.search(name):
        return f"{name} holds an infinite value"
    return None


def _value_problems(prim, names=None) -> list[tuple[str, str, str]]:
    """(code, attribute, why) for each physics attribute of ``prim`` whose value is not of its
    schema's type (``physics.attribute.type``) or is not finite (``physics.attribute.nonfinite``).
    Mass and density have their own check (:func:`_mass_problems`)."""
    out = []
    for attr in prim.GetAttributes():
        name = attr.GetName()
        if names is not None and name not in names:
            continue
        if names is None and not (name.startswith(("physics:", "drive:", "limit:", "physxRigidBody:"))
                                  or name in GEOMETRY_ATTRS):
            continue
        if name in ("physics:mass", "physics:density") or not attr.HasAuthoredValue():
            continue
        try:
            value = attr.Get()
        except Exception as exc:  # noqa: BLE001 - a value USD cannot give back
            out.append(("physics.attribute.type", name, f"its {name} cannot be read ({exc})"))
            continue
        if value is None:
            continue
        why = _type_problem(attr, value)
        if why is not None:
            out.append(("physics.attribute.type", name, why))
            continue
        why = _nonfinite_problem(name, value) if name not in ("size", "radius", "height") else None  # _shape_problem's
        if why is not None:
            out.append(("physics.attribute.nonfinite", name, why))
    return out


def _shape_problem(prim, scales: list[float] | None, mpu: float) -> tuple[str, str, str] | None:
    """(code, attribute, why) when a gprim's dimension is not a single finite number above 0 or
    its world extent is over :data:`MAX_EXTENT_M`; None when fine (or not a gprim we project)."""
    import numpy as np

    tname = prim.GetTypeName()
    grow = max(scales) * mpu if scales else None
    for name in _DIMENSIONS.get(tname, ()):
        attr = prim.GetAttribute(name)
        if not attr or not attr.HasAuthoredValue():
            continue  # the schema's fallback
        raw = attr.Get()
        v = _number(raw)
        if v is None:
            continue  # not a number: the type check says so
        if not math.isfinite(v) or v <= 0:
            return "physics.shape.invalid", name, f"its {name} = {v:g}; it must be a finite number above 0"
        if grow is not None and v * grow > MAX_EXTENT_M:
            return ("physics.shape.extreme", name, f"its {name} = {v:g} is {v * grow:.3g} m in the world, over the "
                    f"{MAX_EXTENT_M:g} m limit")
    if tname == "Mesh" and grow is not None:
        attr = prim.GetAttribute("points")
        pts = attr.Get() if attr and attr.HasAuthoredValue() else None
        try:
            arr = np.asarray(pts, dtype=float) if pts is not None else np.zeros(0)
        except (TypeError, ValueError):
            return None  # the type check says so
        if arr.size and np.isfinite(arr).all() and float(np.abs(arr).max()) * grow > MAX_EXTENT_M:
            return ("physics.shape.extreme", "points", f"its points reach {float(np.abs(arr).max()) * grow:.3g} m "
                    f"from its origin in the world, over the {MAX_EXTENT_M:g} m limit")
    return None


def _meta_site(stage, key: str) -> tuple[str, int | None]:
    """(file, line) of the layer that authors the stage metadata ``key`` (the session layer or
    the root layer); the line is found in a ``.usda`` file's text (None when not found)."""
    from luncosim_core.fsutil import UnreadableFile, read_text_limited

    layer = stage.GetRootLayer()
    session = stage.GetSessionLayer()
    if session is not None and session.pseudoRoot.HasInfo(key):
        layer = session
    where = layer.realPath or layer.identifier
    line = None
    if layer.realPath and layer.realPath.endswith(".usda"):
        try:
            text = read_text_limited(layer.realPath, "layer")
        except (UnreadableFile, OSError):
            text = ""
        found = re.search(rf"^\s*{key}\s*=", text, re.MULTILINE)
        if found:
            line = text.count("\n", 0, found.start()) + 1
    return where, line


def units_problems(stage) -> list[Diagnostic]:
    """The stage's ``metersPerUnit`` and ``kilogramsPerUnit``: each must be a finite number in
    [:data:`MIN_UNIT`, :data:`MAX_UNIT`]; otherwise an error that refuses the whole projection."""
    out = []
    for key, read, unit in (("metersPerUnit", UsdGeom.GetStageMetersPerUnit, "m"),
                            ("kilogramsPerUnit", UsdPhysics.GetStageKilogramsPerUnit, "kg")):
        try:
            raw = read(stage)
        except Exception as exc:  # noqa: BLE001 - metadata USD cannot give back
            raw = exc
        v = _number(raw)
        if v is not None and math.isfinite(v) and MIN_UNIT <= v <= MAX_UNIT:
            continue
        if v is None or not math.isfinite(v) or v <= 0:
            code, why = "physics.units.invalid", "it must be a finite number above 0"
        else:
            code, why = "physics.units.extreme", f"it must lie between {MIN_UNIT:g} and {MAX_UNIT:g}"
        layer, line = _meta_site(stage, key)
        shown = f"{v:g}" if v is not None else _shown(raw)
        out.append(Diagnostic(
            "error", code, f"the stage's {key} = {shown} ({unit} per stage unit): {why}; the physics projection "
            "is refused (no body, collider or joint of this stage is simulated)",
            layer=layer, line=line, source="physics", data={"metadata": key}))
    return out


def _mass_problems(prim, is_body: bool, kpu: float = 1.0) -> list[Diagnostic]:
    """Mass and density: not a number, NaN, inf, negative or over the limit refuse (errors);
    mass 0 warns. The limits apply to the mass in kilograms (the authored value times
    ``kilogramsPerUnit``)."""
    if not prim.HasAPI(UsdPhysics.MassAPI):
        return []
    out = []
    path = str(prim.GetPath())
    what = "body" if is_body else "collider"
    for name, unit in (("physics:mass", "kg"), ("physics:density", "kg/m^3")):
        attr = prim.GetAttribute(name)
        if not attr or not attr.HasAuthoredValue():
            continue
        raw = attr.Get()
        v = _number(raw)
        if v is None:
            if raw is not None:
                out.append(_err(f"physics.{name[8:]}.invalid", prim,
                                f"{what} {path} authors {name} as {_authored_type(attr)} ({_shown(raw)}), not a "
                                "single number: refused (left out of the simulation)", name))
            continue
        v_kg = v * kpu if name == "physics:mass" else v
        shown = f"{v:g} {unit}" if v_kg == v or not math.isfinite(v) else f"{v:g} (x kilogramsPerUnit {kpu:g} = {v_kg:g} kg)"
        if not math.isfinite(v) or v < 0:
            out.append(_err(f"physics.{name[8:]}.invalid", prim,
                            f"{what} {path} has {name} = {shown}; it must be a finite number >= 0: "
                            "refused (left out of the simulation)", name))
        elif name == "physics:mass" and v_kg > MAX_MASS_KG:
            out.append(_err("physics.mass.extreme", prim,
                            f"{what} {path} has {name} = {shown}, over the {MAX_MASS_KG:g} kg limit: refused "
                            "(contacts with it would tunnel or explode)", name))
        elif name == "physics:mass" and v == 0 and is_body:
            out.append(_err("physics.mass.zero", prim,
                            f"body {path} authors {name} = 0, which UsdPhysics reads as 'not set': its mass comes "
                            "from density and geometry", name, severity="warning"))
        elif name == "physics:mass" and v_kg < MIN_MASS_KG and is_body:
            out.append(_err("physics.mass.tiny", prim,
                            f"body {path} has {name} = {shown}, under the {MIN_MASS_KG:g} kg floor: kept as "
                            "authored, but contacts and joints against so light a body are unstable", name,
                            severity="warning"))
    return out


def _world_scales(prim, xcache) -> list[float] | None:
    try:
        m = xcache.GetLocalToWorldTransform(prim)
    except Exception:  # noqa: BLE001 - the transform check says so
        return None
    return [math.hypot(m[i][0], m[i][1], m[i][2]) for i in range(3)]


def screen_stage(stage: Usd.Stage, prims: list | None = None, xcache=None) -> Screen:
    """Check the composed stage's units, bodies, colliders, joints, scenes and physics materials
    (see the module doc). ``prims`` and ``xcache`` may be the reader's own (its traversal, its
    transform cache)."""
    screen = Screen()
    units = units_problems(stage)
    if units:
        screen.diagnostics += units
        screen.everything = True
        return screen
    mpu = float(UsdGeom.GetStageMetersPerUnit(stage))
    kpu = float(UsdPhysics.GetStageKilogramsPerUnit(stage))
    prims = prims if prims is not None else list(Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(
        Usd.PrimDefaultPredicate)))
    xcache = xcache or UsdGeom.XformCache(Usd.TimeCode.Default())
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
        kind = "body" if is_body else "collider of body " + owner if owner != path else "static collider"
        refused = f"{'the body ' + owner if owner != path or is_body else 'it'} is refused (left out of the simulation)"
        found = _mass_problems(prim, is_body, kpu)
        problems = _value_problems(prim)
        bad = _transform_problem(prim, xcache)
        if bad is not None:
            problems.append(bad)
        elif not any(attr in _DIMENSIONS.get(prim.GetTypeName(), ()) for _c, attr, _w in problems):
            shape = _shape_problem(prim, _world_scales(prim, xcache), mpu)
            if shape is not None:
                problems.append(shape)
        for code, attr, why in problems:
            why = why if why.startswith(("its ", "authors ")) else f"its {why}"
            found.append(_err(code, prim, f"{kind} {path}: {why}; {refused}", attr))
        errors = [d for d in found if d.is_error]
        screen.diagnostics += found
        if errors:
            screen.refused.add(owner)
    for prim in prims:
        if prim.IsA(UsdPhysics.Joint):
            _screen_joint(prim, body_paths, screen)
        elif prim.IsA(UsdPhysics.Scene):
            _screen_other(prim, "PhysicsScene", "the scene is ignored: the runtime's default gravity applies", screen)
        elif prim.HasAPI(UsdPhysics.MaterialAPI) and not screen.refuses(str(prim.GetPath())):
            _screen_other(prim, "physics material", "the material is ignored: colliders bound to it use the "
                          "default friction and restitution", screen)
    return screen


def _screen_other(prim, kind: str, policy: str, screen: Screen) -> None:
    """A PhysicsScene or physics material whose values are not of their type or not finite."""
    path = str(prim.GetPath())
    for code, attr, why in _value_problems(prim):
        why = why if why.startswith(("its ", "authors ")) else f"its {why}"
        screen.diagnostics.append(_err(code, prim, f"{kind} {path}: {why}; refused ({policy})", attr))
        screen.ignored.add(path)


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
    for code, attr, why in _value_problems(prim):
        why = why if why.startswith(("its ", "authors ")) else f"its {why}"
        screen.diagnostics.append(_err(code, prim, f"joint {path}: {why}; the joint is refused", attr))
        screen.refused.add(path)
    if path in screen.refused:
        return
    if prim.IsA(UsdPhysics.RevoluteJoint) or prim.IsA(UsdPhysics.PrismaticJoint):
        axis = prim.GetAttribute("physics:axis")
        value = axis.Get() if axis and axis.HasAuthoredValue() else "X"
        if value not in ("X", "Y", "Z"):
            screen.diagnostics.append(_err(
                "physics.joint.invalid-axis", prim,
                f"joint {path} has physics:axis = {_shown(value)!r}; a revolute or prismatic joint's axis is X, Y or "
                "Z: the joint is refused", "physics:axis"))
            screen.refused.add(path)
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
