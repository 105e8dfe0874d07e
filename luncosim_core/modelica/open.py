"""Open a participant from a ``.mo`` file, an ``.fmu`` archive or a :class:`CompiledModel`."""

from __future__ import annotations

from pathlib import Path

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.modelica.compiler import CompiledModel, compile_model
from luncosim_core.modelica.fmu import FmuParticipant
from luncosim_core.modelica.participant import ModelicaParticipant


def open_participant(
    source: Path | str | CompiledModel,
    period: float = 1 / 60,
    *,
    model_name: str | None = None,
    library_roots: list[Path] | None = None,
) -> ModelicaParticipant | FmuParticipant:
    """A stepping participant for ``source``; raises :class:`DiagnosticError` if it cannot run."""
    if isinstance(source, CompiledModel):
        return ModelicaParticipant(source, period)
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix == ".fmu":
        return FmuParticipant(path, period)
    if suffix == ".mo":
        cm = compile_model(path, model_name=model_name, library_roots=library_roots)
        return ModelicaParticipant(cm, period)
    raise DiagnosticError(Diagnostic(
        "error", "modelica.source", f"cannot open '{path.name}': expected a .mo or .fmu file",
        layer=str(path), source="modelica"))
