"""``luncosim rhai``: run a Rhai script standalone (no scene).

(Scene tests, which open simulations, live in :mod:`luncosim_core.sim.scene_test`.)"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def run_rhai(file: Path | str | None = None, code: str | None = None, out: Callable[[str], None] = print,
             err: Callable[[str], None] | None = None) -> int:
    """Run a script standalone (no scene): print output goes to ``out``; with ``code`` (``--eval``)
    the value the script evaluates to is printed too, in Rhai's display format. Returns 0, or
    1 after printing the positioned error."""
    from luncosim_core.scripting.prelude import load_prelude
    from luncosim_core.scripting.rhai import Engine, RhaiError, Unit, to_display
    from luncosim_core.scripting.runtime import DEFAULT_LIMITS
    from luncosim_core.scripting.vecmath import register_vector_helpers

    err = err or (lambda s: print(s, file=sys.stderr))
    if (file is None) == (code is None):
        err("luncosim rhai: give a FILE or --eval CODE")
        return 1
    if file is not None:
        from luncosim_core.fsutil import UnreadableFile, read_text_limited

        path = Path(file)
        try:
            source = read_text_limited(path, "script")
        except (OSError, UnreadableFile) as exc:
            err(f"luncosim rhai: cannot read {path}: {exc}")
            return 1
        label, roots = str(path), [path.resolve().parent]
    else:
        source, label, roots = code or "", "<eval>", [Path.cwd()]
    engine = Engine(DEFAULT_LIMITS, module_roots=roots)
    engine.on_print = out
    engine.on_debug = out
    register_vector_helpers(engine)
    load_prelude(engine, None)
    try:
        value = engine.eval(source, file=label)
    except RhaiError as exc:
        err(f"error: {exc}")
        return 1
    if code is not None and value is not Unit:
        out(to_display(value))
    return 0
