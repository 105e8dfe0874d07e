"""Screenshots of the workbench: open a twin, run N ticks, save the window as PNG.

Runs on whatever display is present (use ``xvfb-run`` without one); the 3D viewport is used when
OpenGL is available, else its placeholder is shown.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from luncosim_core.api.commands import Command

TICK_TIMEOUT_S = 120.0


def _pump(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)


def take_screenshot(twin: Path, out: Path, ticks: int = 0, perspective: str | None = None,
                    width: int = 1600, height: int = 1000, *, commands: Sequence[Command] = (),
                    select: Sequence[str] = (), plot: Sequence[str] = (), settings: Path | None = None) -> Path:
    """Open ``twin`` (folder, twin.toml or scene), send ``commands``, run ``ticks`` ticks as fast as
    possible, select ``select`` prims, plot ``plot`` ports, and save the whole window to ``out``.

    ``settings``: where layouts are read/written (default: a throwaway folder, so a screenshot never
    depends on or changes the user's saved layout). Raises RuntimeError if opening fails or the
    ticks do not complete.
    """
    import tempfile

    from luncosim_workbench.app import ensure_app
    from luncosim_workbench.main_window import MainWindow

    app = ensure_app()
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(settings=settings or Path(tmp))
        try:
            window.resize(width, height)
            window.apply_perspective(perspective or "Simulate")
            window.show()
            _pump(app, 0.2)
            if not window.open_path(Path(twin)):
                raise RuntimeError(f"could not open {twin}")
            window.apply_perspective(perspective or "Simulate")
            if select:
                window.session.selection.set(list(select))
            plots = window.panels.get("plots")
            for key in plot:
                plots.add_channel(key)
            bridge = window.bridge
            deadline = time.perf_counter() + TICK_TIMEOUT_S
            while bridge.latest is None and time.perf_counter() < deadline:
                _pump(app, 0.02)
            for cmd in commands:
                fut = bridge.send(cmd)
                if fut is None:
                    raise RuntimeError("no simulation to send commands to")
            if ticks > 0:
                bridge.set_speed("max")
                bridge.step(ticks)
                while (bridge.latest is None or bridge.latest.tick < ticks) and time.perf_counter() < deadline:
                    _pump(app, 0.02)
                snap = bridge.latest
                if snap is None or snap.tick < ticks:
                    raise RuntimeError(f"the simulation did not reach tick {ticks} within {TICK_TIMEOUT_S:.0f} s"
                                       + (f" ({snap.status}: {snap.reason})" if snap else ""))
                bridge.set_speed("1x")
                window.transport.speed.setCurrentText("1x")
            bridge.flush()
            if window.viewport is not None:
                window.fit_view()
            _pump(app, 0.5)
            bridge.flush()
            _pump(app, 0.3)
            image = window.grab()
            out = Path(out)
            out.parent.mkdir(parents=True, exist_ok=True)
            if not image.save(str(out), "PNG"):
                raise RuntimeError(f"could not write {out}")
            return out
        finally:
            for doc in [window.session.document]:
                if doc is not None and doc.dirty:
                    window.ask_unsaved = lambda _why: "discard"
            window.close()
            window.deleteLater()
            _pump(app, 0.1)
