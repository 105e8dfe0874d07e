"""Port value types: what an authored type may carry, and which values fit a type.

Every port value is one float64 at runtime; the *type* decides which values are legal. Types
come in three kinds ordered by what they can hold: ``bool`` < integers (``int``, ``uint``,
``int64``, ``uint64``) < reals (``half``, ``float``, ``double``).

Rules when a port is authored with one type and owned by a backend with another:
- an output (the owner writes it) may be authored as wide or wider than the owner's values
  (an ``Int32`` FMU output in a ``double`` port: widening); narrower is an error, and the port
  keeps the owner's type so nothing fractional ever sits in an ``int`` port;
- an input (the owner reads it) keeps its authored type; when that type is wider than the
  owner's (a ``double`` port on an integer input) the port *carries* the owner's type, and a
  write must fit both: an integral value may be written into an integer input, a fraction is
  refused.

Integers above 2**53 lose precision in a float64 port value.
"""

from __future__ import annotations

import math

INT_RANGES: dict[str, tuple[int, int]] = {
    "int": (-(2**31), 2**31 - 1),
    "uint": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
REAL_TYPES = ("half", "float", "double")


def kind(type_name: str) -> int:
    """0 for bool, 1 for integers, 2 for reals (and anything unknown)."""
    if type_name == "bool":
        return 0
    if type_name in INT_RANGES:
        return 1
    return 2


def resolve(authored: str, owner: str, direction: str) -> tuple[str, str, str]:
    """``(live type, carried type, problem)`` for a port authored ``authored`` over ``owner``.

    ``carried`` is the owner's type when writes must also fit it ("" otherwise); ``problem`` is
    a sentence when the authored type cannot hold the owner's values ("" when it can).
    """
    if not authored or authored == owner or not owner:
        return authored or owner, "", ""
    if direction == "out":
        if kind(authored) < kind(owner) or (kind(authored) == kind(owner) == 1 and not _contains(authored, owner)):
            return owner, "", (f"authored as {authored} but its owner produces {owner} values, which "
                               f"{authored} cannot hold; author it as {owner} or a wider type")
        return authored, "", ""
    wider = kind(authored) > kind(owner) or (kind(authored) == kind(owner) == 1 and not _contains(owner, authored))
    return authored, owner if wider else "", ""


def _contains(outer: str, inner: str) -> bool:
    """Whether every value of integer type ``inner`` fits integer type ``outer``."""
    lo, hi = INT_RANGES[inner]
    olo, ohi = INT_RANGES[outer]
    return olo <= lo and hi <= ohi


def value_problem(type_name: str, value: float) -> str:
    """Why ``value`` does not fit ``type_name`` ("" when it does). Reals take any finite value."""
    if not math.isfinite(value):
        return f"{value} is not finite"
    if type_name == "bool":
        return "" if value in (0.0, 1.0) else f"{_show(value)} is not true/false (0 or 1)"
    if type_name in INT_RANGES:
        if not float(value).is_integer():
            return f"{_show(value)} is not an integer"
        lo, hi = INT_RANGES[type_name]
        if not lo <= value <= hi:
            return f"{_show(value)} overflows it"
    return ""


def _show(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))
