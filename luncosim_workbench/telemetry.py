"""Telemetry ring buffers: every tick's port values, kept for plots and CSV export.

Pure numpy, no Qt. The simulation thread appends one row a tick (cheap, under a lock); the UI
thread reads copies on its own timer. A change of the port index (a rebuilt projection with new
ports) starts a fresh buffer, since old columns no longer mean the same thing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

DEFAULT_CAPACITY = 60 * 60 * 10  # ten minutes at 60 Hz


class TelemetryRing:
    """A fixed-capacity ring of (tick, time, values[P]) rows for one port index."""

    def __init__(self, keys: Sequence[str] = (), capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"telemetry capacity must be at least 1 row, got {capacity}")
        self.capacity = int(capacity)
        self._lock = threading.Lock()
        self._reset(tuple(keys))

    def _reset(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self._index = {k: i for i, k in enumerate(keys)}
        self._ticks = np.zeros(self.capacity, dtype=np.int64)
        self._times = np.zeros(self.capacity, dtype=np.float64)
        self._values = np.full((self.capacity, len(keys)), np.nan, dtype=np.float64)
        self._count = 0  # rows ever appended since the last reset
        self.dropped = 0  # rows overwritten because the ring was full

    # ------------------------------------------------------------------ writer side
    def append(self, tick: int, time: float, keys: Sequence[str], values: np.ndarray) -> None:
        """Append one sample. New ``keys`` (another port index) reset the buffer first.
        The same tick again (a paused simulation republishing) replaces the last row; an earlier
        tick (a reset simulation) starts over."""
        with self._lock:
            if tuple(keys) != self.keys:
                self._reset(tuple(keys))
            elif self._count:
                last = (self._count - 1) % self.capacity
                if tick == self._ticks[last]:
                    self._times[last] = time
                    self._values[last, :] = values
                    return
                if tick < self._ticks[last]:
                    self._reset(self.keys)
            row = self._count % self.capacity
            self._ticks[row] = tick
            self._times[row] = time
            self._values[row, :] = values
            if self._count >= self.capacity:
                self.dropped += 1
            self._count += 1

    def extend(self, ticks: np.ndarray, times: np.ndarray, keys: Sequence[str], values: np.ndarray) -> None:
        """Append many samples (one row each, ``values`` shaped (n, P)): a sim server's frame.
        Rows that only move forward are written in one go; anything else goes row by row."""
        n = len(ticks)
        with self._lock:
            last = self._ticks[(self._count - 1) % self.capacity] if self._count else None
            simple = (n and tuple(keys) == self.keys and (last is None or ticks[0] > last)
                      and (n == 1 or bool(np.all(np.diff(ticks) > 0))))
            if simple:
                rows = np.arange(self._count, self._count + n) % self.capacity
                keep = slice(max(0, n - self.capacity), n)  # more rows than the ring holds: the newest
                self._ticks[rows[keep]] = ticks[keep]
                self._times[rows[keep]] = times[keep]
                self._values[rows[keep], :] = values[keep]
                self.dropped += max(0, self._count + n - self.capacity) - max(0, self._count - self.capacity)
                self._count += n
                return
        for i in range(n):
            self.append(int(ticks[i]), float(times[i]), keys, values[i])

    def clear(self) -> None:
        with self._lock:
            self._reset(self.keys)

    # ------------------------------------------------------------------ reader side
    def __len__(self) -> int:
        return min(self._count, self.capacity)

    @property
    def total(self) -> int:
        """Rows appended since the last reset (including overwritten ones)."""
        return self._count

    def _order(self) -> np.ndarray:
        n = min(self._count, self.capacity)
        start = self._count - n
        return (np.arange(start, start + n) % self.capacity) if n else np.zeros(0, dtype=np.int64)

    def column(self, key: str) -> int | None:
        return self._index.get(key)

    def read(self, keys: Sequence[str] | None = None, since_time: float | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies in time order: ticks (R,), times (R,), values (R, K) for ``keys`` (all when None).
        Unknown keys give a NaN column. ``since_time`` keeps rows with time >= it."""
        with self._lock:
            order = self._order()
            ticks = self._ticks[order]
            times = self._times[order]
            if keys is None:
                values = self._values[order]
            else:
                values = np.full((len(order), len(keys)), np.nan)
                for j, k in enumerate(keys):
                    i = self._index.get(k)
                    if i is not None:
                        values[:, j] = self._values[order, i]
        if since_time is not None and len(times):
            first = int(np.searchsorted(times, since_time, side="left"))
            ticks, times, values = ticks[first:], times[first:], values[first:]
        return ticks, times, values

    def to_csv(self, path: str | Path, keys: Sequence[str] | None = None) -> Path:
        """Write tick, time and the chosen columns (all when None) as CSV; pending values are empty."""
        keys = list(self.keys if keys is None else keys)
        ticks, times, values = self.read(keys)
        path = Path(path)
        with path.open("w", encoding="utf-8", newline="") as fh:
            fh.write(",".join(["tick", "time"] + keys) + "\n")
            for r in range(len(ticks)):
                cells = [str(int(ticks[r])), repr(float(times[r]))]
                cells += ["" if v != v else repr(float(v)) for v in values[r].tolist()]
                fh.write(",".join(cells) + "\n")
        return path
