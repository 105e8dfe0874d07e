"""What the connectivity kernel costs a running simulation.

A scene of our own anchored on the Moon: 12 scene-local nodes (a ring of masts), 3 Earth stations,
3 lunar orbiters and an occluder wall, measured in one run:

- one ``Links`` query (read the nodes, place them at the current epoch, every pairwise verdict);
- the link ports' recompute (the same, reduced per peer class), which runs every 0.25 s of
  simulated time, i.e. once per 15 ticks at 60 Hz;
- the baseline: one simulation tick of the same scene (one falling rigid box).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

from luncosim_core.api.commands import Links
from luncosim_core.environment.links import _body_position, _earth_rotation
from luncosim_core.sim.link_query import LinkScene, _best_per_class
from luncosim_core.sim.simulation import open_simulation

REPEAT = 7


def scene_text() -> str:
    out = ['#usda 1.0\n(\n    defaultPrim = "World"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n',
           'def Xform "World"\n{\n    double lunco:anchor:lat = -85.0\n    int lunco:anchor:body = 301\n'
           '    double lunco:time:epochJd = 2461395.5\n']
    for i in range(12):
        a = 2 * math.pi * i / 12
        out.append(f'    def Xform "Mast{i}"\n    {{\n        bool lunco:linkNode = true\n'
                   f'        string lunco:link:class = "{"rover" if i % 3 == 0 else "relay"}"\n'
                   f'        double3 xformOp:translate = ({40 * math.cos(a):.3f}, 5, {40 * math.sin(a):.3f})\n'
                   '        uniform token[] xformOpOrder = ["xformOp:translate"]\n    }\n')
    for i, (lat, lon) in enumerate(((40.43, -4.25), (35.43, -116.89), (-35.40, 148.98))):
        out.append(f'    def Xform "DSS{i}"\n    {{\n        bool lunco:linkNode = true\n'
                   f'        string lunco:link:class = "earth"\n        double lunco:link:minElevationDeg = 5\n'
                   f'        double lunco:anchor:lat = {lat}\n        double lunco:anchor:lon = {lon}\n'
                   '        int lunco:anchor:body = 399\n    }\n')
    for i in range(3):
        out.append(f'    def Xform "Sat{i}"\n    {{\n        bool lunco:linkNode = true\n'
                   f'        string lunco:link:class = "relay"\n        int lunco:orbit:body = 301\n'
                   f'        double lunco:orbit:semiMajorAxisM = 6540000\n        double lunco:orbit:eccentricity = 0.6\n'
                   f'        double lunco:orbit:inclinationDeg = 57.7\n        double lunco:orbit:meanAnomalyDeg = {120 * i}\n'
                   '    }\n')
    out.append('    def Cube "Wall"\n    {\n        double size = 1\n        bool lunco:occluder = true\n'
               '        double3 xformOp:scale = (8, 12, 1)\n        uniform token[] xformOpOrder = ["xformOp:scale"]\n'
               '    }\n'
               '    def PhysicsScene "Physics"\n    {\n    }\n'
               '    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])\n'
               '    {\n        double3 xformOp:translate = (50, 3, 0)\n        uniform token[] xformOpOrder = ["xformOp:translate"]\n    }\n}\n')
    return "".join(out)


def cold() -> None:
    """Forget the per-epoch ephemeris answers, as a recompute at a new simulated time would."""
    _body_position.cache_clear()
    _earth_rotation.cache_clear()


def best(fn) -> float:
    out = float("inf")
    for _ in range(REPEAT):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "links.usda"
        path.write_text(scene_text(), encoding="utf-8")
        sim = open_simulation(path)
        sim.run(2)
        query = best(lambda: (cold(), sim.query(Links())))
        scene = LinkScene(sim)
        ports = best(lambda: (cold(), _best_per_class(scene.at_now())))
        tick = best(lambda: sim.run(1))
        sim.close()
    print("nodes: 18 (12 scene-local, 3 Earth, 3 orbiters), 1 occluder")
    print(f"Links query:               {query * 1e3:8.2f} ms")
    print(f"link ports recompute:      {ports * 1e3:8.2f} ms (every 15 ticks)")
    print(f"one simulation tick:       {tick * 1e3:8.2f} ms")
    print(f"ratio query / tick:        {query / tick:8.2f}x")
    print(f"ratio ports per tick / tick: {ports / 15 / tick:6.2f}x  (amortised over the 0.25 s cadence)")


if __name__ == "__main__":
    main()
