"""Language services over text documents (Modelica, Rhai): diagnostics, completion vocabulary and
definitions, shared by the source editor and ``luncosim check``. Above ``modelica`` and
``scripting`` (it uses both), beside ``lint``."""

from __future__ import annotations

from pathlib import Path

from luncosim_core.diagnostics import Diagnostic


def check_source(path: str | Path, text: str, roots=None, contracts=None) -> list[Diagnostic]:
    """Diagnostics of ``text`` as the source of ``path`` (by suffix: ``.mo``, ``.rhai``).
    ``contracts`` (:func:`luncosim_core.language.contracts.program_contracts` of the open scene)
    adds the interface check of a model against the program prims that use its file."""
    suffix = Path(path).suffix
    if suffix == ".mo":
        from luncosim_core.language.modelica import check_modelica

        found = check_modelica(text, str(path), roots)
        if contracts:
            from luncosim_core.language.contracts import check_contracts

            found += check_contracts(text, path, roots, contracts)
        return found
    if suffix == ".rhai":
        from luncosim_core.language.rhai import check_rhai

        return check_rhai(text, str(path), roots)
    return []


__all__ = ["check_source"]
