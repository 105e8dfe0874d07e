"""The one diagnostic record every subsystem reports with.

A diagnostic names *what* (a stable ``code``), *where* (prim ``path``, ``layer`` or file, with
optional ``line``/``column``) and says what went wrong in ``message``. Severity is one of
``error``, ``warning``, ``info``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: severity, stable code, location and a human message."""

    severity: Severity
    code: str
    message: str
    path: str = ""  # prim path (or property path) the finding is about
    layer: str = ""  # layer identifier or file the finding is located in
    line: int | None = None
    column: int | None = None
    source: str = ""  # subsystem label: usd, twin, physics, ports, modelica, rhai, lint, runtime
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def location(self) -> str:
        """``file:line:col`` or prim path, whichever is known."""
        where = self.layer or ""
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        if self.path:
            where = f"{where} {self.path}".strip()
        return where

    def __str__(self) -> str:
        loc = self.location()
        return f"[{self.severity}] {self.code}: {self.message}" + (f" ({loc})" if loc else "")

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape: severity, code, path, layer, message (+ line/column if known)."""
        out = {
            "severity": self.severity,
            "code": self.code,
            "path": self.path,
            "layer": self.layer,
            "message": self.message,
        }
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        return out

class DiagnosticError(Exception):
    """An operation failed; ``diagnostics`` says what and where."""

    def __init__(self, diagnostics: Diagnostic | list[Diagnostic]):
        self.diagnostics = [diagnostics] if isinstance(diagnostics, Diagnostic) else list(diagnostics)
        super().__init__("; ".join(str(d) for d in self.diagnostics))
