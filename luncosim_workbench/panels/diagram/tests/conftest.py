"""Fixtures of the diagram panel's tests: a copy of our library, the panel in a floating dock."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDockWidget

from luncosim_core.twin.roots import repository_root

LIB = repository_root() / "assets" / "models"


@pytest.fixture
def rc_file(tmp_path) -> Path:
    """A copy of our library (so saves never touch the repository) and its RCCircuit."""
    shutil.copytree(LIB / "Workbench", tmp_path / "lib" / "Workbench")
    return tmp_path / "lib" / "Workbench" / "Electrical" / "RCCircuit.mo"


@pytest.fixture
def external_assets() -> Path:
    root = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    if not root or not Path(root).is_dir():
        pytest.skip("LUNCOSIM_EXTERNAL_ASSETS not set")
    return Path(root)


@pytest.fixture
def panel(window, qtbot):
    p = window.panels["diagram"]
    dock = p.parentWidget()
    while dock is not None and not isinstance(dock, QDockWidget):
        dock = dock.parentWidget()
    dock.setFloating(True)
    dock.show()
    dock.resize(900, 700)
    qtbot.waitExposed(dock)
    return p
