"""Keep native libraries' chatter (pybullet prints to C stdout) off our machine-readable stdout."""

from __future__ import annotations

import ctypes
import os
import sys
from contextlib import contextmanager

_libc = ctypes.CDLL(None)


@contextmanager
def native_stdout_to_stderr():
    """Route C-level writes to file descriptor 1 into stderr for the duration of the block."""
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced stdout (pytest capture): nothing to guard
        yield
        return
    saved = os.dup(fd)
    try:
        _libc.fflush(None)
        os.dup2(sys.stderr.fileno(), fd)
        yield
    finally:
        _libc.fflush(None)
        os.dup2(saved, fd)
        os.close(saved)
