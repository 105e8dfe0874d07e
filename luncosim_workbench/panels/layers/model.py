"""The layer stack of the scene document as rows (no Qt): the view, runtime and base layers, the
base layer's sublayers, and every other layer the composition uses (referenced and payload
assets), strongest first, each with its file, whether it is saved and how, whether it has unsaved
changes, and how many opinions it holds about the selected prim (the strongest one marked)."""

from __future__ import annotations

from dataclasses import dataclass

from pxr import Sdf

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


def layer_rows(doc: UsdDocument, prim_path: str = "") -> list[LayerRow]:
    """Strongest first: view, runtime, base and its sublayers, then the other layers composed."""
    stack = []
    prim = doc.stage.GetPrimAtPath(prim_path) if prim_path else None
    if prim:
        stack = [spec.layer.identifier for spec in prim.GetPrimStack()]
    strongest = stack[0] if stack else ""

    def row(role, layer, depth=0, editable=False, runtime_file=""):
        name = {"view": "view", "runtime": "runtime", "base": "base"}.get(role) or \
            (layer.GetDisplayName() or layer.identifier)
        return LayerRow(role, name, runtime_file or _file(layer), depth, bool(layer.dirty) if role == "base" else False,
                        editable, stack.count(layer.identifier), layer.identifier == strongest)

    sidecar = str(doc.runtime_sidecar) if doc.persist_runtime and doc.runtime_sidecar else ""
    rows = [row("view", doc.view), row("runtime", doc.runtime, editable=True, runtime_file=sidecar),
            row("base", doc.base, editable=True)]
    seen = {doc.view.identifier, doc.runtime.identifier, doc.base.identifier, doc.session.identifier}
    subs: list[tuple[Sdf.Layer, int]] = []
    _sublayers(doc.base, 1, seen, subs)
    rows += [row("sublayer", layer, depth) for layer, depth in subs]
    used = sorted((layer for layer in doc.stage.GetUsedLayers() if layer.identifier not in seen),
                  key=lambda layer: _file(layer) or layer.identifier)
    rows += [row("used", layer) for layer in used]
    return rows
