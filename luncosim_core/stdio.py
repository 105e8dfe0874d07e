"""Keep native libraries' chatter (pybullet prints to C stdout) off our machine-readable stdout."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from contextlib import contextmanager

_libc = ctypes.CDLL(None)
_LOCK = threading.Lock()
_DEPTH = 0
_SAVED: int | None = None


@contextmanager
def native_stdout_to_stderr():
    """Route C-level writes to file descriptor 1 into stderr for the duration of the block.

    File descriptors are process-wide, so the swap is reference-counted under a lock: nested or
    concurrent blocks (a simulation built on a worker thread while another is built elsewhere)
    restore the real stdout only when the last one leaves.
    """
    global _DEPTH, _SAVED
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced stdout (pytest capture): nothing to guard
        yield
        return
    with _LOCK:
        if _DEPTH == 0:
            try:
                _libc.fflush(None)
                _SAVED = os.dup(fd)
                os.dup2(sys.stderr.fileno(), fd)
            except OSError:
                _SAVED = None
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _SAVED is not None:
                try:
                    _libc.fflush(None)
                    os.dup2(_SAVED, fd)
                finally:
                    os.close(_SAVED)
                    _SAVED = None
