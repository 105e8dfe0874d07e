"""Fixtures: scenes written to tmp_path and simulations closed after each test."""

from __future__ import annotations

from pathlib import Path

import pytest
from scene_helpers import open_sim, scene_text, write

from luncosim_core.sim.simulation import Simulation


@pytest.fixture
def make_scene(tmp_path):
    """make_scene(body, files={name: text}) -> path of a scene written into tmp_path."""

    def make(body: str, files: dict[str, str] | None = None, name: str = "scene.usda") -> Path:
        for fname, text in (files or {}).items():
            write(tmp_path / fname, text)
        return write(tmp_path / name, scene_text(body))
    return make


@pytest.fixture
def sims():
    """Closes every simulation a test opened."""
    opened: list[Simulation] = []

    def opener(scene: Path, tick_hz: float = 60.0) -> Simulation:
        sim = open_sim(scene, tick_hz)
        opened.append(sim)
        return sim
    yield opener
    for s in opened:
        s.close()
