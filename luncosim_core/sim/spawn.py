"""``SpawnEntity``: a catalog entry added to the running scene as one structural edit.

The catalog is what the assets say about themselves: a ``*.usda`` under the twin root or the
LunCoSim root whose default prim declares ``bool lunco:spawnable = true`` is an entry, keyed by its
file stem (``vessels/rovers/ackermann_rover.usda`` is ``ackermann_rover``; the twin's file wins
over LunCoSim's, then the first by relative path). A spawn authors, on the runtime layer, one prim
under the scene's default prim that references the asset, carries ``lunco:catalogId`` and
``lunco:displayName`` (the stem in title case, ``Ackermann Rover``) and the requested pose; the
simulation re-projects keeping its clock and the motion of everything else (the same path as any
structural edit). The new prim is named ``<stem>_<n>`` with the lowest free ``n``: deterministic.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from pxr import Gf, Sdf

from luncosim_core.api.commands import SpawnEntity
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.usd.ops import AddPrim, AddReference, Batch, SetAttribute, SetTransform

_ENTRY_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_SPAWNABLE = re.compile(r"\blunco:spawnable\s*=\s*(true|1)\b")


class SpawnRefused(ValueError):
    """A spawn that cannot happen; ``diagnostic`` says what and where."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.diagnostic = Diagnostic("error", code, f"SpawnEntity: {message}", source="runtime")


@dataclass(frozen=True)
class CatalogEntry:
    entry_id: str
    asset: str  # the authored reference, lunco://... or twin://...
    file: Path
    display_name: str


def display_name(entry_id: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in entry_id.split("_") if w)


def _is_spawnable(file: Path) -> bool:
    """The default prim of ``file`` declares ``lunco:spawnable = true``. Only a regular UTF-8 file
    under the layer size cap is read; :class:`~luncosim_core.fsutil.UnreadableFile` (or OSError)
    says why another is not."""
    from luncosim_core.fsutil import MAX_LAYER_BYTES, read_text_limited

    if not _SPAWNABLE.search(read_text_limited(file, "catalog entry", MAX_LAYER_BYTES)):
        return False
    layer = Sdf.Layer.FindOrOpen(str(file))
    if layer is None or not layer.defaultPrim:
        return False
    spec = layer.GetPrimAtPath(Sdf.Path.absoluteRootPath.AppendChild(layer.defaultPrim))
    attr = spec.attributes.get("lunco:spawnable") if spec else None
    return bool(attr is not None and attr.default)


def find_entry(roots, entry_id: str) -> CatalogEntry:
    """The catalog entry ``entry_id`` names; raises :class:`SpawnRefused`."""
    if not isinstance(entry_id, str) or not _ENTRY_ID.match(entry_id) or entry_id in (".", ".."):
        raise SpawnRefused("spawn-bad-entry", f"entry_id {entry_id!r} is not a catalog id (a file stem such as "
                           "'ackermann_rover'; no paths)")
    bases = [(s, r) for s, r in (("twin", getattr(roots, "twin_root", None)), ("lunco", getattr(roots, "lunco_root", None)))
             if r is not None]
    from luncosim_core.fsutil import UnreadableFile

    unreadable: list[str] = []
    for scheme, root in bases:
        for file in sorted(Path(root).rglob(f"{entry_id}.usda"), key=lambda f: f.relative_to(root).as_posix()):
            rel = file.relative_to(root).as_posix()
            if any(part.startswith(".") for part in file.relative_to(root).parts):
                continue
            asset = f"{scheme}://{rel}"
            check = roots.resolve_file(asset)
            if check.diagnostic is not None or check.path is None:
                if check.diagnostic is not None and check.diagnostic.code == "asset-not-a-file":
                    unreadable.append(check.diagnostic.message)
                continue  # e.g. a link escaping the root: never an entry
            try:
                if _is_spawnable(check.path):
                    return CatalogEntry(entry_id, asset, check.path, display_name(entry_id))
            except (OSError, UnreadableFile) as exc:
                unreadable.append(str(exc) if isinstance(exc, UnreadableFile) else f"{check.path}: {exc.strerror or exc}")
    if unreadable:
        raise SpawnRefused("spawn-entry-unreadable", f"catalog entry '{entry_id}' cannot be read: {unreadable[0]}")
    where = ", ".join(str(r) for _, r in bases) or "(no asset roots)"
    raise SpawnRefused("spawn-unknown-entry", f"unknown catalog entry '{entry_id}': no {entry_id}.usda declaring "
                       f"lunco:spawnable = true under {where}")


