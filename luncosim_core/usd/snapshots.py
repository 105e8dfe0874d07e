"""Exact spec-level snapshots: what a typed op's inverse restores.

A snapshot records one spec of one layer as it was before an op: absent, or its fields (and, for
prims taken whole, a copy of its subtree and its position among its siblings). Restoring puts the
layer back byte-for-byte, which is what makes every op's inverse exact.
"""

from __future__ import annotations

from dataclasses import dataclass

from pxr import Sdf

_RESTORE_ROOT = "/__luncosim_restore__"
# fields a spec's children/ownership manage; never copied as "metadata"
_CHILD_FIELDS = {"primChildren", "properties", "variantSetChildren", "variantChildren", "targetChildren", "connectionChildren"}


def top_missing_prim(layer: Sdf.Layer, path: Sdf.Path) -> Sdf.Path | None:
    """The highest ancestor-or-self prim path of ``path`` that has no spec in ``layer``."""
    prim_path = path.GetPrimPath()
    missing: Sdf.Path | None = None
    for ancestor in prim_path.GetPrefixes():  # root-most first
        if not layer.GetPrimAtPath(ancestor):
            missing = ancestor
            break
    return missing


_LIST_FIELDS = {"connectionPaths": "connectionPathList", "targetPaths": "targetPathList"}


def _fields(spec) -> dict:
    out = {}
    for key in spec.ListInfoKeys():
        if key in _CHILD_FIELDS:
            continue
        if key in _LIST_FIELDS:
            editor = getattr(spec, _LIST_FIELDS[key])
            out[key] = (
                editor.isExplicit,
                tuple(editor.explicitItems),
                tuple(editor.prependedItems),
                tuple(editor.appendedItems),
                tuple(editor.deletedItems),
            )
            continue
        out[key] = spec.GetInfo(key)
    return out


def _set_list_field(spec, key: str, value) -> None:
    editor = getattr(spec, _LIST_FIELDS[key])
    explicit, items, prepended, appended, deleted = value
    editor.ClearEdits()
    if explicit:
        editor.ClearEditsAndMakeExplicit()
        editor.explicitItems[:] = list(items)
    else:
        editor.prependedItems[:] = list(prepended)
        editor.appendedItems[:] = list(appended)
        editor.deletedItems[:] = list(deleted)


@dataclass(frozen=True)
class SpecSnapshot:
    """One spec as it was: ``existed`` False means "remove whatever is there now"."""

    path: str
    existed: bool
    whole: bool = False  # prim subtree copied (restore re-creates it at ``index``)
    fields: tuple = ()  # (key, value) pairs for a fields-only restore
    scratch: Sdf.Layer | None = None
    index: int = -1

    # -- capture ---------------------------------------------------------------------
    @staticmethod
    def absent(path: Sdf.Path | str) -> SpecSnapshot:
        return SpecSnapshot(str(path), existed=False)

    @staticmethod
    def capture_fields(layer: Sdf.Layer, path: Sdf.Path | str) -> SpecSnapshot:
        """Fields only (a prim's metadata or a property's fields); children are untouched."""
        path = Sdf.Path(str(path))
        spec = layer.GetObjectAtPath(path)
        if not spec:
            return SpecSnapshot.absent(path)
        return SpecSnapshot(str(path), existed=True, fields=tuple(_fields(spec).items()))

    @staticmethod
    def capture_subtree(layer: Sdf.Layer, path: Sdf.Path | str) -> SpecSnapshot:
        """A prim and all below it, with its index among its siblings."""
        path = Sdf.Path(str(path))
        spec = layer.GetPrimAtPath(path)
        if not spec:
            return SpecSnapshot.absent(path)
        scratch = Sdf.Layer.CreateAnonymous("luncosim-undo")
        Sdf.CreatePrimInLayer(scratch, "/S")
        Sdf.CopySpec(layer, path, scratch, "/S")
        parent = layer.GetPrimAtPath(path.GetParentPath()) if path.GetParentPath() != Sdf.Path.absoluteRootPath else layer.pseudoRoot
        names = [child.name for child in parent.nameChildren]
        return SpecSnapshot(str(path), existed=True, whole=True, scratch=scratch, index=names.index(path.name))

    # -- restore ---------------------------------------------------------------------
    def restore(self, layer: Sdf.Layer) -> None:
        path = Sdf.Path(self.path)
        current = layer.GetObjectAtPath(path)
        if not self.existed:
            if current:
                _remove(layer, path)
            return
        if self.whole:
            if current:
                _remove(layer, path)
            Sdf.CreatePrimInLayer(layer, path)
            Sdf.CopySpec(self.scratch, "/S", layer, path)  # remaps /S/... back onto path
            _move_to_index(layer, path, self.index)
            return
        wanted = dict(self.fields)
        if not current:
            current = _create_spec(layer, path, wanted)
        have = _fields(current)
        for key in have:
            if key not in wanted:
                if key in _LIST_FIELDS:
                    getattr(current, _LIST_FIELDS[key]).ClearEdits()
                else:
                    current.ClearInfo(key)
        for key, value in wanted.items():
            if have.get(key) == value and key in have:
                continue
            if key in _LIST_FIELDS:
                _set_list_field(current, key, value)
            elif key == "default" and isinstance(current, Sdf.AttributeSpec):
                current.default = value  # converted to the attribute's own value type
            else:
                current.SetInfo(key, value)


