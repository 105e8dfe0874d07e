"""The Ports panel on the running demo: live values, writing an input, admission and trace."""

from __future__ import annotations

from luncosim_core.api import CausalTrace, ReadPorts
from luncosim_workbench.testing import (
    AXLE_FL,
    AXLES,
    CHASSIS_X,
    play_ready,
    ports_ready,
    wait_future,
)


def test_play_makes_port_values_move(opened, qtbot):
    ports = opened.panels["ports"]
    qtbot.waitUntil(ports_ready(opened), timeout=15000)
    for axle in AXLES:
        ports.write_port(f"/PracticeYard/RoverA/Joints/{axle}", "target_velocity", -4.0)
    opened.set_speed("max")
    qtbot.waitUntil(play_ready(opened), timeout=60000)  # disabled while the programs compile
    opened.action("sim.play").trigger()
    qtbot.waitUntil(lambda: opened.bridge.latest is not None and opened.bridge.latest.tick > 60, timeout=15000)
    first = ports.model.value(AXLE_FL + ".angle")
    qtbot.waitUntil(lambda: ports.model.value(AXLE_FL + ".angle") not in (None, first), timeout=15000)
    opened.action("sim.pause").trigger()
    qtbot.waitUntil(lambda: opened.bridge.latest.status == "paused", timeout=5000)
    snap = opened.bridge.latest
    qtbot.waitUntil(lambda: opened.transport.clock.text().strip().startswith(f"tick {snap.tick} "), timeout=2000)
    assert opened.status_labels["tick"].text() == f"tick {snap.tick}"
    assert opened.status_labels["reason"].text() == "paused"
    assert snap.port(CHASSIS_X) is not None and abs(snap.port(CHASSIS_X)) > 0.1  # the rover drove


def test_writing_an_input_in_the_ports_panel_reaches_the_simulation(opened, qtbot):
    ports = opened.panels["ports"]
    qtbot.waitUntil(ports_ready(opened), timeout=15000)
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
    # admitted as its tick starts (a tick still waiting for the compile admits too): the trace
    # calls it admitted once that tick has run
    qtbot.waitUntil(lambda: opened.bridge.latest.tick >= result.tick, timeout=30000)
    qtbot.waitUntil(lambda: "admitted at tick" in ports.status.text(), timeout=5000)
    read = wait_future(qtbot, opened.bridge.query(ReadPorts(AXLE_FL, ("target_velocity",))))
    assert read.ok and read.value["target_velocity"]["value"] == -2.5
    trace = wait_future(qtbot, opened.bridge.query(CausalTrace(AXLE_FL, f"ports-panel:{AXLE_FL}.target_velocity")))
    assert trace.ok and trace.value["ports"]["target_velocity"]["admission"] == "admitted"
    qtbot.waitUntil(lambda: proxy.index(rows[AXLE_FL + ".target_velocity"], 4).data() == "-2.5", timeout=5000)
