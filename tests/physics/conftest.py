"""Fixtures for physics tests: write a .usda into tmp_path, open it, build a world."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from physics_scenes import write_stage

from luncosim_core.physics import PhysicsWorld


@pytest.fixture
def make_world(tmp_path) -> Iterator:
    worlds: list[PhysicsWorld] = []
    counter = [0]

    def make(body: str, up: str = "Y", mpu: float = 1.0, **kw) -> PhysicsWorld:
        counter[0] += 1
        stage = write_stage(tmp_path, body, f"scene{counter[0]}.usda", up, mpu)
        w = PhysicsWorld(stage, **kw)
        worlds.append(w)
        return w

    yield make
    for w in worlds:
        w.close()
