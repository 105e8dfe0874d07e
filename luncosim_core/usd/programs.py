"""Program prims: prims that carry behaviour (Modelica, FMU, Rhai) and their parameters.

A program prim applies ``LunCoProgramAPI`` or authors ``info:sourceAsset`` / ``info:sourceCode``.
Its language follows its source: ``.mo`` / inline Modelica, ``.fmu``, ``.rhai`` / inline Rhai; an
explicit ``info:sourceCode:language`` wins for inline code. Parameters are authored as
``lunco:param:<key>`` (or ``lunco:params:<key>``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pxr import Sdf

from luncosim_core.usd.schemas import has_schema

PROGRAM_API = "LunCoProgramAPI"
MODELICA_RE = re.compile(r"^\s*(within\b|(partial\s+)?(model|block|package|class)\s+\w+)", re.M)
PARAM_NAMESPACES = ("lunco:param:", "lunco:params:")


def is_program_prim(prim) -> bool:
    """A prim that carries a program: by applied schema or by source attributes."""
    return (has_schema(prim, PROGRAM_API) or prim.HasAttribute("info:sourceAsset")
            or prim.HasAttribute("info:sourceCode"))


def program_prims(stage) -> list:
    """Prims that carry a program, in path order."""
    return [prim for prim in stage.Traverse() if is_program_prim(prim)]


def program_language(prim) -> str:
    """``modelica``, ``fmu``, ``rhai`` or "" (unknown / no source)."""
    asset = prim.GetAttribute("info:sourceAsset")
    if asset and asset.HasAuthoredValue():
        value = asset.Get()
        text = value.path if isinstance(value, Sdf.AssetPath) else str(value)
        suffix = text.rsplit(".", 1)[-1].lower() if "." in text else ""
        return {"mo": "modelica", "fmu": "fmu", "rhai": "rhai", "btxml": "behavior"}.get(suffix, "")
    code = prim.GetAttribute("info:sourceCode")
    if code and code.HasAuthoredValue():
        lang = prim.GetAttribute("info:sourceCode:language")
        if lang and lang.HasAuthoredValue():
            return str(lang.Get()).lower()
        return "modelica" if MODELICA_RE.search(str(code.Get())) else "rhai"
    return ""


def is_model_program(prim) -> bool:
    """A program backed by a compiled model (Modelica source or FMU), not a script."""
    return is_program_prim(prim) and program_language(prim) in ("modelica", "fmu")


def read_param(prim, key: str) -> Any:
    """A parameter authored as ``lunco:param:<key>`` (or ``lunco:params:<key>``); None if absent."""
    if not prim:
        return None
    for ns in PARAM_NAMESPACES:
        attr = prim.GetAttribute(ns + key)
        if attr and attr.HasAuthoredValue():
            return param_value(attr.Get())
    return None


def param_value(v: Any) -> Any:
    """A parameter value as scripts see it: numbers become floats, bools and text stay, asset
    paths become their authored text, anything else its string form."""
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if hasattr(v, "path"):
        return v.path
    return str(v)


def asset_text(attr) -> str:
    """An asset attribute's authored text (an ``Sdf.AssetPath``'s path, or the value's string)."""
    value = attr.Get()
    return value.path if isinstance(value, Sdf.AssetPath) else str(value or "")


def anchor_of(attr) -> str | None:
    """The file of the strongest layer that authors ``attr`` (relative asset paths resolve from it)."""
    for spec in attr.GetPropertyStack():
        layer = spec.layer
        if layer is not None and layer.realPath:
            return layer.realPath
    return None


def program_source(prim, roots) -> tuple[Path | None, str | None]:
    """``(file, inline text)`` of a program prim's source; ``(None, None)`` when unresolvable."""
    asset = prim.GetAttribute("info:sourceAsset")
    if asset and asset.HasAuthoredValue():
        authored = asset_text(asset)
        anchor = anchor_of(asset)
        if roots is not None:
            check = roots.resolve_file(authored, anchor)
            path = check.path if check.diagnostic is None else None
        else:
            path = Path(authored)
            if not path.is_absolute() and anchor:
                path = Path(anchor).parent / authored
        return (path if path is not None and path.is_file() else None), None
    code = prim.GetAttribute("info:sourceCode")
    if code and code.HasAuthoredValue():
        return None, str(code.Get())
    return None, None
