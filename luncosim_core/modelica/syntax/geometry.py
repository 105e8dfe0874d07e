"""Reading a component's Placement as numbers, and the op that moves it (keeping its form)."""

from __future__ import annotations

from dataclasses import dataclass

from luncosim_core.modelica.syntax.ops import Extent, Point, SetPlacement, points_of
from luncosim_core.modelica.syntax.tree import Component, Modification

DEFAULT_EXTENT: Extent = ((-10.0, -10.0), (10.0, 10.0))


@dataclass(frozen=True)
class Placement:
    """A Placement transformation: ``extent`` relative to ``origin``, ``rotation`` in degrees
    counter-clockwise; a flip is an extent whose corners are swapped."""

    extent: Extent
    origin: Point = (0.0, 0.0)
    rotation: float = 0.0
    has_origin: bool = False

    @property
    def flip_h(self) -> bool:
        return self.extent[0][0] > self.extent[1][0]

    @property
    def flip_v(self) -> bool:
        return self.extent[0][1] > self.extent[1][1]

    def center(self) -> Point:
        (x1, y1), (x2, y2) = self.extent
        return (self.origin[0] + (x1 + x2) / 2, self.origin[1] + (y1 + y2) / 2)


def _transformation(mod: Modification | None) -> Placement | None:
    if mod is None:
        return None
    ext = mod.arg("extent")
    pts = points_of(ext.value) if ext is not None else None
    if not pts or len(pts) != 2:
        return None
    origin_arg = mod.arg("origin")
    origin = None
    if origin_arg is not None and origin_arg.value is not None and origin_arg.value.kind == "array":
        items = origin_arg.value.items
        if len(items) == 2 and all(i.kind == "number" for i in items):
            origin = (items[0].number, items[1].number)
    rot = mod.arg("rotation")
    rotation = rot.value.number if rot is not None and rot.value is not None and rot.value.kind == "number" else 0.0
    return Placement((pts[0], pts[1]), origin or (0.0, 0.0), float(rotation or 0.0), origin is not None)


def placement_of(comp: Component, icon: bool = False) -> Placement | None:
    """The component's diagram placement (``icon=True``: its iconTransformation, falling back to
    the diagram one, as Modelica tools do)."""
    pl = comp.placement
    if pl is None or pl.mod is None:
        return None
    diagram = pl.mod.arg("transformation")
    found = _transformation(diagram.mod) if diagram is not None else None
    if icon:
        it = pl.mod.arg("iconTransformation")
        alt = _transformation(it.mod) if it is not None else None
        return alt or found
    return found


def moved(cls: str | None, comp: Component, dx: float, dy: float) -> SetPlacement:
    """The op moving ``comp`` by (dx, dy): its origin when the Placement has one, else its extent
    (rotation, flips and the iconTransformation are kept)."""
    p = placement_of(comp) or Placement(DEFAULT_EXTENT)
    if p.has_origin:
        return SetPlacement(cls, comp.name, origin=(p.origin[0] + dx, p.origin[1] + dy))
    (x1, y1), (x2, y2) = p.extent
    return SetPlacement(cls, comp.name, extent=((x1 + dx, y1 + dy), (x2 + dx, y2 + dy)))
