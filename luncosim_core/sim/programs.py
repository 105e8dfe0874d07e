"""Discover program prims (``LunCoProgramAPI``) and make their co-simulation participants."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from luncosim_core.sim.simulation import Simulation


def program_prims(stage) -> list:
    """Prims that carry a program (Modelica, FMU, Rhai): by applied schema or source attributes."""
    out = []
    for prim in stage.Traverse():
        schemas = prim.GetAppliedSchemas()
        if "LunCoProgramAPI" in schemas or prim.HasAttribute("info:sourceAsset") or prim.HasAttribute("info:sourceCode"):
            out.append(prim)
    return out


def program_participants(sim: Simulation) -> list:
    """One participant per program prim whose engine is available, ordered by prim path."""
    return []
