"""``DiagnosticsEngine``: live diagnostics for text buffers, debounced, off the caller's thread.

``submit(key, text, revision)`` after every edit; once ``delay_s`` passes with no newer
submission for that key, one worker thread runs ``checker(key, text)`` (a list of
:class:`~luncosim_core.diagnostics.Diagnostic`) and hands ``(key, revision, diagnostics)`` to
``deliver`` (on the worker thread: a GUI marshals it to its own thread). A result whose revision
is no longer the newest submitted for its key is dropped, so squiggles never describe stale text.
A checker that raises becomes one ``check-failed`` diagnostic, never a dead worker.

Two phases (optional): with ``full_checker``, a second worker runs ``full_checker(key, text)``
once ``full_delay_s`` passes with no newer submission (a pause in typing), for a check too slow
for every keystroke (the Modelica compiler's front end); the fast ``checker`` still runs after
every debounce. ``deliver`` then gets a fourth argument, ``"fast"`` or ``"full"``; a
``full_checker`` returning None delivers nothing (that key has no slow check). The phases run on
separate threads, so a slow check never delays the next fast one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from luncosim_core.diagnostics import Diagnostic

Checker = Callable[[str, str], list[Diagnostic]]
Deliver = Callable[..., None]  # (key, revision, diagnostics[, phase])


class _Phase:
    """One debounced queue and its worker thread."""

    def __init__(self, engine: DiagnosticsEngine, name: str, checker: Callable, delay_s: float) -> None:
        self.engine, self.name, self.checker, self.delay_s = engine, name, checker, delay_s
        self.pending: dict[str, tuple[str, int, float]] = {}  # key -> (text, revision, due)
        self.thread = threading.Thread(target=self._main, name=f"luncosim-text-check-{name}", daemon=True)

    def _next_due(self) -> tuple[str, str, int] | None:
        """Wait for the earliest due submission (under the lock); None when stopping."""
        cond = self.engine._cond
        while not self.engine._stop:
            if not self.pending:
                cond.wait()
                continue
            key, (text, revision, due) = min(self.pending.items(), key=lambda kv: kv[1][2])
            left = due - time.monotonic()
            if left > 0:
                cond.wait(left)
                continue
            del self.pending[key]
            return key, text, revision
        return None

    def _main(self) -> None:
        engine = self.engine
        while True:
            with engine._cond:
                job = self._next_due()
            if job is None:
                return
            key, text, revision = job
            try:
                found = self.checker(key, text)
                found = None if found is None else list(found)
            except Exception as exc:  # a checker bug is a diagnostic, never a dead thread
                found = [Diagnostic("error", "check-failed", f"the checker failed: {type(exc).__name__}: {exc}",
                                    layer=key, source="text")]
            engine.runs += 1
            with engine._cond:
                stale = engine._newest.get(key) != revision
            if not stale and found is not None:
                if engine.full is None:
                    engine.deliver(key, revision, found)
                else:
                    engine.deliver(key, revision, found, self.name)


class DiagnosticsEngine:
    """Debounced worker threads for every open text document (see the module doc)."""

    def __init__(self, checker: Checker, deliver: Deliver, *, delay_s: float = 0.15,
                 full_checker: Callable[[str, str], list[Diagnostic] | None] | None = None,
                 full_delay_s: float = 0.5) -> None:
        self.checker = checker
        self.deliver = deliver
        self.delay_s = delay_s
        self._newest: dict[str, int] = {}
        self._cond = threading.Condition()
        self._stop = False
        self.runs = 0
        self.fast = _Phase(self, "fast", checker, delay_s)
        self.full = _Phase(self, "full", full_checker, full_delay_s) if full_checker is not None else None
        for phase in self._phases():
            phase.thread.start()

    def _phases(self) -> list[_Phase]:
        return [self.fast] if self.full is None else [self.fast, self.full]

    def submit(self, key: str, text: str, revision: int, *, now: bool = False) -> None:
        """Check ``text`` after the debounce delay (``now``: at once, both phases)."""
        with self._cond:
            self._newest[key] = revision
            t = time.monotonic()
            for phase in self._phases():
                phase.pending[key] = (text, revision, t + (0.0 if now else phase.delay_s))
            self._cond.notify_all()

    def forget(self, key: str) -> None:
        with self._cond:
            for phase in self._phases():
                phase.pending.pop(key, None)
            self._newest.pop(key, None)

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        for phase in self._phases():
            phase.thread.join(5.0)
