"""Every real LunCoSim Rhai script parses and compiles (needs LUNCOSIM_EXTERNAL_ASSETS)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from luncosim_core.scripting.rhai import Engine, RhaiError

ROOT = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")


@pytest.mark.external
@pytest.mark.skipif(not ROOT, reason="LUNCOSIM_EXTERNAL_ASSETS is not set")
def test_every_external_script_compiles() -> None:
    files = sorted(Path(ROOT or ".").rglob("*.rhai"))
    assert files, f"no .rhai files under {ROOT}"
    eng = Engine()
    failures = []
    for p in files:
        try:
            eng.compile(p.read_text(encoding="utf-8"), file=str(p))
        except RhaiError as e:
            failures.append(str(e))
    assert not failures, f"{len(failures)} of {len(files)} scripts fail:\n" + "\n".join(failures)


@pytest.mark.external
@pytest.mark.skipif(not ROOT, reason="LUNCOSIM_EXTERNAL_ASSETS is not set")
def test_external_prelude_registers_as_global_modules() -> None:
    prelude = sorted((Path(ROOT or ".") / "scripting" / "prelude").glob("*.rhai"))
    if not prelude:
        pytest.skip("no scripting/prelude in the external assets")
    eng = Engine()
    for p in prelude:
        eng.register_global_module(p.read_text(encoding="utf-8"), file=str(p))
    assert eng.rt.global_fns
