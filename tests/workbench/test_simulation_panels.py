"""Running the demo: transport, live Ports values, writing an input, telemetry, plots, status."""

from __future__ import annotations

import csv

from luncosim_core.api import CausalTrace, ReadPorts

from .conftest import AXLES, wait_future

AXLE_FL = "/PracticeYard/RoverA/Joints/Axle_FL"
CHASSIS_X = "/PracticeYard/RoverA/Chassis.position_x"


def _ports_ready(window):
    ports = window.panels["ports"]
    return lambda: len(ports.model.ports) > 0


def test_play_makes_port_values_move(opened, qtbot):
    ports = opened.panels["ports"]
    qtbot.waitUntil(_ports_ready(opened), timeout=15000)
    for axle in AXLES:
        ports.write_port(f"/PracticeYard/RoverA/Joints/{axle}", "target_velocity", -4.0)
    opened.set_speed("max")
    opened.actions_by_id["play"].trigger()
    qtbot.waitUntil(lambda: opened.bridge.latest is not None and opened.bridge.latest.tick > 60, timeout=15000)
    first = ports.model.value(AXLE_FL + ".angle")
    qtbot.waitUntil(lambda: ports.model.value(AXLE_FL + ".angle") not in (None, first), timeout=15000)
    opened.actions_by_id["pause"].trigger()
    qtbot.waitUntil(lambda: opened.bridge.latest.status == "paused", timeout=5000)
    snap = opened.bridge.latest
    qtbot.waitUntil(lambda: opened.transport.clock.text().strip().startswith(f"tick {snap.tick} "), timeout=2000)
    assert opened.status_labels["tick"].text() == f"tick {snap.tick}"
    assert opened.status_labels["reason"].text() == "paused"
    assert snap.port(CHASSIS_X) is not None and abs(snap.port(CHASSIS_X)) > 0.1  # the rover drove


def test_writing_an_input_in_the_ports_panel_reaches_the_simulation(opened, qtbot):
    ports = opened.panels["ports"]
    qtbot.waitUntil(_ports_ready(opened), timeout=15000)
    opened.session.selection.set([AXLE_FL])
    proxy = ports.proxy
    rows = {proxy.index(r, 0).data(): r for r in range(proxy.rowCount())}
    assert {AXLE_FL + "." + n for n in ("target_velocity", "torque", "velocity")} <= set(rows)
    assert all(key.startswith(AXLE_FL + ".") for key in rows)  # only the selected prim's ports
    value_index = proxy.index(rows[AXLE_FL + ".target_velocity"], 4)
    torque_index = proxy.index(rows[AXLE_FL + ".torque"], 4)
    assert not proxy.setData(torque_index, 5.0)  # an output is not writable
    assert proxy.setData(value_index, -2.5)
    fut = ports._pending[-1][1]
    opened.bridge.step(1)
    result = wait_future(qtbot, fut)
    assert result.ok and result.tick is not None
    qtbot.waitUntil(lambda: "admitted at tick" in ports.status.text(), timeout=5000)
    read = wait_future(qtbot, opened.bridge.query(ReadPorts(AXLE_FL, ("target_velocity",))))
    assert read.ok and read.value["target_velocity"]["value"] == -2.5
    trace = wait_future(qtbot, opened.bridge.query(CausalTrace(AXLE_FL, f"ports-panel:{AXLE_FL}.target_velocity")))
    assert trace.ok and trace.value["ports"]["target_velocity"]["admission"] == "admitted"
    qtbot.waitUntil(lambda: proxy.index(rows[AXLE_FL + ".target_velocity"], 4).data() == "-2.5", timeout=5000)


def test_telemetry_keeps_every_tick_and_plots_export_csv(opened, qtbot, tmp_path):
    plots = opened.panels["plots"]
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    plots.add_channel(AXLE_FL + ".angle")
    plots.add_channel(CHASSIS_X)
    assert not plots.add_channel(CHASSIS_X)  # one curve per channel
    opened.set_speed("max")
    opened.bridge.step(300)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick >= 300, timeout=120000)
    ticks, _times, values = opened.bridge.telemetry.read([CHASSIS_X])
    # every tick reached the ring, though the UI drew far fewer frames
    assert ticks.tolist()[-300:] == list(range(1, 301))
    assert opened.bridge.frames < 300
    opened.bridge.flush()
    xs, ys = plots.curves[CHASSIS_X].getData()
    assert len(xs) > 0
    assert "t=" in plots.readout_at(1.0)
    out = plots.export_csv(tmp_path / "t.csv")
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["tick", "time", AXLE_FL + ".angle", CHASSIS_X]
    assert [int(r[0]) for r in rows[1:]][-300:] == list(range(1, 301))


def test_reset_returns_to_tick_zero(opened, qtbot):
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(5)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 5, timeout=10000)
    opened.actions_by_id["reset"].trigger()
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 0, timeout=10000)


def test_an_edit_reaches_the_running_simulation_in_place_and_undo_reprojects(opened, qtbot):
    from luncosim_core.usd.ops import SetAttribute

    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(30)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 30, timeout=15000)
    console = opened.panels["console"]
    opened.session.document.apply(SetAttribute(path="/PracticeYard/Marker", name="size", value=1.0))

    def sim_size():
        fut = opened.bridge.worker.call(lambda sim: sim.stage.GetPrimAtPath("/PracticeYard/Marker").GetAttribute("size").Get())
        return fut.result(timeout=5)

    opened.bridge.step(1)  # the mirrored op is admitted at the next tick
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 31, timeout=10000)
    assert sim_size() == 1.0
    assert not any("document was edited" in line for line in console.lines())  # no restart: time went on
    opened.session.document.undo()
    qtbot.waitUntil(lambda: any("document was edited" in line for line in console.lines()), timeout=5000)
    qtbot.waitUntil(lambda: sim_size() == 0.5, timeout=10000)


def test_dragging_a_port_onto_the_plots_adds_a_curve(opened, qtbot):
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QDropEvent

    ports = opened.panels["ports"]
    plots = opened.panels["plots"]
    qtbot.waitUntil(_ports_ready(opened), timeout=15000)
    opened.session.selection.set([AXLE_FL])
    row = next(r for r in range(ports.proxy.rowCount()) if ports.proxy.index(r, 0).data() == AXLE_FL + ".velocity")
    data = ports.model.mimeData([ports.proxy.mapToSource(ports.proxy.index(row, 0))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    plots.dropEvent(event)
    assert plots.channels == [AXLE_FL + ".velocity"]
    assert AXLE_FL + ".velocity" in plots.curves


def test_console_shows_scenario_prints(opened, qtbot):
    console = opened.panels["console"]
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(3)
    qtbot.waitUntil(lambda: any("[yard] drill started" in line for line in console.lines()), timeout=10000)
    printed = [line for line in console.lines() if "[yard] drill started" in line]
    assert len(printed) == 1 and printed[0].startswith("[tick 0]")


def test_console_cursor_yields_each_entry_once():
    from luncosim_workbench.panels.console.widget import _Cursor

    c = _Cursor()
    log = [(0, "a"), (0, "b"), (1, "c")]
    assert c.new(1, log) == log
    assert c.new(1, log) == []
    log += [(1, "d"), (2, "e")]
    assert c.new(1, log) == [(1, "d"), (2, "e")]
    assert c.new(2, [(0, "x")]) == [(0, "x")]  # another runtime (rebuilt projection) starts over
