"""A persistent child process that runs the rumoca front end.

rumoca is native code: a deeply nested expression overflows its stack (signal 11 at about 8,000
nested brackets) and a pathological model can take memory without bound. Running it here would
take the whole program with it. The compile server runs :func:`luncosim_core.modelica.frontend.
front_end` in one long-lived child process (``python -m luncosim_core.modelica.compile_worker``)
with an address-space limit, and waits for each answer with a timeout. A crash, a timeout or an
allocation failure becomes a diagnostic (``modelica.compiler_crash``, ``modelica.compiler_timeout``,
``modelica.compiler_memory``); the next compile starts a fresh child.

The child keeps rumoca sessions per library (:class:`~luncosim_core.modelica.frontend.
SessionCache`), so a compile of a package model reuses the parsed library instead of re-reading
it: the persistent process is faster than compiling in-process with a fresh session, not only
safer (``benchmarks/bench_modelica.py`` measures both).

``LUNCOSIM_MODELICA_COMPILE=inprocess`` runs the front end in this process instead (debugging).
``LUNCOSIM_COMPILE_MEMORY_MB`` and ``LUNCOSIM_COMPILE_TIMEOUT_S`` set the process-wide server's
address-space limit (default 6144 MB) and per-request timeout (default 180 s).
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.modelica.frontend import FrontResult, error

DEFAULT_TIMEOUT_S = 180.0
DEFAULT_MEMORY_MB = 6144  # address space of the child (rumoca's arenas reserve generously)
_HEADER = struct.Struct("<Q")


def write_message(stream, obj: object) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_message(stream) -> object | None:
    """One message from a blocking stream, or None at end of stream."""
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (n,) = _HEADER.unpack(head)
    data = stream.read(n)
    if len(data) < n:
        return None
    return pickle.loads(data)


class CompilerDied(Exception):
    """The child process ended or stopped answering; ``diagnostic`` says how."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class CompileServer:
    """One compile child process, used by one request at a time (thread-safe)."""

    def __init__(self, *, timeout_s: float = DEFAULT_TIMEOUT_S, memory_mb: int | None = DEFAULT_MEMORY_MB) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self.started = 0  # how many children were started (a crash starts a new one)
        self.last_seconds = 0.0  # wall time of the last request

    # -- lifecycle ---------------------------------------------------------------------------
    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        if self.memory_mb:
            env["LUNCOSIM_COMPILE_MEMORY_MB"] = str(int(self.memory_mb))
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "luncosim_core.modelica.compile_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, env=env, close_fds=True,
        )
        self.started += 1
        return self._proc

    def warm(self) -> None:
        """Start the child now (if none runs) so its imports overlap the caller's own work."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    # -- requests ----------------------------------------------------------------------------
    def front_end(self, source_text: str, model_name: str | None, layer: str, path: str | None,
                  roots: tuple[str, ...], *, diagnostics_only: bool = False) -> FrontResult:
        """Run the front end in the child; a dead or stuck child becomes a diagnostic.
        ``diagnostics_only``: the answer leaves out the DAE (an editor's live check: less to copy)."""
        request = {"source_text": source_text, "model_name": model_name, "layer": layer, "path": path,
                   "roots": tuple(roots), "diagnostics_only": diagnostics_only}
        with self._lock:
            t0 = time.perf_counter()
            try:
                return self._ask(request, layer)
            except CompilerDied as died:
                return FrontResult(False, model_name or "", diagnostics=(died.diagnostic,))
            finally:
                self.last_seconds = time.perf_counter() - t0

    def _ask(self, request: dict, layer: str) -> FrontResult:
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        try:
            write_message(proc.stdin, request)
        except (BrokenPipeError, OSError):
            raise CompilerDied(self._death(proc, layer)) from None
        reply = self._read(proc, layer)
        if not isinstance(reply, FrontResult):
            self._stop()
            raise CompilerDied(error("modelica.compiler_crash", f"the compile server answered {type(reply).__name__}",
                                     layer))
        return reply

    def _read(self, proc: subprocess.Popen, layer: str) -> object:
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout_s
        buf = bytearray()
        need = _HEADER.size
        header_done = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                proc.wait()
                self._proc = None
                raise CompilerDied(error(
                    "modelica.compiler_timeout",
                    f"the Modelica compiler did not finish within {self.timeout_s:.0f} s and was stopped", layer))
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, max(need - len(buf), 1 << 16))
            if not chunk:
                raise CompilerDied(self._death(proc, layer))
            buf += chunk
            if not header_done and len(buf) >= _HEADER.size:
                (n,) = _HEADER.unpack(bytes(buf[:_HEADER.size]))
                need = _HEADER.size + n
                header_done = True
            if header_done and len(buf) >= need:
                return pickle.loads(bytes(buf[_HEADER.size:need]))

    def _death(self, proc: subprocess.Popen, layer: str) -> Diagnostic:
        """What is known of how the child ended: its exit status or signal and its peak memory
        against the limit (a child stopped near its limit is ``modelica.compiler_memory``)."""
        code, peak_mb = _reap(proc)
        self._proc = None
        limit = self.memory_mb
        near_limit = bool(limit and peak_mb is not None and peak_mb >= MEMORY_NEAR_LIMIT * limit)
        memory = ""
        if peak_mb is not None:
            memory = f"; its memory peaked at {peak_mb:,.0f} MB" + (f" of its {limit:,} MB limit" if limit else "")
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            what = {"SIGSEGV": "a memory fault (a stack overflow, such as an expression nested thousands deep, "
                               "is one cause)",
                    "SIGABRT": "an abort (an allocation the memory limit refused is one cause)",
                    "SIGKILL": "it was killed from outside (the system's out-of-memory killer is one cause)",
                    "SIGBUS": "a bus error (a memory fault)"}.get(name, "")
            if near_limit:
                what = "it most likely ran out of memory"
            return error("modelica.compiler_memory" if near_limit else "modelica.compiler_crash",
                         f"the Modelica compiler crashed on this model ({name}{': ' + what if what else ''}{memory}); "
                         "nothing else was affected", layer, signal=name, peak_mb=peak_mb, limit_mb=limit)
        return error("modelica.compiler_memory" if near_limit else "modelica.compiler_crash",
                     f"the Modelica compiler exited (status {code}) on this model{memory}", layer,
                     peak_mb=peak_mb, limit_mb=limit)


