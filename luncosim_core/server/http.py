"""The HTTP API of a sim server (aiohttp): the same commands and snapshots the workbench uses.

Routes (all under ``/api``; every request needs ``Authorization: Bearer <token>``):
``GET health``, ``GET ready``, ``GET diagnostics``, ``GET commands/schema`` (alias ``schema``),
``POST commands`` (``{"command": NAME, "params": {...}}``), ``POST control`` (play, pause, step,
reset, speed), ``GET snapshot`` and the WebSocket ``stream``.

Guards, in order: the Host header must name the loopback address the server listens on and an
Origin header, when present, must be that same origin (no DNS rebinding, no cross-site browser
requests): 403; then the bearer token (compared in constant time): 401; bodies over
:data:`MAX_BODY` bytes: 413; a request that does not fit the vocabulary: 400 naming the field.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import json
import threading
from collections import deque
from concurrent.futures import Future

from aiohttp import WSMsgType, web

from luncosim_core import __version__
from luncosim_core.api.commands import ApplyOp, Command, CommandResult, SyncStage
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.server.local import ServerProcess
from luncosim_core.server.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    decode_request,
    event_json,
    result_json,
    schema,
    snapshot_json,
)

MAX_BODY = 1024 * 1024
COMMAND_WAIT_S = 10.0  # a command not admitted by then (a paused simulation) is answered 202
MAX_STREAM_HZ = 120.0
EVENT_LOG = 10000  # events kept for stream clients that fall behind


def _error(status: int, code: str, message: str, field: str | None = None) -> web.Response:
    body = {"error": code, "message": message}
    if field is not None:
        body["field"] = field
    return web.json_response(body, status=status)


class EventLog:
    """Every event and diagnostic the simulation published, numbered (fed by the link's reader
    thread, read by stream handlers on the loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: deque[tuple[int, dict]] = deque(maxlen=EVENT_LOG)
        self._next = 0
        self.diagnostics: deque[dict] = deque(maxlen=1000)

    def add(self, snap, *_rows) -> None:
        with self._lock:
            for d in snap.diagnostics:
                self.diagnostics.append(d.to_json())
            for item in (*snap.diagnostics, *snap.events):
                self._items.append((self._next, event_json(item)))
                self._next += 1

    def since(self, position: int) -> tuple[list[dict], int]:
        with self._lock:
            return [e for n, e in self._items if n >= position], self._next


class ApiServer:
    """Serves one :class:`ServerProcess` over HTTP on ``host:port``."""

    def __init__(self, link: ServerProcess, token: str, *, host: str = "127.0.0.1", port: int = 0,
                 allow_remote: bool = False, ssl_context=None) -> None:
        self.link = link
        self.token = token
        self.host = host
        self.port = port
        self.allow_remote = allow_remote
        self.ssl_context = ssl_context
        self.events = EventLog()
        self._serial = 0
        link.frames.connect(self.events.add)
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------ app
    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._guard])
        app.add_routes([
            web.get("/api/health", self.health), web.get("/api/ready", self.ready),
            web.get("/api/diagnostics", self.diagnostics),
            web.get("/api/commands/schema", self.schema), web.get("/api/schema", self.schema),
            web.post("/api/commands", self.commands), web.post("/api/control", self.control),
            web.get("/api/snapshot", self.snapshot), web.get("/api/stream", self.stream),
        ])
        return app

    async def start(self) -> int:
        """Bind and serve on the running loop; the port actually bound."""
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=self.ssl_context)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self.port

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl_context is not None else "http"
        host = "127.0.0.1" if self.host in ("127.0.0.1", "0.0.0.0") else self.host
        return f"{scheme}://{host}:{self.port}"

    # ------------------------------------------------------------------ guards
    def _origin_ok(self, request: web.Request) -> str | None:
        """Why the Host/Origin headers are refused, or None.

        Loopback: the Host must be this server's loopback address and port (no DNS rebinding), an
        Origin that same address. Remote (``allow_remote``, over TLS): the Host is whatever name
        clients reach the machine by, but an Origin, when a browser sends one, must be this very
        server (``https://<Host>``): no cross-site requests from a web page either way."""
        host = request.headers.get("Host", "")
        origin = request.headers.get("Origin")
        if self.allow_remote:
            if not host:
                return "a Host header is required"
            if origin is not None and origin != f"https://{host}":
                return f"Origin {origin!r} may not call this server (only https://{host})"
            return None
        loopback = {f"127.0.0.1:{self.port}", f"localhost:{self.port}", f"[::1]:{self.port}"}
        if host not in loopback:
            return f"Host header {host!r} is not this server's loopback address"
        if origin is not None and origin.partition("://")[2] not in loopback:
            return f"Origin {origin!r} may not call this server"
        return None

    @web.middleware
    async def _guard(self, request: web.Request, handler):
        refused = self._origin_ok(request)
        if refused:
            return _error(403, "forbidden", refused)
        auth = request.headers.get("Authorization", "")
        scheme, _, given = auth.partition(" ")
        if scheme != "Bearer" or not hmac.compare_digest(given.encode(), self.token.encode()):
            return _error(401, "unauthorized", "send Authorization: Bearer <token> (printed at start and in the token file)")
        if request.content_length is not None and request.content_length > MAX_BODY:
            return _error(413, "too-large", f"the body is {request.content_length} bytes; the limit is {MAX_BODY}")
        try:
            return await handler(request)
        except web.HTTPRequestEntityTooLarge:
            return _error(413, "too-large", f"the body is over the limit of {MAX_BODY} bytes")

    # ------------------------------------------------------------------ handlers
    async def health(self, _request: web.Request) -> web.Response:
        link = self.link
        state = "running" if link.alive else f"stopped: {link.stop_reason or 'not started'}"
        return web.json_response({"status": "ok", "version": __version__, "protocol": PROTOCOL_VERSION,
                                  "simulation": state, "pid": link.pid})

    async def ready(self, _request: web.Request) -> web.Response:
        snap = self.link.latest
        if not self.link.alive:
            return web.json_response({"ready": False, "reason": f"simulation stopped: {self.link.stop_reason}"}, status=503)
        if snap is None or snap.status == "waiting":
            reason = "no snapshot yet" if snap is None else snap.reason
            return web.json_response({"ready": False, "reason": reason}, status=503)
        return web.json_response({"ready": True, "tick": snap.tick, "status": snap.status})

    async def diagnostics(self, _request: web.Request) -> web.Response:
        return web.json_response({"diagnostics": list(self.events.diagnostics)})

    async def schema(self, _request: web.Request) -> web.Response:
        return web.json_response(schema())

    async def _body(self, request: web.Request):
        try:
            return await request.json()
        except json.JSONDecodeError as exc:
            raise ProtocolError("body", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None

    async def commands(self, request: web.Request) -> web.Response:
        try:
            value = decode_request(await self._body(request))
        except ProtocolError as err:
            return web.json_response(err.to_json(), status=400)
        fut = self._submit(value)
        try:
            result = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(fut)), COMMAND_WAIT_S)
        except TimeoutError:
            return web.json_response({"queued": True, "message": f"{value.name} is queued: the simulation has not "
                                      f"admitted it within {COMMAND_WAIT_S:g} s (paused?)"}, status=202)
        if result.tick is not None:
            await self._until_tick(result.tick)
        return web.json_response(result_json(result), status=200 if result.ok else 422)

    def _submit(self, value) -> Future:
        """Hand a decoded request to the simulation. Commands carry the author ``api`` in their
        correlation id (CausalTrace shows it); a document op goes through the host's journal
        when the host has one (the workbench), else straight to the simulation."""
        if not isinstance(value, Command):
            return self.link.query(value)
        if value.correlation_id is None:
            self._serial += 1
            value = dataclasses.replace(value, correlation_id=f"api:{self._serial}")
        apply_op = getattr(self.link, "apply_op", None)
        if isinstance(value, ApplyOp) and apply_op is not None:
            return apply_op(value.op)
        if isinstance(value, SyncStage) and apply_op is not None:
            # the host keeps the document: a scene swapped behind it would drift from what it saves
            refused: Future = Future()
            refused.set_result(CommandResult(False, None, (Diagnostic(
                "error", "api.sync-stage-refused", "SyncStage would replace the simulation's scene behind the "
                "workbench's document; send ApplyOp edits (they go through its journal)", source="api"),)))
            return refused
        return self.link.send(value)

    async def _until_tick(self, tick: int, timeout: float = 1.0) -> None:
        """Wait until the snapshot of ``tick`` has arrived, so the next /api/snapshot shows the
        command's effect."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.link.alive and loop.time() < end:
            snap = self.link.latest
            if snap is not None and snap.tick >= tick:
                return
            await asyncio.sleep(0.002)

    async def control(self, request: web.Request) -> web.Response:
        try:
            body = await self._body(request)
            verb, arg = _control_args(body)
        except ProtocolError as err:
            return web.json_response(err.to_json(), status=400)
        if verb == "step":
            self.link.step(arg)
        elif verb == "speed":
            self.link.set_speed(arg)
        else:
            getattr(self.link, verb)()
        return web.json_response({"ok": True, "action": verb})

    async def snapshot(self, _request: web.Request) -> web.Response:
        snap = self.link.latest
        if snap is None:
            return _error(503, "no-snapshot", "the simulation has not published a snapshot yet")
        return web.json_response(snapshot_json(snap))

    async def stream(self, request: web.Request) -> web.WebSocketResponse:
        """Snapshots at the client's rate (``{"rate": hz}``, default 10) and events as they come."""
        ws = web.WebSocketResponse(max_msg_size=64 * 1024)
        await ws.prepare(request)
        state = {"rate": 10.0}
        _, position = self.events.since(0)
        reader = asyncio.ensure_future(self._stream_reader(ws, state))
        last_tick = None
        try:
            while not ws.closed:
                events, position = self.events.since(position)
                for e in events:
                    await ws.send_json({"type": "event", **e})
                snap = self.link.latest
                if snap is not None and snap.tick != last_tick:
                    last_tick = snap.tick
                    await ws.send_json({"type": "snapshot", **snapshot_json(snap)})
                await asyncio.sleep(1.0 / state["rate"])
        except (ConnectionResetError, RuntimeError):
            pass
        finally:
            reader.cancel()
        return ws

    async def _stream_reader(self, ws: web.WebSocketResponse, state: dict) -> None:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            try:
                state["rate"] = _stream_rate(msg.data)
            except ProtocolError as err:
                await ws.send_json({"type": "error", **err.to_json()})


