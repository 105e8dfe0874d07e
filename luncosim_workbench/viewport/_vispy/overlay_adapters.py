"""Adapters for overlay visual kinds: line segments, point markers and text labels.

Each adapter owns one vispy node, takes plain arrays from :mod:`..model.overlays` and hides its
node when given nothing to draw (vispy visuals dislike empty buffers).
"""

from __future__ import annotations

import numpy as np
from vispy import scene

from ..model.overlays import Labels, Lines, Markers


class LinesAdapter:
    """Coloured line segments (pairs of points), drawn on top of nothing: depth tested."""

    def __init__(self, parent, width: float = 2.0, on_top: bool = False) -> None:
        self.node = scene.visuals.Line(
            pos=np.zeros((2, 3), np.float32),
            connect="segments",
            method="gl",
            width=width,
            antialias=False,
            parent=parent,
        )
        self.node.set_gl_state("translucent", depth_test=not on_top)
        self.node.order = 20
        self.node.visible = False

    def set_data(self, lines: Lines | None) -> None:
        if lines is None or lines.n_segments == 0:
            self.node.visible = False
            return
        self.node.set_data(pos=lines.positions, color=lines.colors)
        self.node.visible = True

    def close(self) -> None:
        self.node.parent = None


class MarkersAdapter:
    """Screen-sized point markers (discs), always on top so they stay visible inside bodies."""

    def __init__(self, parent) -> None:
        self.node = scene.visuals.Markers(parent=parent)
        self.node.set_data(pos=np.zeros((1, 3), np.float32))  # empty markers break bounds queries
        self.node.set_gl_state("translucent", depth_test=False)
        self.node.order = 30
        self.node.visible = False

    def set_data(self, markers: Markers | None) -> None:
        if markers is None or markers.positions.shape[0] == 0:
            self.node.visible = False
            return
        self.node.set_data(
            pos=markers.positions,
            face_color=markers.colors,
            edge_color=(0.0, 0.0, 0.0, 0.9),
            size=markers.sizes,
            edge_width=1.0,
        )
        self.node.visible = True

    def close(self) -> None:
        self.node.parent = None


class LabelsAdapter:
    """Text anchored at 3D points, drawn on top."""

    def __init__(self, parent) -> None:
        self.node = scene.visuals.Text(
            text="",
            color=(1.0, 1.0, 1.0, 1.0),
            font_size=11,
            anchor_x="left",
            anchor_y="bottom",
            parent=parent,
        )
        self.node.set_gl_state("translucent", depth_test=False)
        self.node.order = 40
        self.node.visible = False

    def set_data(self, labels: Labels | None) -> None:
        if labels is None or not labels.texts:
            self.node.visible = False
            return
        self.node.text = list(labels.texts)
        self.node.pos = labels.positions
        self.node.visible = True

    def close(self) -> None:
        self.node.parent = None
