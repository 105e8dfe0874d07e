"""Fixtures for viewport tests: stages authored as .usda files, GL canvases that skip cleanly."""

from __future__ import annotations

import pytest
from viewport_helpers import write_stage


@pytest.fixture
def stage_from(tmp_path):
    def make(body: str, up: str = "Z", mpu: float = 1.0, name: str = "scene.usda"):
        return write_stage(tmp_path, body, up, mpu, name)

    return make


@pytest.fixture
def gl_canvas():
    """Factory for offscreen ViewportCanvas objects; skips when no OpenGL backend is available."""
    from luncosim_workbench.viewport import headless

    made = []

    def make(width: int = 320, height: int = 240):
        try:
            vc, backend = headless._new_canvas(width, height)
        except headless.HeadlessRenderError as exc:
            pytest.skip(f"no OpenGL: {exc}")
        made.append((vc, backend))
        return vc

    yield make
    for vc, backend in made:
        headless.close_canvas(vc, backend)
