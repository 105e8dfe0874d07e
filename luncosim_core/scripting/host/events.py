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
    api = _EventApi(rt, guard)
    return {"dt": api.dt, "sim_tick": api.sim_tick, "elapsed_seconds": api.elapsed_seconds, "emit": api.emit,
            "subscribe": api.subscribe, "subscribe_prefix": api.subscribe_prefix, "rand": api.rand,
            "rand_range": api.rand_range, "rand_int": api.rand_int, "is_unattended": api.is_unattended,
            "track_entity_read": lambda ident: api.track(ident, False),
            "track_entity_write": lambda ident: api.track(ident, True)}


class _EventApi:
    def __init__(self, rt: ScenarioRuntime, guard: Guard) -> None:
        self.rt, self.guard, self.host = rt, guard, rt.host

    def dt(self) -> float:
        return float(self.host.time().dt)

    def sim_tick(self) -> int:
        return int(self.host.time().tick)

    def elapsed_seconds(self) -> float:
        return float(self.host.time().time)

    def emit(self, name: str, value: Any = True) -> bool:
        self.guard.no_planning("emit")
        if not isinstance(name, str):
            self.guard.fail(f"emit: the event name must be a string, got {type(name).__name__}")
        self.rt.emit(name, value)
        return True

    def subscribe(self, name: str) -> None:
        if self.rt.current is not None:
            self.rt.current.subscriptions.add(str(name))

    def subscribe_prefix(self, prefix: str) -> None:
        if self.rt.current is not None:
            self.rt.current.subscription_prefixes.add(str(prefix))

    def rand(self) -> float:
        """Uniform in [0, 1), a hash of (scenario, tick, call count): the same every run."""
        cur = self.rt.current
        key = f"{cur.prim_path if cur else ''}|{self.host.time().tick}|{cur.rand_calls if cur else 0}"
        if cur is not None:
            cur.rand_calls += 1
        h = hashlib.blake2b(key.encode(), digest_size=8).digest()
        return int.from_bytes(h, "little") / 2.0**64

    def rand_range(self, lo: Any, hi: Any) -> float:
        return float(lo) + (float(hi) - float(lo)) * self.rand()

    def rand_int(self, lo: int, hi: int) -> int:
        return lo if hi <= lo else lo + int(self.rand() * (hi - lo))

    def is_unattended(self) -> bool:
        return bool(self.rt.unattended)

    def track(self, ident: Any, writes: bool) -> bool:
        p = self.rt.path_of(ident)
        cur = self.rt.current
        if p is None or cur is None or cur.plan is None:
            return p is not None
        (cur.plan.writes if writes else cur.plan.reads).add(p)
        return True