def _numbers(value, n: int, what: str) -> tuple[float, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise SpawnRefused("spawn-bad-pose", f"{what} must be {n} numbers, got {value!r}")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise SpawnRefused("spawn-bad-pose", f"{what} must be {n} finite numbers, got {value!r}")
        out.append(float(v))
    return tuple(out)


def rotate_xyz(rotation) -> tuple[float, float, float] | None:
    """USD ``rotateXYZ`` angles (degrees) of an ``(x, y, z, w)`` quaternion; None for identity."""
    if rotation is None:
        return None
    x, y, z, w = _numbers(rotation, 4, "rotation")
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if norm < 1e-9:
        raise SpawnRefused("spawn-bad-pose", f"rotation {rotation!r} is not a unit quaternion (norm 0)")
    q = Gf.Quatd(w / norm, x / norm, y / norm, z / norm)
    angles = Gf.Rotation(q).Decompose(Gf.Vec3d.XAxis(), Gf.Vec3d.YAxis(), Gf.Vec3d.ZAxis())
    return (float(angles[0]), float(angles[1]), float(angles[2]))


def _free_name(stage, parent: str, stem: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_]", "_", stem)
    if base[:1].isdigit():
        base = "_" + base
    n = 1
    while stage.GetPrimAtPath(f"{parent.rstrip('/')}/{base}_{n}"):
        n += 1
    return f"{base}_{n}"


def spawn_op(stage, roots, cmd: SpawnEntity, extra: tuple = ()) -> tuple[Batch, str, CatalogEntry]:
    """The runtime-layer edit that spawns ``cmd`` on ``stage``: (op, new prim path, entry);
    ``extra`` attributes ``(name, type, value)`` are authored on the new prim too."""
    entry = find_entry(roots, cmd.entry_id)
    position = _numbers(cmd.position, 3, "position")
    angles = rotate_xyz(cmd.rotation)
    root = stage.GetDefaultPrim()
    parent = str(root.GetPath()) if root else "/"
    path = f"{parent.rstrip('/')}/{_free_name(stage, parent, entry.entry_id)}"
    ops = (
        AddPrim(path=path, type_name="Xform", target="runtime"),
        AddReference(path=path, asset_path=entry.asset, target="runtime"),
        SetAttribute(path=path, name="lunco:catalogId", type_name="string", value=entry.entry_id, target="runtime"),
        SetAttribute(path=path, name="lunco:displayName", type_name="string", value=entry.display_name,
                     target="runtime"),
        *(SetAttribute(path=path, name=n, type_name=t, value=v, target="runtime") for n, t, v in extra),
        SetTransform(path=path, translate=position, rotate_xyz=angles, target="runtime"),
    )
    return Batch(ops=ops, name=f"Spawn {entry.display_name}", target="runtime"), path, entry


def execute_spawn(sim, cmd: SpawnEntity, tick: int, seq: int, extra: tuple = ()):
    """Admit a :class:`SpawnEntity` on ``sim``: the edit on its document, then a re-projection
    that keeps time (new programs of the entity start; everything else keeps its state)."""
    from luncosim_core.api.commands import CommandResult
    from luncosim_core.diagnostics import DiagnosticError

    if sim.document is None:
        return CommandResult(False, None, (Diagnostic("error", "no-document", f"{cmd.name}: this simulation has no "
                                                      "document to author the entity in", source="runtime"),), tick, seq)
    try:
        op, path, entry = spawn_op(sim.document.stage, sim.roots, cmd, extra)
        sim.document.apply(op)
    except SpawnRefused as err:
        return CommandResult(False, None, (err.diagnostic,), tick, seq)
    except DiagnosticError as err:
        return CommandResult(False, None, tuple(err.diagnostics), tick, seq)
    sim.host.forget_paths()
    if sim.in_tick:  # issued by a script mid-tick: the world re-projects when the tick ends
        sim.deferred_changed.append(path)
    else:
        sim.rebuild_keep_time(changed=(path,))
    return CommandResult(True, {"path": path, "entry_id": entry.entry_id, "display_name": entry.display_name,
                                "asset": entry.asset}, (), tick, seq)
