"""``MainWindow``: the 3D viewport in the centre, panels docked around it, menus, transport bar,
status bar, perspectives and the unsaved-edits guard."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStyle,
    QWidget,
)

from luncosim_core.api import ApplyOp
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.usd.document import ExternalChangeConflict
from luncosim_workbench import gc_guard
from luncosim_workbench import layout as layouts
from luncosim_workbench.bridge import SPEEDS, SimBridge
from luncosim_workbench.palette import CommandPalette
from luncosim_workbench.panels import AREAS, PANELS, PanelContext
from luncosim_workbench.session import Session
from luncosim_workbench.transport import TransportBar

LAYOUT_STATE_VERSION = layouts.LAYOUT_VERSION
REBUILD_DELAY_MS = 400


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


class MainWindow(QMainWindow):
    def __init__(self, *, settings: Path | None = None, viewport: bool = True, frame_hz: float = 30.0) -> None:
        super().__init__()
        gc_guard.install()
        self.settings = Path(settings) if settings else layouts.settings_dir()
        self.setWindowTitle("LunCoSim Workbench")
        self.resize(1600, 1000)
        self.session = Session()
        self.bridge = SimBridge(self, frame_hz=frame_hz)
        # answers "save", "discard" or "cancel" when unsaved edits would be lost (tests replace it)
        self.ask_unsaved: Callable[[str], str] = self._ask_unsaved_dialog
        self.perspective = layouts.DEFAULT_PERSPECTIVE
        self.layout_message = ""
        self.central, self.viewport = make_viewport(force_placeholder=not viewport)
        self.overlays_on: set[str] = set()
        self._closed = False
        self._debug_future = None
        self.setCentralWidget(self.central)
        self.ctx = PanelContext(self.session, self.bridge, notify=self.notify, open_location=self.open_location,
                                open_path=self.open_path)
        self.docks: dict[str, QDockWidget] = {}
        self.panels: dict[str, QWidget] = {}
        for spec in PANELS:
            widget = spec.factory(self.ctx)
            dock = QDockWidget(spec.title, self)
            dock.setObjectName(f"dock_{spec.id}")
            dock.setWidget(widget)
            self.addDockWidget(AREAS[spec.area], dock)
            self.docks[spec.id] = dock
            self.panels[spec.id] = widget
        self.ctx.panels = self.panels
        self.actions_by_id: dict[str, QAction] = {}
        self._build_actions()
        self._build_menus()
        self.transport = TransportBar(self.actions_by_id, self)
        self.transport.speed.currentTextChanged.connect(self.set_speed)
        self.addToolBar(self.transport)
        self._build_status()
        self._rebuild_timer = QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(REBUILD_DELAY_MS)
        self._rebuild_timer.timeout.connect(self._rebuild_projection)
        self._mirrors: list = []  # futures of edits mirrored into the running simulation
        self._mirror_timer = QTimer(self)
        self._mirror_timer.setInterval(100)
        self._mirror_timer.timeout.connect(self._check_mirrors)
        self.bridge.frame.connect(self._on_frame)
        self.bridge.projectionRestarted.connect(lambda why: self.session.log(f"simulation projection restarted: {why}"))
        self.session.selection.changed.connect(self._on_selection)
        self.session.document_replaced.connect(self._on_document)
        if self.viewport is not None:
            self.viewport.primClicked.connect(lambda p: self.session.selection.set([p] if p else []))
        self.restore_layout()

    # ------------------------------------------------------------------ actions and menus
    def _action(self, key: str, text: str, slot, shortcut: str | QKeySequence | None = None, tip: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setToolTip(tip)
            a.setStatusTip(tip)
        a.triggered.connect(lambda _checked=False: slot())
        self.addAction(a)
        self.actions_by_id[key] = a
        return a

    def _build_actions(self) -> None:
        A = self._action
        A("open_twin", "&Open Twin…", self._ask_open_twin, QKeySequence.StandardKey.Open, "Open a twin folder")
        A("open_scene", "Open &Scene File…", self._ask_open_scene, "Ctrl+Shift+O", "Open a USD scene file")
        A("save", "&Save", self.save, QKeySequence.StandardKey.Save, "Save the scene (base layer)")
        A("reload", "&Reload Scene", self.reload, "Ctrl+R", "Rebuild the scene from its files")
        A("quit", "&Quit", self.close, QKeySequence.StandardKey.Quit)
        A("undo", "&Undo", self.undo, "Ctrl+Z")
        A("redo", "&Redo", self.redo, "Ctrl+Shift+Z")
        A("palette", "Command &Palette…", self.show_palette, "Ctrl+Shift+P", "Find any command")
        A("play_pause", "Play / Pause", self.toggle_play, Qt.Key.Key_Space)
        A("play", "Play", self.play, None, "Run the simulation")
        A("pause", "Pause", self.pause, None, "Pause the simulation")
        A("step", "Step", lambda: self.bridge.step(1), "Ctrl+.", "Advance one tick")
        A("reset", "Reset", self.reset, "Ctrl+Shift+R", "Back to tick 0")
        style = self.style()
        for key, icon in (("play", QStyle.StandardPixmap.SP_MediaPlay), ("pause", QStyle.StandardPixmap.SP_MediaPause),
                          ("step", QStyle.StandardPixmap.SP_MediaSkipForward), ("reset", QStyle.StandardPixmap.SP_MediaSkipBackward)):
            self.actions_by_id[key].setIcon(style.standardIcon(icon))
        A("fit", "Fit View", self.fit_view, Qt.Key.Key_F, "Frame the selection (or everything)")
        A("fit_all", "Fit All", lambda: self.viewport and self.viewport.fit_all(), Qt.Key.Key_Home)
        A("reset_layout", "Reset Layout", lambda: self.apply_perspective(self.perspective), None,
          "Back to the current perspective's default docks")
        for name in layouts.PERSPECTIVES:
            A(f"perspective_{name}", f"{name} Perspective", lambda n=name: self.apply_perspective(n))
        for i, name in enumerate(SPEEDS):
            A(f"speed_{name}", f"Speed {name}", lambda n=name: self.set_speed(n), f"Ctrl+{i + 1}")

    def _build_menus(self) -> None:
        a = self.actions_by_id
        mb = self.menuBar()
        file = mb.addMenu("&File")
        file.addActions([a["open_twin"], a["open_scene"]])
        self.recent_menu = file.addMenu("Recent Twins")
        self._fill_recent()
        file.addSeparator()
        file.addActions([a["save"], a["reload"]])
        file.addSeparator()
        file.addAction(a["quit"])
        edit = mb.addMenu("&Edit")
        edit.addActions([a["undo"], a["redo"]])
        edit.addSeparator()
        edit.addAction(a["palette"])
        view = mb.addMenu("&View")
        group = QActionGroup(self)
        for name in layouts.PERSPECTIVES:
            act = a[f"perspective_{name}"]
            act.setCheckable(True)
            group.addAction(act)
            view.addAction(act)
        view.addAction(a["reset_layout"])
        view.addSeparator()
        panels = view.addMenu("Panels")
        for spec in PANELS:
            toggle = self.docks[spec.id].toggleViewAction()
            toggle.setText(spec.title)
            panels.addAction(toggle)
        view.addSeparator()
        view.addActions([a["fit"], a["fit_all"]])
        overlays = view.addMenu("Overlays")
        try:
            from luncosim_workbench.viewport import OVERLAY_NAMES
        except Exception:
            OVERLAY_NAMES = ()
        for name in OVERLAY_NAMES:
            act = QAction(name.capitalize(), self)
            act.setCheckable(True)
            act.setEnabled(self.viewport is not None)
            act.toggled.connect(lambda on, n=name: self.set_overlay(n, on))
            overlays.addAction(act)
        sim = mb.addMenu("&Simulation")
        sim.addActions([a["play_pause"], a["play"], a["pause"], a["step"], a["reset"]])
        sim.addSeparator()
        sim.addActions([a[f"speed_{n}"] for n in SPEEDS])
        self._update_edit_actions()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = layouts.load_recent(self.settings)
        for path in recent:
            act = self.recent_menu.addAction(path)
            act.triggered.connect(lambda _c=False, p=path: self.open_path(p))
        self.recent_menu.setEnabled(bool(recent))

    def all_actions(self) -> list[QAction]:
        return list(self.actions_by_id.values()) + [d.toggleViewAction() for d in self.docks.values()]

    def show_palette(self) -> CommandPalette:
        dlg = CommandPalette(self.all_actions(), self)
        dlg.setModal(True)
        dlg.show()
        dlg.search.setFocus()
        self._palette = dlg
        return dlg

    # ------------------------------------------------------------------ status bar
    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_labels: dict[str, QLabel] = {}
        for key, width in (("scene", 220), ("time", 110), ("tick", 90), ("rtf", 90), ("selection", 220), ("fps", 70), ("reason", 260)):
            lab = QLabel("")
            lab.setMinimumWidth(width // 2)
            sb.addPermanentWidget(lab)
            self.status_labels[key] = lab
        self._update_status(None)

    def notify(self, text: str) -> None:
        self.statusBar().showMessage(text, 6000)

    def _update_status(self, snap: WorkbenchSnapshot | None) -> None:
        s = self.status_labels
        scene = self.session.scene
        s["scene"].setText(f"scene: {scene.name if scene else '—'}{' (preview)' if self.session.preview else ''}"
                           f"{' *' if self.session.document and self.session.document.dirty else ''}")
        sel = self.session.selection.paths
        s["selection"].setText(f"selected: {sel[-1] if len(sel) == 1 else (f'{len(sel)} prims' if sel else '—')}")
        s["fps"].setText(f"{self.bridge.fps:.0f} fps")
        if snap is None:
            s["time"].setText("t = —")
            s["tick"].setText("tick —")
            s["rtf"].setText("RTF —")
            s["reason"].setText("")
            return
        s["time"].setText(f"t = {snap.time:.3f} s")
        s["tick"].setText(f"tick {snap.tick}")
        s["rtf"].setText(f"RTF {snap.real_time_factor:.2f}")
        reason = snap.reason if snap.status in ("waiting", "faulted") else ""
        s["reason"].setText(f"{snap.status}: {reason}" if reason else snap.status)
        s["reason"].setStyleSheet("color: #c0392b" if snap.status == "faulted" else "")

    # ------------------------------------------------------------------ frames
    def _on_frame(self, snap: WorkbenchSnapshot) -> None:
        if self.viewport is not None and len(snap.body_paths):
            try:
                self.viewport.set_body_poses(snap.body_paths, snap.positions, snap.orientations)
            except Exception as exc:
                self.notify(f"viewport: {exc}")
        if self.viewport is not None and self.overlays_on:
            self._update_debug_info()
        for widget in self.panels.values():
            on_frame = getattr(widget, "on_frame", None)
            if on_frame is not None:
                on_frame(snap)
        self.transport.show_snapshot(snap)
        self._update_status(snap)

    def set_overlay(self, name: str, on: bool) -> None:
        """Toggle a viewport overlay; while any is on, physics debug info follows the frames."""
        if self.viewport is None:
            return
        self.viewport.set_overlay(name, on)
        if on:
            self.overlays_on.add(name)
        else:
            self.overlays_on.discard(name)
        if not self.overlays_on:
            self.viewport.set_debug_info(None)

    def _update_debug_info(self) -> None:
        """Ask the worker (between ticks) for joint frames, colliders and contacts; show the answer
        when it arrives. At most one request is in flight."""
        fut = self._debug_future
        if fut is not None and fut.done():
            self._debug_future = None
            try:
                info = fut.result()
            except Exception as exc:
                self.notify(f"overlay data unavailable: {exc}")
                info = None
            if info is not None and self.overlays_on:
                self.viewport.set_debug_info(info)
        if self._debug_future is None and self.overlays_on and self.bridge.worker is not None:
            self._debug_future = self.bridge.worker.call(
                lambda sim: sim.world.debug_info() if sim is not None and sim.world is not None else None)

    def _on_selection(self, paths: tuple) -> None:
        if self.viewport is not None:
            self.viewport.set_selection(list(paths))
        self._update_status(self.bridge.latest)

    # ------------------------------------------------------------------ opening and saving
    def _ask_open_twin(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open twin folder")
        if folder:
            self.open_path(folder)

    def _ask_open_scene(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scene", "", "USD (*.usda *.usd *.usdc)")
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, preview: str | Path | None = None) -> bool:
        """Open a twin folder, a scene or a preview; asks first when edits are unsaved."""
        if not self.confirm_discard("opening another scene"):
            return False
        old = self.session.document
        if old is not None:
            old.changed.disconnect(self._on_document_changed)
        try:
            result = self.session.open(path, preview=preview)
        except DiagnosticError as exc:
            msg = "; ".join(str(d) for d in exc.diagnostics)
            self.notify(f"Cannot open {path}: {msg}")
            self.session.log(f"cannot open {path}: {msg}")
            QMessageBox.warning(self, "Cannot open", msg) if self.isVisible() else None
            return False
        if not preview and result.twin is not None:
            layouts.add_recent(self.settings, str(result.twin.root if Path(path).is_dir() else Path(path).resolve()))
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
        if self.viewport is not None:
            try:
                if doc is not None:
                    self.viewport.set_stage(doc.stage)
            except Exception as exc:
                self.notify(f"viewport could not show the stage: {exc}")
        self.bridge.load(doc, "scene opened" if doc is not None else "no scene")
        self._update_edit_actions()
        self._update_title()
        self._update_status(None)
        if doc is not None:
            self.bridge.telemetry.clear()

    def _on_document_changed(self, op) -> None:
        self._update_edit_actions()
        self._update_title()
        self.session.diagnostics_changed.emit()  # lint follows the edit
        if _mirrorable(op) and self.bridge.worker is not None:
            # the same typed op, applied between ticks on the simulation's copy: motion carries on
            fut = self.bridge.send(ApplyOp(op=op))
            if fut is not None:
                self._mirrors.append(fut)
                self._mirror_timer.start()
                if self.viewport is not None:
                    self._refresh_viewport_stage()
                return
        self._rebuild_timer.start()  # undo/redo describe this document's layers: re-project

    def _check_mirrors(self) -> None:
        """A mirrored edit the simulation could not apply falls back to a full re-projection."""
        done = [f for f in self._mirrors if f.done()]
        self._mirrors = [f for f in self._mirrors if not f.done()]
        if not self._mirrors:
            self._mirror_timer.stop()
        for fut in done:
            result = fut.result()
            if not result.ok:
                self.session.log("the simulation could not apply the edit in place; restarting the projection")
                self._rebuild_timer.start()
                return

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
            try:
                self.viewport.set_stage(doc.stage)
            except Exception as exc:
                self.notify(f"viewport could not show the stage: {exc}")
        self.bridge.load(doc, "the document was edited")
        self.notify("Document edited: the simulation projection was rebuilt (back to tick 0)")

    def _update_title(self) -> None:
        doc = self.session.document
        name = self.session.twin.name if self.session.twin else ""
        scene = self.session.scene.name if self.session.scene else ""
        self.setWindowTitle(f"{scene or name}[*] — {name} — LunCoSim Workbench" if name else "LunCoSim Workbench[*]")
        self.setWindowModified(bool(doc is not None and doc.dirty))

    def _update_edit_actions(self) -> None:
        doc = self.session.document
        a = self.actions_by_id
        j = doc.journal if doc else None
        a["undo"].setEnabled(bool(j and j.can_undo))
        a["redo"].setEnabled(bool(j and j.can_redo))
        a["undo"].setText(f"&Undo {j.undo_label()}" if j and j.can_undo else "&Undo")
        a["redo"].setText(f"&Redo {j.redo_label()}" if j and j.can_redo else "&Redo")
        a["save"].setEnabled(doc is not None and not self.session.preview)

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
        if self.session.document is None or not self.confirm_discard("reloading"):
            return
        self.session.reload()

    def open_location(self, path: str, line: int = 0) -> None:
        """Open a file (at a line when the system editor supports it)."""
        self.session.log(f"open {path}" + (f":{line}" if line else ""))
        QDesktopServices.openUrl(QUrl.fromLocalFile(path))

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

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.confirm_discard("closing"):
            event.ignore()
            return
        self.save_layout()
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the simulation thread and every timer that could start it again."""
        self._closed = True
        self._rebuild_timer.stop()
        self.bridge.timer.stop()
        self.bridge.shutdown()
        for widget in self.panels.values():
            close = getattr(widget, "close_panel", None)
            if close is not None:
                close()

    # ------------------------------------------------------------------ transport
    def play(self) -> None:
        self.bridge.play()
        self.session.log("play")

    def pause(self) -> None:
        self.bridge.pause()
        self.session.log("pause")

    def toggle_play(self) -> None:
        snap = self.bridge.latest
        if self.bridge.running or (snap is not None and snap.status == "running"):
            self.pause()
        else:
            self.play()

    def reset(self) -> None:
        self.bridge.reset()
        self.session.log("reset to tick 0")

    def set_speed(self, name: str) -> None:
        self.bridge.set_speed(name)
        if self.transport.speed.currentText() != name:
            self.transport.speed.setCurrentText(name)

    def fit_view(self) -> None:
        if self.viewport is None:
            return
        if self.session.selection.paths:
            self.viewport.fit_selection()
        else:
            self.viewport.fit_all()

    # ------------------------------------------------------------------ perspectives and layout
    def apply_perspective(self, name: str) -> None:
        """Reshape the docks to a named perspective (Build, Simulate, Debug)."""
        if name not in layouts.PERSPECTIVES:
            raise KeyError(f"unknown perspective {name!r}; known: {', '.join(layouts.PERSPECTIVES)}")
        plan = layouts.PERSPECTIVES[name]
        for dock in self.docks.values():
            self.removeDockWidget(dock)
        groups: dict[tuple[str, int], list[QDockWidget]] = {}
        for spec in PANELS:
            dock = self.docks[spec.id]
            place = plan.get(spec.id)
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
        self.perspective = name
        self.actions_by_id[f"perspective_{name}"].setChecked(True)

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
        return True


def _mirrorable(op) -> bool:
    """Forward edits can be replayed on the simulation's copy; undo/redo restores cannot."""
    from luncosim_core.usd.ops import Batch, RestoreSpecs

    if isinstance(op, RestoreSpecs):
        return False
    if isinstance(op, Batch):
        return all(_mirrorable(o) for o in op.ops)
    return True
