"""Run one :class:`BatchTask` in this process and describe the outcome as a result row.

The verdict of a scene test is exactly the one ``luncosim test`` gives (the same runner); a sweep
run applies its attribute overrides on the runtime layer before the projection is built and its
port values through SetPorts admitted at tick 0, then runs ``ticks`` ticks (stopping early only
on a verdict or a fault). Its ``final_hash`` equals ``luncosim run``'s for the same scene, ports
and tick count.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from typing import Any

import numpy as np

from luncosim_core.batch.spec import BatchTask, Output, _bare_port

VERDICT_OF_EXIT = {0: "PASS", 1: "FAIL", 2: "NO_VERDICT"}
VERDICT_PRIM = "/LunCoSimBatchVerdict"


class OutputRecorder:
    """Final, min, max and mean of named ports, sampled after every tick (NaN = pending, skipped)."""

    def __init__(self, outputs: list[Output]) -> None:
        self.outputs = outputs
        self.index: list[int | None] = []
        self.final = np.full(len(outputs), np.nan)
        self.lo = np.full(len(outputs), np.inf)
        self.hi = np.full(len(outputs), -np.inf)
        self.sum = np.zeros(len(outputs))
        self.count = np.zeros(len(outputs))
        self.missing: list[str] = []
        self._bound_generation = -1

    def _bind(self, sim) -> None:
        reg = sim.registry
        self.index = [reg.index.get(o.port) for o in self.outputs]
        self.missing = [o.port for o, i in zip(self.outputs, self.index, strict=True) if i is None]
        self._bound_generation = sim.generation

    def __call__(self, sim) -> None:
        if sim.generation != self._bound_generation:
            self._bind(sim)
        values = sim.registry.values
        for k, i in enumerate(self.index):
            if i is None:
                continue
            v = float(values[i])
            self.final[k] = v
            if math.isnan(v):
                continue
            self.lo[k] = min(self.lo[k], v)
            self.hi[k] = max(self.hi[k], v)
            self.sum[k] += v
            self.count[k] += 1

    def columns(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for k, o in enumerate(self.outputs):
            n = self.count[k]
            stat = {
                "final": self.final[k],
                "min": self.lo[k] if n else math.nan,
                "max": self.hi[k] if n else math.nan,
                "mean": self.sum[k] / n if n else math.nan,
            }
            for s in o.stats:
                v = float(stat[s])
                out[f"{o.port}:{s}"] = v if math.isfinite(v) else None
        return out


def _edits(task: BatchTask) -> tuple:
    """Attribute overrides and the verdict scenario prim, as runtime-layer ops."""
    from luncosim_core.usd.ops import AddPrim, SetAttribute

    ops = []
    for target, value in sorted(task.params.items()):
        if task.param_kinds.get(target) != "attribute":
            continue
        prim, _, name = target.rpartition(".")
        ops.append(SetAttribute(path=prim, name=name, value=value, target="runtime"))
    if task.verdict_code:
        ops.append(AddPrim(path=VERDICT_PRIM, type_name="Scope", target="runtime"))
        ops.append(SetAttribute(path=VERDICT_PRIM, name="info:sourceCode", value=task.verdict_code,
                                type_name="string", target="runtime"))
        ops.append(SetAttribute(path=VERDICT_PRIM, name="info:sourceCode:language", value="rhai",
                                type_name="token", target="runtime"))
    return tuple(ops)


def _port_writes(task: BatchTask) -> dict[str, dict[str, float]]:
    by_prim: dict[str, dict[str, float]] = defaultdict(dict)
    for target, value in sorted(task.params.items()):
        if task.param_kinds.get(target, "port") != "port":
            continue
        prim, _, name = _bare_port(target).rpartition(".")
        by_prim[prim][name] = value
    return dict(by_prim)


def run_task(task: BatchTask) -> dict[str, Any]:
    """Run ``task`` on a fresh simulation; the row fields it determines (see :mod:`.report`)."""
    from luncosim_core.api import SetPorts
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.sim.scene_test import SceneTestReport, run_scene_test
    from luncosim_core.sim.simulation import SimulationConfig, open_simulation

    started = time.perf_counter()
    lines: list[str] = []
    refused: list[str] = []
    recorder = OutputRecorder(task.output_specs())
    writes = _port_writes(task)

    def prepare(sim) -> None:
        for prim, w in writes.items():
            def ticket(result, _prim=prim) -> None:
                if not result.ok:
                    refused.extend(f"SetPorts {_prim}: {d.message}" for d in result.diagnostics)
            sim.submit(SetPorts(target=prim, writes=w), ticket)

    try:
        edits = _edits(task)
    except Exception as exc:  # a value the op cannot carry
        edits, refused = (), [f"parameter override: {exc}"]
    lunco_root = task.lunco_root
    if task.kind == "test" or task.verdict_code:
        report = run_scene_test(task.scene, max_ticks=task.ticks, tick_hz=task.tick_hz, substeps=task.substeps,
                                lunco_root=lunco_root, out=lines.append, verdict_channel=task.verdict_channel,
                                edits=edits, prepare=prepare, on_tick=recorder)
    else:
        report = SceneTestReport(task.scene)
        try:
            sim = open_simulation(task.scene, lunco_root=lunco_root, edits=edits,
                                  config=SimulationConfig(tick_hz=task.tick_hz, substeps=task.substeps))
        except (DiagnosticError, FileNotFoundError, OSError) as exc:
            report.reasons.append(f"the scene did not open: {exc}")
        else:
            try:
                prepare(sim)
                _run_plain(sim, task.ticks, report, recorder)
            finally:
                sim.close()
    verdict = VERDICT_OF_EXIT[report.exit_code]
    reasons = list(refused) + list(report.reasons)
    if refused and verdict != "FAIL":
        verdict, report.exit_code = "FAIL", 1
    if recorder.missing:
        reasons.append("no such port to record: " + ", ".join(recorder.missing))
    return {
        "verdict": verdict,
        "exit": report.exit_code,
        "ticks": report.ticks,
        "final_hash": report.final_hash,
        "outputs": recorder.columns(),
        "run_s": round(time.perf_counter() - started, 6),
        "reason": "; ".join(reasons),
        "log_tail": lines[-20:],
    }


def _run_plain(sim, ticks: int, report, recorder: OutputRecorder) -> None:
    """A sweep run without a verdict scenario: ``ticks`` ticks; a fault fails it."""
    while sim.tick_count < ticks:
        if sim.tick():
            recorder(sim)
            continue
        if sim.fault is not None:
            break
        if sim.wait_until_ready():
            report.reasons.append(f"stalled waiting: {sim.status_reason}")
            break
    report.ticks = sim.tick_count
    report.sim_time = sim.time
    report.final_hash = sim.state_hash()
    if sim.fault is not None:
        report.faults = [sim.fault]
        report.exit_code, report.outcome = 1, "FAIL"
        report.reasons.insert(0, f"runtime fault {sim.fault.code}: {sim.fault.message}")
    elif sim.tick_count >= ticks:
        report.exit_code, report.outcome = 2, "NO-VERDICT"
