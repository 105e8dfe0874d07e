"""The viewport's vispy scene: camera, adapters for every visual kind, overlays and picking.

``ViewportCanvas`` is toolkit-neutral (no Qt import): the Qt widget embeds its ``canvas.native``
and the headless renderer drives it on an EGL or offscreen canvas. All coordinates are in the
view frame (metres, +Z up) unless a method says *stage*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from vispy import scene
from vispy.app import Timer
from vispy.util.quaternion import Quaternion

from ..model import camera_math as cm
from ..model import overlays as ov
from ..model.overlay_layers import OVERLAY_LAYERS, OverlayInputs
from ..model.picking import PickHit, pick_hit
from ..model.scene_model import SceneModel
from ..model.transforms import apply
from .batched_mesh import BucketMeshAdapter
from .decorations import AxesGizmo, GridAdapter, ManipulatorAdapter
from .overlay_adapters import make_adapter

if TYPE_CHECKING:
    from luncosim_core.physics.debug import DebugInfo

# What an absent DebugInfo looks like to the overlay builders (same attributes, all empty).
NO_DEBUG_INFO = SimpleNamespace(
    joints=(), colliders=(), contacts=(), centers_of_mass={}, escaped_body=None
)

BACKGROUND = (0.10, 0.11, 0.13, 1.0)
CAMERA_MODES = ("turntable", "fly")


class ViewportCanvas:
    """A SceneCanvas showing one :class:`SceneModel`, with overlays and camera helpers."""

    def __init__(self, *, app=None, size=(1280, 800), show: bool = False, keys=None) -> None:
        self.canvas = scene.SceneCanvas(
            app=app, size=size, show=show, bgcolor=BACKGROUND, keys=keys
        )
        self.view = self.canvas.central_widget.add_view()
        self.turntable = scene.TurntableCamera(fov=cm.DEFAULT_FOV, up="+z", distance=10.0)
        self.turntable.depth_value = 1e4  # near/far ratio: keeps 24-bit depth free of z-fighting
        self.fly: scene.FlyCamera | None = None  # created on first use (it owns a timer)
        self.view.camera = self.turntable
        self.camera_mode = "turntable"
        self.model = SceneModel()
        self._mesh_adapters: dict = {}
        self.grid = GridAdapter(self.view.scene)
        self.gizmo = AxesGizmo(self.canvas, self.view)
        self.manipulator = ManipulatorAdapter(self.view.scene)
        self.debug_info = NO_DEBUG_INFO
        self.labels: dict[str, str] = {}
        self._overlay_size: float | None = None  # see _scale
        self.mission = None  # the running mission's MissionDrawing (luncosim_core.mission.drawing)
        self.overlay_layers = {cls.name: cls() for cls in OVERLAY_LAYERS}
        self._overlay_adapters = [make_adapter(layer, self.view.scene) for layer in self.overlay_layers.values()]

    # ------------------------------------------------------------------ content
    def set_stage(self, stage) -> None:
        self.model.load(stage)
        self._overlay_size = None
        self.gizmo.set_stage_axes(self.model.stage_to_view)
        self._sync_meshes()
        b = self.model.bounds()
        if b is not None:
            self.grid.fit(*b)
        self.fit_scene()
        self._refresh_overlays()

    def set_body_poses(self, body_paths: Sequence[str], positions, orientations) -> tuple[str, ...]:
        unknown = self.model.set_body_poses(body_paths, positions, orientations)
        self._sync_meshes()
        self._refresh_overlays(self._following("poses"))
        self.canvas.update()
        return unknown

    def update_prims(self, paths: Sequence[str]) -> None:
        self.model.update_prims(paths)
        self._overlay_size = None
        self._sync_meshes()
        self._refresh_overlays(self._following("poses"))
        self.canvas.update()

    def set_selection(self, paths: Sequence[str]) -> None:
        self.model.set_selection(paths)
        self._sync_meshes()
        self.canvas.update()

    def set_purpose_visible(self, purpose: str, visible: bool) -> None:
        self.model.set_purpose_visible(purpose, visible)
        self._sync_meshes()
        self.canvas.update()

    def _sync_meshes(self) -> None:
        for key in list(self._mesh_adapters):
            if key not in self.model.buckets:
                self._mesh_adapters.pop(key).close()
        for key in self.model.buckets:
            if key not in self._mesh_adapters:
                self._mesh_adapters[key] = BucketMeshAdapter(self.model, key, self.view.scene)
            self._mesh_adapters[key].sync()

    @property
    def n_mesh_visuals(self) -> int:
        return len(self._mesh_adapters)

    # ------------------------------------------------------------------ overlays
    def set_debug_info(self, info: DebugInfo | None) -> None:
        self.debug_info = info if info is not None else NO_DEBUG_INFO
        self._refresh_overlays()
        self.canvas.update()

    def set_labels(self, labels: Mapping[str, str]) -> None:
        self.labels = {str(k): str(v) for k, v in labels.items()}
        self._refresh_overlays(self._following("labels"))
        self.canvas.update()

    def set_mission(self, drawing) -> None:
        """Show a mission's ``MissionDrawing`` (costmap, path, footprints, fluid; None clears it).
        Poses it carries move the bodies, as a snapshot's do."""
        self.mission = drawing
        if drawing is not None and len(drawing.body_paths):
            self.model.set_body_poses(drawing.body_paths, drawing.positions, drawing.orientations)
            self._sync_meshes()
            self._refresh_overlays(self._following("poses"))
        self._refresh_overlays(self._following("mission"))
        self.canvas.update()

    @property
    def overlays(self) -> dict[str, bool]:
        """Overlay name -> enabled."""
        return {name: layer.enabled for name, layer in self.overlay_layers.items()}

    def set_overlay(self, name: str, enabled: bool) -> None:
        if name not in self.overlay_layers:
            raise ValueError(
                f"unknown overlay {name!r}; expected one of {', '.join(ov.OVERLAY_NAMES)}"
            )
        self.overlay_layers[name].set_enabled(enabled, self._overlay_inputs())
        self.canvas.update()

    def _following(self, what: str) -> tuple[str, ...]:
        """Enabled overlays whose geometry depends on ``what`` (poses, labels)."""
        return tuple(n for n, layer in self.overlay_layers.items() if layer.enabled and what in layer.follows)

    def _scale(self) -> float:
        """Overlay line length: 8% of the framed scene's diagonal (a far wider ground left out,
        as Fit All does), 5 cm to 5 m; measured when the stage or its prims change."""
        if self._overlay_size is None:
            b = self.model.framing_bounds()
            self._overlay_size = 0.5 if b is None else float(np.clip(0.08 * np.linalg.norm(b[1] - b[0]), 0.05, 5.0))
        return self._overlay_size

    def _label_anchor(self, path: str):
        v = self.model.prim_vertices(path)
        if v.shape[0]:
            top = v.max(axis=0)
            return np.array(
                [0.5 * (v[:, 0].min() + top[0]), 0.5 * (v[:, 1].min() + top[1]), top[2]]
            )
        bp = self.model.body_position(path)
        return bp

    def _overlay_inputs(self) -> OverlayInputs:
        return OverlayInputs(self.debug_info, self.model.stage_to_view, self._scale(), self.labels,
                             self.model.body_position, self._label_anchor, self.mission,
                             self.model.meters_per_unit)

    def _refresh_overlays(self, names: Sequence[str] = ov.OVERLAY_NAMES) -> None:
        """Rebuild the named overlays that are on (each layer tells its adapter)."""
        names = [n for n in names if self.overlay_layers[n].enabled]
        if not names:
            return
        inputs = self._overlay_inputs()
        for name in names:
            self.overlay_layers[name].update(inputs)

    # ------------------------------------------------------------------ camera
    @property
    def aspect(self) -> float:
        w, h = self.canvas.size
        return w / max(h, 1)

    def _frame(self, lo, hi) -> None:
        cam = self.turntable
        pose = cm.fit_pose(
            lo, hi, cam.azimuth, cam.elevation, cam.fov or cm.DEFAULT_FOV, self.aspect
        )
        self._apply_pose(pose)

    def _apply_pose(self, pose: cm.TurntablePose) -> None:
        if self.camera_mode != "turntable":
            self.set_camera_mode("turntable")
        cam = self.turntable
        cam.center = pose.center
        cam.azimuth = pose.azimuth
        cam.elevation = pose.elevation
        cam.distance = pose.distance
        self.canvas.update()

    def fit_all(self) -> None:
        """Frame everything drawn except ground planes far larger than the rest of the scene
        (a 120 m ground under the rovers; ``SceneModel.framing_bounds``)."""
        b = self.model.framing_bounds()
        if b is None:
            b = (np.array([-5.0, -5.0, 0.0]), np.array([5.0, 5.0, 1.0]))
        self._frame(*b)

    def fit_scene(self) -> None:
        """Frame the moving bodies when the stage has any (vehicles, not the 200 m ground), else
        what :meth:`fit_all` frames. Used when a stage is loaded and as the default headless
        camera."""
        dynamic = [
            p
            for k, b in self.model.buckets.items()
            if k.dynamic and self.model.is_bucket_visible(k)
            for p in b.prim_paths
        ]
        b = self.model.bounds(dynamic) if dynamic else None
        if b is None:
            self.fit_all()
        else:
            self._frame(*b)

    def fit_selection(self) -> None:
        """Frame the selected prims (the moving bodies when the selection draws nothing)."""
        b = self.model.bounds(self.model.selection) if self.model.selection else None
        if b is None:
            self.fit_scene()
        else:
            self._frame(*b)

    def set_view(self, name: str, frame: str = "all") -> None:
        """Standard view (front, back, left, right/side, top, bottom, iso). ``frame``: "all"
        frames everything, "scene" the moving bodies (see :meth:`fit_scene`), "keep" keeps the
        current centre and distance."""
        az, el = cm.named_view(name)
        self.turntable.azimuth, self.turntable.elevation = az, el
        if frame == "all":
            self.fit_all()
        elif frame == "scene":
            self.fit_scene()
        elif frame == "keep":
            self.set_camera_mode("turntable")
            self.canvas.update()
        else:
            raise ValueError(f"frame must be 'all', 'scene' or 'keep', got {frame!r}")

    def set_camera(self, camera: str | Mapping | None) -> None:
        """A named view, or ``{"eye", "center", "up"}`` in *stage* coordinates, or
        ``{"view": name}``. Named views frame the moving bodies (everything when there are
        none); None is the iso view."""
        if camera is None:
            self.set_view("iso", frame="scene")
            return
        if isinstance(camera, str):
            self.set_view(camera, frame="scene")
            return
        if "view" in camera:
            self.set_view(str(camera["view"]), frame="scene")
            return
        missing = [k for k in ("eye", "center") if k not in camera]
        if missing:
            raise ValueError(f"camera dict needs 'eye' and 'center' (missing {', '.join(missing)})")
        s2v = self.model.stage_to_view
        eye = apply(s2v, np.asarray(camera["eye"], np.float64))[0]
        center = apply(s2v, np.asarray(camera["center"], np.float64))[0]
        default_up = np.linalg.inv(s2v[:3, :3]) @ np.array([0.0, 0.0, 1.0])
        up = s2v[:3, :3] @ np.asarray(camera.get("up", default_up), np.float64)
        self._apply_pose(cm.look_at(eye, center, up))

    def set_camera_mode(self, mode: str) -> None:
        """``turntable`` (orbit/pan/zoom) or ``fly`` (WASD + mouse look from the current eye)."""
        if mode not in CAMERA_MODES:
            raise ValueError(
                f"unknown camera mode {mode!r}; expected one of {', '.join(CAMERA_MODES)}"
            )
        if mode == self.camera_mode:
            return
        if mode == "fly":
            t = self.turntable
            eye = cm.TurntablePose(tuple(t.center), t.azimuth, t.elevation, t.distance).eye()
            if self.fly is None:
                self.fly = scene.FlyCamera(fov=cm.DEFAULT_FOV)
                self.fly.depth_value = self.turntable.depth_value
                # its movement timer must run on this canvas's application, not vispy's default
                self.fly._timer = Timer(
                    0.01, start=False, connect=self.fly.on_timer, app=self.canvas.app
                )
            self.view.camera = self.fly
            # start where the turntable eye was, looking at its centre
            pitch = Quaternion.create_from_axis_angle(math.radians(90.0 + t.elevation), 1, 0, 0)
            yaw = Quaternion.create_from_axis_angle(math.radians(-t.azimuth), 0, 0, 1)
            self.fly.center = tuple(eye)
            self.fly.rotation1 = pitch * yaw
            self.fly.rotation2 = Quaternion()
            self.fly.view_changed()
        else:
            self.view.camera = self.turntable
        self.camera_mode = mode
        self.canvas.update()

    # ------------------------------------------------------------------ picking
    def ray_at(self, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
        """World ray (origin on the near plane, unit direction) under canvas pixel (x, y)."""
        tr = self.canvas.scene.node_transform(self.view.scene)
        p0 = tr.map([x, y, -1.0, 1.0])
        p1 = tr.map([x, y, 1.0, 1.0])
        a = np.asarray(p0[:3]) / p0[3]
        b = np.asarray(p1[:3]) / p1[3]
        d = b - a
        return a, d / np.linalg.norm(d)

    def pick_at(self, x: float, y: float) -> PickHit | None:
        o, d = self.ray_at(x, y)
        return pick_hit(self.model, o, d)

    def project(self, points) -> np.ndarray:
        """Canvas pixel coordinates (x right, y down) of view-frame points."""
        tr = self.view.scene.node_transform(self.canvas.scene)
        pts = np.asarray(points, np.float64).reshape(-1, 3)
        m = tr.map(np.c_[pts, np.ones(len(pts))])
        return m[:, :2] / m[:, 3:4]

    # ------------------------------------------------------------------ output
    def render(self) -> np.ndarray:
        """The current frame as an (H, W, 4) uint8 array."""
        return self.canvas.render()

    def close(self) -> None:
        for a in self._mesh_adapters.values():
            a.close()
        self._mesh_adapters.clear()
        for a in self._overlay_adapters:
            a.close()
        self._overlay_adapters.clear()
        self.canvas.close()
