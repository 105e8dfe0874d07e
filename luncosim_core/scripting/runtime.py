"""``ScenarioRuntime``: one Rhai engine per simulation, shared by all its scenarios.

It owns the engine (host API bound, prelude loaded once), the entity-id table (ids are 1-based
positions in the stage's prim traversal, stable for a stage), the event bus (an ``emit`` in
tick N reaches every scenario's ``on_event`` at the start of tick N+1), the event history
(``telemetry``: the newest :data:`TELEMETRY_CAPACITY` events; listeners see every event as it
happens), and which scenario is running right now (the host API acts for it).
It reaches the simulation only through a :class:`~luncosim_core.api.host.Host`; printed lines
go to the host's event stream (``ConsoleLine``) unless ``on_print`` is redirected."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from luncosim_core.api.events import ConsoleLine
from luncosim_core.api.host import Host
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.scripting.prelude import load_prelude
from luncosim_core.scripting.rhai import Engine, Limits, RhaiLimitError

if TYPE_CHECKING:
    from luncosim_core.scripting.scenario import ScenarioParticipant

#: Bytes all the engine's live Rhai values may take together (one engine serves every scenario
#: of a simulation); past it the allocation faults the scenario with "memory budget exceeded".
SCENARIO_MEMORY_BYTES = 256 << 20
#: Operations one hook call may take before it is stopped (an endless loop faults the scenario);
#: the per-value sizes; the engine's memory budget.
DEFAULT_LIMITS = Limits(max_operations=20_000_000, max_call_depth=64, max_string_size=1 << 24,
                        max_array_size=1 << 20, max_map_size=1 << 20,
                        max_memory_bytes=SCENARIO_MEMORY_BYTES)
#: Events one scenario may ``emit`` in one tick; one more faults it (a runaway emit loop).
MAX_EVENTS_PER_TICK = 10_000
#: Events the history (``ScenarioRuntime.telemetry``) keeps: a ring, the oldest dropped first, so a
#: run emitting thousands of events a tick stays bounded (about 300 bytes an event: ~30 MB). Drops
#: are counted (``telemetry_dropped``) and reported once (``scenario-events-dropped``).
TELEMETRY_CAPACITY = 100_000


@dataclass(frozen=True)
class Event:
    """One ``emit``: what scripts receive as ``#{name, value, source, severity, timestamp}``."""

    name: str
    value: Any
    source: int  # entity id of the emitter
    source_path: str
    severity: str
    timestamp: float  # sim seconds
    tick: int

    def to_script(self) -> dict:
        return {"name": self.name, "value": self.value, "source": self.source,
                "severity": self.severity, "timestamp": self.timestamp}


