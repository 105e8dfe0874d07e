"""Create: the typed ops that add a ready-to-use prim (Qt-free; the Create menu, the palette and
the API use the same recipes).

Every recipe returns one :class:`~luncosim_core.usd.ops.Batch` (one undo step) whose first op
adds the prim at a free name under the parent. A rigid body comes with its collider and mass; a
joint between two bodies gets both frames computed from the bodies' current world poses so it
starts seated (the anchor between the two bodies, no jump when the simulation resumes); a
PhysicsScene has lunar gravity; program prims point at a source (a Modelica model or a Rhai
scenario) the user picks or edits next. :func:`luncosim_core.usd.new_twin.new_twin` makes a whole
new twin with these recipes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pxr import Gf, Sdf, Tf, Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.usd.ops import (
    AddPrim,
    AddReference,
    Batch,
    Op,
    OpError,
    SetApiSchemas,
    SetAttribute,
    SetRelationship,
    SetTransform,
)

LUNAR_GRAVITY = 1.62  # m/s^2


@dataclass(frozen=True)
class Recipe:
    kind: str
    title: str
    base_name: str
    build: Callable[[str, Usd.Stage, tuple[float, float, float] | None], list[Op]]


def _fail(message: str, path: str = "") -> OpError:
    return OpError(Diagnostic("error", "op-create", message, path=path, source="usd"))


def free_name(stage: Usd.Stage, parent: str, base: str) -> str:
    """``base``, or ``base_2``, ``base_3`` ... : the first name no child of ``parent`` has."""
    parent_path = Sdf.Path(parent)
    name, n = base, 1
    while stage.GetPrimAtPath(parent_path.AppendChild(name)):
        n += 1
        name = f"{base}_{n}"
    return str(parent_path.AppendChild(name))


def _placed(path: str, at) -> list[Op]:
    return [SetTransform(path=path, translate=tuple(float(v) for v in at))] if at is not None else []


def _typed(type_name: str, extra: Callable[[str], list[Op]] = lambda _p: []):
    def build(path: str, _stage, at) -> list[Op]:
        return [AddPrim(path=path, type_name=type_name), *extra(path), *_placed(path, at)]
    return build



def lunar_gravity(path: str, up_axis: str = "Y") -> list[Op]:
    """The ops giving the PhysicsScene at ``path`` lunar gravity (1.62 m/s^2) pulling down the
    stage's up axis (``"Y"``: (0, -1, 0); ``"Z"``: (0, 0, -1))."""
    down = (0.0, 0.0, -1.0) if up_axis == "Z" else (0.0, -1.0, 0.0)
    return [SetAttribute(path=path, name="physics:gravityDirection", value=down, type_name="vector3f"),
            SetAttribute(path=path, name="physics:gravityMagnitude", value=LUNAR_GRAVITY, type_name="float")]


def _physics_scene(path: str, stage: Usd.Stage, _at) -> list[Op]:
    # not transformable: a PhysicsScene has no place, only a gravity along the stage's up axis
    return [AddPrim(path=path, type_name="PhysicsScene"), *lunar_gravity(path, str(UsdGeom.GetStageUpAxis(stage)))]


def _rigid_body(path: str) -> list[Op]:
    return [SetApiSchemas(path=path, schemas=("PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI")),
            SetAttribute(path=path, name="size", value=0.5, type_name="double"),
            SetAttribute(path=path, name="physics:mass", value=10.0, type_name="float")]


def _modelica(path: str) -> list[Op]:
    return [SetApiSchemas(path=path, schemas=("LunCoProgramAPI",)),
            SetAttribute(path=path, name="info:implementationSource", value="sourceCode", type_name="token"),
            SetAttribute(path=path, name="info:sourceCode", type_name="string",
                         value="model Program\n  input Real u = 0;\n  output Real y;\nequation\n  y = u;\nend Program;\n")]


def _rhai(path: str) -> list[Op]:
    return [SetApiSchemas(path=path, schemas=("LunCoProgramAPI",)),
            SetAttribute(path=path, name="info:implementationSource", value="sourceCode", type_name="token"),
            SetAttribute(path=path, name="info:sourceCode:language", value="rhai", type_name="token"),
            SetAttribute(path=path, name="info:sourceCode", type_name="string",
                         value="fn on_tick(dt) {\n}\n")]


