"""The rumoca front end: Modelica text -> flattened DAE dict, interface metadata, diagnostics.

This is the part of a compile that runs native code (rumoca's Rust parser and flattener), so it
is written to run either in this process or in the compile server's child process
(:mod:`luncosim_core.modelica.compile_server`), where a crash, a stack overflow or runaway memory
costs one diagnostic instead of the program. Everything it returns is plain data (picklable):
no rumoca objects cross the process boundary. It imports neither CasADi nor numpy.

Before giving up on a model rumoca calls unbalanced with more equations than unknowns, the front
end drops the default bindings of sub-component inputs that the enclosing class also sets by an
equation (:mod:`luncosim_core.modelica.input_defaults`), as Modelica's modification semantics
require, and compiles again.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.modelica.input_defaults import LibraryOverlay, drop_overridden_input_defaults
from luncosim_core.modelica.source_text import CLASS_RE, blank_comments, class_header, line_col

_LOC = re.compile(r"\[([^\[\]]+?):(\d+):(\d+)\]")
_QUOTED = re.compile(r"'([A-Za-z_][\w.\[\]]*)'")
_UNBALANCED = re.compile(r"unbalanced model: (\d+) equations, (\d+) unknowns")


@dataclass(frozen=True)
class VarMeta:
    """Interface metadata of one model variable, as rumoca reports it."""

    unit: str | None = None
    min: float | None = None
    max: float | None = None
    description: str | None = None


@dataclass(frozen=True)
class FrontResult:
    """One front-end run: the DAE dict and metadata when ``ok``, diagnostics always."""

    ok: bool
    model_name: str = ""
    dae: dict | None = field(default=None, repr=False)
    meta: dict[str, VarMeta] = field(default_factory=dict, repr=False)
    structural: frozenset[str] = frozenset()
    diagnostics: tuple[Diagnostic, ...] = ()

    def output_names(self) -> frozenset[str]:
        """Names of the model's outputs (array variables by their declared name), empty when not ok."""
        if not self.ok or not self.dae:
            return frozenset()
        names = set()
        for var in (self.dae.get("storage", {}).get("variables") or []):
            attrs = var.get("attributes") or {}
            if isinstance(attrs, dict) and str(attrs.get("causality", "")) == "output":
                names.add(str(var.get("name")))
        return frozenset(names)


def error(code: str, message: str, layer: str, line: int | None = None,
          column: int | None = None, **data: object) -> Diagnostic:
    return Diagnostic("error", code, message, layer=layer, line=line, column=column,
                      source="modelica", data=dict(data))


def _locate_name(text: str, name: str) -> tuple[int | None, int | None]:
    """First use of ``name`` in the equation part (else anywhere) as line, column."""
    base = name.split(".")[0].split("[")[0]
    pat = re.compile(rf"(?<![\w.]){re.escape(base)}(?!\w)")
    text = blank_comments(text)
    eq = re.search(r"^\s*equation\b", text, re.M)
    m = pat.search(text, eq.end() if eq else 0) or pat.search(text)
    if not m:
        return None, None
    return line_col(text, m.start())


def compile_error_diagnostics(exc: BaseException, text: str, layer: str) -> list[Diagnostic]:
    """Positioned diagnostics for a failed rumoca compile (syntax errors located by the validator)."""
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
            diags.append(error("modelica.syntax", msg, layer, line, col, rule=d.rule))
    if diags:
        return diags
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    cls = CLASS_RE.search(blank_comments(text))
    kind = cls.group(0).split()[-2] if cls else ""
    if "resolve/parse failed" in message and kind in ("package", "connector", "record", "function"):
        return [error("modelica.not_a_model",
                      f"'{cls.group(1)}' is a {kind}, not a model: nothing to simulate"
                      + (" (name a model inside it with model_name=...)" if kind == "package" else ""),
                      layer, *line_col(text, cls.start(1)))]
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
        line, col = class_header(text)
    return [error(code, message, layer, line, col)]


# -- sessions ---------------------------------------------------------------------------------
def library_fingerprint(roots: tuple[str, ...]) -> tuple:
    """(path, mtime, size) of every ``.mo`` under ``roots``: a cached session is reused only while
    its library is unchanged."""
    out = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".mo"):
                    p = os.path.join(dirpath, name)
                    try:
                        st = os.stat(p)
                    except OSError:
                        continue
                    out.append((p, st.st_mtime_ns, st.st_size))
    return tuple(out)


class SessionCache:
    """rumoca sessions by library roots, dropped when a library file changes.

    A session keeps rumoca's parse of the library: reusing it makes a compile of a package model
    several times faster than a fresh session (measured in ``benchmarks/bench_modelica.py``).
    """

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._sessions: dict[tuple[str, ...], tuple[tuple, object]] = {}

    def get(self, roots: tuple[str, ...]):
        import rumoca

        fp = library_fingerprint(roots)
        hit = self._sessions.get(roots)
        if hit is not None and hit[0] == fp:
            return hit[1]
        session = rumoca.Session(roots=list(roots))
        self._sessions.pop(roots, None)
        self._sessions[roots] = (fp, session)
        while len(self._sessions) > self.size:
            self._sessions.pop(next(iter(self._sessions)))
        return session

    def drop(self, roots: tuple[str, ...]) -> None:
        self._sessions.pop(roots, None)