class ScenarioRuntime:
    """Shared state of the scenarios of one simulation (see the module doc)."""

    def __init__(self, host: Host, *, roots=None, limits: Limits | None = None) -> None:
        from luncosim_core.scripting.host import bind_host_api

        self.host = host
        module_roots = [p for p in ((roots.lunco_root if roots else None),
                                    (roots.twin_root if roots else None)) if p is not None]
        self.engine = Engine(limits or DEFAULT_LIMITS, module_roots=module_roots)
        self.on_print: Callable[[str], None] = self._to_console
        self.engine.on_print = lambda s: self.on_print(s)
        self.engine.on_debug = lambda s: self.on_print(s)
        self.current: ScenarioParticipant | None = None
        #: nobody is at the controls (a headless test run): scenarios may drive themselves
        self.unattended = False
        self.planning = False
        self.paths: list[str] = list(host.prim_paths())
        self.ids: dict[str, int] = {p: i + 1 for i, p in enumerate(self.paths)}
        self.inbox: list[Event] = []  # delivered this tick
        self.outbox: list[Event] = []  # emitted this tick, delivered next tick
        self._tick = -1
        self._emitted: dict[str, int] = {}  # events emitted this tick, by scenario prim path
        self.telemetry: deque[Event] = deque(maxlen=TELEMETRY_CAPACITY)
        self.telemetry_dropped = 0  # events pushed out of the full history
        self.listeners: list[Callable[[Event], None]] = []
        self.lint_report: dict | None = None
        self.diagnostics: list[Diagnostic] = []
        self._warned: set[tuple] = set()
        bind_host_api(self.engine, self)
        _files, prelude_diags = load_prelude(self.engine, roots)
        self.diagnostics += prelude_diags

    def _to_console(self, line: str) -> None:
        cur = self.current
        now = self.host.time()
        self.host.publish(ConsoleLine(now.tick, now.time, cur.prim_path if cur is not None else "", line))

    # -- entities ------------------------------------------------------------------------
    def path_of(self, ident: Any) -> str | None:
        """A prim path from an entity id (int) or a path string; None when absent."""
        if type(ident) is int:
            if 1 <= ident <= len(self.paths):
                return self.paths[ident - 1]
            return None
        if type(ident) is float and ident.is_integer():
            return self.path_of(int(ident))
        if isinstance(ident, str) and ident.startswith("/"):
            return ident if ident in self.ids else None
        return None

    def id_of(self, path: str) -> int:
        i = self.ids.get(path)
        if i is None:  # a prim the scene gained since (a spawn by another scenario or the API)
            self.refresh_paths()
            i = self.ids.get(path, -1)
        return i

    def refresh_paths(self) -> None:
        """Give prims the scene gained since (a spawn) the next ids; existing ids never change."""
        for p in self.host.prim_paths():
            if p not in self.ids:
                self.paths.append(p)
                self.ids[p] = len(self.paths)

    # -- events --------------------------------------------------------------------------
    def begin_tick(self, tick: int) -> None:
        """Called by each scenario before its hooks; the first call in a tick turns the bus."""
        if tick != self._tick:
            self._tick = tick
            self.inbox, self.outbox = self.outbox, []
            self._emitted = {}

    def emit(self, name: str, value: Any, severity: str = "info") -> None:
        cur = self.current
        path = cur.prim_path if cur is not None else ""
        count = self._emitted.get(path, 0) + 1
        if count > MAX_EVENTS_PER_TICK:
            raise RhaiLimitError(f"emit: more than {MAX_EVENTS_PER_TICK:,} events in one tick "
                                 f"(the last was {name!r}); a scenario emitting without bound is stopped")
        self._emitted[path] = count
        now = self.host.time()
        ev = Event(name, value, self.id_of(path) if path else -1, path, severity, now.time, now.tick)
        self._deliver(ev)

    def inject(self, name: str, value: Any, source_path: str, severity: str = "info") -> None:
        """An event the runtime raised (a trigger-zone crossing, a ``LunCoEvent`` edge), delivered
        next tick like an ``emit`` from ``source_path``."""
        now = self.host.time()
        ev = Event(name, value, self.id_of(source_path), source_path, severity, now.time, now.tick)
        self._deliver(ev)

    def _deliver(self, ev: Event) -> None:
        """Queue ``ev`` for next tick, keep it in the history (dropping the oldest when full) and
        hand it to the listeners."""
        self.outbox.append(ev)
        history = self.telemetry
        if history.maxlen is not None and len(history) >= history.maxlen:
            self.telemetry_dropped += 1
            if self.telemetry_dropped == 1:
                self.warn_once(("events-dropped",), Diagnostic(
                    "warning", "scenario-events-dropped",
                    f"the event history keeps the newest {history.maxlen:,} events; older ones are dropped "
                    f"from it from tick {ev.tick} on (scenarios and listeners still receive every event)",
                    path=ev.source_path or None, source="scenario"))
        history.append(ev)
        for fn in list(self.listeners):
            fn(ev)

    # -- diagnostics ---------------------------------------------------------------------
    def warn_once(self, key: tuple, diag: Diagnostic) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        if self.current is not None:
            self.current.diagnostics.append(diag)
        else:
            self.diagnostics.append(diag)

    def take_diagnostics(self) -> list[Diagnostic]:
        out, self.diagnostics = self.diagnostics, []
        return out