def _siblings(layer: Sdf.Layer, path: Sdf.Path) -> list[str]:
    parent = path.GetParentPath()
    spec = layer.pseudoRoot if parent == Sdf.Path.absoluteRootPath else layer.GetPrimAtPath(parent)
    return [child.name for child in spec.nameChildren]


def _move_to_index(layer: Sdf.Layer, path: Sdf.Path, index: int) -> None:
    """Put the (last) child ``path`` back at ``index`` by cycling the siblings after it.

    Namespace moves do not rewrite paths stored in the moved specs, so cycling siblings through a
    temporary parent and back leaves their content untouched.
    """
    names = _siblings(layer, path)
    after = [n for n in names[index:] if n != path.name]
    if not after:
        return
    parent = path.GetParentPath()
    Sdf.CreatePrimInLayer(layer, _RESTORE_ROOT)
    tmp_root = Sdf.Path(_RESTORE_ROOT)
    for name in after:
        for src, dst_parent in ((parent.AppendChild(name), tmp_root), (tmp_root.AppendChild(name), parent)):
            edit = Sdf.BatchNamespaceEdit()
            edit.Add(Sdf.NamespaceEdit.ReparentAndRename(src, dst_parent, name, -1))
            if not layer.Apply(edit):
                raise RuntimeError(f"cannot reorder {src}")
    _remove(layer, tmp_root)


def _create_spec(layer: Sdf.Layer, path: Sdf.Path, fields: dict):
    """Re-create a spec that a fields snapshot describes (its parent must exist)."""
    if not path.IsPropertyPath():
        return Sdf.CreatePrimInLayer(layer, path)
    prim = layer.GetPrimAtPath(path.GetPrimPath())
    if not prim:
        raise RuntimeError(f"cannot restore {path}: its prim has no spec")
    custom = bool(fields.get("custom", False))
    if "typeName" in fields:
        variability = fields.get("variability", Sdf.VariabilityVarying)
        return Sdf.AttributeSpec(prim, path.name, Sdf.ValueTypeNames.Find(str(fields["typeName"])), variability, custom)
    return Sdf.RelationshipSpec(prim, path.name, custom)


def _remove(layer: Sdf.Layer, path: Sdf.Path) -> None:
    if path.IsPropertyPath():
        prim = layer.GetPrimAtPath(path.GetPrimPath())
        prop = layer.GetPropertyAtPath(path)
        if prim and prop:
            prim.RemoveProperty(prop)
        return
    edit = Sdf.BatchNamespaceEdit()
    edit.Add(Sdf.NamespaceEdit.Remove(path))
    if not layer.Apply(edit):
        raise RuntimeError(f"cannot remove {path}")
