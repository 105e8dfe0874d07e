"""Every declared runtime dependency is imported by the product (none is dead weight)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: distribution name -> the module it is imported as (where they differ)
IMPORT_NAMES = {"usd-core": "pxr", "PySide6-Essentials": "PySide6", "pyside6-scintilla": "pyside6_scintilla",
                "skyfield-data": "skyfield_data", "PyYAML": "yaml", "Pillow": "PIL"}
#: declared for another library to import at run time (each with the reason)
RUNTIME_ONLY = {"bokeh": "distributed serves the Dask dashboard of `luncosim batch` with it"}


def test_every_declared_dependency_is_imported():
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0] for d in deps]
    sources = "\n".join(p.read_text(encoding="utf-8") for pkg in ("luncosim_core", "luncosim_workbench")
                        for p in (REPO / pkg).rglob("*.py") if "tests" not in p.parts)
    unused = [n for n in names if n not in RUNTIME_ONLY
              and not re.search(rf"^\s*(import|from) {re.escape(IMPORT_NAMES.get(n, n))}\b", sources, re.M)]
    assert unused == [], f"declared but never imported: {unused}"
