"""What the editor runs on a buffer, in two passes.

:func:`analyze` is the fast pass, after every pause of the debounce: the text is parsed ONCE and
that tree gives the diagnostics, the outline and (Rhai) the script's function names. For Rhai
that is the whole check (our parser and compiler, the host API, the scenario contract). For
Modelica it is our own syntax layer (:mod:`luncosim_core.modelica.syntax`): its parser's
structural errors, a token check of the equation sections (an operator with nothing after it,
two operands in a row) and the interface contract against the program prims using the file.

:func:`full_check` is the slow pass, run when typing pauses: for Modelica the rumoca front end
through the compile server (unresolved names, unbalanced models, its own syntax check) plus the
contract; None for Rhai (nothing slower to run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic


@dataclass
class Analysis:
    diagnostics: list[Diagnostic]
    outline: list | None  # None: the text does not parse (keep the previous outline)
    functions: tuple[str, ...] = field(default=())  # a script's own functions (Rhai completion)


def analyze(path: str | Path, text: str, roots=None, contracts=None) -> Analysis:
    suffix = Path(path).suffix
    if suffix == ".rhai":
        return _rhai(str(path), text, roots)
    if suffix == ".mo":
        return _modelica(path, text, roots, contracts)
    return Analysis([], [])


def full_check(path: str | Path, text: str, roots=None, contracts=None) -> list[Diagnostic] | None:
    if Path(path).suffix != ".mo":
        return None
    from luncosim_core.language import check_source

    return check_source(path, text, roots, contracts)


def _rhai(file: str, text: str, roots) -> Analysis:
    from luncosim_core.language.outline import rhai_outline
    from luncosim_core.language.rhai import check_rhai, parse_rhai
    from luncosim_core.scripting.rhai.errors import RhaiError

    try:
        script = parse_rhai(text, file)
    except RhaiError as err:
        return Analysis([err.to_diagnostic()], None)
    symbols = rhai_outline(text, script)  # read before the compile rewrites the functions
    names = tuple(dict.fromkeys(f.name for f in script.fns))
    return Analysis(check_rhai(text, file, roots, script=script), symbols, names)


def _modelica(path, text: str, roots, contracts) -> Analysis:
    from luncosim_core.language.modelica import quick_modelica
    from luncosim_core.language.outline import modelica_outline

    diags, sd, tokens = quick_modelica(text, str(path))
    symbols = modelica_outline(text, sd, tokens) if sd is not None else None
    if sd is not None and contracts:
        from luncosim_core.language.contracts import check_contracts

        diags += check_contracts(text, path, roots, contracts, sd=sd)
    return Analysis(diags, symbols)
