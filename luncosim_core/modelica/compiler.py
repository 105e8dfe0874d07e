"""Compile a Modelica model with rumoca into a :class:`CompiledModel` (pure, thread-safe).

``compile_model`` never raises on model errors: it returns ``CompiledModel(ok=False)`` carrying
diagnostics with file, line and column. On success the model's flattened DAE is translated into
CasADi and prepared for stepping (:mod:`luncosim_core.modelica.numerics`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.modelica.dae_casadi import EVENT_TABLES, DaeSystem, TranslationError, translate
from luncosim_core.modelica.interface import ModelInterface, Variable
from luncosim_core.modelica.numerics import CASADI_LOCK, Numerics, NumericsError, build_numerics

# Our model library (Workbench package + the bundled Modelica subset), always on the path.
BUNDLED_LIBRARY = Path(__file__).resolve().parents[2] / "assets" / "models"

_WITHIN = re.compile(r"^\s*within\s+([A-Za-z_][\w.]*)?\s*;", re.M)
_CLASS = re.compile(
    r"^\s*(?:(?:partial|encapsulated|final|expandable)\s+)*"
    r"(?:model|block|class|package|connector|record|function)\s+([A-Za-z_]\w*)",
    re.M,
)
_LOC = re.compile(r"\[([^\[\]]+?):(\d+):(\d+)\]")
_QUOTED = re.compile(r"'([A-Za-z_][\w.\[\]]*)'")


@dataclass(frozen=True)
class CompiledModel:
    """The result of one compile: diagnostics always, interface and numerics when ``ok``."""

    ok: bool
    diagnostics: tuple[Diagnostic, ...]
    model_name: str = ""
    source_path: Path | None = None
    source_hash: str = ""
    interface: ModelInterface = field(default_factory=ModelInterface)
    system: DaeSystem | None = field(default=None, repr=False)
    numerics: Numerics | None = field(default=None, repr=False)
    structural_parameters: frozenset[str] = frozenset()


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"", re.S)


def _blank_comments(text: str) -> str:
    """``text`` with comments and string literals blanked (offsets and newlines kept)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def guess_model_name(text: str, path: Path | None) -> str | None:
    """Qualified model name from ``within`` + the first class (or the file stem)."""
    text = _blank_comments(text)
    within = _WITHIN.search(text)
    prefix = (within.group(1) or "") if within else ""
    cls = _CLASS.search(text)
    name = cls.group(1) if cls else (path.stem if path else None)
    if name is None:
        return None
    return f"{prefix}.{name}" if prefix else name


def _package_root(path: Path) -> Path | None:
    """The directory holding the outermost package that contains ``path`` (or None)."""
    d = path.parent
    root = None
    while (d / "package.mo").is_file():
        root = d.parent
        if d.parent == d:
            break
        d = d.parent
    return root


def _error(code: str, message: str, layer: str, line: int | None = None,
           column: int | None = None, **data: object) -> Diagnostic:
    return Diagnostic("error", code, message, layer=layer, line=line, column=column,
                      source="modelica", data=dict(data))


def _class_header(text: str) -> tuple[int | None, int | None]:
    """Line and column of the first class name: where whole-model errors point."""
    cls = _CLASS.search(_blank_comments(text))
    return _line_col(text, cls.start(1)) if cls else (None, None)


def _locate_name(text: str, name: str) -> tuple[int | None, int | None]:
    """First use of ``name`` in the equation part (else anywhere) as line, column."""
    base = name.split(".")[0].split("[")[0]
    pat = re.compile(rf"(?<![\w.]){re.escape(base)}(?!\w)")
    text = _blank_comments(text)
    eq = re.search(r"^\s*equation\b", text, re.M)
    m = pat.search(text, eq.end() if eq else 0) or pat.search(text)
    if not m:
        return None, None
    return _line_col(text, m.start())


