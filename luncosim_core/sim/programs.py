"""Discover program prims (``LunCoProgramAPI``) and make their co-simulation participants.

The language of a program follows its source: ``.mo`` / inline Modelica -> a Modelica participant,
``.fmu`` -> an FMU participant, ``.rhai`` / inline Rhai -> a scenario.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pxr import Sdf

if TYPE_CHECKING:
    from luncosim_core.sim.simulation import Simulation

_MODELICA_RE = re.compile(r"^\s*(within\b|(partial\s+)?(model|block|package|class)\s+\w+)", re.M)


def program_prims(stage) -> list:
    """Prims that carry a program: by applied schema or by source attributes, in path order."""
    out = []
    for prim in stage.Traverse():
        if "LunCoProgramAPI" in prim.GetAppliedSchemas() or prim.HasAttribute("info:sourceAsset") or prim.HasAttribute("info:sourceCode"):
            out.append(prim)
    return out


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
        return "modelica" if _MODELICA_RE.search(str(code.Get())) else "rhai"
    return ""


def program_participants(sim: Simulation) -> list:
    """One participant per program prim whose engine is available, ordered by prim path."""
    from luncosim_core.sim.program_modelica import ModelicaProgram

    parts = []
    for prim in program_prims(sim.stage):
        if program_language(prim) in ("modelica", "fmu"):
            parts.append(ModelicaProgram(sim, prim))
    try:
        from luncosim_core.scripting.scenario import scenario_participants
    except ImportError:
        scenario_participants = None
    if scenario_participants is not None:
        parts.extend(scenario_participants(sim))
    return sorted(parts, key=lambda p: p.prim_path)