def _control_args(body) -> tuple[str, object]:
    if not isinstance(body, dict):
        raise ProtocolError("body", "expected an object with an 'action'")
    verb = body.get("action")
    if verb not in ("play", "pause", "step", "reset", "speed"):
        raise ProtocolError("action", f"expected play, pause, step, reset or speed, got {verb!r}")
    if verb == "step":
        ticks = body.get("ticks", 1)
        if isinstance(ticks, bool) or not isinstance(ticks, int) or not 1 <= ticks <= 10**9:
            raise ProtocolError("ticks", f"expected an integer from 1 to 1e9, got {ticks!r}")
        return verb, ticks
    if verb == "speed":
        speed = body.get("speed")
        if speed is not None and (isinstance(speed, bool) or not isinstance(speed, (int, float)) or not 0 < speed <= 1000):
            raise ProtocolError("speed", f"expected a real-time factor in (0, 1000] or null (as fast as possible), got {speed!r}")
        return verb, None if speed is None else float(speed)
    return verb, None


def _stream_rate(text: str) -> float:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError("message", f"not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or set(data) != {"rate"}:
        raise ProtocolError("message", "expected {\"rate\": <snapshots a second>}")
    rate = data["rate"]
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= MAX_STREAM_HZ:
        raise ProtocolError("rate", f"expected a number in (0, {MAX_STREAM_HZ:g}], got {rate!r}")
    return float(rate)
