"""CausalTrace: join one command to its binding, owner, admission stamp and measured value."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from luncosim_core.diagnostics import Diagnostic


@dataclass
class TraceEntry:
    target: str
    correlation_id: str | None
    tick: int
    sequence: int
    writes: dict[str, float] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)


class TraceBuffer:
    """Bounded history of admitted commands (cleared on teardown)."""

    def __init__(self, limit: int = 512) -> None:
        self.entries: deque[TraceEntry] = deque(maxlen=limit)

    def clear(self) -> None:
        self.entries.clear()

    def record(self, cmd, tick: int, seq: int, writes) -> None:
        self.entries.append(TraceEntry(cmd.target, cmd.correlation_id, tick, seq,
                                       {info.name: v for info, v in writes},
                                       {info.name: info.authority for info, _ in writes}))

    def record_rejected(self, cmd, tick: int, seq: int, diags: list[Diagnostic]) -> None:
        self.entries.append(TraceEntry(cmd.target, cmd.correlation_id, tick, seq, rejected=[d.message for d in diags]))

    def explain(self, target: str, correlation_id: str | None, sim) -> dict:
        """The newest entry for ``target`` (or the one with ``correlation_id``), joined with now."""
        entry = None
        for e in reversed(self.entries):
            if e.target == target and (correlation_id is None or e.correlation_id == correlation_id):
                entry = e
                break
        if entry is None:
            return {"target": target, "correlation_id": correlation_id, "complete": False,
                    "stages": {"command": "absent"}, "message": "no command for this target in the trace buffer"}
        ports = {}
        complete = not entry.rejected
        for name, commanded in entry.writes.items():
            key = f"{target}.{name}"
            info = sim.registry.info(key)
            wires = [w for w in sim.fabric.valid if w.sink_key == key or w.source_key == key]
            measured = sim.registry.value(key) if info else None
            stage_admitted = "admitted" if sim.tick_count >= entry.tick else "pending"
            if stage_admitted == "pending" or measured is None:
                complete = False
            ports[name] = {
                "binding": f"{target}.{('inputs:' if info and info.direction != 'out' else 'outputs:')}{name}" if info and info.declared else f"{target}.{name} ({info.source if info else '?'} port)",
                "owner": info.authority if info else "unknown",
                "commanded": commanded,
                "measured": measured,
                "admission": stage_admitted,
                "downstream": [w.sink_key for w in wires if w.source_key == key],
            }
        return {"target": target, "correlation_id": entry.correlation_id, "tick": entry.tick, "sequence": entry.sequence,
                "complete": complete, "ports": ports, "rejected": entry.rejected}
