"""``luncosim serve`` over HTTP, as a client sees it: tokens, guards, the schema, commands that
show in the next snapshot, the stream, refused bodies."""

from __future__ import annotations

import asyncio
import json
import stat
import urllib.error
import urllib.request

import aiohttp
import pytest

import luncosim_core.api as api
from luncosim_core.api import Command, Query, ReadPorts, SetPorts
from luncosim_core.server.client import ApiError, Client

ROVER = "/PracticeYard/RoverA"


def raw(url: str, path: str, headers: dict) -> int:
    req = urllib.request.Request(url + path, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def test_every_route_needs_the_bearer_token(served):
    for path in ("/api/health", "/api/ready", "/api/snapshot", "/api/commands/schema", "/api/stream"):
        assert raw(served.url, path, {}) == 401, path
        assert raw(served.url, path, {"Authorization": "Bearer not-the-token"}) == 401, path
    assert raw(served.url, "/api/health", {"Authorization": f"Bearer {served.token}"}) == 200
    assert served.token_file.read_text().strip() == served.token
    assert stat.S_IMODE(served.token_file.stat().st_mode) == 0o600


def test_foreign_host_and_origin_are_refused(served):
    auth = {"Authorization": f"Bearer {served.token}"}
    port = served.url.rsplit(":", 1)[1]
    assert raw(served.url, "/api/health", {**auth, "Host": f"evil.example:{port}"}) == 403  # DNS rebinding
    assert raw(served.url, "/api/health", {**auth, "Origin": "http://evil.example"}) == 403  # a web page
    assert raw(served.url, "/api/health", {**auth, "Origin": f"http://localhost:{port}"}) == 200


def test_the_schema_lists_every_command_and_query(served):
    schema = served.client.schema()

    def names(base):
        out = set()
        for cls in base.__subclasses__():
            out |= {cls.name} | names(cls)
        return out

    assert set(schema["$defs"]) == names(Command) | names(Query)
    assert {"SetPorts", "ReadPorts", "ApplyOp", "AttachBodies", "StateHash"} <= set(schema["$defs"])
    sp = schema["$defs"]["SetPorts"]
    assert sp["kind"] == "command" and sp["properties"]["target"] == {"type": "string"}
    assert sp["properties"]["writes"]["type"] == "object"
    assert schema["$defs"]["ReadPorts"]["properties"]["names"]["anyOf"][0]["type"] == "array"
    assert served.client.request("GET", "/api/schema")[1] == schema
    assert all(name in api.__all__ for name in schema["$defs"])


def test_set_ports_over_http_shows_in_the_next_snapshot(served):
    served.client.play()
    result = served.client.command(SetPorts(target=ROVER, writes={"throttle": 0.4}))
    assert result.ok and result.value == {"throttle": 0.4} and result.tick is not None
    snap = served.client.snapshot()
    assert snap["tick"] >= result.tick
    assert snap["ports"][f"{ROVER}.throttle"] == 0.4
    assert snap["status"] == "running" and f"{ROVER}/Chassis" in snap["bodies"]
    read = served.client.query(ReadPorts(ROVER, ("throttle",)))
    assert read.ok and read.value["throttle"]["value"] == 0.4


def test_a_refused_command_is_a_typed_error(served):
    result = served.client.command(SetPorts(target=ROVER, writes={"no_such_port": 1.0}))
    assert not result.ok and result.diagnostics and "no_such_port" in result.diagnostics[0].message


@pytest.mark.parametrize(("body", "field"), [
    ({"command": "Teleport"}, "command"),
    ({"command": "SetPorts", "params": {"target": 3}}, "params.target"),
    ({"command": "SetPorts", "params": {"target": ROVER, "writes": {"throttle": "fast"}}}, "params.writes.throttle"),
    ({"command": "SetPorts", "params": {"colour": "red"}}, "params.colour"),
    ({"command": "ReadPorts", "params": {"target": ROVER, "names": "throttle"}}, "params.names"),
    ({"command": "ApplyOp", "params": {"op": {"kind": "explode"}}}, "params.op.kind"),
    ([1, 2], "body"),
])
def test_bad_requests_name_the_field(served, body, field):
    with pytest.raises(ApiError) as err:
        served.client.request("POST", "/api/commands", body)
    assert err.value.status == 400 and err.value.body["field"] == field


def test_malformed_json_and_an_oversized_body_are_refused(served):
    with pytest.raises(ApiError) as err:
        served.client.request("POST", "/api/commands", raw=b"{not json")
    assert err.value.status == 400 and err.value.body["field"] == "body"
    big = json.dumps({"command": "SetPorts", "params": {"target": ROVER, "writes": {"throttle": 0.1},
                                                         "pad": "x" * (1024 * 1024)}}).encode()
    with pytest.raises(ApiError) as err:
        served.client.request("POST", "/api/commands", raw=big)
    assert err.value.status == 413
    assert served.client.health()["simulation"] == "running"  # nothing crashed


def test_the_stream_delivers_snapshots(served):
    served.client.play()
    messages = served.client.stream(6, rate=30)
    snaps = [m for m in messages if m["type"] == "snapshot"]
    assert len(snaps) >= 4
    ticks = [s["tick"] for s in snaps]
    assert ticks == sorted(ticks) and ticks[-1] > ticks[0]
    assert all(f"{ROVER}.speed" in s["ports"] for s in snaps)


def test_a_malformed_stream_message_gets_an_error_and_the_stream_goes_on(served):
    async def go():
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {served.token}"}) as session:
            async with session.ws_connect(served.url + "/api/stream") as ws:
                await ws.send_str("{nope")
                await ws.send_json({"rate": -5})
                errors, snaps = [], 0
                async with asyncio.timeout(20):
                    async for msg in ws:
                        data = json.loads(msg.data)
                        errors += [data] if data["type"] == "error" else []
                        snaps += data["type"] == "snapshot"
                        if len(errors) == 2 and snaps >= 2:
                            return errors
        return errors

    errors = asyncio.run(go())
    assert [e["field"] for e in errors] == ["message", "rate"]


def test_control_validates_its_arguments(served):
    with pytest.raises(ApiError) as err:
        served.client.control("step", ticks=0)
    assert err.value.status == 400 and err.value.body["field"] == "ticks"
    with pytest.raises(ApiError) as err:
        served.client.control("fly")
    assert err.value.body["field"] == "action"


def test_client_connect_refuses_a_wrong_token(served):
    with pytest.raises(ApiError) as err:
        Client.connect(served.url, "wrong")
    assert err.value.status == 401
