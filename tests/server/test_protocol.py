"""The JSON vocabulary: every command and query survives the trip a client makes (encode ->
decode gives the same typed value), and the CLI refuses a remote bind without TLS."""

from __future__ import annotations

import subprocess
import sys

from luncosim_core.api import (
    ApplyOp,
    AttachBodies,
    CausalTrace,
    ReadPorts,
    ReleasePorts,
    SetEnvironmentLight,
    SetPorts,
    StateHash,
)
from luncosim_core.server.client import encode_request
from luncosim_core.server.protocol import decode_request, schema, vocabulary
from luncosim_core.usd.ops import Batch, SetAttribute, SetTransform
from tests.server.serving import DEMO, REPO


def test_commands_and_queries_survive_the_json_trip():
    values = [
        SetPorts(target="/Rover", writes={"throttle": 0.4, "brake": True}, correlation_id="c1"),
        ReleasePorts(target="/Rover", names=("throttle",)),
        SetEnvironmentLight(sun_yaw=0.5),
        ReadPorts(target="/Rover", names=None),
        CausalTrace(target="/Rover", correlation_id="c1"),
        AttachBodies(attachment="grip", parent="/A", child="/B"),
        StateHash(),
        ApplyOp(op=Batch(ops=(SetAttribute(path="/W/M", name="size", value=1.5),
                              SetTransform(path="/W/M", translate=(1.0, 2.0, 3.0))), name="move")),
    ]
    for value in values:
        assert decode_request(encode_request(value)) == value


def test_the_schema_describes_each_field_with_its_json_type():
    defs = schema()["$defs"]
    assert set(defs) == set(vocabulary())
    assert defs["SetEnvironmentLight"]["properties"]["sun_yaw"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert defs["ReleasePorts"]["properties"]["names"]["anyOf"][0] == {"type": "array", "items": {"type": "string"}}
    assert defs["StateHash"]["kind"] == "query" and defs["SetPorts"]["kind"] == "command"
    assert all(d["additionalProperties"] is False for d in defs.values())


def test_allow_remote_needs_a_tls_certificate():
    done = subprocess.run([sys.executable, "-m", "luncosim_core.cli", "serve", "--scene", str(DEMO), "--allow-remote"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 2
    assert "--allow-remote needs --tls-cert and --tls-key" in done.stderr


def test_a_frozen_bundle_starts_its_sim_server_through_its_own_cli(monkeypatch, tmp_path):
    import time

    from luncosim_core.server import local

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "luncosim-workbench"))
    assert local.child_command(7) == [str(tmp_path / "luncosim"), "sim-server", "--fd", "7"]
    monkeypatch.undo()
    # the verb the bundle runs, run for real from this install
    monkeypatch.setattr(local, "child_command",
                        lambda fd: [sys.executable, "-m", "luncosim_core.cli", "sim-server", "--fd", str(fd)])
    link = local.ServerProcess({"kind": "scene", "scene": str(DEMO), "wait_ready": True}, speed=None)
    link.start()
    try:
        assert link.wait_started()
        link.step(3)
        end = time.monotonic() + 60
        while (link.latest is None or link.latest.tick < 3) and time.monotonic() < end:
            time.sleep(0.02)
        assert link.latest.tick == 3
    finally:
        link.stop()
    assert link.stop_reason == "stopped"


def test_serve_says_why_a_scene_cannot_be_built(tmp_path):
    scene = tmp_path / "broken.usda"
    scene.write_text("#usda 1.0\ndef Xform \"W\" {\n")  # cut off mid-prim
    done = subprocess.run([sys.executable, "-m", "luncosim_core.cli", "serve", "--scene", str(scene), "--port", "0",
                           "--token-file", str(tmp_path / "token")], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 1
    assert "luncosim serve: the scene could not be built:" in done.stderr
    assert "usd-malformed-layer" in done.stderr and "broken.usda:3:1" in done.stderr  # what and where
    assert "listening on" not in done.stdout
