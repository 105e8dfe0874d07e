"""Helpers shared by the viewport tests (authoring stages, pixel checks)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
from pxr import Usd


def write_stage(
    tmp_path: Path, body: str, up: str = "Z", mpu: float = 1.0, name: str = "scene.usda"
) -> Usd.Stage:
    """Write a usda layer with the given prim text and open it as a stage."""
    # usda wants every '{' and '}' of a prim body on its own line; the tests write compactly
    body = textwrap.dedent(body)
    for _ in range(3):
        body = re.sub(r"([^\s{])[ \t]*}", "\\1\n}", body)
    body = re.sub(r"{[ \t]*([^\s}])", "{\n\\1", body)
    text = f'#usda 1.0\n(\n    upAxis = "{up}"\n    metersPerUnit = {mpu}\n)\n\n' + body
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    stage = Usd.Stage.Open(str(path))
    assert stage is not None
    return stage


def color_near(img: np.ndarray, xy, rgb, radius: int = 3, tol: float = 60.0) -> bool:
    """True when some pixel within ``radius`` of ``xy`` is within ``tol`` of ``rgb`` (0-255)."""
    x, y = int(round(xy[0])), int(round(xy[1]))
    patch = img[
        max(0, y - radius) : y + radius + 1, max(0, x - radius) : x + radius + 1, :3
    ].astype(float)
    d = np.linalg.norm(patch - np.asarray(rgb, float), axis=-1)
    return bool(d.size and d.min() <= tol)
