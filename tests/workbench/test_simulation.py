"""Running the demo in the shell: transport, reset, edits mirrored into the running simulation.
(Panel behaviour is tested in each panel's own ``tests/`` folder.)"""

from __future__ import annotations


def test_reset_returns_to_tick_zero(opened, qtbot):
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(5)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 5, timeout=10000)
    opened.action("sim.reset").trigger()
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 0, timeout=10000)


def test_an_edit_and_its_undo_reach_the_running_simulation_in_place(opened, qtbot):
    from luncosim_core.api import QueryUsdPrim
    from luncosim_core.usd.ops import SetAttribute

    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(30)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 30, timeout=15000)
    console = opened.panels["console"]
    opened.session.document.apply(SetAttribute(path="/PracticeYard/Marker", name="size", value=1.0))

    def sim_size():  # what the simulation's own copy of the stage says (a typed query, between ticks)
        res = opened.bridge.query(QueryUsdPrim("/PracticeYard/Marker", ("size",))).result(timeout=5)
        return res.value["attributes"]["size"]

    opened.bridge.step(1)  # the mirrored op is admitted at the next tick
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 31, timeout=10000)
    assert sim_size() == 1.0
    assert not any("document was edited" in line for line in console.lines())  # no restart: time went on
    opened.session.document.undo()
    opened.bridge.step(1)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 32, timeout=10000)  # undo did not restart the run
    assert sim_size() == 0.5
    assert not any("restarted" in line for line in console.lines()[1:])


def test_a_prim_created_in_the_workbench_enters_the_running_simulation(opened, qtbot):
    from luncosim_core.api import QueryUsdPrim
    from luncosim_core.usd.ops import AddPrim, AddReference, Batch, SetTransform

    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(10)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 10, timeout=15000)
    opened.session.document.apply(Batch(ops=(
        AddPrim(path="/PracticeYard/RoverC", type_name="Xform"),
        AddReference(path="/PracticeYard/RoverC", asset_path="lunco://vessels/rovers/yard_rover.usda"),
        SetTransform(path="/PracticeYard/RoverC", translate=(0.0, 0.0, -5.0))), name="add RoverC"))
    opened.bridge.step(1)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick >= 11, timeout=15000)
    res = opened.bridge.query(QueryUsdPrim("/PracticeYard/RoverC/Chassis", ())).result(timeout=5)
    assert res.ok, res.diagnostics
    qtbot.waitUntil(lambda: "/PracticeYard/RoverC/Chassis" in opened.bridge.latest.body_paths, timeout=10000)




def test_play_waits_for_the_simulation_to_build_and_the_status_says_so(window, twin_copy, qtbot):
    """Before the first snapshot the status bar says it is building (with a busy bar) and Play,
    Step and Space do nothing; once built, Play is enabled and the status says paused."""
    import numpy as np

    window.show()
    assert window.open_path(twin_copy)
    reason = window.status_labels["reason"].text()
    assert reason.startswith("building the simulation…") and "scene opened" in reason
    assert window.status_busy.isVisibleTo(window)
    assert not window.action("sim.play").isEnabled() and not window.action("sim.step").isEnabled()
    assert window.action("sim.reset").isEnabled()  # a simulation process runs
    window.toggle_play()  # Space: refused, with the reason
    assert window.statusBar().currentMessage().startswith("not ready to play: building the simulation")
    qtbot.waitUntil(lambda: window.action("sim.play").isEnabled(), timeout=30000)
    assert window.status_labels["reason"].text() == "paused" and not window.status_busy.isVisibleTo(window)
    assert window.action("sim.step").isEnabled() and not window.bridge.running

    # a participant compiling holds admission: the snapshot says what it waits on
    import dataclasses

    snap = dataclasses.replace(window.bridge.latest, status="waiting",
                               reason="/PracticeYard/RoverA/Controller: compiling DriveController.mo")
    window.bridge._on_frames(snap, np.zeros(0, np.int64), np.zeros(0), np.zeros((0, len(snap.port_keys))))
    window.bridge._on_timer(force=True)
    assert window.status_labels["reason"].text() == \
        "waiting: /PracticeYard/RoverA/Controller: compiling DriveController.mo"
    assert window.status_busy.isVisibleTo(window) and not window.action("sim.play").isEnabled()
    window.bridge._on_frames(dataclasses.replace(snap, status="paused", reason=""), np.zeros(0, np.int64),
                             np.zeros(0), np.zeros((0, len(snap.port_keys))))
    window.bridge._on_timer(force=True)
    assert window.action("sim.play").isEnabled() and not window.status_busy.isVisibleTo(window)
