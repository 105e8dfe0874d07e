"""Faults a test can name: an exception leaving the tick becomes a diagnostic with a stable code
(its kind) and the prim path of the participant that was stepping."""

from __future__ import annotations

import traceback

from luncosim_core.diagnostics import Diagnostic, DiagnosticError


class ParticipantFailed(Exception):
    """An exception that left one participant's step (``participant`` = its prim path)."""

    def __init__(self, participant: str, error: Exception) -> None:
        super().__init__(f"{participant}: {error}")
        self.participant = participant
        self.error = error


def fault_of(exc: BaseException, participant: str = "") -> Diagnostic:
    """The fault an exception leaving the tick becomes: its own diagnostic's stable code (e.g.
    ``modelica.step.diverged``) when it carries one, else ``runtime-exception``; the path is the
    diagnostic's own, else the participant that was stepping."""
    data = {"traceback": "".join(traceback.format_exception(exc))}
    if participant:
        data["participant"] = participant
    if isinstance(exc, DiagnosticError) and exc.diagnostics:
        d = next((d for d in exc.diagnostics if d.is_error), exc.diagnostics[0])
        path = d.path if d.path.startswith("/") or not participant else \
            f"{participant}.{d.path}" if d.path else participant  # a model variable -> prim.variable
        message = d.message if not participant or participant in d.message else f"{participant}: {d.message}"
        return Diagnostic("error", d.code, message, path=path, layer=d.layer, line=d.line, column=d.column,
                          source=d.source or "runtime", data={**d.data, **data})
    where = f"{participant}: " if participant else ""
    return Diagnostic("error", "runtime-exception", f"{where}{type(exc).__name__}: {exc}", path=participant,
                      source="runtime", data=data)
