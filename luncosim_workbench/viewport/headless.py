"""Render a stage to a PNG without a window.

Backend order: an already chosen vispy application that can draw offscreen is reused; otherwise
EGL surfaceless (no X server needed); otherwise an offscreen canvas on the X display named by
``$DISPLAY`` (GLFW or Qt). When none works, :class:`HeadlessRenderError` says what was tried.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from luncosim_core.physics.debug import DebugInfo

_APP_CACHE: dict[str, object] = {}


class HeadlessRenderError(RuntimeError):
    """No OpenGL backend could be created for an offscreen render."""


def _app(name: str):
    from vispy import app as vapp

    if name not in _APP_CACHE:
        _APP_CACHE[name] = vapp.Application(name)
    return _APP_CACHE[name]


def _backend_order() -> list[str]:
    """Backends to try, best first.

    A process that already drives a Qt viewport keeps a GLX context current on this thread, and
    EGL cannot make its own context current next to it: reuse the Qt application then.
    """
    from vispy import app as vapp

    order = ["egl"]
    default = vapp._default_app.default_app
    if default is not None and default.backend_name.lower().startswith("pyside"):
        order = ["pyside6", "egl"]
    elif os.environ.get("DISPLAY"):
        order += ["pyside6", "glfw"]
    return order


def _release_egl_context(context=None) -> None:
    """Leave no EGL context current (so Qt/GLX contexts can be made current afterwards) and
    destroy ``context`` if given."""
    from vispy.app.backends import _egl
    from vispy.ext import egl

    egl._lib.eglMakeCurrent(_egl._EGL_DISPLAY, None, None, None)
    if context is not None:
        egl._lib.eglDestroyContext(_egl._EGL_DISPLAY, context)


def close_canvas(vc, backend: str) -> None:
    """Close an offscreen ViewportCanvas and free its GL context.

    vispy's EGL backend keeps every canvas in a module list and never destroys contexts; without
    this each render would leak its context and buffers (~20 MB at 640x400).
    """
    native = getattr(vc.canvas, "_backend", None)
    context = getattr(native, "_native_context", None) if backend == "egl" else None
    vc.close()
    if backend == "egl":
        from vispy.app.backends import _egl

        if native in _egl._VP_EGL_ALL_WINDOWS:
            _egl._VP_EGL_ALL_WINDOWS.remove(native)
        _release_egl_context(context)


def _new_canvas(width: int, height: int):
    """A ViewportCanvas on the first backend that can create and bind an offscreen context."""
    from ._vispy.canvas import ViewportCanvas

    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    errors: list[str] = []
    for name in _backend_order():
        try:
            vc = ViewportCanvas(app=_app(name), size=(width, height), show=False)
            return vc, name
        except Exception as exc:  # noqa: BLE001 - every backend failure is reported below
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
    raise HeadlessRenderError(
        "no OpenGL backend for offscreen rendering. Tried "
        + "; ".join(errors)
        + ". Install Mesa EGL (libegl1, libegl-mesa0, libgl1-mesa-dri) or run under an X server "
        "(e.g. xvfb-run)."
    )


def _normalise_poses(body_poses):
    """Accept (paths, positions, orientations) or {path: (position, orientation_wxyz)}."""
    if body_poses is None:
        return None
    if isinstance(body_poses, Mapping):
        paths = tuple(sorted(body_poses))
        pos = np.array([body_poses[p][0] for p in paths], np.float64).reshape(-1, 3)
        quat = np.array([body_poses[p][1] for p in paths], np.float64).reshape(-1, 4)
        return paths, pos, quat
    paths, pos, quat = body_poses
    return tuple(paths), np.asarray(pos, np.float64), np.asarray(quat, np.float64)


def render_stage_to_array(
    stage,
    *,
    width: int = 1280,
    height: int = 800,
    camera: str | Mapping | None = None,
    overlays: Sequence[str] = (),
    body_poses=None,
    debug_info: DebugInfo | None = None,
    selection: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    mission=None,
) -> np.ndarray:
    """Render like :func:`render_stage_to_png` and return the (H, W, 4) uint8 image."""
    if width < 1 or height < 1:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    vc, backend = _new_canvas(int(width), int(height))
    try:
        vc.set_stage(stage)
        poses = _normalise_poses(body_poses)
        if poses is not None:
            vc.set_body_poses(*poses)
        if debug_info is not None:
            vc.set_debug_info(debug_info)
        if labels:
            vc.set_labels(labels)
        if mission is not None:
            vc.set_mission(mission)
        for name in overlays:
            vc.set_overlay(name, True)
        if selection:
            vc.set_selection(selection)
        vc.set_camera(camera)
        return vc.render()
    finally:
        close_canvas(vc, backend)


def render_stage_to_png(
    stage,
    out_path: str | os.PathLike,
    *,
    width: int = 1280,
    height: int = 800,
    camera: str | Mapping | None = None,
    overlays: Sequence[str] = (),
    body_poses=None,
    debug_info: DebugInfo | None = None,
    selection: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    mission=None,
) -> Path:
    """Render ``stage`` offscreen and write a PNG; returns the written path.

    ``camera``: None (iso view framing everything), a view name (front, back, left, right,
    side, top, bottom, iso), ``{"view": name}`` or ``{"eye", "center", "up"}`` in stage
    coordinates. ``body_poses``: ``(paths, positions (N,3) metres, orientations (N,4) wxyz)`` or
    ``{path: (position, orientation)}``. ``overlays``: names from
    :data:`~luncosim_workbench.viewport.model.overlays.OVERLAY_NAMES`. ``mission``: a
    ``MissionDrawing`` (costmap, path, footprints, fluid particles) drawn over the scene.
    """
    from vispy.io import write_png

    img = render_stage_to_array(
        stage,
        width=width,
        height=height,
        camera=camera,
        overlays=overlays,
        body_poses=body_poses,
        debug_info=debug_info,
        selection=selection,
        labels=labels,
        mission=mission,
    )
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_png(str(out), img)
    return out
