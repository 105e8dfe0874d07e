"""Modelica accuracy: every runnable model of our library (and LunCoSim's) against tight references.

Run: ``.venv/bin/python benchmarks/bench_modelica_accuracy.py [--seconds 10] [--filter NAME]``
(set LUNCOSIM_EXTERNAL_ASSETS to include LunCoSim's library).

Each model runs 10 s at 60 Hz communication points with constant inputs (each input's declared
default, or 1 when that is 0) through :class:`ModelicaParticipant`. rumoca's ``simulate()``
takes no inputs, so both sides run the same wrapper model ``model RefWrap  M m(u = 1.0, ...);``
(inputs bound by modifiers, so initial equations such as ``state = u`` see them too). References,
measured in the same run:

- rumoca's own one-shot ``simulate()`` (its Rust solver, events included) at rtol = atol = 1e-12;
- scipy ``solve_ivp`` (Radau, rtol 1e-12) on the model's own right-hand side (smooth models only:
  no discrete variables, held relations or kinks).

The error of a variable is the largest ``|ours - ref|`` over the communication points divided by
the largest ``|ref|`` of that variable over the run (1e-9 floor); a model's figure is its worst
variable. The cost columns compare one communication step (set inputs, step, read outputs) with
the same model on fixed RK4 substeps ``max(4, ceil(rho * period))`` (the scheme before
error-controlled substeps), measured in this run: the ratio is what accuracy costs.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import numpy as np

from luncosim_core.modelica import ModelicaParticipant, compile_model

REPO = Path(__file__).resolve().parents[1]
OURS = REPO / "assets" / "models" / "Workbench"
PERIOD = 1 / 60


def _models() -> list[tuple[str, Path]]:
    out = [("ours", p) for p in sorted(OURS.rglob("*.mo")) if p.name != "package.mo"]
    ext = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    if ext and (Path(ext) / "models").is_dir():
        out += [("lunco", p) for p in sorted((Path(ext) / "models").rglob("*.mo"))
                if p.name != "package.mo"]
    return out


def _inputs(cm) -> dict[str, float]:
    return {v.name: (v.start if v.start else 1.0) for v in cm.interface.inputs}


def _names(cm) -> list[str]:
    s = cm.numerics.system
    return list(dict.fromkeys([*s.state_names, *s.algebraic_names, *s.discrete_names]))


def wrapped(cm, path: Path, inputs: dict[str, float]) -> tuple[str, str, list[Path]]:
    """(source text, model name, library roots) of the model with its inputs bound; the text
    is empty for a model without inputs (both sides then load the file itself)."""
    from luncosim_core.modelica.compiler import _package_root

    pkg = _package_root(path)
    if not inputs:
        return "", cm.model_name, [pkg] if pkg else []
    text = "" if pkg is not None else path.read_text(encoding="utf-8") + "\n"
    mods = ", ".join(f"{k} = {v!r}" for k, v in inputs.items())
    text += f"model RefWrap\n  {cm.model_name} m({mods});\nend RefWrap;\n"
    return text, "RefWrap", [pkg] if pkg else []


def run_ours(cm, n: int, **kw) -> tuple[dict[str, np.ndarray], object]:
    p = ModelicaParticipant(cm, PERIOD, **kw)
    names = _names(cm)
    out = {k: np.zeros(n) for k in names}
    for i in range(n):
        p.step()
        for k in names:
            out[k][i] = p.value(k)
    return out, p


def step_cost(cm, inputs: dict[str, float], n: int, **kw) -> float:
    """Best of 3 CPU timings of ``n`` communication steps (set inputs, step, outputs)."""
    p = ModelicaParticipant(cm, PERIOD, **kw)
    best = math.inf
    for _ in range(3):
        t0 = time.process_time()
        for _ in range(n):
            if inputs:
                p.set_inputs(inputs)
            p.step()
            p.outputs()
        best = min(best, (time.process_time() - t0) / n)
    return best


def run_rumoca(cm, text: str, name: str, roots: list[Path], n: int,
               path: Path) -> dict[str, np.ndarray] | str:
    """rumoca's own ``simulate()`` on the same source (rk-like, rtol = atol = 1e-12)."""
    import rumoca

    from luncosim_core.modelica.compiler import BUNDLED_LIBRARY

    try:
        session = rumoca.Session(roots=[*map(str, roots), str(BUNDLED_LIBRARY)])
        if text:
            model = session.loads(text, model=name, filename="RefWrap.mo")
        else:
            model = session.load(str(path), model=name)
        cfg = rumoca.SimConfig(solver="rk-like", rtol=1e-12, atol=1e-12)
        res = model.simulate((0.0, n * PERIOD), dt=PERIOD, config=cfg)
    except BaseException as exc:  # noqa: BLE001 - rumoca's own solver may refuse a model
        return f"rumoca: {str(exc).splitlines()[0][:60]}"
    t = np.asarray(res.time, dtype=float)
    rows = []
    for i in range(n):  # right limit at each communication point
        idx = np.nonzero(np.abs(t - (i + 1) * PERIOD) <= 1e-9)[0]
        rows.append(idx[-1] if len(idx) else -1)
    rows_a = np.array(rows)
    out: dict[str, np.ndarray] = {}
    for name in _names(cm):
        if name in res:
            col = np.asarray(res[name], dtype=float)
            out[name] = np.where(rows_a >= 0, col[rows_a], np.nan)
    return out


