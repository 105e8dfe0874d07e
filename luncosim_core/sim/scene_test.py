"""``luncosim test``: run a scene test (a scene with Rhai scenarios) and judge it.

It opens a simulation, so it lives with the runtime. Scene-test contract: a scenario emits ``emit(CHANNEL, "PASS" | "FAIL")``; the first such event
is the verdict. Exit codes: 0 PASS, 1 FAIL, 2 no verdict (ticks exhausted, scene did not open).
A PASS becomes FAIL when a runtime fault nobody declared happened (a scenario error, a physics
fault), when a wire never connected (a broken connection nobody declared with
``expect_fault(port)``), or when a declared expected fault did not happen. A fixture that
declares ``expect_runtime_fault(kind)`` passes when that fault ends the run."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core import cli_args
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.sim.simulation import SimulationConfig, open_simulation

DEFAULT_MAX_TICKS = 20_000


@dataclass
class Verdict:
    channel: str
    value: str  # PASS | FAIL
    source: str
    tick: int
    time: float


@dataclass
class SceneTestReport:
    """What one scene test found; ``exit_code`` is 0 PASS, 1 FAIL, 2 no verdict."""

    scene: str
    exit_code: int = 2
    outcome: str = "NO-VERDICT"
    verdicts: list[Verdict] = field(default_factory=list)
    ticks: int = 0
    sim_time: float = 0.0
    faults: list[Diagnostic] = field(default_factory=list)
    expected_faults: list[str] = field(default_factory=list)
    expected_runtime_faults: list[str] = field(default_factory=list)
    broken_wires: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    scenarios: list[str] = field(default_factory=list)
    final_hash: str = ""  # the simulation's state hash when the run ended

    def table(self) -> str:
        """The verdict table printed at the end of a run."""
        rows = [("channel", "verdict", "tick", "time s", "scenario")]
        rows += [(v.channel, v.value, str(v.tick), f"{v.time:.3f}", v.source) for v in self.verdicts]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def summary(self) -> str:
        return f"luncosim test {self.outcome}  scene={self.scene}  ticks={self.ticks}  sim={self.sim_time:.2f}s"


def run_scene_test(scene: Path | str, *, max_ticks: int = DEFAULT_MAX_TICKS, tick_hz: float = 60.0,
                   lunco_root: Path | None = None, out: Callable[[str], None] = print,
                   verdict_channel: str | None = None, substeps: int = 4, edits: tuple = (),
                   prepare: Callable | None = None, on_tick: Callable | None = None) -> SceneTestReport:
    """Open ``scene`` (a USD file or twin folder), run it and its scenarios as fast as possible
    until the first verdict (or ``max_ticks``), and judge it (see the module doc).

    ``edits`` (document ops) apply before the projection is built; ``prepare(sim)`` runs before
    the first tick (e.g. SetPorts); ``on_tick(sim)`` after every tick that advanced."""
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.scripting.scenario import scenario_participants, scenarios_of

    report = SceneTestReport(str(scene))
    try:
        sim = open_simulation(scene, lunco_root=lunco_root, config=SimulationConfig(tick_hz=tick_hz, substeps=substeps),
                              edits=edits)
    except (DiagnosticError, FileNotFoundError, OSError) as exc:
        report.reasons.append(f"the scene did not open: {exc}")
        out(report.summary())
        out(f"  {report.reasons[-1]}")
        return report
    try:
        if not scenarios_of(sim):
            # the factory is not wired into this simulation yet: attach ours and rebuild
            base = sim.participant_factory

            def factory(s, _base=base):
                return [*(_base(s) if _base else []), *scenario_participants(s)]
            sim.participant_factory = factory
            sim.build()
        if prepare is not None:
            prepare(sim)
        _run(sim, report, max_ticks=max_ticks, out=out, verdict_channel=verdict_channel, on_tick=on_tick)
    finally:
        sim.close()
    return report


def _run(sim, report: SceneTestReport, *, max_ticks: int, out, verdict_channel: str | None,
         wait_timeout_s: float = 300.0, on_tick: Callable | None = None) -> None:
    _SceneRun(sim, report, out, verdict_channel, wait_timeout_s, on_tick).run(max_ticks)


class _SceneRun:
    """One scene test: listen for verdicts and declarations, tick, then judge and print."""

    def __init__(self, sim, report: SceneTestReport, out, verdict_channel: str | None, wait_timeout_s: float,
                 on_tick: Callable | None = None) -> None:
        from luncosim_core.scripting.scenario import scenarios_of

        self.sim, self.report, self.out = sim, report, out
        self.verdict_channel = verdict_channel
        self.wait_timeout_s = wait_timeout_s
        self.on_tick = on_tick
        self.scenarios = scenarios_of(sim)
        self.runtime = self.scenarios[0].runtime if self.scenarios else None
        self.faults: list[Diagnostic] = []
        self._seen_faults: set[int] = set()
        self._wait_deadline: float | None = None

    def run(self, max_ticks: int) -> None:
        report, sim = self.report, self.sim
        report.scenarios = [s.prim_path for s in self.scenarios]
        report.diagnostics += [d for d in sim.diagnostics if d.severity in ("error", "warning")]
        if not self.scenarios:
            report.reasons.append("the scene has no Rhai scenario, so nothing can report a verdict")
        self._attach()
        if sim.fault is not None and sim.tick_count == 0:
            # the world faulted while loading: run the scenarios' first hooks anyway, so what they
            # declare in on_start (an expected fault) is known when the run is judged
            for s in self.scenarios:
                s.wait_reason(sim)
                s.step(sim)
        while self.scenarios and sim.tick_count < max_ticks and self._tick():
            pass
        self._collect()
        self._finish()

    def _attach(self) -> None:
        if self.runtime is None:
            return
        self.runtime.on_print = self.out
        self.runtime.unattended = True
        self.runtime.listeners.append(lambda ev: self._listen(_Stamped(ev, self.sim)))

    def _listen(self, ev) -> None:
        report = self.report
        if ev.name == "EXPECT_FAULT":
            report.expected_faults.append(str(ev.value))
        elif ev.name == "EXPECT_RUNTIME_FAULT":
            report.expected_runtime_faults.append(str(ev.value))
        elif isinstance(ev.value, str) and ev.value in ("PASS", "FAIL"):
            if self.verdict_channel is None or ev.name == self.verdict_channel:
                report.verdicts.append(Verdict(ev.name, ev.value, ev.source_path, ev.tick + 1, ev.time_after))

    def _fault(self, diag: Diagnostic | None) -> None:
        if diag is not None and id(diag) not in self._seen_faults:
            self._seen_faults.add(id(diag))
            self.faults.append(diag)
            self.out(f"FAULT {diag}")

    def _tick(self) -> bool:
        """One tick; False when the run is over (a fault, a verdict, a wait nobody will end)."""
        sim = self.sim
        advanced = sim.tick()
        for s in self.scenarios:
            self._fault(s.fault)
        if sim.fault is not None:
            self._fault(sim.fault)
            return False
        if self.report.verdicts:
            return False
        if not advanced:
            return self._wait()
        self._wait_deadline = None
        if self.on_tick is not None:
            self.on_tick(sim)
        return not all(s.state in ("failed", "faulted") for s in self.scenarios)

    def _wait(self) -> bool:
        sim = self.sim
        prefixes = tuple(f"{s.prim_path}: " for s in self.scenarios)
        if not sim.status_reason or sim.status_reason.startswith(prefixes):
            # nothing is pending, or a scenario waits for an input no one will provide in a
            # headless run (simulated time cannot move while it waits)
            return False
        # a participant is preparing (e.g. a model compiling off-thread): simulated time does
        # not move while it waits, so waiting in wall time keeps results deterministic
        now = time.monotonic()
        if self._wait_deadline is None:
            self.out(f"waiting: {sim.status_reason}")
            self._wait_deadline = now + self.wait_timeout_s
        elif now > self._wait_deadline:
            return False
        time.sleep(0.005)
        return True

    def _collect(self) -> None:
        report, sim = self.report, self.sim
        for s in self.scenarios:
            report.diagnostics += [d for d in s.all_diagnostics() if d is not s.fault and d.severity != "info"]
        if self.runtime is not None:
            report.diagnostics += [d for d in self.runtime.diagnostics if d.severity != "info"]
        if sim.status_reason and not report.verdicts:
            report.reasons.append(f"stalled waiting: {sim.status_reason}")
        for s in self.scenarios:
            if s.state != "failed":
                continue
            first = next((d for d in report.diagnostics if d.path == s.prim_path and d.is_error), None)
            if first is not None:
                report.reasons.append(f"scenario {s.prim_path} never ran: {first}")
        report.ticks = sim.tick_count
        report.sim_time = sim.time
        report.final_hash = sim.state_hash()
        report.faults = self.faults
        from luncosim_core.lint.facts import is_shading_connection

        report.broken_wires = sorted(f"{w.sink_key} <- {w.source_key}" for w in sim.fabric.broken
                                     if not is_shading_connection(sim.stage, w))

    def _finish(self) -> None:
        report, out = self.report, self.out
        _judge(report)
        for d in report.diagnostics:
            if d.is_error and not _about_shading(self.sim.stage, d):
                out(f"diagnostic: {d}")
        if report.verdicts:
            out(report.table())
        out(report.summary())
        for r in report.reasons:
            out(f"  {r}")


def _about_shading(stage, d: Diagnostic) -> bool:
    """A diagnostic about a material/shader connection (not a simulation signal)."""
    from pxr import Sdf, UsdShade

    if d.code != "wire-broken" or not d.path:
        return False
    try:
        prim = stage.GetPrimAtPath(Sdf.Path(d.path).GetPrimPath())
    except Exception:  # a path the diagnostic spelled in a way Sdf does not parse
        return False
    return bool(prim) and (prim.IsA(UsdShade.Material) or prim.IsA(UsdShade.Shader)
                           or prim.IsA(UsdShade.NodeGraph))


class _Stamped:
    """An event plus the time at the END of the tick it was emitted in (what the table shows)."""

    def __init__(self, ev, sim) -> None:
        self.name, self.value, self.source_path, self.tick = ev.name, ev.value, ev.source_path, ev.tick
        self.time_after = (ev.tick + 1) * sim.dt


def _fault_kind(d: Diagnostic) -> str:
    return d.code


def _judge(report: SceneTestReport) -> None:
    expected_rt = set(report.expected_runtime_faults)
    undeclared = [f for f in report.faults if _fault_kind(f) not in expected_rt]
    happened = {_fault_kind(f) for f in report.faults}
    missing_rt = sorted(k for k in expected_rt if k not in happened)
    expected_w = set(report.expected_faults)
    broken_keys = {b.split(" <- ")[0] for b in report.broken_wires}
    undeclared_w = [b for b in report.broken_wires if b.split(" <- ")[0] not in expected_w]
    missing_w = sorted(p for p in expected_w if p not in broken_keys)
    first = report.verdicts[0] if report.verdicts else None
    fail_reasons = []
    for f in undeclared:
        fail_reasons.append(f"undeclared runtime fault {f.code}: {f}")
    for k in missing_rt:
        fail_reasons.append(f"the scenario declared expect_runtime_fault({k}) but no such fault happened")
    for p in missing_w:
        fail_reasons.append(f"the scenario declared expect_fault({p}) but that wire connected")
    for b in undeclared_w:
        fail_reasons.append(f"a wire never connected: {b}")
    if fail_reasons:
        report.reasons = fail_reasons + report.reasons
        report.exit_code, report.outcome = 1, "FAIL"
        return
    if expected_rt and not missing_rt and (first is None or first.value == "PASS"):
        report.exit_code, report.outcome = 0, "PASS"
        report.reasons.append(f"expected runtime fault {', '.join(sorted(expected_rt))} happened")
        return
    if first is None:
        report.exit_code, report.outcome = 2, "NO-VERDICT"
        if not report.reasons:
            report.reasons.append("ticks exhausted with no verdict")
        return
    if first.value == "PASS":
        report.exit_code, report.outcome = 0, "PASS"
    else:
        report.exit_code, report.outcome = 1, "FAIL"


# ---------------------------------------------------------------------------------------
def cmd_test(args: argparse.Namespace) -> int:
    """Run a scene test deterministically as fast as possible: 0 PASS, 1 FAIL, 2 no verdict."""
    report = run_scene_test(Path(args.scene), max_ticks=args.max_ticks, tick_hz=args.tick_hz,
                            lunco_root=getattr(args, "lunco_root", None),
                            verdict_channel=args.verdict_channel,
                            out=lambda line: print(line, flush=True))
    if report.final_hash:
        print(f"final hash {report.final_hash}", flush=True)
    return report.exit_code


def add_test_verb(sub) -> None:
    """Add ``test`` to an ``argparse`` subparsers object."""
    p = sub.add_parser("test", help="run a scene test: exit 0 PASS, 1 FAIL, 2 no verdict")
    p.add_argument("--scene", required=True, help="a scene file or a twin folder (its default scene)")
    p.add_argument("--max-ticks", type=cli_args.positive_ticks, default=DEFAULT_MAX_TICKS,
                   help=f"safety bound on simulated ticks (default {DEFAULT_MAX_TICKS}); exhausting it is 'no verdict'")
    p.add_argument("--tick-hz", type=cli_args.tick_hz, default=60.0, help="fixed tick rate (default 60)")
    p.add_argument("--verdict-channel", default=None,
                   help="only accept PASS/FAIL from this event name (default: the first on any channel)")
    p.set_defaults(func=cmd_test)
