"""File helpers: atomic writes (temporary file in the same folder + fsync + rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

STALE_TEMPORARY_S = 3600.0  # a save's temporary file this old was left by a killed process


def clean_stale_temporaries(path: str | Path, older_than_s: float = STALE_TEMPORARY_S) -> list[Path]:
    """Remove ``.NAME.*.tmp`` files beside ``path`` left by saves that were killed midway."""
    import time

    path = Path(path)
    removed = []
    now = time.time()
    try:
        candidates = list(path.parent.glob(f".{glob_escape(path.name)}.*.tmp"))
    except OSError:
        return removed
    for tmp in candidates:
        try:
            if now - tmp.stat().st_mtime > older_than_s:
                tmp.unlink()
                removed.append(tmp)
        except OSError:
            continue
    return removed


def glob_escape(name: str) -> str:
    import glob

    return glob.escape(name)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so a crash leaves either the old file or the new one, whole.

    Temporary files a killed earlier save left beside ``path`` are removed first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


# ------------------------------------------------------------------------------ reading safely
MAX_TEXT_BYTES = 16 * 1024 * 1024  # a source file (.rhai, .mo, twin.toml) larger than this is refused
MAX_LAYER_BYTES = 1024 * 1024 * 1024  # a USD layer larger than this is refused


def file_problem(path: str | Path, what: str, max_bytes: int | None = None):
    """Why ``path`` cannot be read as ``what`` (a short sentence), or None when it can.

    Only regular files are read: a folder, a FIFO (reading one blocks forever), a device
    (``/dev/zero`` never ends) or a socket is refused, as is a file over ``max_bytes``. Links are
    followed (where they may lead is the caller's check)."""
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"{what} {path} does not exist"
    except OSError as exc:
        return f"{what} {path} cannot be read: {exc.strerror or exc}"
    if stat.S_ISDIR(st.st_mode):
        return f"{what} {path} is a folder, not a file"
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        return f"{what} {path} is {kind}, not a regular file"
    if max_bytes is not None and st.st_size > max_bytes:
        return f"{what} {path} is {st.st_size:,} bytes, over the {max_bytes:,}-byte limit"
    return None


class UnreadableFile(ValueError):
    """A file that is not a regular file, is too large or is not UTF-8 text (message says which).

    ``line`` is the 1-based line of the first invalid byte of a non-UTF-8 file (else None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_text_limited(path: str | Path, what: str = "file", max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a regular file no larger than ``max_bytes``; :class:`UnreadableFile` else."""
    problem = file_problem(path, what, max_bytes)
    if problem:
        raise UnreadableFile(problem)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # never block on a swapped-in FIFO
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise UnreadableFile(f"{what} {path} is over the {max_bytes:,}-byte limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UnreadableFile(f"{what} {path} is not UTF-8 text (invalid byte 0x{data[exc.start]:02x} "
                             f"at offset {exc.start}, line {line})", line) from None
