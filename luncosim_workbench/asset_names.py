"""How a scene names an asset file it references (shared by the Assembly panel and the viewport's
drop, so both name assets the same way)."""

from __future__ import annotations

import os
from pathlib import Path

from luncosim_core.usd.document import UsdDocument

ASSET_SCHEMES = ("lunco://", "twin://")


def asset_reference(doc: UsdDocument, file: Path | str) -> str:
    """How the scene should name ``file``: a ``lunco://`` URI inside the shared library, else a
    path relative to the scene (a ``lunco://`` or ``twin://`` URI is kept as it is)."""
    if str(file).startswith(ASSET_SCHEMES):
        return str(file)
    file = Path(file).resolve()
    lunco = getattr(doc.roots, "lunco_root", None)
    twin_root = getattr(doc.roots, "twin_root", None)
    if lunco is not None and file.is_relative_to(Path(lunco).resolve()) and not (
            twin_root is not None and file.is_relative_to(Path(twin_root).resolve())):
        return "lunco://" + file.relative_to(Path(lunco).resolve()).as_posix()
    return os.path.relpath(file, doc.path.parent)
