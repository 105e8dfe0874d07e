"""Overlay layers: one pure model per debug overlay (napari's layer, minus the drawing).

A layer holds whether it is enabled and the geometry it last built from :class:`OverlayInputs`
(physics debug records, the stage-to-view transform, labels, anchors); it emits ``changed``
when that geometry changed. The vispy side maps each layer type to an adapter class
(``_vispy.overlay_adapters.OVERLAY_ADAPTERS``); an adapter subscribes to its layer and draws.
Adding an overlay is a layer class here, its entry in ``OVERLAY_LAYERS`` and (when it draws
something new) an adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from psygnal import Signal

from . import overlays as ov


@dataclass
class OverlayInputs:
    """What the layers build from, for one moment of the viewport."""

    info: Any  # physics DebugInfo (or an empty stand-in with the same attributes)
    stage_to_view: np.ndarray
    size: float  # a length that reads well at the scene's scale (view metres)
    labels: Mapping[str, str] = field(default_factory=dict)
    body_position: Callable[[str], np.ndarray | None] = lambda _p: None
    label_anchor: Callable[[str], np.ndarray | None] = lambda _p: None
    mission: Any = None  # luncosim_core.mission.drawing.MissionDrawing (plain arrays) or None
    meters_per_unit: float = 1.0


class OverlayLayer:
    """Base of overlay layers: ``name``, ``enabled`` and the geometry of the last build."""

    name: ClassVar[str] = ""
    #: which inputs a rebuild depends on beyond the debug records ("poses", "labels")
    follows: ClassVar[tuple[str, ...]] = ()
    changed = Signal()

    def __init__(self) -> None:
        self.enabled = False
        self.lines: ov.Lines | None = None
        self.markers: ov.Markers | None = None
        self.labels: ov.Labels | None = None

    def set_enabled(self, on: bool, inputs: OverlayInputs) -> None:
        self.enabled = bool(on)
        self.update(inputs)

    def update(self, inputs: OverlayInputs) -> None:
        """Rebuild (or clear, when disabled) and tell the adapters."""
        if self.enabled:
            self.build(inputs)
        else:
            self.lines = self.markers = self.labels = None
        self.changed.emit()

    def build(self, inputs: OverlayInputs) -> None:
        raise NotImplementedError


class JointsLayer(OverlayLayer):
    name = "joints"

    def build(self, inputs: OverlayInputs) -> None:
        self.lines = ov.joint_lines(inputs.info.joints, inputs.stage_to_view, inputs.size)


class CollidersLayer(OverlayLayer):
    name = "colliders"

    def build(self, inputs: OverlayInputs) -> None:
        self.lines = ov.collider_lines(inputs.info.colliders, inputs.stage_to_view)


class ContactsLayer(OverlayLayer):
    name = "contacts"

    def build(self, inputs: OverlayInputs) -> None:
        self.lines, self.markers = ov.contact_geometry(inputs.info, inputs.stage_to_view, inputs.size)


class CenterOfMassLayer(OverlayLayer):
    name = "com"

    def build(self, inputs: OverlayInputs) -> None:
        self.lines, self.markers = ov.com_geometry(inputs.info, inputs.stage_to_view, inputs.size * 0.5)


class EscapedLayer(OverlayLayer):
    name = "escaped"
    follows = ("poses",)

    def build(self, inputs: OverlayInputs) -> None:
        body = inputs.info.escaped_body
        pos = inputs.body_position(body) if body else None
        self.lines, self.markers = ov.escaped_geometry(inputs.info, inputs.stage_to_view, pos, inputs.size)


class LabelsLayer(OverlayLayer):
    name = "labels"
    follows = ("poses", "labels")

    def build(self, inputs: OverlayInputs) -> None:
        self.labels = ov.label_geometry(inputs.labels, inputs.label_anchor)


class MissionLayer(OverlayLayer):
    """The running mission: lethal costmap cells (an image on the ground), the planned path,
    footprint outlines along it and visual fluid particles. On by default: it draws nothing until
    a mission publishes a drawing (``ViewportCanvas.set_mission``)."""

    name = "mission"
    follows = ("mission",)

    def __init__(self) -> None:
        super().__init__()
        self.enabled = True
        self.image: ov.GroundImage | None = None
        self._image_key: tuple | None = None  # (lethal array, corners, transform) of the image

    def update(self, inputs: OverlayInputs) -> None:
        if not self.enabled:
            self.image = None
        super().update(inputs)

    def build(self, inputs: OverlayInputs) -> None:
        d = inputs.mission
        key = None if d is None or d.lethal is None else (d.lethal, np.asarray(d.corners).tobytes(),
                                                          inputs.stage_to_view.tobytes(), inputs.meters_per_unit)
        old = self._image_key
        reuse = (key is not None and old is not None and self.image is not None and key[0] is old[0]
                 and key[1:] == old[1:])
        self.lines, self.markers, image = ov.mission_geometry(d, inputs.stage_to_view, inputs.meters_per_unit,
                                                              with_image=not reuse)
        if not reuse:  # the same costmap array keeps its image (and its texture on the GPU)
            self.image, self._image_key = image, key


#: Every overlay, in menu order (names match ``overlays.OVERLAY_NAMES``).
OVERLAY_LAYERS: tuple[type[OverlayLayer], ...] = (
    JointsLayer, CollidersLayer, ContactsLayer, CenterOfMassLayer, EscapedLayer, LabelsLayer, MissionLayer)
