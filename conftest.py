"""Test-session set-up shared by ``tests/`` and the panels' own tests.

``./dev test`` runs the suite on two pytest-xdist workers. Each worker gets an X server of its own
(Xvfb, started here before anything imports Qt), so windows of one worker never take focus or
keyboard activation from the other's; the session's ``xvfb-run`` display stays with the
controller. Without xdist (a plain ``pytest`` run) nothing changes.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess

import pytest

_FUZZ_STATES: list[dict] = []  # the fuzz outcomes each xdist worker handed back


def _own_display() -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER") or not os.environ.get("DISPLAY") or not shutil.which("Xvfb"):
        return
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()  # Xvfb writes its display number once it accepts clients
    if not number:
        proc.kill()
        return  # keep the session's display
    os.environ["DISPLAY"] = f":{number}"
    os.environ.pop("XAUTHORITY", None)  # a private server started without access control
    atexit.register(proc.terminate)


_own_display()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):  # noqa: ARG001 - an xdist hook, on the controller
    data = getattr(node, "workeroutput", {}).get("luncosim_fuzz")
    if data:
        _FUZZ_STATES.append(json.loads(data))


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if _FUZZ_STATES:  # the controller of an xdist run: the workers' fuzz outcomes, together
        from tests.fuzz.conftest import write_summary

        write_summary(terminalreporter, _FUZZ_STATES)