RECIPES: dict[str, Recipe] = {r.kind: r for r in (
    Recipe("xform", "Xform", "Xform", _typed("Xform")),
    Recipe("scope", "Scope", "Scope", _typed("Scope")),
    Recipe("cube", "Cube", "Cube", _typed("Cube")),
    Recipe("sphere", "Sphere", "Sphere", _typed("Sphere")),
    Recipe("cylinder", "Cylinder", "Cylinder", _typed("Cylinder")),
    Recipe("capsule", "Capsule", "Capsule", _typed("Capsule")),
    Recipe("physics_scene", "Physics Scene (lunar gravity)", "PhysicsScene", _physics_scene),
    Recipe("rigid_body", "Rigid Body (box, collider, mass)", "Body", _typed("Cube", _rigid_body)),
    Recipe("modelica_program", "Modelica Program", "Program", _typed("Scope", _modelica)),
    Recipe("rhai_scenario", "Rhai Scenario", "Scenario", _typed("Scope", _rhai)),
)}


def create(kind: str, stage: Usd.Stage, parent: str, *, at: tuple[float, float, float] | None = None,
           name: str = "") -> Batch:
    """The ops that create a ``kind`` prim under ``parent`` (at ``at`` in the parent's frame)."""
    recipe = RECIPES.get(kind)
    if recipe is None:
        raise _fail(f"unknown prim kind {kind!r} (known: {', '.join(RECIPES)})")
    _check_parent(stage, parent)
    path = free_name(stage, parent, name or recipe.base_name)
    return Batch(ops=tuple(recipe.build(path, stage, at)), name=f"create {recipe.title.split(' (')[0]} {path}")


def create_reference(stage: Usd.Stage, parent: str, asset_uri: str, *, at=None, name: str = "") -> Batch:
    """An Xform under ``parent`` referencing ``asset_uri`` (its default prim), placed at ``at``."""
    _check_parent(stage, parent)
    stem = asset_uri.rsplit("/", 1)[-1].split(".")[0]
    base = name or (Tf.MakeValidIdentifier(stem) if stem else "Asset")
    path = free_name(stage, parent, base)
    ops: list[Op] = [AddPrim(path=path, type_name="Xform"), AddReference(path=path, asset_path=asset_uri),
                     *_placed(path, at if at is not None else (0.0, 0.0, 0.0))]
    return Batch(ops=tuple(ops), name=f"add {asset_uri} as {path}")


def create_joint(stage: Usd.Stage, parent: str, body0: str, body1: str, *, joint_type: str = "PhysicsRevoluteJoint",
                 axis: str = "Z") -> Batch:
    """A joint between two bodies, seated: the anchor halfway between them, each body's frame
    (localPos/localRot) computed from its current world pose so the constraint holds at once."""
    _check_parent(stage, parent)
    xfs = []
    for body in (body0, body1):
        prim = stage.GetPrimAtPath(body)
        if not prim or not prim.IsA(UsdGeom.Xformable):
            raise _fail(f"{body} is not a transformable prim; select two bodies", body)
        xfs.append(UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(Usd.TimeCode.Default()))
    anchor = (xfs[0].ExtractTranslation() + xfs[1].ExtractTranslation()) * 0.5
    path = free_name(stage, parent, "Joint")
    ops: list[Op] = [AddPrim(path=path, type_name=joint_type),
                     SetRelationship(path=path, name="physics:body0", targets=(body0,)),
                     SetRelationship(path=path, name="physics:body1", targets=(body1,))]
    if joint_type in ("PhysicsRevoluteJoint", "PhysicsPrismaticJoint"):
        ops.append(SetAttribute(path=path, name="physics:axis", value=axis, type_name="token"))
    for i, xf in enumerate(xfs):
        local = _frame_in(xf, anchor)
        ops.append(SetAttribute(path=path, name=f"physics:localPos{i}", value=tuple(local[0]), type_name="point3f"))
        ops.append(SetAttribute(path=path, name=f"physics:localRot{i}", value=local[1], type_name="quatf"))
    return Batch(ops=tuple(ops), name=f"create joint {path}")


def _frame_in(body_to_world: Gf.Matrix4d, anchor: Gf.Vec3d) -> tuple[Gf.Vec3d, tuple[float, ...]]:
    """The anchor point (world orientation) in a body's frame: position and w-x-y-z rotation."""
    clean = Gf.Matrix4d(body_to_world).RemoveScaleShear()
    world_to_body = clean.GetInverse()
    pos = world_to_body.Transform(anchor)
    q = world_to_body.ExtractRotationQuat()
    im = q.GetImaginary()
    return pos, (float(q.GetReal()), float(im[0]), float(im[1]), float(im[2]))


def _check_parent(stage: Usd.Stage, parent: str) -> None:
    if parent != "/" and (not Sdf.Path.IsValidPathString(parent) or not stage.GetPrimAtPath(parent)):
        raise _fail(f"parent {parent} does not exist", parent)
