"""UI event-loop latency of the workbench while the demo simulation runs as fast as it can, and
its throughput against the same simulation headless.

First the baseline: the demo twin headless in this process (``Simulation.run``, what
``luncosim run`` does), rover A at full throttle, for a few seconds: ticks/s. Then the workbench:
a 1 ms QTimer measures its own lateness on the UI thread, first with the simulation paused, then
with the rovers driving at max speed in the sim server process and the Simulate perspective live
(ports table, plots of 10 channels, console). The aims: the workbench at >= 80 % of headless
ticks/s, UI p99 <= 33 ms and no stall over 50 ms. Runs on the offscreen platform unless a DISPLAY
is present (then with the 3D viewport). Ends with exactly two lines:
``throughput workbench/headless: <ratio>`` and ``ui p99 ms: <p99>; stalls>50ms: <count>``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402

SECONDS = float(os.environ.get("BENCH_UI_SECONDS", "5"))  # stays under the ~59 s the demo runs before RoverB escapes
AXLES = ("Axle_FL", "Axle_FR", "Axle_RL", "Axle_RR")


def measure(app, seconds: float) -> np.ndarray:
    from PySide6.QtCore import QTimer

    lateness: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        lateness.append(max(0.0, now - last[0] - 0.001))
        last[0] = now

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    timer.start()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.0002)
    timer.stop()
    return np.asarray(lateness) * 1000.0


def describe(name: str, ms: np.ndarray) -> str:
    return (f"{name:<22} samples {len(ms):6d}  mean {ms.mean():6.2f} ms  p99 {np.percentile(ms, 99):6.2f} ms  "
            f"max {ms.max():6.2f} ms  stalls>50ms {int((ms > 50).sum())}")


def headless_rate(seconds: float) -> float:
    """Ticks/s of the demo twin run headless in this process, rover A at full throttle."""
    from luncosim_core.api import SetPorts
    from luncosim_core.sim.simulation import open_simulation
    from luncosim_workbench.app import demo_twin

    sim = open_simulation(demo_twin())
    sim.submit(SetPorts(target="/PracticeYard/RoverA", writes={"throttle": 1.0}))
    sim.wait_until_ready()
    sim.run(10)
    ticks, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        ticks += sim.run(30)
    rate = ticks / (time.perf_counter() - t0)
    sim.close()
    return rate


def main() -> int:
    from luncosim_core.api import SetPorts
    from luncosim_workbench.app import demo_twin, ensure_app
    from luncosim_workbench.main_window import MainWindow

    headless = headless_rate(SECONDS)
    app = ensure_app()
    window = MainWindow(settings=Path(tempfile.mkdtemp()))
    window.ask_unsaved = lambda _why: "discard"
    window.resize(1600, 1000)
    window.show()
    window.open_path(demo_twin())
    window.apply_perspective("Simulate")
    bridge = window.bridge
    while bridge.latest is None:
        app.processEvents()
        time.sleep(0.01)
    bridge.send(SetPorts(target="/PracticeYard/RoverA", writes={"throttle": 1.0}))
    bridge.step(1)  # a step waits out the first compile: measure running, not waiting
    while bridge.latest.tick < 1:
        app.processEvents()
        time.sleep(0.01)
    plots = window.panels["plots"]
    keys = [k for k in bridge.latest.port_keys if "/RoverA/" in k][:10]
    for key in keys:
        plots.add_channel(key)
    window.session.selection.set(["/PracticeYard/RoverA"])
    ports = window.panels["ports"]
    while not ports.model.ports:  # the port list arrives once; measure steady state
        app.processEvents()
        time.sleep(0.01)
    base = measure(app, SECONDS)
    t0_tick, f0 = bridge.latest.tick, bridge.frames
    bridge.set_speed("max")
    bridge.play()
    t0 = time.perf_counter()
    load = measure(app, SECONDS)
    elapsed = time.perf_counter() - t0
    ticks = bridge.latest.tick - t0_tick
    frames = bridge.frames - f0
    frame_ms = bridge.frame_cost * 1000.0
    bridge.pause()
    print(f"platform {app.platformName()}, viewport {'on' if window.viewport is not None else 'placeholder'}, "
          f"{SECONDS:.0f} s each, {len(bridge.latest.port_keys)} ports, {len(keys)} plotted channels")
    print(describe("paused (baseline)", base))
    print(describe("max-speed sim", load))
    print(f"sim ticks {ticks} ({ticks / elapsed:.0f} ticks/s, {ticks / elapsed / 60:.1f}x real time); UI frames {frames} "
          f"({frames / elapsed:.0f} fps, the last one took {frame_ms:.0f} ms with its repaints); "
          f"telemetry rows {len(bridge.telemetry)}")
    print(f"ratio max-lateness load/baseline {load.max() / max(base.max(), 1e-3):.1f}; "
          f"p99 ratio {np.percentile(load, 99) / max(np.percentile(base, 99), 1e-3):.1f}")
    rate = ticks / elapsed
    print(f"headless {headless:.0f} ticks/s ({headless / 60:.1f}x real time); workbench at max {rate:.0f} ticks/s; "
          f"aims: >= 0.80 of headless, p99 <= 33 ms, no stall over 50 ms")
    window.close()
    print(f"throughput workbench/headless: {rate / headless:.2f}")
    print(f"ui p99 ms: {np.percentile(load, 99):.1f}; stalls>50ms: {int((load > 50).sum())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
