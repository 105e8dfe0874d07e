"""Port bounds: where a port's ``min``/``max`` come from, and the refusal that names them.

A port's bounds are its own (``customData`` ``min``/``max`` on the attribute, or its owner's: a
Modelica ``min=``/``max=``, an FMU's range) and, for an authored interface port that no backend
owns (``usd``, or a forwarding port owned by its wire), the bounds of every sink it drives through a
wire, converted back through the wire's units: a rover's ``inputs:throttle`` that feeds its drive
controller's ``input Real throttle(min = -1, max = 1)`` refuses 50 where it is written, naming the
controller's bound, instead of passing it on to a model that declared it out of range.

The tightest bound wins; on a tie the port's own is named. Several wires summed into one sink are
not told apart here (each source is held to the sink's whole range).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from luncosim_core.ports.model import PortInfo
from luncosim_core.ports.units import UnitError, conversion

#: port sources that no backend owns: their bounds may come from what they drive
_INTERFACE_SOURCES = frozenset({"usd", "wire"})


def own_origin(info: PortInfo, which: str) -> str:
    """Where ``info``'s own ``min``/``max`` (``which``) comes from, as words for a message."""
    named = info.min_from if which == "min" else info.max_from
    if named:
        return named
    if info.source in _INTERFACE_SOURCES:
        return f"customData {which} of {info.key}"
    return f"declared by the {info.source} owner of {info.key}"


def bound_problem(key: str, value: float, info: PortInfo) -> str:
    """Why ``value`` may not be written to the port ``key`` ("" when it is within its bounds)."""
    for which, bound, outside in (("min", info.minimum, lambda v, b: v < b), ("max", info.maximum, lambda v, b: v > b)):
        if bound is not None and outside(value, bound):
            word = "below the minimum" if which == "min" else "above the maximum"
            return f"{key}: {value:g} is {word} {bound:g} ({own_origin(info, which)})"
    return ""


def bound_problem_json(key: str, value: float, port: Mapping) -> str:
    """:func:`bound_problem` over a ``ListPorts``/``ReadPorts`` entry (``min``, ``max``,
    ``min_from``, ``max_from``, ``prim``, ``name``, ``source``): what a client checks before it
    authors a port's value in the document."""
    info = PortInfo(str(port.get("prim", "")), str(port.get("name", "")), str(port.get("direction", "in")),
                    minimum=_number(port.get("min")), maximum=_number(port.get("max")),
                    source=str(port.get("source", "usd")), min_from=str(port.get("min_from", "") or ""),
                    max_from=str(port.get("max_from", "") or ""))
    return bound_problem(key, value, info)


def _number(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        return None
    return float(v)


def _through_wire(sink: PortInfo, source: PortInfo) -> tuple[float | None, float | None] | None:
    """The sink's bounds as values of the source (the wire's unit conversion undone), or None
    when the units do not convert (that wire is broken and reported elsewhere)."""
    try:
        scale, offset = conversion(source.unit or None, sink.unit or None)
    except UnitError:
        return None
    if scale == 0:
        return None
    lo = None if sink.minimum is None else (sink.minimum - offset) / scale
    hi = None if sink.maximum is None else (sink.maximum - offset) / scale
    return (hi, lo) if scale < 0 else (lo, hi)


_CARRIED = ", which this port drives through a wire"


def _carried(origin: str) -> str:
    return origin if origin.endswith(_CARRIED) else origin + _CARRIED


def _carry_once(by_key: dict[str, tuple[PortInfo, float]], wired_sinks: Mapping[str, str]) -> bool:
    changed = False
    for sink_key, source_key in sorted(wired_sinks.items()):
        if sink_key not in by_key or source_key not in by_key:
            continue
        sink, (source, initial) = by_key[sink_key][0], by_key[source_key]
        if source.source not in _INTERFACE_SOURCES or (sink.minimum is None and sink.maximum is None):
            continue
        carried = _through_wire(sink, source)
        if carried is None:
            continue
        lo, hi = carried
        updates = {}
        if lo is not None and (source.minimum is None or lo > source.minimum):
            updates |= {"minimum": lo, "min_from": _carried(own_origin(sink, "min"))}
        if hi is not None and (source.maximum is None or hi < source.maximum):
            updates |= {"maximum": hi, "max_from": _carried(own_origin(sink, "max"))}
        if updates:
            by_key[source_key] = (replace(source, **updates), initial)
            changed = True
    return changed


def carry_sink_bounds(by_key: dict[str, tuple[PortInfo, float]], wired_sinks: Mapping[str, str]) -> None:
    """Give each interface source port the bounds of the sinks it drives (in place; chains of
    forwarding ports carry them all the way up)."""
    for _ in range(len(wired_sinks) + 1):
        if not _carry_once(by_key, wired_sinks):
            return