def _compile_error_diagnostics(exc: BaseException, text: str, layer: str) -> list[Diagnostic]:
    import rumoca

    diags: list[Diagnostic] = []
    try:
        found = rumoca.validate_source(text, filename=layer)
    except BaseException:  # noqa: BLE001 - the validator itself may panic
        found = []
    for d in found:
        if d.level != "error":
            continue
        for block in re.split(r"\n\s*\n(?=\S)", d.message):
            loc = _LOC.search(block)
            line, col = (int(loc.group(2)), int(loc.group(3))) if loc else (d.line, d.column)
            summary = next((ln.strip(" ×") for ln in block.splitlines() if "×" in ln), "")
            msg = summary or block.strip().splitlines()[0]
            diags.append(_error("modelica.syntax", msg, layer, line, col, rule=d.rule))
    if diags:
        return diags
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    cls = _CLASS.search(_blank_comments(text))
    kind = cls.group(0).split()[-2] if cls else ""
    if "resolve/parse failed" in message and kind in ("package", "connector", "record", "function"):
        return [_error("modelica.not_a_model",
                       f"'{cls.group(1)}' is a {kind}, not a model: nothing to simulate"
                       + (" (name a model inside it with model_name=...)" if kind == "package" else ""),
                       layer, *_line_col(text, cls.start(1)))]
    message = re.sub(r"^.*? could not be compiled(?: because)?:?\s*", "", message) or message
    line = col = None
    quoted = _QUOTED.search(message)
    if quoted:
        line, col = _locate_name(text, quoted.group(1))
    code = "modelica.compile"
    if type(exc).__name__ == "PanicException":
        code = "modelica.compiler_crash"
        message = f"the Modelica compiler (rumoca) crashed on this model: {message}"
    elif "unbalanced" in message:
        code = "modelica.unbalanced"
    elif "unresolved" in message:
        code = "modelica.unresolved"
    if line is None and code == "modelica.unbalanced":
        line, col = _class_header(text)
    return [_error(code, message, layer, line, col)]


def _variables(system: DaeSystem, meta: dict[str, object], starts: dict[str, float],
               pick: object) -> tuple[Variable, ...]:
    """Scalar interface variables for the DAE variables ``pick`` selects, in declaration order."""
    out: list[Variable] = []
    for dv in system.variables:
        if not pick(dv):  # type: ignore[operator]
            continue
        info = meta.get(dv.name)
        unit = getattr(info, "unit", None) or None
        lo, hi = getattr(info, "min", None), getattr(info, "max", None)
        desc = getattr(info, "description", None) or None
        for n in dv.scalar_names:
            if n in starts:  # String parameters have no numeric slot and are left out
                out.append(Variable(n, unit, lo, hi, desc, starts[n]))
    return tuple(out)


