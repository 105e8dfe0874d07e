"""The sim server's pacing: at 1x, 2x and 4x the demo twin must hold its real-time factor within
2 %; at max, its ticks/s against the same scene headless in this process (the baseline, same run).

Each rate is measured over a few wall seconds from the snapshots the child sends (sim time moved
/ wall time), after a second of warm-up.
"""

from __future__ import annotations

import os
import time

from luncosim_core.api import SetPorts
from luncosim_core.server.local import ServerProcess
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.roots import repository_root

DEMO = repository_root() / "assets" / "twins" / "practice_yard"
SECONDS = float(os.environ.get("BENCH_SERVER_SECONDS", "4"))


def headless_rate(seconds: float) -> float:
    sim = open_simulation(DEMO)
    sim.submit(SetPorts(target="/PracticeYard/RoverA", writes={"throttle": 1.0}))
    sim.wait_until_ready()
    ticks, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        ticks += sim.run(30)
    rate = ticks / (time.perf_counter() - t0)
    sim.close()
    return rate


def measure(link: ServerProcess, seconds: float) -> tuple[float, float]:
    """(sim seconds per wall second, ticks per wall second) over ``seconds``."""
    time.sleep(1.0)  # warm-up: the pacing settles
    a, t0 = link.latest, time.perf_counter()
    time.sleep(seconds)
    b, t1 = link.latest, time.perf_counter()
    return (b.time - a.time) / (t1 - t0), (b.tick - a.tick) / (t1 - t0)


def main() -> None:
    headless = headless_rate(SECONDS)
    link = ServerProcess({"kind": "scene", "scene": str(DEMO), "wait_ready": True}, speed=1.0)
    link.start()
    link.wait_started()
    while link.latest is None:
        time.sleep(0.01)
    link.send(SetPorts(target="/PracticeYard/RoverA", writes={"throttle": 1.0}))
    link.play()
    worst = 0.0
    for speed in (1.0, 2.0, 4.0):
        link.set_speed(speed)
        rtf, _ = measure(link, SECONDS)
        error = abs(rtf / speed - 1.0)
        worst = max(worst, error)
        print(f"speed {speed:g}x: real-time factor {rtf:.3f} ({error * 100:.2f} % off; aim <= 2 %)")
    link.set_speed(None)
    _, rate = measure(link, SECONDS)
    link.stop()
    print(f"max: {rate:.0f} ticks/s in the sim server, {headless:.0f} ticks/s headless in-process")
    print(f"pacing worst error: {worst * 100:.2f} %")
    print(f"throughput server/headless: {rate / headless:.2f}")


if __name__ == "__main__":
    main()
