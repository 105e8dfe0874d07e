"""Icon and Diagram graphics as data (Qt-free): the ``graphics = {...}`` primitives of an annotation
read into :class:`Primitive` values that a renderer draws.

Rectangle, Line, Ellipse, Polygon, Text and Bitmap are read with their common attributes (extent,
points, colours, fill pattern, line thickness, radius, rotation and origin, text with
``%name``/``%class`` substitutions done by the renderer; a Bitmap's ``fileName`` and base64
``imageSource`` in ``extra``, the file found by :func:`bitmap_path`). Values the file computes (``DynamicSelect``) use their
static first argument.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.modelica.syntax.tree import Arg, Value

KINDS = ("Rectangle", "Line", "Ellipse", "Polygon", "Text", "Bitmap")
Color = tuple[int, int, int]


@dataclass(frozen=True)
class Primitive:
    kind: str
    extent: tuple[tuple[float, float], tuple[float, float]] | None = None
    points: tuple[tuple[float, float], ...] = ()
    line_color: Color | None = (0, 0, 0)
    fill_color: Color | None = None
    fill_pattern: str = "None"
    line_pattern: str = "Solid"
    thickness: float = 0.25
    radius: float = 0.0
    rotation: float = 0.0
    origin: tuple[float, float] = (0.0, 0.0)
    text: str = ""
    font_size: float = 0.0
    smooth: bool = False
    extra: dict = field(default_factory=dict, compare=False)


def _static(v: Value | None) -> Value | None:
    if v is not None and v.kind == "call" and v.name == "DynamicSelect" and v.mod is not None and v.mod.args:
        return v.mod.args[0].value
    return v


def _num(v: Value | None) -> float | None:
    v = _static(v)
    return v.number if v is not None and v.kind == "number" else None


def _point(v: Value | None) -> tuple[float, float] | None:
    v = _static(v)
    if v is None or v.kind != "array" or len(v.items) != 2:
        return None
    x, y = _num(v.items[0]), _num(v.items[1])
    return (x, y) if x is not None and y is not None else None


def _points(v: Value | None) -> tuple[tuple[float, float], ...]:
    v = _static(v)
    if v is None or v.kind != "array":
        return ()
    pts = [_point(i) for i in v.items]
    return tuple(p for p in pts if p is not None)


def _color(v: Value | None) -> Color | None:
    v = _static(v)
    if v is None or v.kind != "array" or len(v.items) != 3:
        return None
    parts = [_num(i) for i in v.items]
    if any(p is None for p in parts):
        return None
    return tuple(max(0, min(255, int(p))) for p in parts)  # type: ignore[return-value]


def _enum(v: Value | None, default: str) -> str:
    v = _static(v)
    return v.name.rsplit(".", 1)[-1] if v is not None and v.kind == "name" else default


def _string(text: str, v: Value | None) -> str:
    v = _static(v)
    if v is None or v.kind != "string":
        return ""
    return text[v.start + 1:v.end - 1].replace('\\"', '"').replace("\\\\", "\\")


def _args(item: Value) -> dict[str, Arg]:
    return {a.name: a for a in (item.mod.args if item.mod else []) if a.name}


def primitive(text: str, item: Value) -> Primitive | None:
    """One graphics item (``Rectangle(extent=..., ...)``) as a :class:`Primitive` (None if it is
    not a call of a known primitive)."""
    if item.kind != "call" or item.name not in KINDS:
        return None
    a = _args(item)

    def val(name: str) -> Value | None:
        return a[name].value if name in a else None

    ext = _points(val("extent"))
    line_color = _color(val("color") if item.name == "Line" else val("lineColor"))
    if item.name == "Text":
        line_color = _color(val("textColor")) or line_color or (0, 0, 0)
    return Primitive(
        kind=item.name,
        extent=(ext[0], ext[1]) if len(ext) == 2 else None,
        points=_points(val("points")),
        line_color=line_color if line_color is not None else ((0, 0, 0) if item.name != "Text" else None),
        fill_color=_color(val("fillColor")),
        fill_pattern=_enum(val("fillPattern"), "None"),
        line_pattern=_enum(val("pattern"), "Solid"),
        thickness=_num(val("thickness")) or _num(val("lineThickness")) or 0.25,
        radius=_num(val("radius")) or 0.0,
        rotation=_num(val("rotation")) or 0.0,
        origin=_point(val("origin")) or (0.0, 0.0),
        text=_string(text, val("textString")) or _string(text, val("string")),
        font_size=_num(val("fontSize")) or 0.0,
        smooth=_enum(val("smooth"), "None") == "Bezier",
        extra={"visible": _enum(val("visible"), "true"),
               **({"fileName": _string(text, val("fileName")), "imageSource": _string(text, val("imageSource"))}
                  if item.name == "Bitmap" else {})},
    )


def primitives(text: str, graphics: Value | None) -> list[Primitive]:
    """Every primitive of a ``graphics`` array value, in drawing order."""
    if graphics is None or graphics.kind != "array":
        return []
    out = []
    for item in graphics.items:
        p = primitive(text, item)
        if p is not None:
            out.append(p)
    return out


def coordinate_extent(text: str, annotation_layer: Arg | None) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ``coordinateSystem(extent=...)`` of an Icon/Diagram annotation (default -100..100)."""
    if annotation_layer is not None and annotation_layer.mod is not None:
        cs = annotation_layer.mod.path("coordinateSystem", "extent")
        pts = _points(cs.value) if cs is not None else ()
        if len(pts) == 2 and pts[0][0] != pts[1][0] and pts[0][1] != pts[1][1]:
            return pts[0], pts[1]
    return (-100.0, -100.0), (100.0, 100.0)


def bitmap_path(file_name: str, home: Path | None, package_dir) -> Path | None:
    """Where a Bitmap's ``fileName`` points: ``modelica://Pkg.Sub/dir/x.png`` inside the folder of
    package ``Pkg.Sub`` (``package_dir(name)`` finds it), ``file:///abs/x.png``, or a path relative
    to the folder of the file declaring the icon (``home``). None when it cannot be placed."""
    if not file_name:
        return None
    if file_name.startswith("modelica://"):
        rest = file_name[len("modelica://"):]
        name, _, inner = rest.partition("/")
        folder = package_dir(name)
        return (folder / inner) if folder is not None and inner else None
    if file_name.startswith("file://"):
        return Path(file_name[len("file://"):])
    if "://" in file_name:
        return None
    return (home.parent / file_name) if home is not None else None
