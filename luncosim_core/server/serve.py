"""``luncosim serve``: run a scene headless in a sim server child and serve it over HTTP."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import ssl
import sys
from pathlib import Path

from luncosim_core import cli_args


def write_token(token: str, path: Path) -> Path:
    """Write the token readable by its owner only (mode 0600, atomic replace)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    os.replace(tmp, path)
    return path


def default_token_file(port: int) -> Path:
    from platformdirs import user_runtime_dir

    return Path(user_runtime_dir("luncosim")) / f"serve-{port}.token"


def add_serve_verb(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run a scene headless and serve it over HTTP (docs/cli.md)")
    p.add_argument("--scene", required=True, help="a scene file or a twin folder (its default scene)")
    p.add_argument("--port", type=cli_args.bounded(int, 0, 65535), default=4101, help="TCP port (default 4101; 0 = any free)")
    p.add_argument("--token-file", type=Path, default=None,
                   help="write the bearer token here (mode 0600; default: the user's runtime dir)")
    p.add_argument("--speed", type=cli_args.bounded(float, 0.0, 1000.0, low_open=True), default=None,
                   help="real-time factor (default 1; see --max)")
    p.add_argument("--max", action="store_true", help="run as fast as possible")
    p.add_argument("--paused", action="store_true", help="start paused (drive it with POST /api/control)")
    p.add_argument("--tick-hz", type=cli_args.tick_hz, default=60.0, help="fixed tick rate (default 60)")
    p.add_argument("--substeps", type=cli_args.substeps, default=4, help="physics substeps per tick (default 4)")
    p.add_argument("--allow-remote", action="store_true",
                   help="listen on every address (needs --tls-cert and --tls-key)")
    p.add_argument("--tls-cert", type=Path, default=None, help="TLS certificate (PEM) for --allow-remote")
    p.add_argument("--tls-key", type=Path, default=None, help="TLS private key (PEM) for --allow-remote")
    p.set_defaults(func=cmd_serve)
    # internal: how a frozen bundle starts its sim server child (docs/architecture.md)
    p = sub.add_parser("sim-server", help=argparse.SUPPRESS)
    p.add_argument("--fd", type=int, required=True)
    p.set_defaults(func=cmd_sim_server)


def cmd_sim_server(args: argparse.Namespace) -> int:
    from luncosim_core.server.child import main as child_main

    return child_main(["--fd", str(args.fd)])


def cmd_serve(args: argparse.Namespace) -> int:
    if args.allow_remote and not (args.tls_cert and args.tls_key):
        print("luncosim serve: --allow-remote needs --tls-cert and --tls-key (the token must not cross a "
              "network in clear text)", file=sys.stderr)
        return 2
    ssl_context = None
    if args.tls_cert:
        ssl_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            ssl_context.load_cert_chain(args.tls_cert, args.tls_key)
        except (OSError, ssl.SSLError) as exc:
            print(f"luncosim serve: cannot load the TLS certificate {args.tls_cert}: {exc}", file=sys.stderr)
            return 2
    return asyncio.run(_serve(args, ssl_context))


async def _serve(args: argparse.Namespace, ssl_context) -> int:
    from luncosim_core.server.http import ApiServer
    from luncosim_core.server.local import ServerProcess

    scene = Path(args.scene)
    if not scene.exists():
        print(f"luncosim serve: no scene at {scene}", file=sys.stderr)
        return 1
    speed = None if args.max else (args.speed or 1.0)
    link = ServerProcess({"kind": "scene", "scene": str(scene.resolve()), "lunco_root": args.lunco_root, "wait_ready": True,
                          "config": {"tick_hz": args.tick_hz, "substeps": args.substeps}}, speed=speed)
    link.start()
    loop = asyncio.get_running_loop()
    if not await loop.run_in_executor(None, link.wait_started):
        print(f"luncosim serve: the simulation did not start: {link.stop_reason or 'timed out'}", file=sys.stderr)
        link.stop()
        return 1
    while link.latest is None and link.alive and link.build_error is None:
        await asyncio.sleep(0.01)
    if link.build_error is not None:
        print(f"luncosim serve: the scene could not be built: {link.build_error.message}", file=sys.stderr)
        link.stop()
        return 1
    if not link.alive:
        print(f"luncosim serve: simulation stopped: {link.stop_reason}", file=sys.stderr)
        return 1
    token = secrets.token_urlsafe(32)
    server = ApiServer(link, token, host="0.0.0.0" if args.allow_remote else "127.0.0.1", port=args.port,
                       allow_remote=args.allow_remote, ssl_context=ssl_context)
    try:
        port = await server.start()
    except OSError as exc:
        print(f"luncosim serve: cannot listen on port {args.port}: {exc.strerror or exc}", file=sys.stderr)
        link.stop()
        return 1
    token_file = write_token(token, args.token_file or default_token_file(port))
    if not args.paused:
        link.play()
    print(f"listening on {server.url}", flush=True)
    print(f"token: {token}", flush=True)
    print(f"token file: {token_file}", flush=True)
    done = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, done.set)
    link.stopped.connect(lambda _why: loop.call_soon_threadsafe(done.set))
    await done.wait()
    code = 0
    if link.stop_reason:
        print(f"luncosim serve: simulation stopped: {link.stop_reason}", file=sys.stderr)
        code = 1
    await server.close()
    link.stop()
    try:
        token_file.unlink()
    except OSError:
        pass
    return code
