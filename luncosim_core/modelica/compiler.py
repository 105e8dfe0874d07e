"""Compile a Modelica model with rumoca into a :class:`CompiledModel` (pure, thread-safe).

``compile_model`` never raises on model errors: it returns ``CompiledModel(ok=False)`` carrying
diagnostics with file, line and column. On success the model's flattened DAE is translated into
CasADi and prepared for stepping (:mod:`luncosim_core.modelica.numerics`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.modelica.compile_server import run_front_end
from luncosim_core.modelica.dae_casadi import EVENT_TABLES, DaeSystem, TranslationError, translate
from luncosim_core.modelica.frontend import FrontResult
from luncosim_core.modelica.frontend import error as _error
from luncosim_core.modelica.index_reduction import reduce_index
from luncosim_core.modelica.interface import ModelInterface, Variable
from luncosim_core.modelica.numerics import CASADI_LOCK, Numerics, NumericsError, build_numerics
from luncosim_core.modelica.source_text import class_header, guess_model_name, line_col
from luncosim_core.modelica.syntax.resolve import package_root

# Our model library (Workbench package + the bundled Modelica subset), always on the path.
BUNDLED_LIBRARY = Path(__file__).resolve().parents[2] / "assets" / "models"


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


#: the directory holding the outermost package that contains a file (or None)
_package_root = package_root


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


def _read_model_file(path: Path, layer: str) -> tuple[str | None, Diagnostic | None]:
    """The text of a model file, or why it cannot be read: only a regular file under the size cap
    (a FIFO would block, a folder is no file), as UTF-8 text (else the byte, offset and line)."""
    try:
        return read_text_limited(path, "model file"), None
    except UnreadableFile as exc:
        return None, _error("modelica.source", str(exc), layer, exc.line)
    except OSError as exc:
        return None, _error("modelica.source", f"cannot read model file: {exc}", layer)


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
    path = Path(source_path).resolve() if source_path is not None else None
    layer = str(path) if path else "<source>"
    if source_text is None:
        if path is None:
            return CompiledModel(False, (_error("modelica.source", "no source_path or source_text given", layer),))
        source_text, problem = _read_model_file(path, layer)
        if problem is not None:
            return CompiledModel(False, (problem,), source_path=path)
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
    # rumoca runs in the compile server's child process: a crash there is a diagnostic here
    front = run_front_end(source_text, name, layer, str(path) if path else None, tuple(roots))
    if not front.ok:
        return CompiledModel(False, tuple(front.diagnostics), **base)
    base["model_name"] = front.model_name or base["model_name"]
    dae = front.dae
    storage = dae.get("storage", {})
    diags: list[Diagnostic] = []
    files = {f[0]: f[2] for f in dae.get("source_map", {}).get("files", [])}
    files_name = {f[0]: f[1] for f in dae.get("source_map", {}).get("files", [])}

    def at(prov: object) -> tuple[str, int | None, int | None]:
        span = prov.get("span") if isinstance(prov, dict) else None
        if isinstance(span, dict) and span.get("source") in files:
            line, col = line_col(files[span["source"]], int(span.get("start", 0)))
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
    notes = list(front.diagnostics)  # e.g. dropped input defaults
    with CASADI_LOCK:
        result = _finish(front, dae, storage, files, at, layer, base, class_header(source_text))
    if notes and result.ok:
        result = replace(result, diagnostics=result.diagnostics + tuple(notes))
    return result


def _finish(front: FrontResult, dae: dict, storage: dict, files: dict, at: object, layer: str,
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
    system, reductions = reduce_index(system)  # simple high-index DAEs -> index 1 (dummy derivatives)
    switched = _switch_reading_a_derivative(system)
    if switched is not None:
        source, span = switched
        file, line, col = layer, None, None
        if span is not None and source in files:
            file, line, col = at({"span": {"source": source, "start": span[0]}})
        return CompiledModel(False, (_error(
            "modelica.unsupported.der-in-switch", "a relation or a min/max/abs/sign switch reads der(...): "
            "not supported yet; compare the expression der(x) equals instead", file, line, col),), **base)
    try:
        numerics = build_numerics(system)
        starts = numerics.default_starts()
    except NumericsError as exc:
        return CompiledModel(False, (_error(exc.code, str(exc), layer, *header),), **base)
    except Exception as exc:  # noqa: BLE001 - CasADi reports symbolic failures as RuntimeError
        return CompiledModel(False, (_error("modelica.numerics", f"cannot prepare the model for "
                                            f"stepping: {exc}", layer),), **base)
    meta: dict[str, object] = dict(front.meta)
    structural = front.structural

    def causality(dv: object) -> str:
        return str(dv.attrs.get("causality", ""))  # type: ignore[attr-defined]

    interface = ModelInterface(
        inputs=_variables(system, meta, starts, lambda dv: dv.role == "input"),
        outputs=_variables(system, meta, starts, lambda dv: causality(dv) == "output"),
        parameters=_variables(system, meta, starts, lambda dv: dv.role in ("parameter", "constant")),
        states=_variables(system, meta, starts, lambda dv: dv.role == "state"),
    )
    notes = tuple(Diagnostic("info", "modelica.index-reduced",
                             f"high-index DAE: the hidden constraint {r.constraint} = 0 was differentiated and "
                             f"'{r.state}' became a dummy-derivative algebraic variable", layer=layer,
                             source="modelica", data={"state": r.state}) for r in reductions)
    return CompiledModel(True, notes, interface=interface, system=system,
                         numerics=numerics, structural_parameters=structural, **base)


def _switch_reading_a_derivative(system) -> tuple | None:
    """The (source, span) of the first relation or kink whose expression reads a derivative (the
    event machinery evaluates them from states, inputs and algebraics only), else None."""
    import casadi as ca

    if not system.xdot.numel():
        return None
    for r in system.relations:
        if ca.depends_on(r.literal, system.xdot) or ca.depends_on(r.crossing, system.xdot):
            return r.span
    for k in system.kinks:
        if ca.depends_on(k.a, system.xdot) or ca.depends_on(k.b, system.xdot):
            return k.span
    return None
