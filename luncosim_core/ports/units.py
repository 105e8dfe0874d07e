"""The one unit vocabulary: one pint registry and one Modelica-unit translator.

Ports, wires, Modelica interfaces and FMUs all spell units the Modelica way (``N.m``, ``m/s2``,
``kg.m2``, ``1/s``, ``degC``); :func:`to_pint` turns that into pint's syntax and :func:`ureg` is
the only registry. A wire between compatible units carries a compiled ``scale``/``offset``;
incompatible units are a wiring error; no unit on either side means no conversion.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pint

_UREG: pint.UnitRegistry | None = None
# one factor of a Modelica unit: a name and an optional integer power ("s2", "m-1", "%")
_FACTOR = re.compile(r"([A-Za-z_%]+)(-?\d+)?")
_NAMES = {"degC": "degree_Celsius", "deg": "degree"}


class UnitError(ValueError):
    """A unit string that cannot be parsed, or two units that cannot be converted."""


def ureg() -> pint.UnitRegistry:
    """The registry every unit of the product is parsed with (offset units convert to base)."""
    global _UREG
    if _UREG is None:
        _UREG = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    return _UREG


def _name(m: re.Match) -> str:
    name = _NAMES.get(m.group(1), m.group(1))
    return f"{name}**{m.group(2)}" if m.group(2) else name


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@lru_cache(maxsize=4096)
def to_pint(unit: str | None) -> str:
    """A Modelica/SI unit string in pint's syntax: ``N.m`` -> ``(N*m)``, ``m/s2`` ->
    ``(m)/(s**2)``, ``W/(m2.K4)`` -> ``(W)/((m**2*K**4))``, ``1`` / ``-`` -> ``dimensionless``,
    ``""`` / None -> ``""`` (no unit). Factors are joined by ``.``, a trailing integer is a power,
    and a ``/`` divides by the whole factor group that follows it (Modelica's unit grammar)."""
    if unit is None:
        return ""
    u = unit.strip()
    if u in ("", "1", "-"):
        return "" if u == "" else "dimensionless"
    text = _FACTOR.sub(_name, u)
    return "/".join(f"({part.replace('.', '*') or 'dimensionless'})" for part in _split_top(text, "/"))


@lru_cache(maxsize=4096)
def parse(unit: str) -> pint.Unit | None:
    """The pint unit for a string, None for "no unit"; raises :class:`UnitError`."""
    text = to_pint(unit)
    if text == "":
        return None
    try:
        return ureg().Unit(text)
    except Exception as exc:  # pint raises several error types
        raise UnitError(f"unknown unit '{unit}'") from exc


@lru_cache(maxsize=4096)
def conversion(src: str | None, dst: str | None) -> tuple[float, float]:
    """``(scale, offset)`` with ``dst_value = src_value * scale + offset``.

    No unit on either side, or the same unit string on both (labels pint does not know, such as
    ``bool`` or ``cells``, included): identity. Incompatible: :class:`UnitError`.
    """
    if to_pint(src) == to_pint(dst):
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




@lru_cache(maxsize=512)
def dimensionality(unit: str) -> tuple[str, str]:
    """(dimension string, error message) of a unit string: ``"[length] / [time]"``, ""."""
    if unit.strip() in ("", "1"):
        return "dimensionless", ""
    try:
        u = parse(unit)
    except UnitError as exc:
        return "", f"{exc}: {exc.__cause__}" if exc.__cause__ else str(exc)
    return str(u.dimensionality) if u is not None else "dimensionless", ""
