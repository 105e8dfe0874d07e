"""Cyclic garbage is collected on the UI thread only.

Python's collector runs on whichever thread happens to allocate when a threshold is crossed. With
the simulation on its own thread, that can be the worker, and a Qt object caught in a reference
cycle would then be destroyed off the UI thread (Qt aborts). So while the workbench runs,
automatic collection is off and a UI-thread timer collects each generation when its threshold
is reached.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

CHECK_INTERVAL_MS = 100
_GUARD: UiThreadCollector | None = None


class UiThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def freeze(self) -> None:
        """Move every object alive now (the built window, its panels, imported modules) out of the
        collector's sight: later collections, which run on the UI thread, then walk only what was
        allocated since, so a worker that allocates heavily (a checker parsing a 10,000-line file)
        no longer costs the UI a 40 ms full collection every few keystrokes."""
        gc.collect()
        gc.freeze()

    def check(self) -> None:
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = self.threshold
        if c2 > t2:
            gc.collect(2)
        elif c1 > t1:
            gc.collect(1)
        elif c0 > t0:
            gc.collect(0)


def install() -> UiThreadCollector:
    """Install the collector once for the running QApplication (call on the UI thread)."""
    global _GUARD
    if _GUARD is None:
        app = QCoreApplication.instance()
        if app is None:
            raise RuntimeError("create the QApplication before installing the UI-thread collector")
        _GUARD = UiThreadCollector(app)
    return _GUARD


def uninstall() -> None:
    """Collect everything now (UI thread) and give collection back to the interpreter."""
    global _GUARD
    if _GUARD is not None:
        _GUARD.timer.stop()
        _GUARD.deleteLater()
        _GUARD = None
    gc.unfreeze()
    gc.collect()
    gc.enable()
