"""What the Labels overlay says: live port values as short text anchored on prims (pure).

``port_labels`` picks the ports to show and writes one compact line per port, ``name = value
unit``, grouped on the nearest prim the viewport draws (a program or joint prim has no geometry
of its own: its lines join its rover's label, prefixed with the prim's name):

- with prims selected: each selected prim's own ports, wired ones first, then inputs, outputs
  and the rest; a selected prim without ports of its own shows the wired ports below it;
- with nothing selected: every port that feeds a wire (a wire's sink carries the same value).

At most ``max_lines`` lines a label; the rest is counted ("+12 more").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

MAX_LINES = 6
_SUPERSCRIPTS = {"^2": "²", "^3": "³", "^-1": "⁻¹", "^-2": "⁻²", "**2": "²", "**3": "³"}


def split_key(key: str) -> tuple[str, str]:
    """``"/Prim.port"`` -> (``"/Prim"``, ``"port"``)."""
    prim, _, name = key.rpartition(".")
    return prim, name


def wire_end_key(end: str) -> str:
    """A wire end as ``ListConnections`` names it (``/Prim.outputs:speed``) -> its port key
    (``/Prim.speed``)."""
    prim, _, attr = end.rpartition(".")
    for ns in ("inputs:", "outputs:"):
        if attr.startswith(ns):
            attr = attr[len(ns):]
    return f"{prim}.{attr}"


def pretty_unit(unit: str) -> str:
    """``N*m`` -> ``N·m``, ``m/s^2`` -> ``m/s²``; dimensionless units print as nothing."""
    if unit in ("", "1", "dimensionless", "-"):
        return ""
    for a, b in _SUPERSCRIPTS.items():
        unit = unit.replace(a, b)
    return unit.replace("*", "·")


def format_value(value: float, unit: str = "") -> str:
    """Four significant digits and the unit: ``-3.981 rad/s``, ``1.2e+04 N``, ``—`` (no sample)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    v = float(value)
    text = "0" if v == 0 else format(v, ".4g")
    u = pretty_unit(unit)
    return f"{text} {u}" if u else text


def _rank(key: str, wired: set[str], directions: Mapping[str, str]) -> tuple:
    d = directions.get(key, "")
    return (key not in wired, {"in": 0, "inout": 0, "out": 1}.get(d, 2), key)


def _anchor(prim: str, is_drawn: Callable[[str], bool]) -> str | None:
    path = prim
    while path and path != "/":
        if is_drawn(path):
            return path
        path = path.rpartition("/")[0]
    return None


def port_labels(port_keys: Sequence[str], values: np.ndarray, *, selection: Iterable[str] = (),
                units: Mapping[str, str] | None = None, directions: Mapping[str, str] | None = None,
                wired: Iterable[str] = (), wire_sources: Iterable[str] = (),
                is_drawn: Callable[[str], bool] = lambda _p: True, max_lines: int = MAX_LINES) -> dict[str, str]:
    """``{anchor prim: text}`` for :meth:`ViewportWidget.set_labels` (see the module doc).

    ``port_keys``/``values``: the snapshot's port index and values; ``units``/``directions``:
    per key (``ListPorts``); ``wired``: keys at either end of a wire; ``wire_sources``: keys that
    feed a wire; ``is_drawn(prim)``: whether the viewport draws something at or under a prim."""
    units = units or {}
    directions = directions or {}
    wired = set(wired)
    index = {k: i for i, k in enumerate(port_keys)}
    shown: list[str] = []
    selection = [p for p in dict.fromkeys(selection) if p]
    if selection:
        for prim in selection:
            own = [k for k in port_keys if split_key(k)[0] == prim]
            if not own:  # an assembly: what flows on the wires below it
                below = prim.rstrip("/") + "/"
                own = [k for k in port_keys if k.startswith(below) and k in wired]
            shown.extend(sorted(own, key=lambda k: _rank(k, wired, directions)))
    else:
        shown = sorted(k for k in set(wire_sources) if k in index)
    groups: dict[str, list[str]] = {}
    for key in dict.fromkeys(shown):
        prim, name = split_key(key)
        anchor = _anchor(prim, is_drawn)
        if anchor is None:
            continue
        label = name if prim == anchor else f"{prim.rpartition('/')[2]}.{name}"
        value = float(values[index[key]]) if key in index else float("nan")
        groups.setdefault(anchor, []).append(f"{label} = {format_value(value, units.get(key, ''))}")
    out = {}
    for anchor, lines in groups.items():
        extra = len(lines) - max_lines
        if extra > 0:
            lines = lines[: max_lines - 1] + [f"+{extra + 1} more"]
        out[anchor] = "\n".join(lines)
    return out
