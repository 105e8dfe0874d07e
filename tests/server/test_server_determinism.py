"""The sim server runs the same deterministic tick as ``luncosim run``: equal checkpoint hashes."""

from __future__ import annotations

import subprocess
import sys
import time

from luncosim_core.api import StateHash
from tests.server.serving import DEMO, REPO, start_server, stop_server


def wait_tick(client, tick: int, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while client.snapshot()["tick"] < tick:
        assert time.monotonic() < end, f"the server did not reach tick {tick}"
        time.sleep(0.02)


def test_hashes_from_the_server_equal_luncosim_run(tmp_path):
    served = start_server(tmp_path, "--paused", "--max")
    try:
        client = served.client
        assert client.ready()
        got = {}
        for tick in (60, 120):
            client.step(60)
            wait_tick(client, tick)
            answer = client.query(StateHash())
            assert answer.ok and answer.value["tick"] == tick
            got[tick] = answer.value["hash"]
    finally:
        stop_server(served)
    run = subprocess.run([sys.executable, "-m", "luncosim_core.cli", "run", "--scene", str(DEMO), "--ticks", "120",
                          "--hash-every", "60"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr
    expected = {int(line.split()[1]): line.split()[2] for line in run.stdout.splitlines() if line.startswith("tick ")}
    assert got == expected


def test_serve_reports_a_killed_simulation_and_exits_1(tmp_path):
    import os
    import signal

    served = start_server(tmp_path, "--paused")
    pid = served.client.health()["pid"]
    assert pid != served.proc.pid  # the simulation is a process of its own
    os.kill(pid, signal.SIGKILL)
    assert served.proc.wait(30) == 1
    assert "luncosim serve: simulation stopped: killed by SIGKILL" in served.stderr.read_text()
    assert not served.token_file.exists()  # the token does not outlive the server


def test_the_stream_delivers_events_as_they_happen(tmp_path):
    import asyncio
    import json

    import aiohttp

    served = start_server(tmp_path, "--paused", "--max")

    async def go():
        headers = {"Authorization": f"Bearer {served.token}"}
        async with aiohttp.ClientSession(headers=headers) as session:
            async with session.ws_connect(served.url + "/api/stream") as ws:
                await ws.send_json({"rate": 60})
                await asyncio.to_thread(served.client.step, 30)  # the scenario's first tick prints
                async with asyncio.timeout(30):
                    async for msg in ws:
                        data = json.loads(msg.data)
                        if data["type"] == "event":
                            return data

    try:
        event = asyncio.run(go())
    finally:
        stop_server(served)
    assert event["kind"] == "ConsoleLine"
    assert "[yard] drill started" in event["text"] and event["source"] == "/PracticeYard/Drill"
