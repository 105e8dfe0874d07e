"""Composed properties of a prim as plain rows (no Qt): value, type, unit, allowed tokens and the
layer that holds the strongest opinion. A property nobody authored a value for has ``value``
None and its schema's ``fallback`` apart, so nothing looks authored that is not."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from pxr import Sdf, Usd

from luncosim_core.usd.document import UsdDocument


@dataclass(frozen=True)
class PropertyRow:
    name: str
    kind: str  # attribute | relationship
    type_name: str
    value: Any
    editor: str  # bool | int | float | vector | token | string | asset | readonly
    unit: str = ""
    allowed: tuple[str, ...] = ()
    layer: str = ""  # base | runtime | view | <file name> | fallback
    connections: tuple[str, ...] = ()
    size: int = 0  # vector length
    fallback: Any = None  # the schema's fallback when no layer authors a value (then ``value`` is None)

    @property
    def authored(self) -> bool:
        return self.value is not None


def layer_label(doc: UsdDocument | None, layer: Sdf.Layer) -> str:
    if doc is not None:
        if layer == doc.base:
            return "base"
        if layer == doc.runtime:
            return "runtime"
        if layer == doc.view:
            return "view"
    return os.path.basename(layer.realPath or layer.identifier)


def editor_kind(type_name: Sdf.ValueTypeName, allowed: tuple[str, ...]) -> tuple[str, int]:
    if type_name.isArray:
        return "readonly", 0
    scalar = str(type_name.scalarType)
    if scalar == "bool":
        return "bool", 0
    if scalar in ("int", "int64", "uint", "uint64", "uchar"):
        return "int", 0
    if scalar in ("float", "double", "half"):
        return "float", 0
    if scalar == "token":
        return ("token" if allowed else "string"), 0
    if scalar == "string":
        return "string", 0
    if scalar == "asset":
        return "asset", 0
    for prefix in ("float", "double", "half", "int", "color", "point", "normal", "vector", "texCoord"):
        if scalar.startswith(prefix) and scalar[-1].isdigit() and not scalar.startswith("matrix"):
            n = int(scalar[-1]) if scalar[-2] != "d" else 0
            if n in (2, 3, 4):
                return "vector", n
    if scalar.startswith("quat"):
        return "vector", 4
    return "readonly", 0


def property_rows(prim: Usd.Prim, doc: UsdDocument | None = None) -> list[PropertyRow]:
    """Every composed attribute and relationship of ``prim``, sorted by name."""
    rows: list[PropertyRow] = []
    for prop in prim.GetProperties():
        stack = prop.GetPropertyStack(Usd.TimeCode.Default())
        layer = layer_label(doc, stack[0].layer) if stack else "fallback"
        if isinstance(prop, Usd.Relationship):
            targets = tuple(str(t) for t in prop.GetTargets())
            rows.append(PropertyRow(prop.GetName(), "relationship", "rel", targets, "readonly", layer=layer))
            continue
        attr: Usd.Attribute = prop
        type_name = attr.GetTypeName()
        allowed_meta = attr.GetMetadata("allowedTokens")
        allowed = tuple(str(t) for t in allowed_meta) if allowed_meta else ()
        data = attr.GetCustomData() or {}
        unit = str(data.get("unit", "") or "")
        kind, size = editor_kind(type_name, allowed)
        if attr.GetName().startswith("outputs:"):
            kind = "readonly"  # produced by the simulation; a wire or program owns it
        value = _plain(attr.Get())
        authored = attr.HasAuthoredValue()
        rows.append(PropertyRow(attr.GetName(), "attribute", str(type_name), value if authored else None, kind, unit,
                                allowed, layer, tuple(str(c) for c in attr.GetConnections()), size,
                                None if authored else value))
    rows.sort(key=lambda r: r.name)
    return rows


def _plain(value: Any) -> Any:
    return value.path if isinstance(value, Sdf.AssetPath) else value


def parse_vector(text: str, size: int) -> tuple[float, ...]:
    """``"1, 2, 3"`` or ``"(1 2 3)"`` -> (1.0, 2.0, 3.0); raises ValueError naming the problem."""
    cleaned = text.strip().strip("()[]").replace(",", " ").split()
    if len(cleaned) != size:
        raise ValueError(f"expected {size} numbers, got {len(cleaned)} in {text!r}")
    try:
        return tuple(float(c) for c in cleaned)
    except ValueError:
        raise ValueError(f"not a list of numbers: {text!r}") from None


def format_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if hasattr(value, "__len__") and not isinstance(value, str) and len(value) <= 4 and all(
            isinstance(v, (int, float)) for v in value):
        return ", ".join(f"{float(v):.6g}" for v in value)
    text = str(value)
    return text if len(text) < 200 else text[:197] + "..."
