"""Vispy adapters for overlay layers, chosen by a registry (napari's layer-to-visual map).

``OVERLAY_ADAPTERS`` maps a layer type to the adapter class that draws it; ``make_adapter``
finds the adapter by the layer's class (or a base class). An adapter owns its vispy nodes,
connects to ``layer.changed`` in ``__init__`` and disconnects in ``close()``. The node wrappers
below take plain arrays from :mod:`..model.overlays` and hide their node when given nothing
(vispy visuals dislike empty buffers).
"""

from __future__ import annotations

import numpy as np
from vispy import scene
from vispy.visuals.transforms import MatrixTransform

from ..model.overlay_layers import (
    CenterOfMassLayer,
    CollidersLayer,
    ContactsLayer,
    EscapedLayer,
    JointsLayer,
    LabelsLayer,
    MissionLayer,
    OverlayLayer,
)
from ..model.overlays import GroundImage, Labels, Lines, Markers


class LinesNode:
    """Coloured line segments (pairs of points); depth tested unless ``on_top``."""

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


class MarkersNode:
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


class LabelsNode:
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


class GroundImageNode:
    """An RGBA image laid on a plane of the scene (the mission costmap), nearest-neighbour."""

    def __init__(self, parent) -> None:
        self.node = scene.visuals.Image(np.zeros((1, 1, 4), np.uint8), interpolation="nearest",
                                        method="subdivide", parent=parent)
        self.node.transform = MatrixTransform()
        self.node.set_gl_state("translucent", depth_test=False, cull_face=False)  # lethal cells show through obstacles
        self.node.order = 10
        self.node.visible = False
        self._shown: GroundImage | None = None

    def set_data(self, image: GroundImage | None) -> None:
        if image is None:
            self.node.visible = False
            self._shown = None
            return
        if image is self._shown:  # the same costmap: its texture is already uploaded
            self.node.visible = True
            return
        self._shown = image
        self.node.set_data(image.rgba)
        self.node.transform.matrix = image.transform.T  # vispy maps row vectors
        self.node.visible = True

    def close(self) -> None:
        self.node.parent = None


class VispyOverlay:
    """Base adapter: subscribes to its layer in ``__init__``, unsubscribes in ``close()``."""

    def __init__(self, layer: OverlayLayer, parent) -> None:
        self.layer = layer
        layer.changed.connect(self._on_changed)
        self._on_changed()

    def _on_changed(self) -> None:
        raise NotImplementedError  # pragma: no cover - every adapter draws its own

    def close(self) -> None:
        self.layer.changed.disconnect(self._on_changed)


class VispyLinesOverlay(VispyOverlay):
    """Line segments only (joint frames, collider outlines)."""

    on_top = True

    def __init__(self, layer: OverlayLayer, parent) -> None:
        self.lines = LinesNode(parent, width=2.0, on_top=self.on_top)
        super().__init__(layer, parent)

    def _on_changed(self) -> None:
        self.lines.set_data(self.layer.lines)

    def close(self) -> None:
        super().close()
        self.lines.close()


class VispyDepthTestedLinesOverlay(VispyLinesOverlay):
    """Lines hidden behind geometry (collider outlines would clutter through the bodies)."""

    on_top = False


class VispyMarkedLinesOverlay(VispyLinesOverlay):
    """Lines plus point markers (contacts, centres of mass, an escaped body)."""

    def __init__(self, layer: OverlayLayer, parent) -> None:
        self.markers = MarkersNode(parent)
        super().__init__(layer, parent)

    def _on_changed(self) -> None:
        super()._on_changed()
        self.markers.set_data(self.layer.markers)

    def close(self) -> None:
        super().close()
        self.markers.close()


class VispyLabelsOverlay(VispyOverlay):
    def __init__(self, layer: OverlayLayer, parent) -> None:
        self.text = LabelsNode(parent)
        super().__init__(layer, parent)

    def _on_changed(self) -> None:
        self.text.set_data(self.layer.labels)

    def close(self) -> None:
        super().close()
        self.text.close()


class VispyMissionOverlay(VispyMarkedLinesOverlay):
    """The mission: costmap image under path/footprint lines and fluid particle markers."""

    def __init__(self, layer: OverlayLayer, parent) -> None:
        self.image = GroundImageNode(parent)
        super().__init__(layer, parent)

    def _on_changed(self) -> None:
        super()._on_changed()
        self.image.set_data(getattr(self.layer, "image", None))

    def close(self) -> None:
        super().close()
        self.image.close()


OVERLAY_ADAPTERS: dict[type[OverlayLayer], type[VispyOverlay]] = {
    JointsLayer: VispyLinesOverlay,
    CollidersLayer: VispyDepthTestedLinesOverlay,
    ContactsLayer: VispyMarkedLinesOverlay,
    CenterOfMassLayer: VispyMarkedLinesOverlay,
    EscapedLayer: VispyMarkedLinesOverlay,
    LabelsLayer: VispyLabelsOverlay,
    MissionLayer: VispyMissionOverlay,
}


def make_adapter(layer: OverlayLayer, parent) -> VispyOverlay:
    """The adapter registered for ``layer``'s class (or its nearest registered base)."""
    for cls in type(layer).__mro__:
        if cls in OVERLAY_ADAPTERS:
            return OVERLAY_ADAPTERS[cls](layer, parent)
    raise TypeError(f"no overlay adapter registered for {type(layer).__name__}")
