"""The 3D viewport: a pure scene model, vispy adapters, a Qt widget and a headless renderer.

``model`` (tessellation, buckets, poses, picking, overlay geometry) imports neither Qt nor GL.
The vispy and Qt layers load lazily on first use of their names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .model.overlays import OVERLAY_NAMES
from .model.picking import PickHit, pick, pick_hit
from .model.scene_model import BucketKey, SceneModel

if TYPE_CHECKING:
    from ._qt.widget import ViewportWidget
    from ._vispy.canvas import ViewportCanvas
    from .headless import HeadlessRenderError, render_stage_to_array, render_stage_to_png

_LAZY = {
    "ViewportWidget": "._qt.widget",
    "ViewportCanvas": "._vispy.canvas",
    "render_stage_to_png": ".headless",
    "render_stage_to_array": ".headless",
    "HeadlessRenderError": ".headless",
}

__all__ = [
    "OVERLAY_NAMES",
    "BucketKey",
    "HeadlessRenderError",
    "PickHit",
    "SceneModel",
    "ViewportCanvas",
    "ViewportWidget",
    "pick",
    "pick_hit",
    "render_stage_to_array",
    "render_stage_to_png",
]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name], __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
