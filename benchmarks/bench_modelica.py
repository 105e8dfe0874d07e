"""Modelica benchmarks: compile time per model, cost per communication step, front-end comparison.

Run: ``.venv/bin/python benchmarks/bench_modelica.py`` (set LUNCOSIM_EXTERNAL_ASSETS to include
LunCoSim's library). Every figure is measured in this run; ratios are against baselines measured
in the same run: a bare CasADi call of the same right-hand side, and the same model stepped on
fixed RK4 substeps ``max(4, ceil(rho * period))`` (the scheme before error-controlled substeps).
Accuracy against tight references: ``bench_modelica_accuracy.py``.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from pathlib import Path

import numpy as np

from luncosim_core.modelica import ModelicaParticipant, compile_model

REPO = Path(__file__).resolve().parents[1]
LIB = REPO / "assets" / "models"
OURS = [
    "Workbench/Rover/DriveController.mo",
    "Workbench/Power/Battery.mo",
    "Workbench/Thermal/RadiatorMass.mo",
    "Workbench/Control/FirstOrder.mo",
    "Workbench/Control/PIDAxis.mo",
    "Workbench/Pointing/ReactionWheel.mo",
    "Workbench/Electrical/RCCircuit.mo",
    "Workbench/Electrical/RCLadder.mo",
]
EXTERNAL = ["LunCo/Mobility/RoverDrivetrain.mo", "LunCo/Electrical/Battery.mo",
            "LunCo/GNC/PIDAxis.mo", "QuarterCar.mo", "Lander.mo", "CommsLink.mo"]


def _median_time(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _per_call(fn, n: int) -> float:
    """CPU seconds of this process per call (the cores are shared: wall time waits on others)."""
    fn()  # warm
    t0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t0) / n


def bench_compile(paths: list[Path]) -> None:
    print("\n== compile (rumoca + DAE -> CasADi + block solve), median of 3 ==")
    for path in paths:
        cm = compile_model(path)
        t = _median_time(lambda p=path: compile_model(p), repeat=3)
        status = "ok" if cm.ok else f"FAILS: {cm.diagnostics[0].code}"
        print(f"  {cm.model_name or path.name:45s} {t * 1e3:8.1f} ms  {status}")


def _stepper(cm, values: np.ndarray, names: list[str], **kw):
    p = ModelicaParticipant(cm, **kw)
    it = iter(range(10**9))
    n = len(values)

    def step() -> None:
        i = next(it) % n
        if names:
            p.set_inputs(dict(zip(names, values[i], strict=True)))
        p.step()
        p.outputs()

    return p, step


def _old_substeps(p: ModelicaParticipant) -> int:
    rho = p._spectral_radius(p.x)
    return max(4, math.ceil(rho * p.period)) if rho > 0 else 4


def bench_step(path: Path, n: int = 3000, label: str = "", constant: bool = False) -> tuple[float, float]:
    """Per-step cost vs the fixed-RK4 scheme and a bare CasADi evaluation of the same
    right-hand side (same run). Inputs: random commands in -1..1 each step for small models
    (``constant``: their defaults), defaults for big ones (many live inputs)."""
    cm = compile_model(path)
    assert cm.ok, cm.diagnostics
    num = cm.numerics
    rng = np.random.default_rng(0)
    names = [v.name for v in cm.interface.inputs]
    defaults = np.array([v.start or 0.0 for v in cm.interface.inputs])
    values = (rng.uniform(-1, 1, size=(n, len(names))) if len(names) <= 4 and not constant
              else np.tile(defaults, (n, 1)))
    p, step = _stepper(cm, values, names)
    old, old_step = _stepper(cm, values, names, method="rk4", substeps=_old_substeps(p))
    per_step = old_time = math.inf
    for _ in range(3):  # interleaved, best of three: the machine is shared
        per_step = min(per_step, _per_call(step, n))
        try:
            old_time = min(old_time, _per_call(old_step, n))
        except Exception:  # noqa: BLE001 - fixed RK4 may diverge where error control does not
            old_time = math.nan
    rhs = num.values_function()
    guess = np.concatenate([p.xdot, p.z])
    xdot, z = np.zeros(num.n_x), np.zeros(num.n_z)
    t = np.array([p.time])
    buf, ev = rhs.buffer()
    for i, arr in enumerate((p.x, p.u, p.p, t, guess, p.d, p.c)):
        buf.set_arg(i, memoryview(arr))
    buf.set_res(0, memoryview(xdot))
    buf.set_res(1, memoryview(z))
    base = _per_call(ev, n)
    print(f"  {label or cm.model_name:40s} step {per_step * 1e6:6.1f} us | fixed RK4 x"
          f"{old.substeps} {old_time * 1e6:6.1f} us (ratio {per_step / old_time:4.2f}) | one RHS "
          f"{base * 1e6:5.2f} us | {p.method} x{p.substeps}, "
          f"{'symbolic' if num.explicit else 'Newton'}, {num.n_x} states, {num.n_z} algebraics")
    return per_step, base


def bench_fleet(n_participants: int = 100, ticks: int = 120) -> None:
    """Many participants of one compiled model (a fleet of rovers) per tick."""
    cm = compile_model(LIB / "Workbench/Rover/DriveController.mo")
    t0 = time.perf_counter()
    fleet = [ModelicaParticipant(cm) for _ in range(n_participants)]
    create = (time.perf_counter() - t0) / n_participants
    single = ModelicaParticipant(cm)

    def one_tick(group: list[ModelicaParticipant]) -> None:
        for q in group:
            q.set_inputs({"throttle": 0.3, "steer": 0.1})
            q.step()
            q.outputs()

    per_tick = _per_call(lambda: one_tick(fleet), ticks)
    base = _per_call(lambda: one_tick([single]), ticks * 10)
    print(f"\n== fleet: {n_participants} drive controllers sharing one compile ==")
    print(f"  create {create * 1e3:.2f} ms each | one tick for all {per_tick * 1e3:.2f} ms | "
          f"per participant {per_tick / n_participants * 1e6:.1f} us vs alone {base * 1e6:.1f} us "
          f"(ratio {per_tick / n_participants / base:.2f})")


def bench_pymoca() -> None:
    """The alternative front end: pymoca -> CasADi MX residuals, RK4 + Newton each substep."""
    try:
        import casadi as ca
        import pymoca.backends.casadi.generator as gen
        import pymoca.parser
    except ImportError:
        print("\n== pymoca: not installed (pip install pymoca==0.12.*) ==")
        return
    print("\n== front-end comparison on the drive controller (flat source) ==")
    flat = (LIB / "Workbench/Rover/DriveController.mo").read_text()
    flat = flat.replace("within Workbench.Rover;\n", "")
    flat = flat.replace("Modelica.Units.SI.Torque", "Real").replace("Modelica.Units.SI.Time", "Real")
    flat = flat.replace("Modelica.Units.SI.Velocity", "Real").replace("noEvent", "")
    flat = flat.replace("protected\n", "")
    t_py = _median_time(lambda: gen.generate(pymoca.parser.parse(flat), "DriveController"), 3)
    model = gen.generate(pymoca.parser.parse(flat), "DriveController")
    t_ru = _median_time(lambda: compile_model(source_text=flat, model_name="DriveController"), 3)
    print(f"  compile: pymoca {t_py * 1e3:.1f} ms, rumoca path {t_ru * 1e3:.1f} ms "
          f"(pymoca needed the source flattened by hand: no noEvent, no package imports)")
    x = ca.vertcat(*[s.symbol for s in model.states])
    dx = ca.vertcat(*[s.symbol for s in model.der_states])
    z = ca.vertcat(*[s.symbol for s in model.alg_states])
    u = ca.vertcat(*[s.symbol for s in model.inputs])
    pars = ca.vertcat(*[s.symbol for s in model.parameters])
    res = ca.vertcat(*model.equations)
    w = ca.vertcat(dx, z)
    g = ca.Function("g", [w, ca.vertcat(x, u, pars)], [res])
    rf = ca.rootfinder("rf", "newton", g)
    pv = np.array([40.0, 1.0, 0.15, 1.2])
    xs, us, hs = ca.MX.sym("x", x.numel()), ca.MX.sym("u", u.numel()), 1 / 240
    wg = ca.MX.zeros(w.numel())
    xx = xs
    for _ in range(4):
        def f(xv: ca.MX) -> ca.MX:
            return rf(wg, ca.vertcat(xv, us, pv))[: x.numel()]
        k1 = f(xx)
        k2 = f(xx + hs / 2 * k1)
        k3 = f(xx + hs / 2 * k2)
        k4 = f(xx + hs * k3)
        xx = xx + hs / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    step = ca.Function("step", [xs, us], [xx])
    xv, uv, xo = np.zeros(x.numel()), np.array([0.5, 0.2]), np.zeros(x.numel())
    buf, ev = step.buffer()
    buf.set_arg(0, memoryview(xv))
    buf.set_arg(1, memoryview(uv))
    buf.set_res(0, memoryview(xo))
    t_step = _per_call(ev, 2000)  # bare buffered call: no Python I/O around it
    ours, _ = bench_step(LIB / "Workbench/Rover/DriveController.mo", 2000, "  (ours, same model)")
    print(f"  pymoca-style step (RK4 x4, Newton rootfinder per stage, bare buffered call): "
          f"{t_step * 1e6:.1f} us; ours incl. Python I/O {ours * 1e6:.1f} us "
          f"-> ratio {t_step / ours:.1f}x")


def main() -> None:
    ext = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    ext_models = Path(ext) / "models" if ext else None
    paths = [LIB / r for r in OURS]
    if ext_models and ext_models.is_dir():
        paths += [ext_models / r for r in EXTERNAL]
    bench_compile(paths)
    for constant in (False, True):
        print("\n== cost per communication step (1/60 s; set inputs, step, read outputs), "
              + ("constant inputs ==" if constant else "random inputs every step =="))
        for path in paths:
            cm = compile_model(path)
            if cm.ok:
                try:
                    bench_step(path, 1000, constant=constant)
                except Exception as exc:  # noqa: BLE001 - a model that cannot run is reported
                    print(f"  {cm.model_name:45s} cannot step: {exc}")
    bench_fleet()
    bench_pymoca()


if __name__ == "__main__":
    main()