def run_scipy(cm, n: int, u: np.ndarray, p_vals: np.ndarray,
              x0: np.ndarray) -> dict[str, np.ndarray] | str:
    from scipy.integrate import solve_ivp

    num = cm.numerics
    s = num.system
    if s.has_events or s.kinks or not num.explicit:  # (Radau at 1e-12 crawls through kinks)
        return "-"
    vals = num.values_function()
    wg, d, c = np.zeros(num.n_x + num.n_z), np.zeros(0), np.zeros(0)

    def f(t, x):
        return np.asarray(vals(x, u, p_vals, t, wg, d, c)[0], dtype=float).ravel()

    t_eval = np.arange(1, n + 1) * PERIOD
    sol = solve_ivp(f, (0.0, n * PERIOD), x0, method="Radau", t_eval=t_eval, rtol=1e-12,
                    atol=1e-14)
    if not sol.success:
        return "scipy failed"
    out = {}
    for i, name in enumerate(s.state_names):
        out[name] = sol.y[i]
    if num.n_z:
        zs = np.array([np.asarray(vals(sol.y[:, k], u, p_vals, t_eval[k], wg, d, c)[1],
                                  dtype=float).ravel() for k in range(n)])
        for j, name in enumerate(s.algebraic_names):
            out[name] = zs[:, j]
    return out


def rel_error(ours: dict[str, np.ndarray], ref: dict[str, np.ndarray] | str) -> tuple[float, str]:
    if isinstance(ref, str):
        return math.nan, ref
    worst, which = 0.0, ""
    for name, r in ref.items():
        ok = np.isfinite(r)
        if name not in ours or not ok.any():
            continue
        scale = max(float(np.max(np.abs(r[ok]))), 1e-9)
        e = float(np.max(np.abs(ours[name][ok] - r[ok]))) / scale
        if e > worst or not which:
            worst, which = e, name
    return worst, which


def _fmt(e: float, note: str) -> str:
    return f"{e:10.2e}" if math.isfinite(e) else f"{note[:10]:>10s}"


def old_substeps(p: ModelicaParticipant) -> int:
    """Substeps of the fixed-step RK4 scheme: stable at the initial point, at least 4."""
    rho = p._spectral_radius(p.x)
    return max(4, math.ceil(rho * PERIOD)) if rho > 0 else 4


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--filter", default="")
    ap.add_argument("--cost-steps", type=int, default=600)
    args = ap.parse_args()
    n = round(args.seconds / PERIOD)
    print(f"{'model':34s} {'vs rumoca':>10s} {'vs scipy':>10s} {'worst var':18s} "
          f"{'subst':>5s} {'step us':>8s} {'RK4 us':>7s} {'ratio':>5s}")
    worst_all: dict[str, float] = {}
    for lib, path in _models():
        if args.filter and args.filter not in str(path):
            continue
        cm = compile_model(path)
        label = f"{'' if lib == 'ours' else 'LunCo:'}{cm.model_name or path.stem}"[:34]
        if not cm.ok:
            continue
        inputs = _inputs(cm)
        text, name, roots = wrapped(cm, path, inputs)
        wcm = (compile_model(source_text=text, model_name=name, library_roots=roots)
               if text else cm)
        try:
            if not wcm.ok:
                raise RuntimeError(wcm.diagnostics[0].message)
            ours, p = run_ours(wcm, n)
        except Exception as exc:  # noqa: BLE001 - a model that cannot run is listed, not fatal
            print(f"{label:34s} cannot run: {str(exc).splitlines()[0][:70]}")
            continue
        p0 = ModelicaParticipant(wcm, PERIOD)
        e_ru, var_ru = rel_error(ours, run_rumoca(wcm, text, name, roots, n, path))
        e_sc, var_sc = rel_error(ours, run_scipy(wcm, n, p0.u.copy(), p0.p.copy(), p0.x.copy()))
        worst_all[label] = e_ru if math.isfinite(e_ru) else e_sc
        try:
            cost = step_cost(cm, inputs, args.cost_steps)
            base = step_cost(cm, inputs, args.cost_steps, method="rk4",
                             substeps=old_substeps(ModelicaParticipant(cm, PERIOD)))
            costs = f"{cost * 1e6:8.1f} {base * 1e6:7.1f} {cost / base:5.2f}"
        except Exception as exc:  # noqa: BLE001 - RK4 may diverge where we do not
            costs = f"{step_cost(cm, inputs, args.cost_steps) * 1e6:8.1f}  RK4: {type(exc).__name__}"
        print(f"{label:34s} {_fmt(e_ru, var_ru)} {_fmt(e_sc, var_sc)} {var_ru or var_sc:18.18s} "
              f"{p.substeps:5d} {costs}", flush=True)
    finite = [e for e in worst_all.values() if math.isfinite(e)]
    if finite:
        print(f"\n{len(finite)} models compared; worst relative error {max(finite):.2e}; "
              f"{sum(e <= 1e-4 for e in finite)} within 1e-4")


if __name__ == "__main__":
    main()
