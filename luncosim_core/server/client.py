"""``Client``: a typed Python client of the sim server's HTTP API (tests, batch runs, scripts).

    client = Client.connect("http://127.0.0.1:4101", token)
    result = client.command(SetPorts(target="/Rover", writes={"throttle": 0.4}))
    client.snapshot()["ports"]["/Rover.throttle"]

Commands and queries are the ``api`` types; answers come back as :class:`CommandResult`.
A refused request raises :class:`ApiError` with the HTTP status and the server's JSON body.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import urllib.error
import urllib.request
from typing import Any

from luncosim_core.api.commands import ApplyOp, Command, CommandResult, Query
from luncosim_core.server.protocol import result_from_json, to_jsonable


class ApiError(RuntimeError):
    """The server refused a request: ``status`` and its JSON ``body``."""

    def __init__(self, status: int, body: dict) -> None:
        super().__init__(f"HTTP {status}: {body.get('field', '')} {body.get('message', body)}".replace("  ", " "))
        self.status = status
        self.body = body


def encode_op(op) -> dict:
    out = {"kind": op.kind}
    for f in dataclasses.fields(op):
        value = getattr(op, f.name)
        out[f.name] = [encode_op(o) for o in value] if f.name == "ops" else to_jsonable(value)
    return out


def encode_request(value: Command | Query) -> dict:
    """A command or query as the ``POST /api/commands`` body."""
    params = {}
    for f in dataclasses.fields(value):
        v = getattr(value, f.name)
        if f.name == "correlation_id" and v is None:
            continue
        params[f.name] = encode_op(v) if isinstance(value, ApplyOp) and f.name == "op" else to_jsonable(v)
    return {"command": value.name, "params": params}


class Client:
    """One server at ``url`` with ``token``."""

    def __init__(self, url: str, token: str, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    @classmethod
    def connect(cls, url: str, token: str, *, timeout: float = 30.0) -> Client:
        """A client whose server answered ``/api/health`` (ApiError or OSError otherwise)."""
        client = cls(url, token, timeout=timeout)
        client.health()
        return client

    # ------------------------------------------------------------------ raw
    def request(self, method: str, path: str, body: Any = None, *, raw: bytes | None = None) -> tuple[int, dict]:
        """``(status, json)`` of one request; statuses >= 400 raise :class:`ApiError`."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as err:
            text = err.read()
            try:
                payload = json.loads(text)
            except ValueError:
                payload = {"message": text.decode(errors="replace")}
            if err.code == 422:  # a refused command: its typed result
                return err.code, payload
            raise ApiError(err.code, payload) from None

    # ------------------------------------------------------------------ typed
    def health(self) -> dict:
        return self.request("GET", "/api/health")[1]

    def ready(self) -> bool:
        try:
            return bool(self.request("GET", "/api/ready")[1].get("ready"))
        except ApiError as err:
            if err.status == 503:
                return False
            raise

    def schema(self) -> dict:
        return self.request("GET", "/api/commands/schema")[1]

    def snapshot(self) -> dict:
        return self.request("GET", "/api/snapshot")[1]

    def command(self, value: Command | Query) -> CommandResult:
        """Send a command (answered at admission) or a query (answered between ticks)."""
        status, body = self.request("POST", "/api/commands", encode_request(value))
        if status == 202:
            raise ApiError(status, body)
        return result_from_json(body)

    query = command

    def control(self, action: str, **args: Any) -> dict:
        return self.request("POST", "/api/control", {"action": action, **args})[1]

    def play(self) -> None:
        self.control("play")

    def pause(self) -> None:
        self.control("pause")

    def step(self, ticks: int = 1) -> None:
        self.control("step", ticks=ticks)

    def stream(self, count: int, *, rate: float = 30.0, timeout: float = 30.0) -> list[dict]:
        """The first ``count`` messages of ``/api/stream`` at ``rate`` snapshots a second."""
        return asyncio.run(self._stream(count, rate, timeout))

    async def _stream(self, count: int, rate: float, timeout: float) -> list[dict]:
        import aiohttp

        out: list[dict] = []
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {self.token}"}) as session:
            async with session.ws_connect(self.url + "/api/stream", timeout=aiohttp.ClientWSTimeout(ws_close=timeout)) as ws:
                await ws.send_json({"rate": rate})
                async with asyncio.timeout(timeout):
                    async for msg in ws:
                        out.append(json.loads(msg.data))
                        if len(out) >= count:
                            break
        return out
