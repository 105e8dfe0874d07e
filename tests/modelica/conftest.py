"""Shared helpers for the Modelica tests: models written to tmp_path and our library paths."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "assets" / "models"


def lib_model(rel: str) -> Path:
    """Path of a model in our library, e.g. ``Workbench/Rover/DriveController.mo``."""
    return LIBRARY / rel


@pytest.fixture
def write_model(tmp_path: Path):
    """Write ``text`` as ``<name>.mo`` in its own folder under tmp_path and return the path."""

    def _write(name: str, text: str) -> Path:
        folder = tmp_path / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.mo"
        path.write_text(text, encoding="utf-8")
        return path

    return _write
