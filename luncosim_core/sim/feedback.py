"""Feedback loops between model participants that no sample can ever enter.

A Modelica participant whose inputs have no sample waits (``docs/architecture.md``). When two
participants feed each other (a lander's controller commands the engine's valve and reads the
vehicle mass the engine network computes), each waits for the other and neither ever steps. The
co-simulation exchange is a Jacobi zero-order hold, so such a loop is a valid dynamic feedback
loop: it starts from its inputs' declared start values, as an FMI master initializes it.

:func:`deadlocked` decides when that applies: every participant the waiting one transitively
waits on is itself a model participant that has never stepped and waits, and every input any of
them misses is wired from one of them. A wait on anything else (a script, a command, a port
nothing publishes, a participant that can still step) is a real wait and stays one.
"""

from __future__ import annotations

from collections import defaultdict


def _sources_by_sink(sim) -> dict[str, list[str]]:
    fabric = sim.fabric
    cached = getattr(fabric, "_sources_by_sink", None)
    if cached is not None and cached[0] is fabric.valid:
        return cached[1]
    out: dict[str, list[str]] = defaultdict(list)
    for w in fabric.valid:
        out[w.sink_key].append(w.source_key)
    fabric._sources_by_sink = (fabric.valid, out)
    return out


def _owner(sim, source_key: str, models: dict[str, object]):
    """The model participant that publishes ``source_key`` (None: anything else)."""
    info = sim.registry.info(source_key)
    if info is None:
        return None
    _kind, sep, prim = info.authority.partition(":")
    return models.get(prim) if sep else None


def deadlocked(sim, part, missing: list[str]) -> bool:
    """True when ``part`` (not stepped yet) waits only on a closed loop of waiting model participants."""
    from luncosim_core.sim.program_modelica import ModelicaProgram

    models = {p.prim_path: p for p in sim.participants if isinstance(p, ModelicaProgram)}
    sources = _sources_by_sink(sim)
    seen = {part.prim_path}
    stack = [(part, list(missing))]
    while stack:
        node, names = stack.pop()
        for name in names:
            feeds = sources.get(f"{node.prim_path}.{name}", [])
            if not feeds:
                return False  # an unwired input: a script or a command gives it its sample
            for key in feeds:
                owner = _owner(sim, key, models)
                if owner is None:
                    return False
                if owner.prim_path in seen:
                    continue
                if owner.participant is None or owner._running is owner.participant or not owner.missing_inputs:
                    return False  # still compiling, already stepping, or not tried yet: it can publish
                seen.add(owner.prim_path)
                stack.append((owner, list(owner.missing_inputs)))
    return True
