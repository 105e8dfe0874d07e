"""Host functions over time, events and determinism-safe randomness: ``dt``, ``sim_tick``,
``elapsed_seconds``, ``emit``, ``subscribe``, ``subscribe_prefix``, ``rand``, ``rand_range``,
``rand_int``, ``is_unattended``, ``track_entity_read``, ``track_entity_write``."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from luncosim_core.scripting.host.guard import Guard
    from luncosim_core.scripting.runtime import ScenarioRuntime


def functions(rt: ScenarioRuntime, guard: Guard) -> dict[str, Callable]:
    host = rt.host

    def dt() -> float:
        return float(host.time().dt)

    def sim_tick() -> int:
        return int(host.time().tick)

    def elapsed_seconds() -> float:
        return float(host.time().time)

    def emit(name: str, value: Any = True) -> bool:
        guard.no_planning("emit")
        if not isinstance(name, str):
            guard.fail(f"emit: the event name must be a string, got {type(name).__name__}")
        rt.emit(name, value)
        return True

    def subscribe(name: str) -> None:
        if rt.current is not None:
            rt.current.subscriptions.add(str(name))

    def subscribe_prefix(prefix: str) -> None:
        if rt.current is not None:
            rt.current.subscription_prefixes.add(str(prefix))

    def rand() -> float:
        """Uniform in [0, 1), a hash of (scenario, tick, call count): the same every run."""
        cur = rt.current
        key = f"{cur.prim_path if cur else ''}|{host.time().tick}|{cur.rand_calls if cur else 0}"
        if cur is not None:
            cur.rand_calls += 1
        h = hashlib.blake2b(key.encode(), digest_size=8).digest()
        return int.from_bytes(h, "little") / 2.0**64

    def rand_range(lo: Any, hi: Any) -> float:
        return float(lo) + (float(hi) - float(lo)) * rand()

    def rand_int(lo: int, hi: int) -> int:
        return lo if hi <= lo else lo + int(rand() * (hi - lo))

    def is_unattended() -> bool:
        return bool(rt.unattended)

    def track(ident: Any, writes: bool) -> bool:
        p = rt.path_of(ident)
        cur = rt.current
        if p is None or cur is None or cur.plan is None:
            return p is not None
        (cur.plan.writes if writes else cur.plan.reads).add(p)
        return True

    return {"dt": dt, "sim_tick": sim_tick, "elapsed_seconds": elapsed_seconds, "emit": emit,
            "subscribe": subscribe, "subscribe_prefix": subscribe_prefix, "rand": rand,
            "rand_range": rand_range, "rand_int": rand_int, "is_unattended": is_unattended,
            "track_entity_read": lambda ident: track(ident, False),
            "track_entity_write": lambda ident: track(ident, True)}
