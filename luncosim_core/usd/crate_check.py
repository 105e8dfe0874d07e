"""Read every value of a binary (crate, ``.usdc``) layer in a child process first.

A crate file unpacks its values lazily, and USD's crate reader is native code: a corrupt file
can raise ``Tf.ErrorException`` ("Corrupt asset") on the first read of a value, long after it
opened, or crash the process outright (signal 11). So before a binary layer is used, a child
process (``python -m luncosim_core.usd.crate_check FILE``, address space and time bounded) opens
it and reads every value; a crash, an error or a timeout becomes a diagnostic message naming the
file. Answers are cached per (file, modification time, size).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

TIMEOUT_S = 60.0
MEMORY_MB = 4096
_cache: dict[tuple[str, int, int], str | None] = {}


def crate_problem(path: str) -> str | None:
    """Why the binary layer at ``path`` cannot be read (None when every value reads)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    if key not in _cache:
        _cache[key] = _ask_child(path)
    return _cache[key]


def _ask_child(path: str) -> str | None:
    if getattr(sys, "frozen", False):  # a frozen bundle has no ``python -m``: read it here (errors only)
        return _read_here(path)
    try:
        r = subprocess.run([sys.executable, "-m", "luncosim_core.usd.crate_check", path], capture_output=True,
                           timeout=TIMEOUT_S, close_fds=True)
    except subprocess.TimeoutExpired:
        return f"reading its values took over {TIMEOUT_S:g} s (a corrupt crate file?)"
    if r.returncode == 0:
        return None
    if r.returncode < 0:
        try:
            name = signal.Signals(-r.returncode).name
        except ValueError:
            name = f"signal {-r.returncode}"
        return f"the USD crate reader crashed reading it ({name}): a corrupt binary file"
    said = r.stdout.decode("utf-8", "replace").strip().splitlines()
    return said[-1] if said else f"the USD crate reader failed (exit {r.returncode})"


def _main(path: str) -> int:
    try:
        import resource

        limit = MEMORY_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass
    try:
        problem = _read_here(path)
    except MemoryError:
        problem = f"reading its values needs over {MEMORY_MB} MB"
    if problem:
        print(problem)
        return 1
    return 0


def _read_here(path: str) -> str | None:
    """Open the layer and read every value in this process; why it failed, or None."""
    from pxr import Sdf, Tf

    from luncosim_core.usd.tferrors import tf_error_text

    try:
        with Tf.DiagnosticTrap() as trap:
            layer = Sdf.Layer.OpenAsAnonymous(path)
            if layer is not None:
                layer.ExportToString()
                bad = _undecodable(layer)
                if bad:
                    return bad
            trap.Clear()
    except Tf.ErrorException as exc:
        text = " ".join(tf_error_text(exc).split())
        start = text.find("Corrupt asset")
        return text[start:start + 300] if start >= 0 else text[-300:]
    return None if layer is not None else "USD cannot open it"


def _undecodable(layer) -> str | None:
    """A field whose string is not UTF-8 text (the export escapes such bytes, but reading the field
    from Python raises): every field of every spec is read once, as the readers will."""
    from pxr import Sdf

    found: list[str] = []

    def visit(path) -> None:
        if found:
            return
        spec = layer.GetObjectAtPath(path)
        if spec is None:
            return
        for key in spec.ListInfoKeys():
            try:
                spec.GetInfo(key)
            except UnicodeDecodeError:
                found.append(f"{path} {key}: a string that is not UTF-8 text (a corrupt binary file?)")
                return

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    return found[0] if found else None


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
