"""USD lint as policy: Python extracts facts from the composed stage, Rhai rules judge them.

``run_lint(stage, roots=None, host=None)`` returns one :class:`Diagnostic` per finding: ``code`` is
the stable rule id (``nested-body-no-joint``, ``broken-wire``, ...), ``path`` the prim to open,
``source`` "lint". ``lint_report(diags)`` is the ``LintReport`` shape scripts receive:
``#{ findings: [#{rule, severity, subject, message}], errors, warnings, infos }``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from luncosim_core.api.host import Host
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.lint.facts import extract_facts
from luncosim_core.lint.policy import policy_dir, run_policies
from luncosim_core.lint.programs import program_diagnostics

__all__ = ["extract_facts", "lint_report", "policy_dir", "program_diagnostics", "run_lint", "validate_lint"]

_SHORT = {"error": "error", "warning": "warn", "info": "info"}


def run_lint(stage, *, roots=None, host: Host | None = None, policies: Path | None = None,
             programs: bool = False) -> list[Diagnostic]:
    """Lint a composed stage. With a running simulation's ``host``, wires are judged against its
    live ports; without one, ``roots`` lets wires to undeclared model outputs be checked against
    the compiled models. ``programs``: also read and compile every program prim's source as the
    runtime would (:mod:`luncosim_core.lint.programs`; what ``luncosim validate`` does)."""
    from luncosim_core.physics.sanity import screen_stage

    screened = [replace(d, source="lint") for d in screen_stage(stage).diagnostics]  # the projection's refusals
    again = {(d.code, d.path) for d in screened}
    out = [d for d in run_policies(extract_facts(stage, host, roots), policies)
           if (d.code, d.path) not in again] + screened
    if programs:
        out += program_diagnostics(stage, roots)
    return out


def validate_lint(stage, *, roots=None) -> list[Diagnostic]:
    """``luncosim validate``'s lint: the policies, the physics screen and every program's source
    read and compiled (a Modelica compile goes through the crash-safe compile server)."""
    return run_lint(stage, roots=roots, programs=True)


def lint_report(diags: list[Diagnostic]) -> dict:
    findings = [{"rule": d.code, "severity": _SHORT.get(d.severity, d.severity), "subject": d.path or "",
                 "message": d.message} for d in diags]
    return {
        "findings": findings,
        "errors": sum(d.severity == "error" for d in diags),
        "warnings": sum(d.severity == "warning" for d in diags),
        "infos": sum(d.severity == "info" for d in diags),
    }
