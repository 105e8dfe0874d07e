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

from pxr import Sdf

from luncosim_core.usd.programs import program_language

_CACHE: dict[tuple, frozenset[str] | None] = {}
_LOCK = threading.Lock()


def _asset_text(attr) -> str:
    value = attr.Get()
    return value.path if isinstance(value, Sdf.AssetPath) else str(value or "")


def _anchor_of(attr) -> str | None:
    for spec in attr.GetPropertyStack():
        if spec.layer.realPath:
            return spec.layer.realPath
    return None


def program_source(prim, roots) -> tuple[Path | None, str | None]:
    """``(file, inline text)`` of a program prim's source; ``(None, None)`` when unresolvable."""
    asset = prim.GetAttribute("info:sourceAsset")
    if asset and asset.HasAuthoredValue():
        authored = _asset_text(asset)
        anchor = _anchor_of(asset)
        if roots is not None:
            check = roots.resolve_file(authored, anchor)
            path = check.path if check.diagnostic is None else None
        else:
            path = Path(authored)
            if not path.is_absolute() and anchor:
                path = Path(anchor).parent / authored
        return (path if path is not None and path.is_file() else None), None
    code = prim.GetAttribute("info:sourceCode")
    if code and code.HasAuthoredValue():
        return None, str(code.Get())
    return None, None


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
