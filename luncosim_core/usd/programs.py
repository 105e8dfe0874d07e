"""Which language a program prim (``LunCoProgramAPI``) is written in, read from the stage alone.

The language follows the source: ``.mo`` / inline Modelica -> ``modelica``, ``.fmu`` -> ``fmu``,
``.rhai`` / inline Rhai -> ``rhai``; an explicit ``info:sourceCode:language`` wins for inline code.
"""

from __future__ import annotations

import re

from pxr import Sdf

from luncosim_core.usd.schemas import has_schema

PROGRAM_API = "LunCoProgramAPI"
MODELICA_RE = re.compile(r"^\s*(within\b|(partial\s+)?(model|block|package|class)\s+\w+)", re.M)


def is_program_prim(prim) -> bool:
    """A prim that carries a program: by applied schema or by source attributes."""
    return (has_schema(prim, PROGRAM_API) or prim.HasAttribute("info:sourceAsset")
            or prim.HasAttribute("info:sourceCode"))


def program_language(prim) -> str:
    """``modelica``, ``fmu``, ``rhai`` or "" (unknown / no source)."""
    asset = prim.GetAttribute("info:sourceAsset")
    if asset and asset.HasAuthoredValue():
        value = asset.Get()
        text = value.path if isinstance(value, Sdf.AssetPath) else str(value)
        suffix = text.rsplit(".", 1)[-1].lower() if "." in text else ""
        return {"mo": "modelica", "fmu": "fmu", "rhai": "rhai"}.get(suffix, "")
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