def compile_model(
    source_path: Path | str | None = None,
    source_text: str | None = None,
    model_name: str | None = None,
    library_roots: list[Path] | tuple[Path, ...] | None = None,
) -> CompiledModel:
    """Compile one model. Pure: no shared state, safe to call from a worker thread.

    ``source_text`` (an editor buffer) wins over the file's content; ``source_path`` still names
    the file for diagnostics and locates its enclosing package. ``library_roots`` are extra
    directories holding top-level packages; the bundled library (``assets/models``) is always
    searched.
    """
    import rumoca

    path = Path(source_path).resolve() if source_path is not None else None
    layer = str(path) if path else "<source>"
    if source_text is None:
        if path is None:
            return CompiledModel(False, (_error("modelica.source", "no source_path or source_text given", layer),))
        try:
            source_text = path.read_text(encoding="utf-8")
        except OSError as exc:
            return CompiledModel(False, (_error("modelica.source", f"cannot read model file: {exc}", layer),), source_path=path)
    digest = hashlib.sha256(source_text.encode()).hexdigest()
    name = model_name or guess_model_name(source_text, path)
    roots: list[str] = []
    for r in [*(library_roots or []), BUNDLED_LIBRARY]:
        rs = str(Path(r).resolve())
        if rs not in roots and Path(rs).is_dir():
            roots.append(rs)
    if path is not None:
        pkg_root = _package_root(path)
        if pkg_root is not None and str(pkg_root) not in roots:
            roots.insert(0, str(pkg_root))
    base = dict(model_name=name or "", source_path=path, source_hash=digest)
    try:
        try:
            model = rumoca.Session(roots=roots).loads(source_text, model=name, filename=layer)
        except rumoca.RumocaError as exc:
            # rumoca also scans the file's folder; a stale copy of the same class there is a
            # "Duplicate class" clash, so compile the buffer alone (no sibling scan) instead.
            if path is None or "Duplicate class" not in str(exc):
                raise
            model = rumoca.Session(roots=roots).loads(source_text, model=name, filename=path.name)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - rumoca panics surface as BaseException
        return CompiledModel(False, tuple(_compile_error_diagnostics(exc, source_text, layer)), **base)
    base["model_name"] = model.name or base["model_name"]
    try:
        dae = model.to_dict("dae")
    except BaseException as exc:  # noqa: BLE001
        return CompiledModel(False, (_error("modelica.compile", f"DAE export failed: {exc}", layer),), **base)
    storage = dae.get("storage", {})
    diags: list[Diagnostic] = []
    files = {f[0]: f[2] for f in dae.get("source_map", {}).get("files", [])}
    files_name = {f[0]: f[1] for f in dae.get("source_map", {}).get("files", [])}

    def at(prov: object) -> tuple[str, int | None, int | None]:
        span = prov.get("span") if isinstance(prov, dict) else None
        if isinstance(span, dict) and span.get("source") in files:
            line, col = _line_col(files[span["source"]], int(span.get("start", 0)))
            name = files_name[span["source"]]
            return (layer if path is not None and name == path.name else name), line, col
        return layer, None, None

    for table, what in EVENT_TABLES.items():
        entries = storage.get(table) or []
        if entries:
            file, line, col = at(entries[0].get("provenance") if isinstance(entries[0], dict) else None)
            diags.append(_error(
                "modelica.unsupported.events",
                f"{what} is not supported by the stepper (run the model as an FMU)",
                file, line, col, table=table))
    if diags:
        return CompiledModel(False, tuple(diags), **base)
    with CASADI_LOCK:
        return _finish(model, dae, storage, files, at, layer, base, _class_header(source_text))


def _finish(model: object, dae: dict, storage: dict, files: dict, at: object, layer: str,
            base: dict, header: tuple[int | None, int | None] = (None, None)) -> CompiledModel:
    """DAE -> CasADi -> numerics -> interface (holds the CasADi lock)."""
    try:
        system = translate(dae)
    except TranslationError as exc:
        file, line, col = layer, None, None
        if exc.span is not None and exc.source in files:
            file, line, col = at({"span": {"source": exc.source, "start": exc.span[0]}})
        return CompiledModel(False, (_error(exc.code, str(exc), file, line, col),), **base)
    except Exception as exc:  # noqa: BLE001 - an IR shape this translator does not know
        return CompiledModel(False, (_error("modelica.unsupported", f"cannot translate the DAE: {exc!r}", layer),), **base)
    try:
        numerics = build_numerics(system)
        starts = numerics.default_starts()
    except NumericsError as exc:
        return CompiledModel(False, (_error(exc.code, str(exc), layer, *header),), **base)
    except Exception as exc:  # noqa: BLE001 - CasADi reports symbolic failures as RuntimeError
        return CompiledModel(False, (_error("modelica.numerics", f"cannot prepare the model for "
                                            f"stepping: {exc}", layer),), **base)
    meta: dict[str, object] = {}
    for group in (model.algebraics, model.parameters, model.states, model.outputs, model.inputs):
        for v in group:
            meta[v.name] = v
    structural = frozenset(p.name for p in model.parameters if getattr(p, "kind", "") == "structural")

    def causality(dv: object) -> str:
        return str(dv.attrs.get("causality", ""))  # type: ignore[attr-defined]

    interface = ModelInterface(
        inputs=_variables(system, meta, starts, lambda dv: dv.role == "input"),
        outputs=_variables(system, meta, starts, lambda dv: causality(dv) == "output"),
        parameters=_variables(system, meta, starts, lambda dv: dv.role in ("parameter", "constant")),
        states=_variables(system, meta, starts, lambda dv: dv.role == "state"),
    )
    return CompiledModel(True, (), interface=interface, system=system,
                         numerics=numerics, structural_parameters=structural, **base)
