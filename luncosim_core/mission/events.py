"""Mission events: named, tick-stamped records that a panel, a log or a test can follow."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MissionEvent:
    name: str
    tick: int
    payload: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"name": self.name, "tick": self.tick, "payload": self.payload}


class EventLog:
    """Every event of a run, in order; listeners are called synchronously as each is emitted."""

    def __init__(self, listeners: list[Callable[[MissionEvent], None]] | tuple = ()) -> None:
        self.events: list[MissionEvent] = []
        self.listeners: list[Callable[[MissionEvent], None]] = list(listeners)

    def emit(self, name: str, tick: int, /, **payload: Any) -> MissionEvent:
        event = MissionEvent(name, tick, payload)
        self.events.append(event)
        for listener in list(self.listeners):
            listener(event)
        return event

    def named(self, name: str) -> list[MissionEvent]:
        return [e for e in self.events if e.name == name]
