"""View > API Server: the workbench serves its open scene over the same HTTP API as
``luncosim serve``; edits through it land in the journal as the author ``api`` and undo."""

from __future__ import annotations

import urllib.error
from concurrent.futures import ThreadPoolExecutor

import pytest

from luncosim_core.api import ApplyOp, CausalTrace, QueryUsdPrim, SetPorts, SyncStage
from luncosim_core.server.client import Client
from luncosim_core.usd.ops import SetAttribute
from luncosim_workbench.testing import AXLE_FL, wait_future

MARKER = "/PracticeYard/Marker"


def test_the_workbench_serves_its_scene_and_api_edits_are_undoable(opened, qtbot):
    console = opened.panels["console"]
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=30000)
    action = opened.action("view.api_server")
    assert not action.isChecked()
    action.trigger()
    assert action.isChecked()
    lines = console.lines()
    url = next(line for line in lines if "listening on" in line).split("listening on ")[1].strip()
    token = next(line for line in lines if "token: " in line).split("token: ")[1].split()[0]
    pool = ThreadPoolExecutor(1)  # a client is another program: it must not block the UI thread

    def call(fn, *args):
        fut = pool.submit(fn, *args)
        qtbot.waitUntil(fut.done, timeout=30000)
        return fut.result()

    client = call(Client.connect, url, token)
    call(client.play)
    result = call(client.command, SetPorts(target=AXLE_FL, writes={"target_velocity": -1.5}))
    assert result.ok
    assert call(client.snapshot)["ports"][f"{AXLE_FL}.target_velocity"] == -1.5
    assert opened.bridge.latest.port(f"{AXLE_FL}.target_velocity") == -1.5  # the simulation the window shows
    trace = call(client.query, CausalTrace(AXLE_FL, "api:1"))
    assert trace.ok and trace.value["correlation_id"] == "api:1"  # the author shows in the trace
    assert "target_velocity" in trace.value["ports"]

    edit = call(client.command, ApplyOp(op=SetAttribute(path=MARKER, name="size", value=0.9)))
    assert edit.ok
    doc = opened.session.document
    entries = doc.journal.entries()
    assert [(e.author, e.op) for e in entries] == [("api", SetAttribute(path=MARKER, name="size", value=0.9))]
    assert doc.dirty
    qtbot.waitUntil(lambda: wait_future(qtbot, opened.bridge.query(QueryUsdPrim(MARKER, ("size",)))).value
                    ["attributes"]["size"] == 0.9, timeout=15000)  # mirrored into the simulation
    opened.action("edit.undo").trigger()
    assert doc.stage.GetPrimAtPath(MARKER).GetAttribute("size").Get() == 0.5
    swap = call(client.command, SyncStage(text="#usda 1.0\n"))  # the scene behind the document's back
    assert not swap.ok and swap.diagnostics[0].code == "api.sync-stage-refused"
    assert opened.bridge.latest.port(f"{AXLE_FL}.target_velocity") == -1.5  # still the same world

    call(lambda: client.control("speed", speed=3.0))  # a speed the transport bar has no name for
    qtbot.waitUntil(lambda: opened.bridge.speed_name == "3x", timeout=10000)
    assert opened.bridge.speeds["3x"] == 3.0  # kept for a restart, named for the speed box
    assert opened.transport.speed.currentText() == "3x"
    call(lambda: client.control("speed", speed=None))
    qtbot.waitUntil(lambda: opened.bridge.speed_name == "max", timeout=10000)
    call(client.pause)

    action.trigger()  # stop serving
    assert not action.isChecked() and opened.api is None
    with pytest.raises(urllib.error.URLError):
        call(client.health)
    pool.shutdown()
