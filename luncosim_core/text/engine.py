"""``DiagnosticsEngine``: live diagnostics for text buffers, debounced, off the caller's thread.

``submit(key, text, revision)`` after every edit; once ``delay_s`` passes with no newer
submission for that key, one worker thread runs ``checker(key, text)`` (a list of
:class:`~luncosim_core.diagnostics.Diagnostic`) and hands ``(key, revision, diagnostics)`` to
``deliver`` (on the worker thread: a GUI marshals it to its own thread). A result whose revision
is no longer the newest submitted for its key is dropped, so squiggles never describe stale text.
A checker that raises becomes one ``check-failed`` diagnostic, never a dead worker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from luncosim_core.diagnostics import Diagnostic

Checker = Callable[[str, str], list[Diagnostic]]
Deliver = Callable[[str, int, list[Diagnostic]], None]


class DiagnosticsEngine:
    """One debounced worker thread for every open text document (see the module doc)."""

    def __init__(self, checker: Checker, deliver: Deliver, *, delay_s: float = 0.15) -> None:
        self.checker = checker
        self.deliver = deliver
        self.delay_s = delay_s
        self._pending: dict[str, tuple[str, int, float]] = {}  # key -> (text, revision, due)
        self._newest: dict[str, int] = {}
        self._cond = threading.Condition()
        self._stop = False
        self.runs = 0
        self._thread = threading.Thread(target=self._main, name="luncosim-text-check", daemon=True)
        self._thread.start()

    def submit(self, key: str, text: str, revision: int, *, now: bool = False) -> None:
        """Check ``text`` after the debounce delay (``now``: at once)."""
        with self._cond:
            self._newest[key] = revision
            self._pending[key] = (text, revision, time.monotonic() + (0.0 if now else self.delay_s))
            self._cond.notify()

    def forget(self, key: str) -> None:
        with self._cond:
            self._pending.pop(key, None)
            self._newest.pop(key, None)

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join(5.0)

    def _next_due(self) -> tuple[str, str, int] | None:
        """Wait for the earliest due submission (under the lock); None when stopping."""
        while not self._stop:
            if not self._pending:
                self._cond.wait()
                continue
            key, (text, revision, due) = min(self._pending.items(), key=lambda kv: kv[1][2])
            left = due - time.monotonic()
            if left > 0:
                self._cond.wait(left)
                continue
            del self._pending[key]
            return key, text, revision
        return None

    def _main(self) -> None:
        while True:
            with self._cond:
                job = self._next_due()
            if job is None:
                return
            key, text, revision = job
            try:
                found = list(self.checker(key, text))
            except Exception as exc:  # a checker bug is a diagnostic, never a dead thread
                found = [Diagnostic("error", "check-failed", f"the checker failed: {type(exc).__name__}: {exc}",
                                    layer=key, source="text")]
            self.runs += 1
            with self._cond:
                stale = self._newest.get(key) != revision
            if not stale:
                self.deliver(key, revision, found)
