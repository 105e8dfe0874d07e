"""New Twin: a folder holding ``twin.toml`` and a first scene ready to simulate, and the
``luncosim new`` verb that makes one.

:func:`new_twin` is the core recipe (the workbench's File > New Twin calls it, then opens the
folder): the scene has the stage metadata the linter asks for (``defaultPrim``, ``upAxis``,
``metersPerUnit``), one assembly root prim, a PhysicsScene at lunar gravity (1.62 m/s^2 down the
up axis, the Create menu's recipe) and, unless ``ground=False``, a ground collider (a 100 m by
100 m slab whose top face is at height 0). ``luncosim validate`` accepts it with no error.
Everything is written to a temporary sibling folder and renamed into place, so a failure leaves
nothing behind; a folder that exists and is not empty is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pxr import Kind, Sdf, Tf, Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.twin.manifest import MANIFEST_NAME, load_manifest
from luncosim_core.usd.create import create
from luncosim_core.usd.ops import AddPrim, Batch, Op, SetApiSchemas, SetAttribute, SetTransform

UP_AXES = ("Y", "Z")
GROUND_SIZE = 100.0  # m, the ground slab's width and depth


@dataclass(frozen=True)
class NewTwin:
    """What :func:`new_twin` made: the twin folder, its manifest and its (default) scene."""

    root: Path
    manifest: Path
    scene: Path


class _Stage:
    """The document interface the typed ops need, over an in-memory stage's root layer."""

    roots = None

    def __init__(self, stage: Usd.Stage) -> None:
        self.stage = stage

    def layer_for(self, _target: str) -> Sdf.Layer:
        return self.stage.GetRootLayer()


def _fail(code: str, message: str, folder: Path) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", code, message, layer=str(folder), source="twin"))


def _scene_file_name(name: str) -> str:
    return (re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "scene") + ".usda"


def _root_prim_name(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name)
    joined = "".join(w[:1].upper() + w[1:] for w in words)
    return Tf.MakeValidIdentifier(joined) if joined else "World"


def _ground(path: str, up_axis: str) -> list[Op]:
    down_half = (0.0, 0.0, -0.5) if up_axis == "Z" else (0.0, -0.5, 0.0)
    slab = (GROUND_SIZE, GROUND_SIZE, 1.0) if up_axis == "Z" else (GROUND_SIZE, 1.0, GROUND_SIZE)
    return [AddPrim(path=path, type_name="Cube"),
            SetApiSchemas(path=path, schemas=("PhysicsCollisionAPI",)),
            SetAttribute(path=path, name="size", value=1.0, type_name="double"),
            SetTransform(path=path, translate=down_half, scale=slab),
            SetAttribute(path=path, name="primvars:displayColor", value=[(0.52, 0.51, 0.49)], type_name="color3f[]")]


def scene_text(name: str, *, ground: bool = True, up_axis: str = "Y") -> str:
    """The first scene of a new twin named ``name`` (USD text)."""
    stage = Usd.Stage.CreateInMemory()
    root = f"/{_root_prim_name(name)}"
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z if up_axis == "Z" else UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    layer = stage.GetRootLayer()
    layer.defaultPrim = root[1:]
    stage.SetMetadata("documentation", f"{name}: a new twin (lunar gravity{', a ground collider' if ground else ''}).")
    doc = _Stage(stage)
    AddPrim(path=root, type_name="Xform").apply(doc)
    Usd.ModelAPI(stage.GetPrimAtPath(root)).SetKind(Kind.Tokens.assembly)
    create("physics_scene", stage, root).apply(doc)
    if ground:
        Batch(ops=tuple(_ground(f"{root}/Ground", up_axis))).apply(doc)
    return layer.ExportToString()


def manifest_text(name: str, scene: str) -> str:
    """``twin.toml`` of a new twin whose default scene is ``scene`` (twin-relative)."""
    return (f"# Made by `luncosim new`; see docs/cli.md for the keys.\n"
            f"name = {json.dumps(name, ensure_ascii=False)}\n"
            f'version = "0.1.0"\n'
            f'description = ""\n\n'
            f"[usd]\n"
            f"default_scene = {json.dumps(scene)}\n"
            f'scenes = ["scenes/*.usda"]\n'
            f'composition_policy = "allow_partial"\n')


def new_twin(folder: str | Path, name: str = "", *, ground: bool = True, up_axis: str = "Y") -> NewTwin:
    """Make a new twin in ``folder`` (created, or an existing empty folder) named ``name`` (the
    folder's name when empty): ``twin.toml`` and ``scenes/<name>.usda`` as its default scene.

    Raises :class:`DiagnosticError` (nothing written) when ``folder`` is a file or a folder that
    is not empty, ``name`` has a control character, or ``up_axis`` is not ``"Y"`` or ``"Z"``."""
    folder = Path(folder).expanduser().absolute()
    name = name.strip() or folder.name
    if up_axis not in UP_AXES:
        raise _fail("twin-new-up-axis", f"up axis {up_axis!r} is not one of {', '.join(UP_AXES)}", folder)
    if not name or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise _fail("twin-new-name", f"twin name {name!r} is empty or has a control character", folder)
    if folder.exists() and not folder.is_dir():
        raise _fail("twin-new-not-a-folder", f"{folder} exists and is not a folder", folder)
    if folder.is_dir() and any(folder.iterdir()):
        count = sum(1 for _ in folder.iterdir())
        raise _fail("twin-new-not-empty", f"{folder} is not empty ({count} entr{'y' if count == 1 else 'ies'}); "
                                          "give a new or an empty folder", folder)
    scene_rel = f"scenes/{_scene_file_name(name)}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=folder.parent))
    try:
        (staging / "scenes").mkdir()
        (staging / scene_rel).write_text(scene_text(name, ground=ground, up_axis=up_axis), encoding="utf-8")
        (staging / MANIFEST_NAME).write_text(manifest_text(name, scene_rel), encoding="utf-8")
        load_manifest(staging / MANIFEST_NAME)  # what it wrote reads back as a valid manifest
        os.chmod(staging, 0o777 & ~_umask())
        os.rename(staging, folder)  # replaces an empty folder; refuses one that filled up meanwhile
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise _fail("twin-new-write", f"cannot make the twin in {folder}: {exc}", folder) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return NewTwin(root=folder, manifest=folder / MANIFEST_NAME, scene=folder / scene_rel)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------------------------- the verb
def add_new_verb(sub) -> None:
    p = sub.add_parser("new", help="make a new twin: twin.toml and a scene at lunar gravity with a ground")
    p.add_argument("folder", metavar="TWIN_DIR", help="the twin folder to make (new, or an empty folder)")
    p.add_argument("--name", default="", help="the twin's name (default: the folder's name)")
    p.add_argument("--no-ground", dest="ground", action="store_false", help="no ground collider in the scene")
    p.add_argument("--up-axis", choices=UP_AXES, default="Y", help="the scene's up axis (default Y)")
    p.set_defaults(func=cmd_new)


def cmd_new(args: argparse.Namespace) -> int:
    try:
        made = new_twin(args.folder, args.name, ground=args.ground, up_axis=args.up_axis)
    except DiagnosticError as exc:
        for d in exc.diagnostics:
            print(f"luncosim new: {d}", file=sys.stderr)
        return 1
    print(f"{made.root}: new twin with {made.manifest.name} and {made.scene.relative_to(made.root)} "
          f"(open it: python -m luncosim_workbench {made.root})")
    return 0
