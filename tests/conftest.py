"""Shared fixtures: real stages written to disk, asset roots, the bundled demo twin."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO_TWIN = REPO / "assets" / "twins" / "practice_yard"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def writer():
    return write


@pytest.fixture(scope="session")
def demo_twin() -> Path:
    return DEMO_TWIN


@pytest.fixture
def external_assets() -> Path:
    root = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    if not root or not Path(root).is_dir():
        pytest.skip("LUNCOSIM_EXTERNAL_ASSETS not set")
    return Path(root)
