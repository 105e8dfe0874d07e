"""The editor's fast pass (:func:`luncosim_core.language.analysis.analyze`) in a child process.

Our parsers are Python: run on a thread of the workbench they share its GIL and its garbage
collector with the UI thread, and checking a 10,000-line file made keystrokes wait hundreds of
milliseconds (measured, ``benchmarks/bench_editors.py``). :class:`CheckProcess` runs them in one
long-lived child (``python -m luncosim_core.language.check_process``, started on first use,
restarted after a crash) and waits for each answer with a timeout; the parent only pickles the
text and unpickles the findings. A child that dies or does not answer in time is one
``check-failed`` diagnostic; a frozen bundle (no ``-m``) or ``LUNCOSIM_EDITOR_CHECK=inprocess``
checks in this process instead.
"""

from __future__ import annotations

import os
import pickle
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic

DEFAULT_TIMEOUT_S = 30.0


def _roots_key(roots) -> tuple[str | None, str | None] | None:
    if roots is None:
        return None
    return (str(roots.twin_root) if roots.twin_root else None, str(roots.lunco_root) if roots.lunco_root else None)


class CheckProcess:
    """One checker child, one request at a time (thread-safe)."""

    def __init__(self, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self.started = 0
        self.inprocess = bool(getattr(sys, "frozen", False)) or os.environ.get(
            "LUNCOSIM_EDITOR_CHECK", "").lower() == "inprocess"

    def _start(self) -> subprocess.Popen:
        self._proc = subprocess.Popen([sys.executable, "-m", "luncosim_core.language.check_process"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, close_fds=True)
        self.started += 1
        return self._proc

    def warm(self) -> None:
        """Start the child now, so its imports are done before the first check."""
        if self.inprocess:
            return
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is not None:
                try:
                    proc.stdin.close()
                    proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    proc.kill()
                    proc.wait()

    def analyze(self, path: str | Path, text: str, roots=None, contracts=None):
        from luncosim_core.language.analysis import Analysis, analyze

        if self.inprocess:
            return analyze(path, text, roots, contracts)
        request = {"path": str(path), "text": text, "roots": _roots_key(roots), "contracts": contracts or {}}
        with self._lock:
            try:
                reply = self._ask(request)
            except _Died as died:
                return Analysis([Diagnostic("error", "check-failed", str(died), layer=str(path), source="text")], None)
        return reply

    def _ask(self, request: dict):
        from luncosim_core.modelica.compile_server import write_message

        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        try:
            write_message(proc.stdin, request)
        except (BrokenPipeError, OSError):
            self._proc = None
            raise _Died("the checker process ended; the next check starts a new one") from None
        return self._read(proc)

    def _read(self, proc: subprocess.Popen):
        import struct

        header = struct.Struct("<Q")
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout_s
        buf = bytearray()
        need = header.size
        have_header = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                proc.wait()
                self._proc = None
                raise _Died(f"the check did not finish within {self.timeout_s:.0f} s and was stopped")
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, max(need - len(buf), 1 << 16))
            if not chunk:
                proc.wait()
                self._proc = None
                raise _Died(f"the checker process ended (exit status {proc.returncode}); the next check starts a "
                            "new one")
            buf += chunk
            if not have_header and len(buf) >= header.size:
                need = header.size + header.unpack(bytes(buf[:header.size]))[0]
                have_header = True
            if have_header and len(buf) >= need:
                return pickle.loads(bytes(buf[header.size:need]))


class _Died(Exception):
    pass


def main() -> int:
    """The child: answer each request (path, text, roots, contracts) with its Analysis."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the checks print goes to stderr, never into the protocol
    sys.stdout = sys.stderr
    from luncosim_core.language.analysis import Analysis, analyze
    from luncosim_core.modelica.compile_server import read_message, write_message
    from luncosim_core.twin.roots import AssetRoots

    roots_cache: dict = {}
    stdin = sys.stdin.buffer
    while True:
        request = read_message(stdin)
        if request is None:
            return 0
        key = request.get("roots")
        if key is not None and key not in roots_cache:
            twin, lunco = key
            roots_cache[key] = AssetRoots(Path(twin) if twin else None, Path(lunco) if lunco else None)
        try:
            result = analyze(request["path"], request["text"], roots_cache.get(key) if key else None,
                             request.get("contracts"))
        except Exception as exc:  # noqa: BLE001 - a checker bug is a diagnostic, never a dead child
            result = Analysis([Diagnostic("error", "check-failed", f"the checker failed: {type(exc).__name__}: {exc}",
                                          layer=request.get("path", ""), source="text")], None)
        write_message(out, result)


if __name__ == "__main__":
    raise SystemExit(main())