#: a child that dies with a peak resident memory of at least this share of its address-space limit
#: most likely ran out of memory (rumoca reserves address space beyond what it touches: a child
#: refused an allocation at its limit peaks at about 0.7 of it; a stack overflow uses little)
MEMORY_NEAR_LIMIT = 0.5


def _reap(proc: subprocess.Popen, wait_s: float = 5.0) -> tuple[int | None, float | None]:
    """Wait for a dying child: ``(exit code or -signal, peak resident memory in MB or None)``.
    Killed when it does not end within ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: no usage to read
            return proc.poll(), None
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_maxrss / 1024.0  # kilobytes on Linux
        if time.monotonic() > deadline:
            proc.kill()
            deadline = float("inf")
        time.sleep(0.01)


_DEFAULT: CompileServer | None = None
_DEFAULT_LOCK = threading.Lock()


def default_server() -> CompileServer:
    """The process-wide compile server (started on first use, stopped at exit)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = CompileServer(memory_mb=_env_number("LUNCOSIM_COMPILE_MEMORY_MB", DEFAULT_MEMORY_MB, int),
                                     timeout_s=_env_number("LUNCOSIM_COMPILE_TIMEOUT_S", DEFAULT_TIMEOUT_S, float))
            atexit.register(_DEFAULT.close)
        return _DEFAULT


def _env_number(name: str, default, kind):
    """A positive number from the environment (the process-wide server's limits), else ``default``."""
    try:
        value = kind(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


def warm_default_server() -> None:
    """Start the process-wide compile child early (nothing when compiling in-process)."""
    if os.environ.get("LUNCOSIM_MODELICA_COMPILE", "").lower() != "inprocess":
        default_server().warm()


def run_front_end(source_text: str, model_name: str | None, layer: str, path: str | None,
                  roots: tuple[str, ...], *, diagnostics_only: bool = False) -> FrontResult:
    """The front end through the compile server (or in this process when configured so)."""
    if os.environ.get("LUNCOSIM_MODELICA_COMPILE", "").lower() == "inprocess":
        from luncosim_core.modelica.frontend import front_end

        return front_end(source_text, model_name, layer, path, tuple(roots))
    return default_server().front_end(source_text, model_name, layer, path, tuple(roots),
                                      diagnostics_only=diagnostics_only)
