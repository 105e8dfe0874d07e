"""Ground grid and the corner axes gizmo."""

from __future__ import annotations

import math

import numpy as np
from vispy import scene

GRID_MINOR = (0.42, 0.43, 0.46, 0.45)
GRID_MAJOR = (0.58, 0.59, 0.62, 0.8)
AXIS_COLORS = ((0.95, 0.25, 0.25, 1.0), (0.3, 0.9, 0.3, 1.0), (0.35, 0.55, 1.0, 1.0))


def grid_spacing(extent_m: float) -> float:
    """A 1-2-5 minor spacing giving roughly ten cells across ``extent_m``."""
    extent_m = max(extent_m, 1e-3)
    raw = extent_m / 10.0
    exp = math.floor(math.log10(raw))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10**exp >= raw:
            return m * 10**exp
    return 10.0 ** (exp + 1)


def grid_segments(half_size: float, spacing: float, center_xy=(0.0, 0.0)):
    """Segments of a square grid in the z=0 plane; every fifth line is a major line."""
    n = int(math.ceil(half_size / spacing))
    cx = math.floor(center_xy[0] / spacing) * spacing
    cy = math.floor(center_xy[1] / spacing) * spacing
    ks = np.arange(-n, n + 1)
    lo, hi = -n * spacing, n * spacing
    pts, cols = [], []
    for k in ks:
        c = GRID_MAJOR if k % 5 == 0 else GRID_MINOR
        x = cx + k * spacing
        y = cy + k * spacing
        pts += [(x, cy + lo, 0.0), (x, cy + hi, 0.0), (cx + lo, y, 0.0), (cx + hi, y, 0.0)]
        cols += [c] * 4
    return np.asarray(pts, np.float32), np.asarray(cols, np.float32)


class GridAdapter:
    """The ground grid in the view frame's z=0 plane, sized to the scene."""

    def __init__(self, parent) -> None:
        self.node = scene.visuals.Line(
            pos=np.zeros((2, 3), np.float32), connect="segments", method="gl", parent=parent
        )
        self.node.set_gl_state("translucent", depth_test=True)
        self.node.order = 5
        self.fit(np.array([-5.0, -5.0, 0.0]), np.array([5.0, 5.0, 0.0]))

    def fit(self, lo: np.ndarray, hi: np.ndarray) -> None:
        extent = float(max(hi[0] - lo[0], hi[1] - lo[1], 1.0))
        spacing = grid_spacing(extent)
        centre = (0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]))
        pts, cols = grid_segments(extent * 1.5, spacing, centre)
        # a hair below z=0 so authored ground at z=0 hides it cleanly instead of z-fighting
        pts[:, 2] = -1e-2 * spacing
        self.node.set_data(pos=pts, color=cols)
        self.spacing = spacing


class AxesGizmo:
    """A small XYZ triad in the lower-left corner that turns with the main camera."""

    def __init__(
        self, canvas: scene.SceneCanvas, main_view: scene.ViewBox, size_px: int = 90
    ) -> None:
        self.main_view = main_view
        self.view = scene.widgets.ViewBox(parent=canvas.scene, border_color=None)
        self.view.interactive = False
        self.size_px = size_px
        self.view.camera = scene.TurntableCamera(fov=0.0, up="+z", distance=3.0)
        self.view.camera.interactive = False
        pts = np.array(
            [[0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1]], np.float32
        )
        cols = np.repeat(np.asarray(AXIS_COLORS, np.float32), 2, axis=0)
        self.lines = scene.visuals.Line(
            pos=pts, color=cols, connect="segments", width=3, method="gl", parent=self.view.scene
        )
        self.labels = scene.visuals.Text(
            text=["X", "Y", "Z"],
            pos=np.array([[1.25, 0, 0], [0, 1.25, 0], [0, 0, 1.25]], np.float32),
            color=[c for c in AXIS_COLORS],
            font_size=9,
            bold=True,
            parent=self.view.scene,
        )
        self.view.camera.set_range(x=(-1.3, 1.3), y=(-1.3, 1.3), z=(-1.3, 1.3), margin=0.0)
        canvas.events.resize.connect(self._place)
        canvas.events.draw.connect(self._follow, position="first")
        self._canvas = canvas
        self._place()

    def set_stage_axes(self, stage_to_view: np.ndarray) -> None:
        """Point X, Y, Z along the stage's own axes (a Y-up stage shows Y up)."""
        rot = np.asarray(stage_to_view, np.float64)[:3, :3]
        dirs = (rot / np.linalg.norm(rot, axis=0, keepdims=True)).T  # row i: stage axis i in the view frame
        pts = np.zeros((6, 3), np.float32)
        pts[1::2] = dirs
        self.lines.set_data(pos=pts)
        self.labels.pos = (dirs * 1.25).astype(np.float32)

    def _place(self, event=None) -> None:
        h = self._canvas.size[1]
        self.view.pos = (8, h - self.size_px - 8)
        self.view.size = (self.size_px, self.size_px)

    def _follow(self, event=None) -> None:
        cam = self.main_view.camera
        az = getattr(cam, "azimuth", None)
        if az is None:
            return
        g = self.view.camera
        if g.azimuth != cam.azimuth or g.elevation != cam.elevation:
            g.azimuth, g.elevation = cam.azimuth, cam.elevation


class ManipulatorAdapter:
    """The transform gizmo's handles (one polyline per axis), drawn over the scene."""

    ACTIVE = (1.0, 0.85, 0.2, 1.0)

    def __init__(self, parent) -> None:
        self.lines = []
        for color in AXIS_COLORS:
            line = scene.visuals.Line(pos=np.zeros((2, 3), np.float32), color=color, width=4, method="gl",
                                      parent=parent)
            line.set_gl_state(depth_test=False, blend=True)
            line.order = 100  # after the scene
            line.visible = False
            self.lines.append(line)

    def show(self, polylines, active: int | None = None) -> None:
        """``polylines``: one (N, 3) array per axis (view frame), or None to hide."""
        for i, line in enumerate(self.lines):
            if polylines is None:
                line.visible = False
                continue
            line.set_data(pos=np.asarray(polylines[i], np.float32),
                          color=self.ACTIVE if i == active else AXIS_COLORS[i])
            line.visible = True
