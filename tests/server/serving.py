"""A real ``luncosim serve`` on the demo twin, started as a user would, on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from luncosim_core.server.client import Client

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "twins" / "practice_yard"


class Served:
    def __init__(self, proc: subprocess.Popen, url: str, token: str, token_file: Path) -> None:
        self.proc, self.url, self.token, self.token_file = proc, url, token, token_file
        self.stderr = token_file.parent / "stderr.txt"
        self.client = Client.connect(url, token)


def start_server(tmp: Path, *args: str) -> Served:
    token_file = tmp / "token"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "luncosim_core.cli", "serve", "--scene", str(DEMO), "--port", "0",
                             "--token-file", str(token_file), *args], stdout=subprocess.PIPE,
                            stderr=(tmp / "stderr.txt").open("w"), text=True, env=env)
    first, second = proc.stdout.readline(), proc.stdout.readline()
    assert first.startswith("listening on http://127.0.0.1:"), first
    assert second.startswith("token: "), second
    return Served(proc, first.split()[-1], second.split()[-1], token_file)


def stop_server(served: Served) -> None:
    served.proc.terminate()
    served.proc.wait(15)


