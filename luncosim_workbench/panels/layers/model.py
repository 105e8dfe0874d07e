"""The layer stack of the scene document as rows (no Qt): the view, runtime and base layers, the
base layer's sublayers, and every other layer the composition uses (referenced and payload
assets), strongest first, each with its file, whether it is saved and how, whether it has unsaved
changes, how many opinions it holds about the selected prim (the strongest one marked) and what it
says about the selected property (the value it authors; the one that wins marked).

The layers the composition uses are ordered by strength (:func:`strength_order`: as they first
contribute to a prim, walking the stage, each prim's opinions strongest first), not by file name."""

from __future__ import annotations

from dataclasses import dataclass

from pxr import Sdf, Usd

from luncosim_core.usd.document import UsdDocument

ROLES = {
    "view": "presentation; never saved, never journaled",
    "runtime": "durable edits kept beside the scene",
    "base": "the scene file (Save writes it)",
    "sublayer": "a sublayer of the scene",
    "used": "composed through a reference or payload (read-only here)",
}


@dataclass(frozen=True)
class LayerRow:
    role: str
    name: str
    file: str  # "" for a layer in memory
    depth: int = 0
    dirty: bool = False
    editable: bool = False  # can be the edit target
    opinions: int = 0  # specs about the selected prim in this layer
    strongest: bool = False  # holds the selected prim's strongest opinion
    property_opinion: str = ""  # what this layer authors for the selected property ("" nothing)
    property_wins: bool = False  # that opinion is the property's resolved value

    @property
    def note(self) -> str:
        return ROLES[self.role]


def _file(layer: Sdf.Layer) -> str:
    return "" if layer.anonymous else (layer.realPath or layer.identifier)


def _sublayers(layer: Sdf.Layer, depth: int, seen: set[str], out: list[tuple[Sdf.Layer, int]]) -> None:
    for sub_path in layer.subLayerPaths:
        sub = Sdf.Layer.FindOrOpenRelativeToLayer(layer, sub_path)
        if sub is None or sub.identifier in seen:
            continue
        seen.add(sub.identifier)
        out.append((sub, depth))
        _sublayers(sub, depth + 1, seen, out)


def strength_order(stage: Usd.Stage) -> dict[str, int]:
    """Layer identifier -> rank (0 strongest): the order layers first contribute opinions while
    walking the stage's prims, each prim's stack strongest first (its layer stack, then its arcs:
    the first reference before the second)."""
    rank: dict[str, int] = {}
    for prim in stage.TraverseAll():
        for spec in prim.GetPrimStack():
            rank.setdefault(spec.layer.identifier, len(rank))
    return rank


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, Sdf.AssetPath):
        return value.path
    if hasattr(value, "__len__") and not isinstance(value, str) and len(value) <= 4:
        return "(" + ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) + ")"
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return text if len(text) < 80 else text[:77] + "..."


def _items(paths) -> list[str]:
    """The paths a list-edited field names in one layer (explicit, prepended, appended, added)."""
    return [str(p) for p in (*paths.explicitItems, *paths.prependedItems, *paths.appendedItems, *paths.addedItems)]


def property_opinions(doc: UsdDocument, prop_path: str) -> tuple[dict[str, str], str]:
    """What each layer authors for the property ``/Prim.attr`` (identifier -> text: its value, its
    connections or targets, else "declared"), and the identifier of the one that wins."""
    if not prop_path or not Sdf.Path.IsValidPathString(prop_path) or not Sdf.Path(prop_path).IsPropertyPath():
        return {}, ""
    prop = doc.stage.GetPropertyAtPath(prop_path)
    if not prop:
        return {}, ""
    out: dict[str, str] = {}
    wins = ""
    for spec in prop.GetPropertyStack(Usd.TimeCode.Default()):
        ident = spec.layer.identifier
        if isinstance(spec, Sdf.AttributeSpec) and spec.HasDefaultValue():
            text, counts = _text(spec.default), True
        elif isinstance(spec, Sdf.AttributeSpec) and _items(spec.connectionPathList):
            text, counts = "<- " + ", ".join(_items(spec.connectionPathList)), True
        elif isinstance(spec, Sdf.RelationshipSpec) and _items(spec.targetPathList):
            text, counts = ", ".join(_items(spec.targetPathList)), True
        else:
            text, counts = "declared", False
        out.setdefault(ident, text)
        if counts and not wins:
            wins = ident
    return out, wins


def layer_rows(doc: UsdDocument, prim_path: str = "", prop_path: str = "",
               order: dict[str, int] | None = None) -> list[LayerRow]:
    """Strongest first: view, runtime, base and its sublayers, then the other layers composed (by
    ``order``, :func:`strength_order` when not given). ``prop_path`` (``/Prim.attr``): the selected
    property, whose opinion each layer shows."""
    stack = []
    prim = doc.stage.GetPrimAtPath(prim_path) if prim_path else None
    if prim:
        stack = [spec.layer.identifier for spec in prim.GetPrimStack()]
    strongest = stack[0] if stack else ""
    said, wins = property_opinions(doc, prop_path)

    def row(role, layer, depth=0, editable=False, runtime_file=""):
        name = {"view": "view", "runtime": "runtime", "base": "base"}.get(role) or \
            (layer.GetDisplayName() or layer.identifier)
        return LayerRow(role, name, runtime_file or _file(layer), depth, bool(layer.dirty) if role == "base" else False,
                        editable, stack.count(layer.identifier), layer.identifier == strongest,
                        said.get(layer.identifier, ""), layer.identifier == wins)

    sidecar = str(doc.runtime_sidecar) if doc.persist_runtime and doc.runtime_sidecar else ""
    rows = [row("view", doc.view), row("runtime", doc.runtime, editable=True, runtime_file=sidecar),
            row("base", doc.base, editable=True)]
    seen = {doc.view.identifier, doc.runtime.identifier, doc.base.identifier, doc.session.identifier}
    subs: list[tuple[Sdf.Layer, int]] = []
    _sublayers(doc.base, 1, seen, subs)
    rows += [row("sublayer", layer, depth) for layer, depth in subs]
    rank = order if order is not None else strength_order(doc.stage)
    used = sorted((layer for layer in doc.stage.GetUsedLayers() if layer.identifier not in seen),
                  key=lambda layer: (rank.get(layer.identifier, len(rank)), _file(layer) or layer.identifier))
    rows += [row("used", layer) for layer in used]
    return rows
