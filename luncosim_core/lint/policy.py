"""Run the lint policies: Rhai rules over the facts of :mod:`luncosim_core.lint.facts`.

The policy folder (``assets/scripting/policy/``) holds ``.rhai`` files. Files whose name starts
with ``_`` are helper libraries loaded for every rule. In the other files every function named
``rule_<something>(facts)`` is a rule: it returns an array of findings
``#{ rule, severity, subject, message }`` (severity ``"error" | "warn" | "info"``). Adding a rule
is adding such a function; the rule id is the ``rule`` field, stable across releases. A rule
that fails at runtime becomes a positioned ``lint-policy-error`` diagnostic; the others still run."""

from __future__ import annotations

from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.scripting.rhai import Engine, Limits, RhaiError
from luncosim_core.scripting.values import from_script, to_script
from luncosim_core.scripting.vecmath import register_vector_helpers
from luncosim_core.twin.roots import repository_root

SEVERITIES = {"error": "error", "warn": "warning", "warning": "warning", "info": "info"}
POLICY_LIMITS = Limits(max_operations=50_000_000, max_call_depth=64)


def policy_dir() -> Path:
    return repository_root() / "assets" / "scripting" / "policy"


def _pos_diag(err: RhaiError, code: str, msg: str) -> Diagnostic:
    d = err.to_diagnostic()
    return Diagnostic("error", code, msg, layer=d.layer, line=d.line, column=d.column, source="lint")


def run_policies(facts: dict, folder: Path | None = None) -> list[Diagnostic]:
    """Every rule of every policy file, in file-name then definition order."""
    folder = folder or policy_dir()
    engine = Engine(POLICY_LIMITS)
    register_vector_helpers(engine)
    out: list[Diagnostic] = []
    files = sorted(folder.glob("*.rhai"))
    texts: dict[Path, str] = {}
    for f in files:
        try:
            texts[f] = read_text_limited(f, "policy file")
        except (OSError, UnreadableFile) as exc:  # a FIFO, a folder named *.rhai, bytes that are not text
            out.append(Diagnostic("error", "lint-policy-error", f"policy {f.name} cannot be read: {exc}",
                                  layer=str(f), line=getattr(exc, "line", None), source="lint"))
    files = [f for f in files if f in texts]
    for f in files:
        if f.name.startswith("_"):
            try:
                engine.register_global_module(texts[f], file=str(f))
            except RhaiError as err:
                out.append(_pos_diag(err, "lint-policy-error", f"policy helpers {f.name}: {err.message}"))
    script_facts = to_script(facts)
    for f in files:
        if f.name.startswith("_"):
            continue
        try:
            ast = engine.compile(texts[f], file=str(f))
        except RhaiError as err:
            out.append(_pos_diag(err, "lint-policy-error", f"policy {f.name} does not compile: {err.message}"))
            continue
        for name, arity in ast.functions():
            if not name.startswith("rule_") or arity != 1:
                continue
            try:
                found = engine.call_fn(ast, name, [script_facts])
            except RhaiError as err:
                out.append(_pos_diag(err, "lint-policy-error", f"lint rule {name} ({f.name}) failed: {err.message}"))
                continue
            out += _findings(found, name, f)
    return out


def _findings(value, rule_fn: str, file: Path) -> list[Diagnostic]:
    value = from_script(value)
    if not isinstance(value, list):
        return [Diagnostic("error", "lint-policy-invalid",
                           f"lint rule {rule_fn} ({file.name}) must return an array of findings, "
                           f"got {type(value).__name__}", layer=str(file), source="lint")]
    out = []
    for item in value:
        ok = isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("rule", "severity", "subject", "message"))
        sev = SEVERITIES.get(item.get("severity", "")) if ok else None
        if not ok or sev is None:
            out.append(Diagnostic("error", "lint-policy-invalid",
                                  f"lint rule {rule_fn} ({file.name}) returned {item!r}; a finding is "
                                  "#{rule, severity: error|warn|info, subject, message}", layer=str(file), source="lint"))
            continue
        out.append(Diagnostic(sev, item["rule"], item["message"], path=item["subject"] or None, source="lint",
                              data={"policy": file.name, "function": rule_fn}))
    return out
