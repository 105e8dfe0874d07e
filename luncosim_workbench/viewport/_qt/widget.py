"""``ViewportWidget``: the Qt face of the 3D viewport (a vispy SceneCanvas on the pyside6 backend,
shown on a raster ``surface``: see ``surface.py``).

Mouse: left-drag orbits, shift+left-drag or middle-drag pans, wheel zooms (turntable); a left
click without dragging selects the prim under the cursor (``primClicked``; empty string when
clicking empty space). Hovering emits ``primHovered`` and shows the prim path as a tooltip.
Keys: F frames the selection, Home frames everything (Fit All), 1 front, 3 right, 7 top, 5 iso,
C toggles turntable/fly camera (fly: WASD, mouse look). The transform gizmo: W translate, E
rotate, R scale (not on rigid bodies: ``manipulatorMessage`` says why), L world/local axes,
G snapping. Dropping a USD file (a Twin Browser entry, a file from the desktop) or a
``lunco://``/``twin://`` URI on the viewport emits ``assetDropped`` with the point under the
cursor (the surface hit there, else the ground plane).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, QTimer, Signal
from PySide6.QtWidgets import QToolTip, QVBoxLayout, QWidget

from luncosim_workbench.mime import ASSET_MIME  # a USD file path (the Twin Browser drags it)

from .surface import ViewportSurface, direct_embedding

if TYPE_CHECKING:
    from luncosim_core.physics.debug import DebugInfo

CLICK_SLOP_PX = 4
USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")
ASSET_SCHEMES = ("lunco://", "twin://")
HOVER_DELAY_MS = 30  # hover picking runs at most this often (large meshes cost a ray cast)
_OWN_APP = None


def _ensure_pyside6_app():
    import vispy
    from vispy import app as vapp

    current = vapp._default_app.default_app
    if current is None:
        vispy.use(app="pyside6")
        return vapp.use_app()
    if current.backend_name.lower() == "pyside6":
        return current
    # another default backend was chosen earlier (e.g. a headless EGL render): the widget still
    # draws through its own pyside6 application object
    global _OWN_APP
    if _OWN_APP is None:
        _OWN_APP = vapp.Application("pyside6")
    return _OWN_APP


class ViewportWidget(QWidget):
    """Embeddable 3D viewport. Connect ``primClicked``/``primHovered`` to the selection model
    and call :meth:`set_selection` back with the shared selection."""

    primClicked = Signal(str)
    primHovered = Signal(str)
    # the transform gizmo: (prim path, "translate" | "rotate" | "scale", xyz) while dragging, and once at the end
    transformPreview = Signal(str, str, tuple)
    transformDragged = Signal(str, str, tuple)
    manipulatorMessage = Signal(str)  # why the gizmo shows no handles (scale asked on a rigid body)
    # an asset (a USD file path or a lunco:// / twin:// URI) dropped at a point (stage axes and units)
    assetDropped = Signal(str, tuple)

    def __init__(self, parent: QWidget | None = None, size=(800, 600)) -> None:
        super().__init__(parent)
        from .._vispy.canvas import ViewportCanvas

        if not ViewportWidget.can_draw():
            raise RuntimeError(
                "the 3D viewport cannot draw on Qt's 'offscreen' platform (QT_QPA_PLATFORM=offscreen); "
                "run under an X server (e.g. xvfb-run) or use render_stage_to_png for pictures"
            )
        app = _ensure_pyside6_app()
        self.viewport = ViewportCanvas(app=app, size=size, show=False, keys=None)
        self.canvas = self.viewport.canvas
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        if direct_embedding():
            self.canvas.native.setParent(self)
            self.surface: QWidget = self.canvas.native  # what the user sees and touches
        else:
            self.surface = ViewportSurface(self.canvas, self)
        layout.addWidget(self.surface)
        self.canvas.native.setMouseTracking(True)
        self._press_pos: tuple[float, float] | None = None
        self._hovered = ""
        self._hover_pos: tuple[float, float] | None = None
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(HOVER_DELAY_MS)
        self._hover_timer.timeout.connect(self._hover_pick)
        self.manip_mode = "translate"  # W / E / R
        self.manip_space = "world"  # L toggles local
        self.snapping = True  # G toggles
        self.grid_step = 0.25  # metres
        self.angle_step = 15.0  # degrees
        self.scale_step = 0.1  # scale factor
        self._manip_path = ""
        self._manip_axis: int | None = None
        self._drag = None
        self._drag_value: tuple[str, tuple] | None = None
        ev = self.canvas.events
        ev.draw.connect(self._place_manipulator, position="first")
        ev.mouse_press.connect(self._on_press)
        ev.mouse_release.connect(self._on_release)
        ev.mouse_move.connect(self._on_move)
        ev.key_press.connect(self._on_key)
        self.surface.setAcceptDrops(True)
        self._drops = _DropFilter(self)
        self.surface.installEventFilter(self._drops)

    @staticmethod
    def can_draw() -> bool:
        """False on Qt's 'offscreen' platform, where vispy cannot draw (the shell can show a
        placeholder instead of constructing the widget)."""
        from PySide6.QtGui import QGuiApplication

        return QGuiApplication.platformName() != "offscreen"

    # -------------------------------------------------------------- public API (delegates)
    @property
    def model(self):
        return self.viewport.model

    def set_stage(self, stage) -> None:
        self.viewport.set_stage(stage)

    def set_body_poses(self, body_paths: Sequence[str], positions, orientations) -> tuple[str, ...]:
        return self.viewport.set_body_poses(body_paths, positions, orientations)

    def update_prims(self, paths: Sequence[str]) -> None:
        self.viewport.update_prims(paths)

    def set_selection(self, paths: Sequence[str]) -> None:
        self.viewport.set_selection(paths)
        self._manip_path = paths[-1] if len(paths) == 1 else ""
        self._explain_refusal()
        self.canvas.update()

    # -------------------------------------------------------------- the transform gizmo
    def set_manipulator(self, mode: str | None = None, space: str | None = None, snapping: bool | None = None) -> None:
        """Translate, rotate or scale handles, in world (parent) or local axes (scale: always
        the prim's own), snapping on or off."""
        from ..model.manipulator import MODES, SPACES

        if mode is not None and mode not in MODES or space is not None and space not in SPACES:
            raise ValueError(f"mode must be one of {MODES} and space one of {SPACES}")
        self.manip_mode = mode or self.manip_mode
        self.manip_space = space or self.manip_space
        self.snapping = self.snapping if snapping is None else snapping
        if mode is not None:
            self._explain_refusal()
        self.canvas.update()

    def scale_refusal(self, path: str | None = None) -> str:
        """Why ``path`` (default: the gizmo's prim) has no scale handles, or "" when it has."""
        path = self._manip_path if path is None else path
        if path and self.viewport.model.body_position(path) is not None:
            return f"no scale handles on {path}: it is a rigid body (scale the shapes under it instead)"
        return ""

    def _explain_refusal(self) -> None:
        if self.manip_mode == "scale" and self.scale_refusal():
            self.manipulatorMessage.emit(self.scale_refusal())

    def manipulator_frame(self):
        """The gizmo's frame on the selected prim (None when there is none to move, or scale is
        asked on a rigid body)."""
        from ..model.manipulator import prim_frame

        model = self.viewport.model
        if not self._manip_path or model.stage is None:
            return None
        if self.manip_mode == "scale" and self.scale_refusal():
            return None
        space = "local" if self.manip_mode == "scale" else self.manip_space  # xformOp:scale is along its own axes
        return prim_frame(model.stage, self._manip_path, model.stage_to_view, space,
                          model.body_position(self._manip_path))

    def manipulator_handles(self):
        """(frame, handle length, polylines) of the gizmo as drawn, or None."""
        from ..model.manipulator import handle_length, handle_lines

        frame = self._drag.frame if self._drag is not None else self.manipulator_frame()
        if frame is None:
            return None
        length = handle_length(frame, self.viewport.project)
        return frame, length, handle_lines(frame, self.manip_mode, length)

    def _place_manipulator(self, _event=None) -> None:
        handles = self.manipulator_handles()
        self.viewport.manipulator.show(handles[2] if handles else None, self._manip_axis)

    def _begin_drag(self, x: float, y: float) -> bool:
        from ..model.manipulator import Drag, hit_axis

        handles = self.manipulator_handles()
        if handles is None:
            return False
        frame, length, _lines = handles
        axis = hit_axis(frame, self.manip_mode, length, self.viewport.project, (x, y))
        if axis is None:
            return False
        self._drag = Drag.begin(frame, self.manip_mode, axis, *self.viewport.ray_at(x, y), grid_step=self.grid_step,
                                angle_step=self.angle_step, snapping=self.snapping, scale_step=self.scale_step)
        if self._drag is None:
            return False
        self._manip_axis = axis
        self._drag_value = None
        self.viewport.view.camera.interactive = False  # the drag moves the prim, not the camera
        return True

    def _continue_drag(self, x: float, y: float) -> None:
        value = self._drag.value(*self.viewport.ray_at(x, y))
        if value is not None and value != self._drag_value:
            self._drag_value = value
            self.transformPreview.emit(self._drag.frame.path, value[0], value[1])
        self.canvas.update()

    def _end_drag(self) -> None:
        drag, value = self._drag, self._drag_value
        self._drag, self._drag_value, self._manip_axis = None, None, None
        self.viewport.view.camera.interactive = True
        if value is not None:
            self.transformDragged.emit(drag.frame.path, value[0], value[1])
        self.canvas.update()

    def set_debug_info(self, info: DebugInfo | None) -> None:
        self.viewport.set_debug_info(info)

    def set_overlay(self, name: str, enabled: bool) -> None:
        self.viewport.set_overlay(name, enabled)

    def set_mission(self, drawing) -> None:
        """The running mission's drawing (``luncosim_core.mission.drawing.MissionDrawing``)."""
        self.viewport.set_mission(drawing)

    def set_labels(self, labels: Mapping[str, str]) -> None:
        self.viewport.set_labels(labels)

    def set_purpose_visible(self, purpose: str, visible: bool) -> None:
        self.viewport.set_purpose_visible(purpose, visible)

    def set_camera_mode(self, mode: str) -> None:
        self.viewport.set_camera_mode(mode)

    def set_view(self, name: str) -> None:
        self.viewport.set_view(name)

    def fit_all(self) -> None:
        self.viewport.fit_all()

    def fit_selection(self) -> None:
        self.viewport.fit_selection()

    def fit_scene(self) -> None:
        self.viewport.fit_scene()

    def render(self):
        """The current frame as an (H, W, 4) uint8 array."""
        return self.viewport.render()

    # -------------------------------------------------------------- placing things
    def ground_point_at(self, x: float, y: float) -> tuple[float, float, float] | None:
        """Where something put at canvas pixel (x, y) lands, in stage axes and units: the surface
        under the cursor, else the ground plane (None over the sky); with snapping on, on the
        0.25 m grid across the ground."""
        from ..model.picking import ground_point, view_to_stage

        point = ground_point(self.viewport.model, *self.viewport.ray_at(x, y))
        if point is None:
            return None
        if self.snapping:  # on the grid across the ground; the height stays on the surface hit
            point[:2] = [round(v / self.grid_step) * self.grid_step for v in point[:2]]
        return tuple(round(v, 6) + 0.0 for v in view_to_stage(self.viewport.model, point))  # no -0, no 1e-17

    def focus_point(self) -> tuple[float, float, float]:
        """The camera's focus (the orbit centre, or in fly mode the point ahead of the eye) on the
        ground plane, in stage axes and units: where Add Asset places what it adds."""
        import numpy as np

        from ..model.picking import view_to_stage

        vc = self.viewport
        if vc.camera_mode == "fly" and vc.fly is not None:
            w, h = self.canvas.size
            point = self.ground_point_at(w / 2, h / 2)
            if point is not None:
                return point
        c = np.asarray(vc.turntable.center, np.float64)
        return tuple(round(v, 6) + 0.0 for v in view_to_stage(vc.model, (c[0], c[1], 0.0)))

    @staticmethod
    def dropped_asset(mime) -> str:
        """The asset a drag carries ("" when none): a USD file path or a lunco:// / twin:// URI."""
        if mime.hasFormat(ASSET_MIME):
            return bytes(mime.data(ASSET_MIME)).decode("utf-8").strip()
        for url in mime.urls() if mime.hasUrls() else ():
            path = url.toLocalFile() if url.isLocalFile() else url.toString()
            if path.lower().endswith(USD_SUFFIXES):
                return path
        text = mime.text().strip() if mime.hasText() else ""
        return text if text.startswith(ASSET_SCHEMES) and text.lower().endswith(USD_SUFFIXES) else ""

    def drop_asset(self, asset: str, x: float, y: float) -> bool:
        """Drop ``asset`` at canvas pixel (x, y): ``assetDropped`` with where it lands (the focus
        point when the cursor is over the sky). Returns False for an empty asset."""
        if not asset:
            return False
        point = self.ground_point_at(x, y)
        self.assetDropped.emit(asset, point if point is not None else self.focus_point())
        return True

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        self._hover_timer.stop()
        self.viewport.close()
        super().closeEvent(event)

    # -------------------------------------------------------------- interaction
    def pick_at(self, x: float, y: float) -> str:
        hit = self.viewport.pick_at(x, y)
        return hit.prim_path if hit is not None else ""

    def _on_press(self, event) -> None:
        if event.button == 1:
            if self._begin_drag(float(event.pos[0]), float(event.pos[1])):
                event.handled = True
                return
            self._press_pos = (float(event.pos[0]), float(event.pos[1]))

    def _on_release(self, event) -> None:
        if self._drag is not None:
            self._end_drag()
            return
        start, self._press_pos = self._press_pos, None
        if event.button != 1 or start is None:
            return
        dx, dy = event.pos[0] - start[0], event.pos[1] - start[1]
        if dx * dx + dy * dy <= CLICK_SLOP_PX**2:
            self.primClicked.emit(self.pick_at(*event.pos[:2]))

    def _on_move(self, event) -> None:
        if self._drag is not None:
            self._continue_drag(float(event.pos[0]), float(event.pos[1]))
            return
        if event.is_dragging or event.buttons:
            self._hover_timer.stop()
            return
        # pick at most once per HOVER_DELAY_MS, at the latest cursor position
        self._hover_pos = (float(event.pos[0]), float(event.pos[1]))
        if not self._hover_timer.isActive():
            self._hover_timer.start()

    def _hover_pick(self) -> None:
        if self._hover_pos is None:
            return
        x, y = self._hover_pos
        path = self.pick_at(x, y)
        if path == self._hovered:
            return
        self._hovered = path
        self.primHovered.emit(path)
        surface = self.surface
        if path:
            QToolTip.showText(surface.mapToGlobal(QPoint(int(x), int(y))), path, surface)
            surface.setToolTip(path)
        else:
            QToolTip.hideText()
            surface.setToolTip("")

    def _on_key(self, event) -> None:
        key = event.key.name if event.key is not None else ""
        if key == "F":
            self.viewport.fit_selection()
        elif key == "Home":
            self.viewport.fit_all()
        elif key == "C":
            other = "fly" if self.viewport.camera_mode == "turntable" else "turntable"
            self.viewport.set_camera_mode(other)
        elif key in ("W", "E", "R") and self.viewport.camera_mode == "turntable":
            self.set_manipulator(mode={"W": "translate", "E": "rotate", "R": "scale"}[key])
        elif key == "L":
            self.set_manipulator(space="local" if self.manip_space == "world" else "world")
        elif key == "G":
            self.set_manipulator(snapping=not self.snapping)
        elif key in ("1", "3", "7", "5"):
            self.viewport.set_view({"1": "front", "3": "right", "7": "top", "5": "iso"}[key])


class _DropFilter(QObject):
    """Drag and drop on the viewport's surface."""

    def __init__(self, widget: ViewportWidget) -> None:
        super().__init__(widget)
        self.widget = widget

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt naming
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if self.widget.dropped_asset(event.mimeData()):
                event.acceptProposedAction()
                return True
            return False
        if kind == QEvent.Type.Drop:
            pos = event.position()
            if self.widget.drop_asset(self.widget.dropped_asset(event.mimeData()), pos.x(), pos.y()):
                event.acceptProposedAction()
                return True
        return False
