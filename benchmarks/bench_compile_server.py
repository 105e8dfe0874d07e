"""Compile latency of the rumoca front end: in this process with a fresh session (the baseline:
how every compile ran before the compile server) against the persistent compile server (a child
process keeping one session per library).

Run: ``.venv/bin/python benchmarks/bench_compile_server.py`` (set LUNCOSIM_EXTERNAL_ASSETS to
include LunCoSim's package models, where session reuse matters most). Figures are medians of this
run; the ratio column is server / in-process-fresh, measured in the same run.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from luncosim_core.modelica.compile_server import CompileServer
from luncosim_core.modelica.compiler import BUNDLED_LIBRARY, _package_root
from luncosim_core.modelica.frontend import front_end
from luncosim_core.modelica.source_text import guess_model_name

REPO = Path(__file__).resolve().parents[1]
OURS = ["Workbench/Rover/DriveController.mo", "Workbench/Power/Battery.mo", "Workbench/Electrical/RCLadder.mo"]
EXTERNAL = ["LunCo/Pointing/EarthTracker.mo", "LunCo/Electrical/Battery.mo", "LunCo/Mobility/RoverDrivetrain.mo",
            "Lander.mo"]


def _request(path: Path, extra: list[str]) -> tuple:
    text = path.read_text(encoding="utf-8")
    roots = [*extra, str(BUNDLED_LIBRARY)]
    pkg = _package_root(path.resolve())
    if pkg is not None and str(pkg) not in roots:
        roots.insert(0, str(pkg))
    return text, guess_model_name(text, path), str(path), str(path), tuple(roots)


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        assert result.ok, result.diagnostics
    return statistics.median(times)


def main() -> None:
    paths = [(REPO / "assets" / "models" / rel, []) for rel in OURS]
    ext = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    if ext and (Path(ext) / "models").is_dir():
        lib = str(Path(ext) / "models")
        paths += [(Path(lib) / rel, [lib]) for rel in EXTERNAL]
    server = CompileServer()
    t0 = time.perf_counter()
    server.front_end(*_request(paths[0][0], paths[0][1]))
    print(f"compile server start + first compile: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    print(f"{'model':40s} {'in-process fresh':>17s} {'server (warm)':>14s} {'ratio':>7s}")
    try:
        for path, extra in paths:
            req = _request(path, extra)
            server.front_end(*req)  # warm this library's session
            fresh = _median(lambda r=req: front_end(*r), 3)
            warm = _median(lambda r=req: server.front_end(*r), 3)
            print(f"{req[1]:40s} {fresh * 1e3:14.0f} ms {warm * 1e3:11.0f} ms {warm / fresh:7.2f}")
    finally:
        server.close()


if __name__ == "__main__":
    main()
