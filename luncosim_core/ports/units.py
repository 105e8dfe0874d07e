"""Engineering units for ports (pint), with Modelica spellings accepted.

A wire between compatible units carries a compiled ``scale``/``offset``; incompatible units are a
wiring error; no unit on either side means no conversion.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pint

_UREG: pint.UnitRegistry | None = None


class UnitError(ValueError):
    """A unit string that cannot be parsed, or two units that cannot be converted."""


def ureg() -> pint.UnitRegistry:
    global _UREG
    if _UREG is None:
        _UREG = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    return _UREG


def normalize(unit: str | None) -> str:
    """Modelica/SI spellings to pint: ``N.m`` -> ``N*m``, ``1`` / ``""`` -> dimensionless,
    ``s2`` -> ``s**2``, ``1/s2`` -> ``1/s**2``."""
    if unit is None:
        return ""
    u = unit.strip()
    if u in ("", "1", "-"):
        return "" if u == "" else "dimensionless"
    u = u.replace(".", "*")
    u = re.sub(r"([A-Za-z])(-?\d+)", r"\1**\2", u)
    u = re.sub(r"\bdegC\b", "degree_Celsius", u)
    u = re.sub(r"\bdeg\b", "degree", u)
    return u


@lru_cache(maxsize=4096)
def parse(unit: str) -> pint.Unit | None:
    """The pint unit for a string, None for "no unit"; raises :class:`UnitError`."""
    norm = normalize(unit)
    if norm == "":
        return None
    try:
        return ureg().Unit(norm)
    except Exception as exc:  # pint raises several error types
        raise UnitError(f"unknown unit '{unit}'") from exc


@lru_cache(maxsize=4096)
def conversion(src: str | None, dst: str | None) -> tuple[float, float]:
    """``(scale, offset)`` with ``dst_value = src_value * scale + offset``.

    No unit on either side, or the same unit string on both (labels pint does not know, such as
    ``bool`` or ``cells``, included): identity. Incompatible: :class:`UnitError`.
    """
    if normalize(src) == normalize(dst):
        return 1.0, 0.0
    a = parse(src or "")
    b = parse(dst or "")
    if a is None or b is None:
        return 1.0, 0.0
    q = ureg().Quantity
    try:
        zero = q(0.0, a).to(b).magnitude
        one = q(1.0, a).to(b).magnitude
    except pint.DimensionalityError as exc:
        raise UnitError(f"cannot convert '{src}' to '{dst}' ({exc.dim1} vs {exc.dim2})") from exc
    return float(one - zero), float(zero)


def compatible(src: str | None, dst: str | None) -> bool:
    try:
        conversion(src or "", dst or "")
        return True
    except UnitError:
        return False
