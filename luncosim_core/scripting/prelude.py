"""The scenario prelude: helper functions every scenario can call, loaded as a global module.

Our own prelude lives in ``assets/scripting/prelude/*.rhai``. When the active ``lunco://`` root
has its own ``scripting/prelude/*.rhai`` files, those load instead, unchanged, so scenarios
written against that library find the helpers they expect. Files load in name order and are
merged into one global module (a later file's function of the same name and arity wins)."""

from __future__ import annotations

from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.scripting.rhai import Engine, RhaiError
from luncosim_core.twin.roots import repository_root


def bundled_prelude_dir() -> Path:
    return repository_root() / "assets" / "scripting" / "prelude"


def prelude_dir(roots=None) -> Path:
    """The library's prelude folder when it holds .rhai files, else ours."""
    if roots is not None:
        cand = Path(roots.lunco_root) / "scripting" / "prelude"
        if cand.is_dir() and any(cand.glob("*.rhai")):
            return cand
    return bundled_prelude_dir()


def load_prelude(engine: Engine, roots=None) -> tuple[list[Path], list[Diagnostic]]:
    """Register every prelude file as a global module of ``engine``; a file that does not
    compile or whose top level fails is skipped with a positioned diagnostic."""
    folder = prelude_dir(roots)
    files = sorted(folder.glob("*.rhai"))
    diags: list[Diagnostic] = []
    loaded: list[Path] = []
    for f in files:
        try:
            text = read_text_limited(f, "prelude file")
        except (OSError, UnreadableFile) as exc:  # a FIFO, a folder named *.rhai, bytes that are not text
            diags.append(Diagnostic("error", "scenario-prelude-error", f"prelude {f.name}: {exc}", layer=str(f),
                                    line=getattr(exc, "line", None), source="scenario"))
            continue
        try:
            engine.register_global_module(text, file=str(f))
        except RhaiError as err:
            d = err.to_diagnostic()
            diags.append(Diagnostic("error", "scenario-prelude-error", f"prelude {f.name}: {err.message}",
                                    layer=str(f), line=d.line, column=d.column, source="scenario"))
            continue
        loaded.append(f)
    if not files:
        diags.append(Diagnostic("warning", "scenario-prelude-missing", f"no prelude files in {folder}",
                                source="scenario"))
    return loaded, diags
