"""The workbench's simulation runs in a sim server child: killing it (SIGKILL, as a segfault or
the OOM killer would) leaves the workbench up with the user's unsaved edits, says why, resolves
what was in flight, and Restart brings a simulation of the edited document back."""

from __future__ import annotations

import os
import signal

from luncosim_core.api import QueryUsdPrim, SetPorts
from luncosim_core.usd.ops import SetAttribute
from luncosim_workbench.testing import wait_future

MARKER = "/PracticeYard/Marker"


def test_sigkill_of_the_sim_server_keeps_the_workbench_and_its_edits_then_restart(opened, qtbot):
    bridge = opened.bridge
    qtbot.waitUntil(lambda: bridge.latest is not None, timeout=30000)
    bridge.step(10)
    qtbot.waitUntil(lambda: bridge.latest.tick == 10, timeout=30000)
    edit = SetAttribute(path=MARKER, name="size", value=1.25)
    opened.ctx.apply(edit)  # an unsaved edit
    doc = opened.session.document
    assert doc.dirty and [e.op for e in doc.journal.entries()] == [edit]
    first_pid = bridge.worker.pid
    assert first_pid != os.getpid()  # the simulation is another process
    in_flight = bridge.send(SetPorts(target="/PracticeYard/RoverA", writes={"throttle": 0.5}))  # paused: queued

    os.kill(first_pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bridge.worker is None, timeout=15000)

    assert in_flight.done() and not in_flight.result().ok  # nothing left hanging
    assert in_flight.result().diagnostics[0].code == "simulation-stopped"
    assert opened.isVisible()
    assert opened.session.document is doc and doc.dirty and [e.op for e in doc.journal.entries()] == [edit]  # the edit survives
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("size").Get() == 1.25
    assert bridge.latest is not None and bridge.latest.tick == 10  # the last picture stays
    bridge.flush()
    qtbot.waitUntil(lambda: "simulation stopped: killed by SIGKILL" in opened.status_labels["reason"].text(), timeout=5000)
    rows = opened.panels["diagnostics"].model.rows
    assert any(d.code == "simulation-stopped" and "killed by SIGKILL" in d.message for _o, d in rows)
    assert not bridge.send(SetPorts(target="/PracticeYard/RoverA", writes={"throttle": 0.5})).result(0).ok

    restart = opened.action("sim.restart")
    assert restart.isEnabled()
    restart.trigger()
    assert bridge.worker is not None and bridge.worker.pid != first_pid
    qtbot.waitUntil(lambda: bridge.latest is not None and bridge.latest.status != "faulted", timeout=30000)
    size = wait_future(qtbot, bridge.query(QueryUsdPrim(MARKER, ("size",))), timeout=30)
    assert size.ok and size.value["attributes"]["size"] == 1.25  # the new simulation runs the edited document
    bridge.step(3)
    qtbot.waitUntil(lambda: bridge.latest.tick == 3, timeout=30000)
    assert doc.dirty and [e.op for e in doc.journal.entries()] == [edit]


def test_a_silent_sim_server_is_reported_and_restart_kills_it(opened, qtbot):
    bridge = opened.bridge
    bridge.heartbeat_timeout = 1.5  # the default is 5 s
    qtbot.waitUntil(lambda: bridge.latest is not None, timeout=30000)
    silent = []
    bridge.simulationUnresponsive.connect(silent.append)
    pid = bridge.worker.pid
    os.kill(pid, signal.SIGSTOP)  # hung: alive, but says nothing
    try:
        qtbot.waitUntil(lambda: bool(silent), timeout=15000)
        rows = opened.panels["diagnostics"].model.rows
        assert any(d.code == "simulation-not-answering" for _o, d in rows)
        assert "simulation not answering" in opened.statusBar().currentMessage()
        opened.action("sim.restart").trigger()
        assert bridge.worker.pid != pid
        qtbot.waitUntil(lambda: _gone(pid), timeout=10000)
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bridge.latest is not None and bridge.latest.tick == 0 and bridge.worker.alive, timeout=30000)


def _gone(pid: int) -> bool:
    try:
        waited, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == pid
