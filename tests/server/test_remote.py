"""``luncosim serve --allow-remote`` over TLS: the token is still required and a web page on
another site still cannot call it (its Origin must be this very server)."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.server.serving import DEMO, REPO


def _get(url: str, headers: dict[str, str]) -> int:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # our own self-signed certificate
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), context=ctx, timeout=30) as r:
            json.load(r)
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_remote_server_over_tls_checks_token_and_origin(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl to make a self-signed certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "luncosim_core.cli", "serve", "--scene", str(DEMO), "--port", "0",
                             "--token-file", str(tmp_path / "token"), "--allow-remote", "--tls-cert", str(cert),
                             "--tls-key", str(key)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)
    try:
        listening, token_line = proc.stdout.readline(), proc.stdout.readline()
        assert listening.startswith("listening on https://"), listening
        port = listening.rsplit(":", 1)[1].strip().rstrip("/")
        token = token_line.split()[-1]
        url = f"https://127.0.0.1:{port}/api/health"
        auth = {"Authorization": f"Bearer {token}"}
        assert _get(url, {}) == 401
        assert _get(url, {**auth, "Host": f"rover-lab.example:{port}"}) == 200  # any name the machine has
        assert _get(url, {**auth, "Origin": "https://evil.example"}) == 403
        assert _get(url, {**auth, "Origin": f"http://127.0.0.1:{port}"}) == 403  # not TLS: another origin
        assert _get(url, {**auth, "Origin": f"https://127.0.0.1:{port}"}) == 200
    finally:
        proc.terminate()
        proc.wait(20)
