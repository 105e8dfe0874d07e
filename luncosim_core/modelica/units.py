"""Modelica unit strings (``N.m``, ``m/s2``, ``rad/s``) compared by physical dimension via pint."""

from __future__ import annotations

import re
from functools import lru_cache

import pint

_REG = pint.UnitRegistry()
# Modelica writes products with '.', powers as trailing digits: "N.m", "m/s2", "kg.m2".
_FACTOR = re.compile(r"^([A-Za-z_%]+)(-?\d+)?$")


def _to_pint(unit: str) -> str:
    parts = re.split(r"(/)", unit.strip())
    out: list[str] = []
    for part in parts:
        if part == "/":
            out.append("/")
            continue
        factors = []
        for f in part.split("."):
            if not f:
                continue
            m = _FACTOR.match(f)
            if m and m.group(2):
                factors.append(f"{m.group(1)}**{m.group(2)}")
            elif f == "1":
                factors.append("dimensionless")
            else:
                factors.append(f)
        out.append("(" + "*".join(factors or ["dimensionless"]) + ")")
    return "".join(out)


@lru_cache(maxsize=512)
def dimensionality(unit: str) -> tuple[str, str]:
    """(dimension string, error message) for a Modelica unit string."""
    if unit.strip() in ("", "1"):
        return "dimensionless", ""
    try:
        q = _REG.parse_expression(_to_pint(unit))
        return str(q.dimensionality), ""
    except Exception as exc:  # pint raises several error types
        return "", f"unknown unit '{unit}': {exc}"


@lru_cache(maxsize=512)
def factor(from_unit: str, to_unit: str) -> float:
    """Multiplicative factor converting a value in ``from_unit`` into ``to_unit``."""
    q = _REG.parse_expression(_to_pint(from_unit))
    return float((1.0 * q).to(_REG.parse_expression(_to_pint(to_unit))).magnitude)
