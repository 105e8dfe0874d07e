"""The output names of a program prim's compiled model, for checks made without a runtime.

``luncosim validate`` judges a wire that reads an undeclared model output (an implicit public
output) without running the scene: it needs the model's outputs. For a Modelica program that is
the rumoca front end's interface (through the compile server, no CasADi translation); for an FMU,
its model description. Results are cached by source file and content, so a library model shared
by many scenes is compiled once per process.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from luncosim_core.usd.programs import program_language, program_source

_CACHE: dict[tuple, frozenset[str] | None] = {}
_LOCK = threading.Lock()


def model_outputs(prim, roots) -> frozenset[str] | None:
    """Output names of the prim's compiled model; None when they cannot be known (no source, the
    model does not compile, not a model program)."""
    language = program_language(prim)
    if language not in ("modelica", "fmu"):
        return None
    path, text = program_source(prim, roots)
    if path is None and text is None:
        return None
    lib = (str(Path(roots.lunco_root) / "models"),) if roots is not None and getattr(roots, "lunco_root", None) else ()
    if language == "fmu":
        return _fmu_outputs(path) if path is not None else None
    if text is None:
        from luncosim_core.fsutil import UnreadableFile, read_text_limited

        try:
            text = read_text_limited(path, "Modelica source")
        except (OSError, UnreadableFile):
            return None  # unknown outputs; validate and the runtime say why the source is unreadable
    key = (str(path), hashlib.sha256(text.encode()).hexdigest(), lib)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    outs = _modelica_outputs(path, text, lib)
    with _LOCK:
        _CACHE[key] = outs
        if len(_CACHE) > 512:
            _CACHE.pop(next(iter(_CACHE)))
    return outs


def _modelica_outputs(path: Path | None, text: str, lib: tuple[str, ...]) -> frozenset[str] | None:
    from luncosim_core.modelica.compile_server import run_front_end
    from luncosim_core.modelica.compiler import BUNDLED_LIBRARY, _package_root
    from luncosim_core.modelica.source_text import guess_model_name

    roots: list[str] = []
    for r in [*lib, str(BUNDLED_LIBRARY)]:
        rs = str(Path(r).resolve())
        if rs not in roots and Path(rs).is_dir():
            roots.append(rs)
    if path is not None:
        pkg = _package_root(path.resolve())
        if pkg is not None and str(pkg) not in roots:
            roots.insert(0, str(pkg))
    layer = str(path.resolve()) if path is not None else "<source>"
    front = run_front_end(text, guess_model_name(text, path), layer, layer if path else None, tuple(roots))
    return front.output_names() if front.ok else None


def _fmu_outputs(path: Path) -> frozenset[str] | None:
    try:
        from fmpy import read_model_description

        md = read_model_description(str(path))
    except Exception:  # noqa: BLE001 - an unreadable FMU is reported when it runs
        return None
    return frozenset(v.name for v in md.modelVariables if v.causality == "output")
