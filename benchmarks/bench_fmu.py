"""One FMU communication step with typed I/O (7 inputs, 12 outputs over Float32/Int32/Boolean/
Float64 arrays) against a bare fmpy ``doStep`` on the same instance, and against the same reads
and writes through fmpy's per-call wrappers. Builds the test suite's C FMU (needs a compiler)."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

REPEAT = 2000


def best_of(fn, repeat: int = REPEAT, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best


def main() -> int:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        print("skipped: no C compiler to build the test FMU")
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "modelica"))
    from fmu_build import build_c_fmu3

    from luncosim_core.modelica import FmuParticipant

    with tempfile.TemporaryDirectory() as folder:
        p = FmuParticipant(build_c_fmu3(Path(folder), "Typed3"), period=1 / 60)
        fmu = p._fmu
        # every input changes every step, so every step writes them all (as the wrappers do)
        steps = [{"u32": 0.5 + k, "step_by": 1 + k, "enable": k, "v[1]": 1.0 + k, "v[2]": 2.0, "v[3]": 3.0,
                  "uin": 1.0 + k} for k in (0, 1)]
        turn = [0]

        def ours() -> None:
            turn[0] ^= 1
            p.set_inputs(steps[turn[0]])
            p.step()
            p.outputs()

        def bare() -> None:
            t0, t1 = p.ticks / 60, (p.ticks + 1) / 60
            fmu.doStep(currentCommunicationPoint=t0, communicationStepSize=t1 - t0)
            p.ticks += 1

        def wrappers() -> None:  # the same values through fmpy's convenience calls
            fmu.setFloat32([2], [0.5])
            fmu.setInt32([5], [1])
            fmu.setBoolean([6], [True])
            fmu.setFloat64([9, 12], [1.0, 2.0, 3.0, 1.0])
            bare()
            fmu.getFloat32([3])
            fmu.getInt32([4])
            fmu.getBoolean([7])
            fmu.getFloat64([10, 13, 14, 15], nValues=9)

        t_ours, t_bare, t_wrap = best_of(ours), best_of(bare), best_of(wrappers)
        p.close()
    print(f"typed FMU step + I/O      {t_ours * 1e6:8.1f} us   ({t_ours / t_bare:5.1f}x a bare doStep)")
    print(f"bare fmpy doStep          {t_bare * 1e6:8.1f} us   (baseline)")
    print(f"fmpy wrappers, same I/O   {t_wrap * 1e6:8.1f} us   ({t_wrap / t_bare:5.1f}x a bare doStep)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
