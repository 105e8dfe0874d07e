"""The event history is bounded: a scenario emitting thousands of events a tick keeps the newest
``TELEMETRY_CAPACITY`` events in ``ScenarioRuntime.telemetry``, counts the dropped ones and says so
once (``scenario-events-dropped``); ``on_event`` and listeners still receive every event."""

from __future__ import annotations

from luncosim_core.scripting import runtime as runtime_module
from luncosim_core.scripting.scenario import scenarios_of
from luncosim_core.sim.simulation import open_simulation
from tests.hostile.test_faults import HEAD, rhai

PER_TICK = 250
EMITTER = rhai("Emit", f'fn on_tick(me) {{ for i in 0..{PER_TICK} {{ emit("e", i); }} }}'
                       '\nfn on_event(me, evt) { this.seen = (this.seen ?? 0) + 1; }')


def test_a_flood_of_events_keeps_the_newest_and_counts_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime_module, "TELEMETRY_CAPACITY", 1000)
    scene = tmp_path / "emit.usda"
    scene.write_text(HEAD + EMITTER + "}\n", encoding="utf-8")
    sim = open_simulation(scene)
    try:
        heard = []
        part = scenarios_of(sim)[0]
        part.runtime.listeners.append(heard.append)
        sim.run(20)
        rt = part.runtime
        assert len(rt.telemetry) == 1000 and len(heard) == 20 * PER_TICK
        assert rt.telemetry_dropped == 20 * PER_TICK - 1000
        assert rt.telemetry[-1] is heard[-1]  # the newest are kept
        assert part.this["seen"] == 19 * PER_TICK  # every event reached on_event (the last tick's come next)
        said = [d for d in part.all_diagnostics() + rt.diagnostics if d.code == "scenario-events-dropped"]
        assert len(said) == 1 and said[0].severity == "warning" and "1,000 events" in said[0].message
        assert sim.fault is None
    finally:
        sim.close()
