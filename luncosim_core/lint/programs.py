"""Program sources, loaded as ``luncosim run`` loads them: what ``luncosim validate`` adds to lint.

Every program prim's source is read and compiled the way the runtime does it, so a program that
cannot load is an error before anything runs, positioned at its file, line and column and naming
its prim:

- **Modelica** (a ``.mo`` asset or inline ``info:sourceCode``): the source is read (a regular
  UTF-8 file under the size cap, :func:`luncosim_core.fsutil.read_text_limited`), then compiled by
  :func:`luncosim_core.modelica.compile_model`, the runtime's compile, whose front end runs in the
  compile server's child process: a syntax error, an unresolved name, an unbalanced model, an
  unsupported event, and also a compiler crash (8,000 nested brackets), a timeout or a memory
  blow-up, contained in the child, are errors. Results are cached by source hash and library
  fingerprint (and the child keeps each library parsed), so a model several prims or scenes share
  compiles once per process.
- **Members of a component network** compile inside the network's generated model at run time;
  on their own only what fails in any context is reported (:data:`MEMBER_CODES`: an unreadable
  source, a syntax error, a compiler crash).
- **Rhai scenarios** (a ``.rhai`` asset or inline code): read as the scenario runtime reads them
  and compiled (syntax; names resolve when the scenario runs).
- **FMUs**: only the file check (asset resolution refuses a folder, a FIFO or a device).

A source asset that does not resolve (missing, outside the roots, not a regular file) is reported
by ``validate``'s asset check (``asset-*`` on ``prim.info:sourceAsset``), not again here.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic

#: codes a network member reports on its own (the rest depend on the network it compiles in)
MEMBER_CODES = frozenset({"modelica.source", "modelica.syntax", "modelica.compiler_crash",
                          "modelica.compiler_timeout", "modelica.compiler_memory"})

_CACHE: dict[tuple, tuple[Diagnostic, ...]] = {}
_CACHE_SIZE = 256
_LOCK = threading.Lock()


def program_diagnostics(stage, roots) -> list[Diagnostic]:
    """Diagnostics of loading every program prim of ``stage`` (see the module doc)."""
    from luncosim_core.scripting.scenario import is_rhai_program
    from luncosim_core.usd.networks import member_networks
    from luncosim_core.usd.programs import program_language, program_prims

    members = member_networks(stage)
    engine = None
    out: list[Diagnostic] = []
    for prim in program_prims(stage):
        path = str(prim.GetPath())
        language = program_language(prim)
        if language == "modelica":
            found = _modelica(prim, roots)
            if path in members:
                found = [d for d in found if d.code in MEMBER_CODES]
            out += found
        elif language != "fmu" and is_rhai_program(prim):
            if engine is None:
                from luncosim_core.scripting.rhai import Engine
                from luncosim_core.scripting.runtime import DEFAULT_LIMITS

                engine = Engine(DEFAULT_LIMITS)
            out += _rhai(prim, roots, engine)
    return out


# ------------------------------------------------------------------------------ Modelica
def _modelica(prim, roots) -> list[Diagnostic]:
    from luncosim_core.fsutil import UnreadableFile, read_text_limited
    from luncosim_core.usd.programs import program_source

    where = str(prim.GetPath())
    file, text = program_source(prim, roots)
    if file is None and text is None:
        return []  # no source, or an asset that does not resolve: the asset check says why
    label = str(file) if file is not None else f"{where}.info:sourceCode"
    if text is None:
        try:
            text = read_text_limited(file, "Modelica source")
        except (OSError, UnreadableFile) as exc:
            message = str(exc) if isinstance(exc, UnreadableFile) else f"cannot read {file}: {exc.strerror or exc}"
            return [Diagnostic("error", "modelica.source", message, path=where, layer=label,
                               line=getattr(exc, "line", None), source="modelica")]
    lib = (Path(roots.lunco_root) / "models",) if roots is not None and getattr(roots, "lunco_root", None) else ()
    return [Diagnostic(d.severity, d.code, d.message, path=where,
                       layer=label if not d.layer or d.layer == "<source>" else d.layer,
                       line=d.line, column=d.column, source="modelica", data=d.data)
            for d in _compile(file, text, lib) if d.severity != "info"]


def _compile(file: Path | None, text: str, lib: tuple[Path, ...]) -> tuple[Diagnostic, ...]:
    """The diagnostics of compiling ``text`` as the runtime does, cached (see the module doc)."""
    from luncosim_core.modelica.compiler import BUNDLED_LIBRARY, compile_model
    from luncosim_core.modelica.frontend import library_fingerprint

    folders = tuple(str(p) for p in (*lib, BUNDLED_LIBRARY) if Path(p).is_dir())
    key = (str(file), hashlib.sha256(text.encode()).hexdigest(), tuple(map(str, lib)), library_fingerprint(folders))
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    try:
        compiled = compile_model(source_path=file, source_text=text, library_roots=list(lib))
        found = tuple(compiled.diagnostics)
    except Exception as exc:  # noqa: BLE001 - validate reports, never a traceback
        found = (Diagnostic("error", "modelica.compile", f"the model could not be compiled: {type(exc).__name__}: "
                            f"{exc}", layer=str(file) if file else "", source="modelica"),)
    with _LOCK:
        _CACHE[key] = found
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
    return found


# ------------------------------------------------------------------------------ Rhai
def _rhai(prim, roots, engine) -> list[Diagnostic]:
    from luncosim_core.scripting.compile import compile_scenario
    from luncosim_core.scripting.rhai import RhaiError
    from luncosim_core.scripting.scenario import scenario_params, scenario_source

    where = str(prim.GetPath())
    source, file, _path, diags = scenario_source(prim, roots)
    out = [d for d in diags if not d.code.startswith("asset-")]  # the asset check reports those
    if source is None:
        return out
    params, _ = scenario_params(prim)
    try:
        compile_scenario(engine, source, file, {"params": params})
    except RhaiError as err:
        d = err.to_diagnostic()
        out.append(Diagnostic("error", d.code, f"scenario does not compile: {err.message}", path=where,
                              layer=d.layer or file, line=d.line, column=d.column, source="scenario"))
    return out
