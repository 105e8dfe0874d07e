"""``MainWindow``: the shell. The 3D viewport in the centre, the discovered panels docked around
it, menus, toolbars and shortcuts made from the action registry, the status bar, perspectives,
themes and the unsaved-edits guard.

The shell owns the session, the simulation bridge and the viewport. Panels get a
:class:`~luncosim_workbench.context.PanelContext`; nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QAbstractAnimation,
    QByteArray,
    QPropertyAnimation,
    QRect,
    Qt,
    QTimer,
    QUrl,
)
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QTabBar,
    QToolBar,
    QWidget,
)
from superqt import QElidingLabel

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.sim.mirror import edit_command, touched_paths
from luncosim_core.text.document import TextDocument
from luncosim_core.text.inline_source import InlineSourceDocument
from luncosim_core.usd.document import ExternalChangeConflict
from luncosim_workbench import gc_guard, resources
from luncosim_workbench import layout as layouts
from luncosim_workbench.actions.qt import QtActions
from luncosim_workbench.actions.registry import ActionRegistry
from luncosim_workbench.bridge import SimBridge
from luncosim_workbench.context import PanelContext
from luncosim_workbench.palette import CommandPalette
from luncosim_workbench.plugins import PanelSpec, PanelWidget, discover_panels
from luncosim_workbench.session import Session
from luncosim_workbench.shell_actions import MENUS, shell_actions
from luncosim_workbench.transport import TransportBar
from luncosim_workbench.widgets.dock_title import DockTitleBar

LAYOUT_STATE_VERSION = layouts.LAYOUT_VERSION
REBUILD_DELAY_MS = 400
AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "bottom": Qt.DockWidgetArea.BottomDockWidgetArea,
    "top": Qt.DockWidgetArea.TopDockWidgetArea,
}


def make_viewport(force_placeholder: bool = False) -> tuple[QWidget, object | None]:
    """The real viewport when OpenGL can be used, else a placeholder saying why."""
    reason = "disabled"
    if not force_placeholder:
        try:
            from luncosim_workbench.viewport import ViewportWidget

            if not ViewportWidget.can_draw():
                raise RuntimeError("the Qt platform has no OpenGL (offscreen)")
            vp = ViewportWidget()
            return vp, vp
        except Exception as exc:  # no GL, no vispy backend: the rest of the workbench still works
            reason = f"{type(exc).__name__}: {exc}"
    label = QLabel(f"3D viewport unavailable\n\n{reason}\n\nPanels, simulation and plots still work.")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setObjectName("viewportPlaceholder")
    label.setStyleSheet("background: #20242a; color: #c8ccd2; font-size: 14px")
    return label, None


class _StillTabBars(QProxyStyle):
    """The application's style, without the geometry animations Qt's dock layout moves its tab
    bars with (an animation that already ends at a bar's place makes the layout skip the bar,
    even after the bar was moved away)."""

    def styleHint(self, hint, option=None, widget=None, data=None):  # noqa: N802 - Qt naming
        if hint == QStyle.StyleHint.SH_Widget_Animation_Duration:
            return 0
        return super().styleHint(hint, option, widget, data)


class MainWindow(QMainWindow):
    def __init__(self, *, settings: Path | None = None, viewport: bool = True, frame_hz: float = 30.0,
                 panels: tuple[PanelSpec, ...] | None = None) -> None:
        super().__init__()
        gc_guard.install()
        self.settings = Path(settings) if settings else layouts.settings_dir()
        self.preferences = layouts.load_preferences(self.settings)
        self.theme = self.preferences.get("theme") if self.preferences.get("theme") in resources.THEMES else resources.DEFAULT_THEME
        app = QApplication.instance()
        if app is not None:
            resources.apply_theme(app, self.theme)
        self.setWindowTitle("LunCoSim Workbench")
        self.setWindowIcon(resources.app_icon())
        self.resize(1600, 1000)
        self.session = Session()
        self.bridge = SimBridge(self, frame_hz=frame_hz)
        # answers "save", "discard" or "cancel" when unsaved edits would be lost (tests replace it)
        self.ask_unsaved: Callable[[str], str] = self._ask_unsaved_dialog
        self.perspective = layouts.DEFAULT_PERSPECTIVE
        self.layout_message = ""
        self.central, self.viewport = make_viewport(force_placeholder=not viewport)
        # the mission overlay is on from the start: it draws only while a mission publishes
        self.overlays_on: set[str] = {"mission"} if self.viewport is not None else set()
        self.mission_drawing = None  # the newest drawing a panel published (ctx.show_mission)
        self._source_views: list[QWidget] = []  # open source views (kept alive while shown)
        self._closed = False
        self._building = ""  # why the projection is being (re)built, until its first frame arrives
        self._building_since = 0.0
        self._was_ready = False
        self._port_catalog = None  # units, directions and wires of the ports (the Labels overlay)
        self._catalog_futures: tuple | None = None
        self._labels_shown: dict[str, str] = {}
        self._still_style = None  # the style of the dock tab bars (see _park_stale_tab_bars)
        self.api = None  # the HTTP API server over this window's simulation (View > API Server)
        self.setCentralWidget(self.central)
        self.ctx = PanelContext(self.session, self.bridge, notify=self.notify, open_location=self.open_location,
                                open_path=self.open_path, show_mission=self.show_mission,
                                focus_point=self.focus_point, parent=self)
        self.specs = panels if panels is not None else discover_panels()
        self.docks: dict[str, QDockWidget] = {}
        self.panels: dict[str, PanelWidget] = {}
        for spec in self.specs:
            self._add_panel(spec)
        self._build_actions()
        self._build_status()
        self._rebuild_timer = QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(REBUILD_DELAY_MS)
        self._rebuild_timer.timeout.connect(self._rebuild_projection)
        self._mirrors: list = []  # futures of edits mirrored into the running simulation
        self._mirror_timer = QTimer(self)
        self._mirror_timer.setInterval(100)
        self._mirror_timer.timeout.connect(self._check_mirrors)
        self._building_timer = QTimer(self)
        self._building_timer.setInterval(250)
        self._building_timer.timeout.connect(self._on_building_timer)
        self._catalog_timer = QTimer(self)
        self._catalog_timer.setInterval(50)
        self._catalog_timer.timeout.connect(self._check_port_catalog)
        self.bridge.frame.connect(self._on_frame)
        self.bridge.projectionRestarted.connect(self._on_projection_restarted)
        self.bridge.simulationStopped.connect(self._on_simulation_stopped)
        self.bridge.simulationUnresponsive.connect(self._on_simulation_unresponsive)
        self.bridge.speedChanged.connect(self._on_speed_changed)
        self.session.selection.changed.connect(self._on_selection)
        self.session.document_replaced.connect(self._on_document)
        if self.viewport is not None:
            self.viewport.primClicked.connect(lambda p: self.session.selection.set([p] if p else []))
            self.viewport.transformPreview.connect(self._preview_transform)
            self.viewport.transformDragged.connect(self._commit_transform)
            self.viewport.manipulatorMessage.connect(self.notify)
            self.viewport.assetDropped.connect(self.drop_asset)
            self.bridge.debugInfo.connect(self.viewport.set_debug_info)
        self.restore_layout()
        self.refresh_actions()
        gc_guard.install().freeze()  # the built window is long-lived: keep it out of UI-thread collections

    # ------------------------------------------------------------------ panels
    def _add_panel(self, spec: PanelSpec) -> None:
        widget = spec.factory(self.ctx)
        dock = QDockWidget(spec.title, self)
        dock.setObjectName(f"dock_{spec.id}")
        dock.setWidget(widget)
        dock.setTitleBarWidget(DockTitleBar(dock, spec.icon))
        if spec.icon:
            dock.setWindowIcon(resources.icon(spec.icon))
        self.addDockWidget(AREAS[spec.area], dock)
        handlers = {"events": (self.ctx.events, widget.on_events),
                    "selection": (self.session.selection.changed, widget.on_selection)}
        for name in spec.subscribes:
            if name == "frames":  # one panel per event-loop turn (see SimBridge.add_frame_consumer)
                self.bridge.add_frame_consumer(widget.on_frame)
                continue
            signal, slot = handlers[name]
            signal.connect(slot)
        self.docks[spec.id] = dock
        self.panels[spec.id] = widget

    # ------------------------------------------------------------------ actions and menus
    def _build_actions(self) -> None:
        from luncosim_workbench.viewport import OVERLAY_NAMES

        registry = ActionRegistry()
        registry.add_menus(MENUS)
        registry.register(shell_actions(OVERLAY_NAMES))
        for spec in self.specs:
            registry.register(spec.actions, owner=spec.id)
        self.registry = registry
        self.qt_actions = QtActions(registry, self, lambda owner: self if owner == "shell" else self.panels[owner],
                                    resources.icon)
        self.qt_actions.fill_menu_bar(self.menuBar())
        self.recent_menu = self.qt_actions.menus["file/recent"]
        self._fill_recent()
        panels_menu = self.qt_actions.menus["view/panels"]
        for spec in self.specs:
            toggle = self.docks[spec.id].toggleViewAction()
            toggle.setText(spec.title)
            if spec.icon:
                toggle.setIcon(resources.icon(spec.icon))
            panels_menu.addAction(toggle)
        main = QToolBar("Main", self)
        main.setObjectName("main_toolbar")
        self.qt_actions.fill_toolbar(main, "main")
        self.addToolBar(main)
        self.transport = TransportBar(self)
        self.qt_actions.fill_toolbar(self.transport, "transport")
        self.transport.add_readouts()
        self.transport.speed.currentTextChanged.connect(self.set_speed)
        self.addToolBar(self.transport)

    def action(self, action_id: str) -> QAction:
        """The QAction of a registered action id (``file.save``, ``plots.export_csv`` ...)."""
        return self.qt_actions[action_id]

    def context(self) -> dict:
        """The context the registry's enablement and check expressions read."""
        doc = self.session.document
        j = doc.journal if doc else None
        ctx = {
            "document": doc is not None, "saveable": doc is not None and not self.session.preview,
            "can_undo": bool(j and j.can_undo), "can_redo": bool(j and j.can_redo),
            "undo_label": j.undo_label() if j and j.can_undo else "",
            "redo_label": j.redo_label() if j and j.can_redo else "",
            "selection": bool(self.session.selection.paths), "simulation": self.bridge.worker is not None,
            "ready": self.simulation_ready(),
            "viewport": self.viewport is not None, "perspective": self.perspective, "theme": self.theme,
            "speed": self.bridge.speed_name, "api_server": self.api is not None,
        }
        ctx.update({f"overlay.{name}": True for name in self.overlays_on})
        return ctx

    def refresh_actions(self) -> None:
        self.qt_actions.refresh(self.context())

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = layouts.load_recent(self.settings)
        for path in recent:
            act = self.recent_menu.addAction(path)
            act.triggered.connect(lambda _c=False, p=path: self.open_path(p))
        self.recent_menu.setEnabled(bool(recent))

    def all_actions(self) -> list[QAction]:
        return list(self.qt_actions) + [d.toggleViewAction() for d in self.docks.values()]

    def show_palette(self) -> CommandPalette:
        dlg = CommandPalette(self.all_actions(), self)
        dlg.setModal(True)
        dlg.show()
        dlg.search.setFocus()
        self._palette = dlg
        return dlg

    def set_theme(self, key: str) -> None:
        """Switch to the light or dark theme (remembered in the settings folder)."""
        resources.apply_theme(QApplication.instance(), key)
        self.theme = key
        self.preferences["theme"] = key
        self._write_settings(layouts.save_preferences, self.settings, self.preferences)
        self.qt_actions.set_icons(resources.icon)
        for spec in self.specs:
            dock = self.docks[spec.id]
            dock.titleBarWidget().refresh_icons()
            if spec.icon:
                dock.toggleViewAction().setIcon(resources.icon(spec.icon))
            self.panels[spec.id].on_theme_changed()
        self.refresh_actions()

    # ------------------------------------------------------------------ status bar
    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_labels: dict[str, QLabel] = {}
        for key, width in (("scene", 220), ("time", 110), ("tick", 90), ("rtf", 90), ("selection", 220), ("fps", 70), ("reason", 260)):
            if key == "reason":  # busy while the simulation builds or waits (a compile)
                self.status_busy = QProgressBar()
                self.status_busy.setRange(0, 0)
                self.status_busy.setMaximumSize(70, 12)
                self.status_busy.setTextVisible(False)
                self.status_busy.hide()
                sb.addPermanentWidget(self.status_busy)
            if key in ("scene", "selection", "reason"):  # long texts elide instead of pushing the others
                lab = QElidingLabel("")
                lab.setMinimumWidth(width)
            else:
                lab = QLabel("")
                lab.setMinimumWidth(width // 2)
            sb.addPermanentWidget(lab)
            self.status_labels[key] = lab
        self._update_status(None)

    def notify(self, text: str) -> None:
        self.statusBar().showMessage(text, 6000)

    def simulation_ready(self) -> bool:
        """True when the open scene's simulation is built and admits ticks: it has sent its
        first snapshot since it was (re)built and is neither waiting (a model compiling) nor
        faulted. Play and Step are enabled only then (context key ``ready``)."""
        snap = self.bridge.latest
        return (self.bridge.worker is not None and not self._building and snap is not None
                and snap.status in ("running", "paused"))

    def _status_reason(self, snap: WorkbenchSnapshot | None) -> tuple[str, bool]:
        """The status bar's state text and whether the simulation is busy getting ready."""
        if self._building:
            error = getattr(self.bridge.worker, "build_error", None) if self.bridge.worker is not None else None
            if error is not None:
                return f"faulted: {error.message}", False
            return f"building the simulation… {time.perf_counter() - self._building_since:.1f} s ({self._building})", True
        if snap is None:
            return ("building the simulation…", True) if self.bridge.worker is not None else ("", False)
        if snap.status in ("waiting", "faulted") and snap.reason:
            return f"{snap.status}: {snap.reason}", snap.status == "waiting"
        return snap.status, False

    def _update_status(self, snap: WorkbenchSnapshot | None) -> None:
        s = self.status_labels
        scene = self.session.scene
        s["scene"].setText(f"scene: {scene.name if scene else '—'}{' (preview)' if self.session.preview else ''}"
                           f"{' *' if self.session.document and self.session.document.dirty else ''}")
        sel = self.session.selection.paths
        s["selection"].setText(f"selected: {sel[-1] if len(sel) == 1 else (f'{len(sel)} prims' if sel else '—')}")
        s["fps"].setText(f"{self.bridge.fps:.0f} fps")
        reason, busy = self._status_reason(snap)
        s["reason"].setText(reason)
        s["reason"].setToolTip(reason)
        s["reason"].setStyleSheet("color: #c0392b" if reason.startswith("faulted") else "")
        self.status_busy.setVisible(busy)
        if snap is None:
            s["time"].setText("t = —")
            s["tick"].setText("tick —")
            s["rtf"].setText("RTF —")
            return
        s["time"].setText(f"t = {snap.time:.3f} s")
        s["tick"].setText(f"tick {snap.tick}")
        s["rtf"].setText(f"RTF {snap.real_time_factor:.2f}")

    def _on_projection_restarted(self, reason: str) -> None:
        """The simulation is being (re)built: "building…" until its first snapshot; Play waits."""
        self._building = reason
        self._building_since = time.perf_counter()
        self._port_catalog = None  # another projection: its ports and wires are asked again
        self._building_timer.start()
        self._update_status(None)
        self._refresh_ready()

    def _on_building_timer(self) -> None:
        if not self._building or self.bridge.worker is None:
            self._building_timer.stop()
            return
        self._update_status(None)
        if getattr(self.bridge.worker, "build_error", None) is not None:  # it will send no snapshot
            self._building_timer.stop()

    def _refresh_ready(self) -> None:
        ready = self.simulation_ready()
        if ready != self._was_ready:
            self._was_ready = ready
            self.refresh_actions()

    # ------------------------------------------------------------------ frames
    def _on_frame(self, snap: WorkbenchSnapshot) -> None:
        if self._building:  # the (re)built projection's first snapshot
            self._building = ""
            self._building_timer.stop()
        if self.viewport is not None and len(snap.body_paths):
            try:
                self.viewport.set_body_poses(snap.body_paths, snap.positions, snap.orientations)
            except Exception as exc:
                self.notify(f"viewport: {exc}")
        self.transport.show_snapshot(snap)
        self._update_status(snap)
        self._refresh_ready()
        self._update_labels(snap)

    def set_overlay(self, name: str, on: bool) -> None:
        """Toggle a viewport overlay; while any is on, physics debug records follow the frames."""
        if self.viewport is None:
            return
        self.viewport.set_overlay(name, on)
        if on:
            self.overlays_on.add(name)
        else:
            self.overlays_on.discard(name)
        self.bridge.set_debug_stream(bool(self.overlays_on - {"mission", "labels"}))
        if name == "labels":
            self._update_labels()
        self.refresh_actions()

    # ------------------------------------------------------------------ the Labels overlay
    def _update_labels(self, snap: WorkbenchSnapshot | None = None) -> None:
        """While the Labels overlay is on: the selected prims (else the ports feeding wires)
        labelled with their live values from the newest snapshot (``viewport.model.port_labels``).
        Called on every frame, selection change and when the port list arrives."""
        if self.viewport is None:
            return
        if "labels" not in self.overlays_on:
            if self._labels_shown:
                self._labels_shown = {}
                self.viewport.set_labels({})
            return
        from luncosim_workbench.viewport.model.port_labels import port_labels

        snap = snap if snap is not None else self.bridge.latest
        labels: dict[str, str] = {}
        if snap is not None:
            cat = self._port_catalog
            if cat is None or cat["keys"] != snap.port_keys:
                self._request_port_catalog(snap.port_keys)
            cat = cat or {}
            labels = port_labels(snap.port_keys, snap.port_values, selection=self.session.selection.paths,
                                 units=cat.get("units"), directions=cat.get("directions"),
                                 wired=cat.get("wired", ()), wire_sources=cat.get("sources", ()),
                                 is_drawn=self.viewport.model.draws)
        if labels != self._labels_shown:
            self._labels_shown = labels
            self.viewport.set_labels(labels)

    def _request_port_catalog(self, keys: tuple[str, ...]) -> None:
        """Ask the simulation for its ports (units, directions) and wires, once per port list."""
        from luncosim_core.api.commands import ListConnections, ListPorts

        if self._catalog_futures is not None or self.bridge.worker is None:
            return
        self._catalog_futures = (keys, self.bridge.query(ListPorts()), self.bridge.query(ListConnections()))
        self._catalog_timer.start()

    def _check_port_catalog(self) -> None:
        from luncosim_workbench.viewport.model.port_labels import wire_end_key

        if self._catalog_futures is None:
            self._catalog_timer.stop()
            return
        keys, ports, wires = self._catalog_futures
        if not (ports.done() and wires.done()):
            return
        self._catalog_timer.stop()
        self._catalog_futures = None
        ports, wires = ports.result(), wires.result()
        if not (ports.ok and wires.ok):
            return
        infos = {f"{p['prim']}.{p['name']}": p for p in ports.value}
        valid = [w for w in wires.value if not w.get("broken")]
        sources = {wire_end_key(w["source"]) for w in valid}
        self._port_catalog = {"keys": keys, "units": {k: p.get("unit", "") for k, p in infos.items()},
                              "directions": {k: p.get("direction", "") for k, p in infos.items()},
                              "sources": sources, "wired": sources | {wire_end_key(w["sink"]) for w in valid}}
        self._update_labels()

    def show_mission(self, drawing) -> None:
        """A panel's mission drawing (plain data) for the viewport's mission overlay."""
        self.mission_drawing = drawing
        if self.viewport is not None:
            try:
                self.viewport.set_mission(drawing)
            except ValueError as exc:  # poses of a stage the viewport no longer shows
                self.notify(f"viewport: {exc}")

    def _on_selection(self, _added: tuple, _removed: tuple) -> None:
        if self.viewport is not None:
            self.viewport.set_selection(list(self.session.selection.paths))
            self._update_labels()
        self._update_status(self.bridge.latest)
        self.refresh_actions()

    # ------------------------------------------------------------------ opening and saving
    def ask_open_twin(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open twin folder")
        if folder:
            self.open_path(folder)

    def ask_open_scene(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scene", "", "USD (*.usda *.usd *.usdc)")
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, preview: str | Path | None = None) -> bool:
        """Open a twin folder, a scene or a preview; asks first when edits are unsaved."""
        if not self.confirm_inline_sources("opening another scene") or not self.confirm_discard("opening another scene"):
            return False
        old = self.session.document
        if old is not None:
            old.changed.disconnect(self._on_document_changed)
        try:
            result = self.session.open(path, preview=preview)
        except DiagnosticError as exc:
            if old is not None and self.session.document is old:  # still open: keep following its edits
                old.changed.connect(self._on_document_changed)
            msg = "; ".join(str(d) for d in exc.diagnostics)
            self.notify(f"Cannot open {path}: {msg}")
            self.session.log(f"cannot open {path}: {msg}")
            QMessageBox.warning(self, "Cannot open", msg) if self.isVisible() else None
            return False
        if not preview and result.twin is not None:
            self._write_settings(layouts.add_recent, self.settings,
                                 str(result.twin.root if Path(path).is_dir() else Path(path).resolve()))
            self._fill_recent()
        what = f"preview of {result.scene}" if result.preview else (str(result.scene) if result.scene else result.reason)
        self.session.log(f"opened {result.twin.name}: {what}")
        return True

    def _on_document(self, doc) -> None:
        if doc is not None:
            try:
                doc.changed.disconnect(self._on_document_changed)
            except (TypeError, ValueError):
                pass
            doc.changed.connect(self._on_document_changed)
        if self.viewport is not None and doc is not None:
            self._refresh_viewport_stage()
        self.bridge.load(doc, "scene opened" if doc is not None else "no scene")
        self._update_title()
        self._update_status(None)
        self.refresh_actions()
        if doc is not None:
            self.bridge.telemetry.clear()

    def _on_document_changed(self, op) -> None:
        self._port_catalog = None  # an edit may add ports or wires: the Labels overlay asks again
        self._update_title()
        self.refresh_actions()
        self.session.diagnostics_changed.emit()  # lint follows the edit
        if self.bridge.worker is not None:
            # applied between ticks on the simulation's copy (the op, or a fresh flattened copy for
            # structural edits and undo/redo): the clock and the motion carry on
            self._mirrors.append(self.bridge.send(edit_command(self.session.document.stage, op)))
            self._mirror_timer.start()
        else:
            self._rebuild_timer.start()
        if self.viewport is not None:
            self._update_viewport_prims(op)

    def _update_viewport_prims(self, op) -> None:
        """Redraw what an edit touched (a full reload, which re-frames the camera, only when the
        edit reaches the root)."""
        from pxr import Sdf

        paths = {str(Sdf.Path(p).GetPrimPath()) for p in touched_paths(op) if Sdf.Path.IsValidPathString(p)}
        if not paths or "/" in paths:
            self._refresh_viewport_stage()
            return
        try:
            self.viewport.update_prims(sorted(paths))
        except Exception as exc:
            self.notify(f"viewport could not show the edit: {exc}")

    # ------------------------------------------------------------------ the transform gizmo
    _GIZMO_ATTRS = {"translate": "xformOp:translate", "rotate": "xformOp:rotateXYZ", "scale": "xformOp:scale"}

    def _preview_transform(self, path: str, kind: str, value: tuple) -> None:
        """While dragging: the moved prim shows through the view layer (never saved, never journaled)."""
        from luncosim_core.usd.ops import insert_xform_op

        doc = self.session.document
        prim = doc.stage.GetPrimAtPath(path) if doc is not None else None
        if not prim or (kind == "scale" and self._is_rigid_body(prim)):
            return
        attr = self._GIZMO_ATTRS[kind]
        existing = prim.GetAttribute(attr)
        doc.set_view(path, attr, value, str(existing.GetTypeName()) if existing else "double3")
        order = list(prim.GetAttribute("xformOpOrder").Get() or []) if prim.GetAttribute("xformOpOrder") else []
        if attr not in order:
            insert_xform_op(order, attr)  # where SetTransform will put it
            doc.set_view(path, "xformOpOrder", order, "token[]")
        self.viewport.update_prims([path])

    @staticmethod
    def _is_rigid_body(prim) -> bool:
        return "PhysicsRigidBodyAPI" in prim.GetAppliedSchemas()

    def _commit_transform(self, path: str, kind: str, value: tuple) -> None:
        """The drag ended: one SetTransform op by the user (the preview is dropped first). A
        rigid body's scale is refused: it is not a physics property to drag."""
        from luncosim_core.usd.ops import OpError, SetTransform

        doc = self.session.document
        if doc is None:
            return
        doc.clear_view(path, (*self._GIZMO_ATTRS.values(), "xformOpOrder"))
        prim = doc.stage.GetPrimAtPath(path)
        if kind == "scale" and prim and self._is_rigid_body(prim):
            self.notify(f"not scaled: {path} is a rigid body (scale the shapes under it instead)")
            self.viewport.update_prims([path])
            return
        field = {"translate": "translate", "rotate": "rotate_xyz", "scale": "scale"}[kind]
        try:
            doc.apply(SetTransform(path=path, **{field: value}), author="user")
        except OpError as exc:
            self.notify("; ".join(d.message for d in exc.diagnostics))
            self.viewport.update_prims([path])

    # ------------------------------------------------------------------ placing assets
    def focus_point(self, in_frame_of: str | None = None) -> tuple[float, float, float] | None:
        """The viewport's focus point (its orbit centre on the ground plane) in stage axes and
        units, or in the frame of the prim ``in_frame_of`` (what ``at=`` of the Create recipes
        takes for a child of it); None without a viewport or a scene."""
        if self.viewport is None or self.session.document is None:
            return None
        return self._in_frame_of(self.viewport.focus_point(), in_frame_of)

    def _in_frame_of(self, point: tuple, prim_path: str | None) -> tuple[float, float, float]:
        from pxr import Gf, UsdGeom

        prim = self.session.document.stage.GetPrimAtPath(prim_path) if prim_path and prim_path != "/" else None
        if not prim:
            return tuple(float(v) for v in point)
        to_local = UsdGeom.XformCache().GetLocalToWorldTransform(prim).GetInverse()
        local = to_local.Transform(Gf.Vec3d(*point))
        return float(local[0]), float(local[1]), float(local[2])

    def create_parent(self) -> str:
        """Where a placed asset goes (the Create menu's rule): the selected Xform or Scope, else
        the selection's parent, else the default prim, else the root."""
        from pxr import Sdf

        stage = self.session.document.stage
        current = self.session.selection.current
        prim = stage.GetPrimAtPath(current) if current and Sdf.Path.IsValidPathString(current) else None
        if prim:
            return current if prim.GetTypeName() in ("Xform", "Scope", "") else str(prim.GetParent().GetPath())
        default = stage.GetDefaultPrim()
        return str(default.GetPath()) if default else "/"

    def drop_asset(self, asset: str, point: tuple) -> str | None:
        """An asset dropped on the viewport: an Xform referencing it, placed (xformOp:translate)
        where it was dropped, under :meth:`create_parent`; one undo step by the user. A file in
        the shared library is named by its ``lunco://`` URI, one in the twin relative to the
        scene (as the Assembly panel names it). Returns the new prim's path (selected)."""
        from luncosim_core.usd.create import create_reference
        from luncosim_workbench.asset_names import asset_reference

        doc = self.session.document
        if doc is None:
            self.notify("Open a scene first")
            return None
        uri = asset if asset.startswith(("lunco://", "twin://")) else asset_reference(doc, Path(asset))
        try:
            parent = self.create_parent()
            batch = create_reference(doc.stage, parent, uri, at=self._in_frame_of(point, parent))
            self.ctx.apply(batch, author="user")
        except DiagnosticError as exc:
            self.notify("; ".join(d.message for d in exc.diagnostics))
            return None
        path = batch.ops[0].path
        self.session.selection.set([path])
        self.notify(f"added {uri} as {path} at ({', '.join(f'{v:.2f}' for v in point)})")
        return path

    def _check_mirrors(self) -> None:
        """A mirrored edit the simulation could not apply falls back to a full re-projection."""
        done = [f for f in self._mirrors if f.done()]
        self._mirrors = [f for f in self._mirrors if not f.done()]
        if not self._mirrors:
            self._mirror_timer.stop()
        # a mirror dropped by a rebuild is in the rebuilt projection already; a crash is reported apart
        failed = [f for f in done if not f.result().ok
                  and not any(d.code in ("command-dropped", "simulation-stopped") for d in f.result().diagnostics)]
        if failed:
            self.session.log("the simulation could not apply the edit in place; restarting the projection")
            self._rebuild_timer.start()

    def _refresh_viewport_stage(self) -> None:
        try:
            self.viewport.set_stage(self.session.document.stage)
        except Exception as exc:
            self.notify(f"viewport could not show the stage: {exc}")

    def _rebuild_projection(self) -> None:
        doc = self.session.document
        if doc is None or self._closed:
            return
        if self.viewport is not None:
            self._refresh_viewport_stage()
        self.bridge.load(doc, "the document was edited")
        self.notify("Document edited: the simulation projection was rebuilt (back to tick 0)")

    def _update_title(self) -> None:
        doc = self.session.document
        name = self.session.twin.name if self.session.twin else ""
        scene = self.session.scene.name if self.session.scene else ""
        self.setWindowTitle(f"{scene or name}[*] — {name} — LunCoSim Workbench" if name else "LunCoSim Workbench[*]")
        self.setWindowModified(bool(doc is not None and doc.dirty))

    def undo(self) -> None:
        doc = self.session.document
        if doc is not None and doc.undo():
            self.notify("Undone")

    def redo(self) -> None:
        doc = self.session.document
        if doc is not None and doc.redo():
            self.notify("Redone")

    def save(self) -> bool:
        doc = self.session.document
        if doc is None or self.session.preview:
            self.notify("Nothing to save (a preview is never saved)")
            return False
        try:
            doc.save()
        except ExternalChangeConflict as exc:
            msg = "; ".join(d.message for d in exc.diagnostics)
            self.notify(msg)
            if self.isVisible() and QMessageBox.question(self, "File changed on disk", msg + "\n\nOverwrite it?") == QMessageBox.StandardButton.Yes:
                doc.save(overwrite_external=True)
            else:
                return False
        self._update_title()
        self.notify(f"Saved {doc.path}")
        self.session.log(f"saved {doc.path}")
        return True

    def reload(self) -> None:
        if self.session.document is None or not self.confirm_inline_sources("reloading") or \
                not self.confirm_discard("reloading"):
            return
        self.session.reload()

    def open_location(self, path: str, line: int = 0) -> QWidget | None:
        """Show a file at a line: sources in a read-only source view, anything else in the
        system's application for it. Returns the source view when one opened."""
        from luncosim_workbench.widgets.source_view import SourceView, can_show

        self.session.log(f"open {path}" + (f":{line}" if line else ""))
        editor = self.panels.get("editor")
        if editor is not None and Path(path).suffix in (".mo", ".rhai") and (
                Path(path).is_file() or isinstance(self.session.documents.get(path), TextDocument)):  # or inline
            self.docks["editor"].show()
            self.docks["editor"].raise_()
            return editor.open_file(path, line)
        if can_show(path):
            view = SourceView(path, line, self)
            view.show()
            self._source_views = [v for v in self._source_views if v.isVisible()] + [view]
            return view
        QDesktopServices.openUrl(QUrl.fromLocalFile(path))
        return None

    # ------------------------------------------------------------------ unsaved edits
    def _ask_unsaved_dialog(self, why: str) -> str:
        box = QMessageBox(self)
        box.setWindowTitle("Unsaved edits")
        box.setText(f"The scene has unsaved edits. Save them before {why}?")
        box.setStandardButtons(QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                               | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            QMessageBox.StandardButton(answer), "cancel")

    def confirm_discard(self, why: str) -> bool:
        """True when it is fine to drop the document (saved, clean, or the user said discard)."""
        doc = self.session.document
        if doc is None or not doc.dirty:
            return True
        answer = self.ask_unsaved(why)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def confirm_inline_sources(self, why: str) -> bool:
        """Open inline sources (``info:sourceCode``) with unsaved edits: save (into the scene, so
        asked before the scene is), discard or cancel."""
        for doc in list(self.session.documents):
            if not isinstance(doc, InlineSourceDocument) or not doc.dirty:
                continue
            answer = self.ask_unsaved(f"{why} ({doc.prim_path}.info:sourceCode has unsaved edits)")
            if answer == "cancel":
                return False
            if answer == "save":
                try:
                    doc.save(overwrite_external=True)
                except DiagnosticError as exc:
                    self.notify("; ".join(d.message for d in exc.diagnostics))
                    return False
        return True

    def confirm_text_documents(self, why: str) -> bool:
        """Every open text document (.mo, .rhai) with unsaved edits: save, discard or cancel."""
        for doc in list(self.session.documents):
            if doc is self.session.document or isinstance(doc, InlineSourceDocument) or not getattr(doc, "dirty", False):
                continue
            answer = self.ask_unsaved(f"{why} ({Path(doc.path).name} has unsaved edits)")
            if answer == "cancel":
                return False
            if answer == "save":
                try:
                    doc.save()
                except DiagnosticError as exc:
                    self.notify("; ".join(d.message for d in exc.diagnostics))
                    return False
        return True

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.confirm_inline_sources("closing") or not self.confirm_discard("closing") or \
                not self.confirm_text_documents("closing"):
            event.ignore()
            return
        try:
            self._write_settings(self.save_layout)
        finally:
            self.shutdown()  # always: an unwritable settings folder never skips it
        event.accept()

    def _write_settings(self, write, *args) -> None:
        """Write a settings file; a settings folder that cannot take it is a message, not a crash."""
        try:
            write(*args)
        except layouts.SettingsUnwritable as exc:
            self.layout_message = f"settings not saved: {exc}"
            self.session.log(self.layout_message)

    def toggle_api_server(self) -> None:
        """Serve the open scene over HTTP (luncosim_workbench/api_server.py), or stop serving."""
        from luncosim_workbench.api_server import WorkbenchApi

        if self.api is not None:
            self.api.close()
            self.api = None
            self.session.log("API server stopped")
        else:
            self.api = WorkbenchApi(self.bridge, self.ctx.apply)
            self.session.log(f"API server: listening on {self.api.url}")
            self.session.log(f"API server: token: {self.api.token} (also in {self.api.token_file})")
        self.refresh_actions()

    def shutdown(self) -> None:
        """Stop the simulation thread and every timer that could start it again."""
        self._closed = True
        if self.api is not None:
            self.api.close()
            self.api = None
        self._rebuild_timer.stop()
        self.bridge.timer.stop()
        self.bridge.shutdown()
        for widget in self.panels.values():
            widget.close_panel()

    # ------------------------------------------------------------------ transport
    def play(self) -> None:
        self.bridge.play()
        self.session.log("play")

    def pause(self) -> None:
        self.bridge.pause()
        self.session.log("pause")

    def step(self, ticks: int = 1) -> None:
        self.bridge.step(ticks)

    def toggle_play(self) -> None:
        snap = self.bridge.latest
        if self.bridge.running or (snap is not None and snap.status == "running"):
            self.pause()
        elif self.simulation_ready():
            self.play()
        else:
            self.notify(f"not ready to play: {self._status_reason(snap)[0] or 'no simulation'}")

    def restart_simulation(self) -> None:
        """A new sim server for the open document (kills one that stopped answering)."""
        self.bridge.restart(self.session.document)
        self.session.log("simulation restarted")
        self.refresh_actions()

    def _on_simulation_stopped(self, reason: str) -> None:
        self._building = ""
        self._building_timer.stop()
        self._update_status(self.bridge.latest)
        self.notify(f"simulation stopped: {reason} (Simulation > Restart Simulation)")
        self.session.log(f"simulation stopped: {reason}")
        self.refresh_actions()

    def _on_simulation_unresponsive(self, seconds: float) -> None:
        message = (f"simulation not answering for {seconds:.0f} s "
                   "(Simulation > Restart Simulation stops it and starts a new one)")
        self.statusBar().showMessage(message)  # stays until the next message: it is not transient
        self.session.log(message)

    def _on_speed_changed(self, name: str) -> None:
        """The bridge's speed changed (the API set one): the speed box follows, naming new ones."""
        box = self.transport.speed
        if box.findText(name) < 0:
            box.addItem(name)
        if box.currentText() != name:
            box.blockSignals(True)
            box.setCurrentText(name)
            box.blockSignals(False)

    def reset(self) -> None:
        self.bridge.reset()
        self.session.log("reset to tick 0")

    def set_speed(self, name: str) -> None:
        self.bridge.set_speed(name)
        if self.transport.speed.currentText() != name:
            self.transport.speed.setCurrentText(name)
        self.refresh_actions()

    def fit_view(self) -> None:
        """Frame the selection; with nothing selected, the moving bodies (Home frames everything)."""
        if self.viewport is None:
            return
        if self.session.selection.paths:
            self.viewport.fit_selection()
        else:
            self.viewport.fit_scene()

    # ------------------------------------------------------------------ perspectives and layout
    def apply_perspective(self, name: str) -> None:
        """Reshape the docks to a named perspective (Build, Simulate, Debug): each panel's plugin
        says where it sits there; a panel the perspective does not mention is hidden."""
        if name not in layouts.PERSPECTIVES:
            raise KeyError(f"unknown perspective {name!r}; known: {', '.join(layouts.PERSPECTIVES)}")
        for dock in self.docks.values():
            self.removeDockWidget(dock)
        groups: dict[tuple[str, int], list[QDockWidget]] = {}
        for spec in self.specs:
            dock = self.docks[spec.id]
            place = spec.perspectives.get(name)
            area = place.area if place else spec.area
            self.addDockWidget(AREAS[area], dock)
            if place is not None:
                groups.setdefault((area, place.group), []).append(dock)
            dock.setVisible(bool(place and place.visible))
        for docks in groups.values():
            visible = [d for d in docks if not d.isHidden()]
            for other in visible[1:]:
                self.tabifyDockWidget(visible[0], other)
            if visible:
                visible[0].raise_()
        self._size_docks(groups)
        self._park_stale_tab_bars()
        self.perspective = name
        self.refresh_actions()

    _PARKED = QRect(-32000, -32000, 1, 1)

    def _park_stale_tab_bars(self) -> None:
        """Move the tab bars of tab groups that no longer exist off screen.

        Re-arranging docks makes Qt (6.11) start a new tab bar for each new tab group and leave
        the old one where it was, titles and all, so each perspective switch stacked another bar
        over the docks. The dock layout places every tab bar it uses whenever it lays out: park
        them all off screen and lay out once; what the layout did not place stays parked. (Not
        hidden: Qt may hand a parked bar to a later tab group and then only moves it.)"""
        bars = [b for b in self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
                if not b.isHidden()]
        if self._still_style is None:
            self._still_style = _StillTabBars(QStyleFactory.create(QApplication.style().name()))
            self._still_style.setParent(self)
        for bar in bars:
            for anim in bar.findChildren(QPropertyAnimation, options=Qt.FindChildOption.FindDirectChildrenOnly):
                if anim.state() == QAbstractAnimation.State.Running:  # a move already under way ends now
                    anim.setCurrentTime(anim.totalDuration())
            if not bar.property("stillStyle"):
                bar.setStyle(self._still_style)  # (wrapped in the theme's style sheet)
                bar.setProperty("stillStyle", True)
            bar.setGeometry(self._PARKED)
        layout = self.layout()
        layout.invalidate()
        layout.setGeometry(layout.geometry() if layout.geometry().isValid() else self.rect())

    def _size_docks(self, groups: dict[tuple[str, int], list[QDockWidget]]) -> None:
        bottoms = [d for d in self.docks.values() if self.dockWidgetArea(d) == AREAS["bottom"] and not d.isHidden()]
        if bottoms:
            self.resizeDocks(bottoms[:1], [int(self.height() * 0.3)], Qt.Orientation.Vertical)
        columns = [docks[0] for (area, _g), docks in sorted(groups.items(), key=lambda kv: kv[0][1])
                   if area == "bottom" and not docks[0].isHidden()]
        if len(columns) == 2:  # a wide plot beside a narrower console or diagnostics table
            self.resizeDocks(columns, [int(self.width() * 0.6), int(self.width() * 0.4)], Qt.Orientation.Horizontal)
        sides = [d for d in self.docks.values() if self.dockWidgetArea(d) in (AREAS["left"], AREAS["right"]) and not d.isHidden()]
        if sides:
            self.resizeDocks(sides, [int(self.width() * 0.28)] * len(sides), Qt.Orientation.Horizontal)

    def visible_panels(self) -> set[str]:
        return {pid for pid, d in self.docks.items() if not d.isHidden()}

    def save_layout(self) -> Path:
        return layouts.save_layout(self.settings, self.perspective, bytes(self.saveGeometry().data()),
                                   bytes(self.saveState(LAYOUT_STATE_VERSION).data()))

    def restore_layout(self) -> bool:
        """Restore the saved layout; on any problem fall back to the default perspective."""
        try:
            saved = layouts.load_layout(self.settings)
        except layouts.LayoutError as exc:
            self.layout_message = f"saved layout ignored: {exc}"
            self.session.log(self.layout_message)
            self.apply_perspective(layouts.DEFAULT_PERSPECTIVE)
            return False
        if saved is None:
            self.apply_perspective(layouts.DEFAULT_PERSPECTIVE)
            return False
        self.apply_perspective(saved.perspective)
        self.restoreGeometry(QByteArray(saved.geometry))
        if not self.restoreState(QByteArray(saved.state), LAYOUT_STATE_VERSION):
            self.layout_message = "saved layout ignored: Qt could not restore the dock state"
            self.session.log(self.layout_message)
            self.apply_perspective(layouts.DEFAULT_PERSPECTIVE)
            return False
        self._park_stale_tab_bars()
        return True
