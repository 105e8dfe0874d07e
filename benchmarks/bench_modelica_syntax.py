"""Text-preserving Modelica edit ops on a 2,000-line model: each op (given the parsed file) vs the
baseline of re-parsing the file once. Aim: every op under 5 ms."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from big_modelica import big_model  # noqa: E402

from luncosim_core.modelica.syntax.geometry import moved  # noqa: E402
from luncosim_core.modelica.syntax.ops import (  # noqa: E402
    AddComponent,
    AddConnection,
    RemoveComponent,
    RemoveConnection,
    RenameComponent,
    SetLinePoints,
    SetParameter,
    apply_op,
)
from luncosim_core.modelica.syntax.parser import parse  # noqa: E402
from luncosim_core.modelica.syntax.resolve import library_for  # noqa: E402


def best_of(fn, repeat: int = 20, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best


def main() -> None:
    text = big_model(900, 1000, comment_every=10)
    n_lines = text.count("\n")
    sd = parse(text)
    lib = library_for(None)
    lib.add(sd)
    cls = sd.find("Big")
    mid = cls.components[450]
    conn = cls.connects[500]
    ops = {
        "SetPlacement (move)": moved(None, mid, 20, -20),
        "SetParameter": SetParameter(None, mid.name, "R", "2 * 3"),
        "RenameComponent": RenameComponent(None, mid.name, "renamed"),
        "AddComponent": AddComponent(None, "Workbench.Electrical.Resistor", "extra", {"R": "5"}, ((0, 0), (20, 20))),
        "RemoveComponent": RemoveComponent(None, mid.name),
        "AddConnection (checked)": AddConnection(None, "c1.p", "c7.n", ((0, 0), (10, 10))),
        "RemoveConnection": RemoveConnection(None, conn.a, conn.b),
        "SetLinePoints": SetLinePoints(None, conn.a, conn.b, ((0, 0), (5, 5), (10, 10))),
    }
    apply_op(text, ops["AddConnection (checked)"], sd, lib)  # warm the library's parsed files
    parse_time = best_of(lambda: parse(text), repeat=3)
    print(f"model: {n_lines} lines, {len(cls.components)} components, {len(cls.connects)} connects")
    print(f"baseline: parse the whole file          {parse_time * 1e3:8.2f} ms")
    worst = 0.0
    for name, op in ops.items():
        t = best_of(lambda op=op: apply_op(text, op, sd, lib))
        worst = max(worst, t)
        print(f"{name:<28} {t * 1e3:8.3f} ms  ratio op / parse {t / parse_time:8.5f}")
    print(f"slowest op: {worst * 1e3:.3f} ms (aim: under 5 ms)")


if __name__ == "__main__":
    main()
