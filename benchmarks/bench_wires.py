"""10,000 wires propagated per tick: the compiled fabric vs a bare numpy take/put of the same size."""

from __future__ import annotations

import time

import numpy as np

from luncosim_core.ports.fabric import Fabric
from luncosim_core.ports.model import Wire

N_WIRES = 10_000
REPEAT = 2000


def best_of(fn, repeat: int = REPEAT, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best


def main() -> None:
    rng = np.random.default_rng(7)
    n_ports = 2 * N_WIRES
    index = {f"/P{i}.v": i for i in range(n_ports)}
    src = rng.permutation(N_WIRES)
    wires = [Wire(f"/P{s}", "v", f"/P{N_WIRES + i}", "v", "double") for i, s in enumerate(src)]
    units = {}
    # a tenth of the wires carry a unit conversion (rpm -> rad/s)
    for i, w in enumerate(wires):
        if i % 10 == 0:
            units[w.source_key] = "rpm"
            units[w.sink_key] = "rad/s"
    fab = Fabric()
    fab.compile(wires, index, units)
    values = rng.standard_normal(n_ports)
    s_idx = fab.src.copy()
    d_idx = fab.sinks.copy()

    def bare() -> None:
        values[d_idx] = values[s_idx]

    fabric = best_of(lambda: fab.propagate(values))
    baseline = best_of(bare)
    print(f"wires: {N_WIRES}")
    print(f"fabric propagate per tick: {fabric * 1e6:8.1f} us")
    print(f"bare numpy gather/scatter: {baseline * 1e6:8.1f} us")
    print(f"ratio fabric / bare:       {fabric / baseline:8.2f}x  (aim: under 100 us and within 2x)")


if __name__ == "__main__":
    main()