def _fresh(roots: tuple[str, ...]):
    import rumoca

    return rumoca.Session(roots=list(roots))


# -- the front end ----------------------------------------------------------------------------
def front_end(source_text: str, model_name: str | None, layer: str, path: str | None,
              roots: tuple[str, ...], sessions: SessionCache | None = None,
              overlay: LibraryOverlay | None = None) -> FrontResult:
    """Compile ``source_text`` with rumoca to a DAE dict. Never raises on model errors.

    When rumoca finds more equations than unknowns, sub-component input defaults that an enclosing
    class overrides by an equation are dropped (in this text and, through ``overlay``, in library
    classes) and the model is compiled again; the first diagnostics stand if that does not help.
    """
    result = _load(source_text, model_name, layer, path, roots, sessions)
    if result.ok or not _overdetermined(result):
        return result
    rewritten, moved = drop_overridden_input_defaults(source_text, path, roots)
    own = overlay is None
    overlay = overlay or LibraryOverlay()
    try:
        lib_roots, lib_moved = overlay.roots(roots)
        if not moved and not lib_moved:
            return result
        # a file inside a rewritten library compiles as its rewritten copy (one definition per class)
        copy = overlay.overlay_path(path) if path else None
        retry = _load(rewritten, model_name, copy or layer, copy, lib_roots, sessions)
        if not retry.ok:
            return result
        dae = _restore_paths(retry.dae, overlay.path_map)
    finally:
        if own:
            overlay.close()
    dropped = moved + sorted(set(lib_moved))
    note = Diagnostic("info", "modelica.input-default-dropped",
                      f"{len(dropped)} sub-component input default(s) overridden by an equation of the enclosing "
                      f"class were dropped: {', '.join(dropped[:12])}{' ...' if len(dropped) > 12 else ''}",
                      layer=layer, source="modelica", data={"inputs": dropped})
    return FrontResult(True, retry.model_name, dae, retry.meta, retry.structural, retry.diagnostics + (note,))


def _restore_paths(dae: dict | None, path_map: dict[str, str]) -> dict | None:
    """Point source-map entries of rewritten library copies back at the original files."""
    if not dae or not path_map:
        return dae
    files = dae.get("source_map", {}).get("files")
    if isinstance(files, list):
        for entry in files:
            if isinstance(entry, list) and len(entry) > 1 and entry[1] in path_map:
                entry[1] = path_map[entry[1]]
    return dae


def _overdetermined(result: FrontResult) -> bool:
    for d in result.diagnostics:
        m = _UNBALANCED.search(d.message)
        if d.code == "modelica.unbalanced" and m and int(m.group(1)) > int(m.group(2)):
            return True
    return False


def _load(source_text: str, model_name: str | None, layer: str, path: str | None,
          roots: tuple[str, ...], sessions: SessionCache | None) -> FrontResult:
    import rumoca

    name = model_name
    get = sessions.get if sessions is not None else _fresh
    try:
        try:
            model = get(roots).loads(source_text, model=name, filename=layer)
        except rumoca.RumocaError as exc:
            # rumoca also scans the file's folder, and a cached session keeps every buffer it has
            # loaded: a stale copy of the same class there is a "Duplicate class" clash, so
            # compile the buffer alone in a fresh session (no sibling scan) instead.
            if "Duplicate class" not in str(exc):
                raise
            if sessions is not None:
                sessions.drop(roots)
            model = _fresh(roots).loads(source_text, model=name,
                                        filename=Path(path).name if path else layer)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - rumoca panics surface as BaseException
        if sessions is not None and not isinstance(exc, rumoca.RumocaError):
            sessions.drop(roots)  # a panic may leave the session's cache half-built; a model error does not
        return FrontResult(False, name or "", diagnostics=tuple(compile_error_diagnostics(exc, source_text, layer)))
    name = model.name or name or ""
    try:
        dae = model.to_dict("dae")
    except BaseException as exc:  # noqa: BLE001
        return FrontResult(False, name, diagnostics=(error("modelica.compile", f"DAE export failed: {exc}", layer),))
    meta: dict[str, VarMeta] = {}
    for group in (model.algebraics, model.parameters, model.states, model.outputs, model.inputs):
        for v in group:
            meta[v.name] = VarMeta(getattr(v, "unit", None) or None, getattr(v, "min", None), getattr(v, "max", None),
                                   getattr(v, "description", None) or None)
    structural = frozenset(p.name for p in model.parameters if getattr(p, "kind", "") == "structural")
    return FrontResult(True, name, dae, meta, structural)
