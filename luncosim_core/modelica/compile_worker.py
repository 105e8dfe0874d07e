"""The compile server's child process: front-end requests on stdin, results on stdout.

Started by :class:`luncosim_core.modelica.compile_server.CompileServer`. The protocol stream is a
private copy of the original stdout; file descriptor 1 is pointed at stderr so that anything the
native compiler prints cannot corrupt it. The address space is limited to
``LUNCOSIM_COMPILE_MEMORY_MB`` so runaway memory ends in an allocation failure here, not in the
machine swapping.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace


def _limit_memory() -> None:
    mb = os.environ.get("LUNCOSIM_COMPILE_MEMORY_MB")
    if not mb:
        return
    try:
        import resource

        limit = int(mb) * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass


_OOM_HINTS = ("failed to map segment", "cannot allocate memory", "bad_alloc", "out of memory")


def _out_of_memory(exc: BaseException) -> bool:
    """An error that is the memory limit speaking (a library that could not even be loaded)."""
    text = str(exc).lower()
    return any(h in text for h in _OOM_HINTS)


def main() -> int:
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    proto_in = sys.stdin.buffer
    _limit_memory()
    from luncosim_core.modelica.compile_server import read_message, write_message
    from luncosim_core.modelica.frontend import FrontResult, SessionCache, error, front_end
    from luncosim_core.modelica.input_defaults import LibraryOverlay

    sessions = SessionCache()
    overlay = LibraryOverlay()
    try:
        while True:
            request = read_message(proto_in)
            if request is None:
                return 0
            layer = str(request.get("layer", "<source>"))
            try:
                result = front_end(request["source_text"], request.get("model_name"), layer, request.get("path"),
                                   tuple(request.get("roots", ())), sessions=sessions, overlay=overlay)
                if request.get("diagnostics_only"):  # an editor's live check: keep the DAE here
                    result = replace(result, dae=None, meta={})
            except Exception as exc:  # noqa: BLE001 - report, keep serving
                if not isinstance(exc, MemoryError) and not _out_of_memory(exc):
                    result = FrontResult(False, diagnostics=(error(
                        "modelica.compile", f"the Modelica front end failed: {type(exc).__name__}: {exc}", layer),))
                    write_message(proto_out, result)
                    continue
                sessions = SessionCache()
                result = FrontResult(False, diagnostics=(error(
                    "modelica.compiler_memory", "the Modelica compiler ran out of memory on this model "
                    f"(limit {os.environ.get('LUNCOSIM_COMPILE_MEMORY_MB', '?')} MB)", layer),))
            write_message(proto_out, result)
    finally:
        overlay.close()


if __name__ == "__main__":
    raise SystemExit(main())
