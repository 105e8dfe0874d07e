"""The Mission panel: runs a task file (``luncosim mission run``'s format) on the open scene and
shows each action's name, type, result, reason and duration as it goes.

The mission runs in a background thread on its own headless simulation of the open scene's
file (saved edits; the panel says so when the document has unsaved ones), exactly as the command
line runs it (``luncosim_core.mission.local.run_on_scene``). The thread hands the UI only plain data: mission events, and a
``MissionDrawing`` (costmap, path, footprints, fluid particles, body poses) at most
``DRAW_HZ`` times a second, which the panel passes to the viewport through ``ctx.show_mission``.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from luncosim_workbench.context import PanelContext
from luncosim_workbench.plugins import PanelWidget

DRAW_HZ = 20.0
REASON_WIDTH = 220
PNG_ZOOM = 3  # the PNG has one pixel per 5 cm cell
COLUMNS = ("Action", "Type", "Result", "Reason", "Duration (s)")


class _Relay(QObject):
    """Carries plain data from the mission thread to the UI thread (queued signals)."""

    event = Signal(object)
    drawing = Signal(object)
    finished = Signal(object)  # MissionResult, or an error message (str)


def run_mission(scene: Path, task, relay: _Relay, stop: threading.Event) -> None:
    """The mission thread: the core runs the mission on its own simulation; plain data out."""
    from luncosim_core.mission.local import run_on_scene

    relay.finished.emit(run_on_scene(scene, task, listeners=(relay.event.emit,), publish=relay.drawing.emit,
                                     stop=stop, draw_hz=DRAW_HZ))


class MissionPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        row = QHBoxLayout()
        self.task_edit = QLineEdit()
        self.task_edit.setPlaceholderText("task file (YAML)")
        self.task_edit.returnPressed.connect(self.run)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self.ask_run)
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.run)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        for w in (self.task_edit, self.browse_button, self.run_button, self.stop_button):
            row.addWidget(w)
        layout.addLayout(row)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.itemActivated.connect(lambda _item, _col: self.show_debug_png())
        layout.addWidget(self.tree)
        bottom = QHBoxLayout()
        self.status = QLabel("No mission run yet.")
        self.status.setWordWrap(True)
        self.png_button = QPushButton("Show Debug PNG")
        self.png_button.setEnabled(False)
        self.png_button.clicked.connect(self.show_debug_png)
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.png_button)
        layout.addLayout(bottom)
        self.relay = _Relay(self)
        self.relay.event.connect(self._on_event)
        self.relay.drawing.connect(self.ctx.show_mission)
        self.relay.finished.connect(self._on_finished)
        self.items: dict[int, QTreeWidgetItem] = {}
        self.evidence: list[str] = []  # debug PNG paths, in the order written
        self.result = None
        self.png_dialog: QDialog | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def ask_run(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Run Mission Task File", str(Path.cwd()),
                                              "Task files (*.yaml *.yml);;All files (*)")
        if path:
            self.task_edit.setText(path)
            self.run()

    def run(self) -> bool:
        """Validate the task file and start it on the open scene (False, with the reason shown, if
        it cannot start)."""
        from luncosim_core.mission.taskfile import TaskFileError, load_task_file

        if self.running:
            self.status.setText("A mission is already running.")
            return False
        scene = self.ctx.workspace.scene
        if scene is None:
            self.status.setText("Open a scene first: the mission runs on the open scene.")
            return False
        text = self.task_edit.text().strip()
        if not text:
            self.status.setText("Name a task file.")
            return False
        try:
            task = load_task_file(text)
        except TaskFileError as exc:
            self.status.setText("Invalid task file:\n" + "\n".join(str(e) for e in exc.errors))
            return False
        self._reset(task)
        note = " (the saved file: unsaved edits are not part of it)" if self._dirty() else ""
        self.status.setText(f"Running {Path(text).name} on {Path(scene).name}{note}…")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=run_mission, args=(Path(scene), task, self.relay, self._stop),
                                        name="mission", daemon=True)
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self._thread.start()
        return True

    def _dirty(self) -> bool:
        doc = self.ctx.documents.scene
        return doc is not None and bool(doc.dirty)

    def stop(self) -> None:
        """Ask the running mission to stop (its current action fails: the simulation stopped)."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _reset(self, task) -> None:
        self.tree.clear()
        self.items.clear()
        self.evidence.clear()
        self.result = None
        self.png_button.setEnabled(False)
        for action in task.actions:
            item = QTreeWidgetItem([action.name, action.type, "pending", "", ""])
            self.tree.addTopLevelItem(item)
            self.items[action.ordinal] = item
        self._fit_columns()

    def _fit_columns(self) -> None:
        for c in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(c)
        self.tree.setColumnWidth(3, min(self.tree.columnWidth(3), REASON_WIDTH))  # full text in the tooltip

    # ------------------------------------------------------------------ progress
    def _on_event(self, event) -> None:
        p = event.payload
        item = self.items.get(p.get("ordinal")) if event.name.startswith("mission.action.") else None
        if event.name == "mission.action.started" and item is not None:
            item.setText(2, "running")
        elif event.name in ("mission.action.completed", "mission.action.failed") and item is not None:
            item.setText(2, "success" if event.name.endswith("completed") else "failure")
            item.setText(3, p.get("reason", ""))
            item.setToolTip(3, p.get("reason", ""))
            item.setText(4, f"{p.get('duration_s', 0.0):.2f}")
        elif event.name == "mission.navigation.debug.attempt" and p.get("path"):
            self.evidence.append(str(p["path"]))
            self.png_button.setEnabled(True)
        elif event.name == "mission.motion.progress":
            self.status.setText(f"tick {event.tick}: {p.get('action', '')} "
                                f"{100.0 * float(p.get('fraction', 0.0)):.0f} %")

    def _on_finished(self, result) -> None:
        self._thread = None
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if isinstance(result, str):
            self.status.setText(f"Mission not run: {result}")
            return
        self.result = result
        for a in result.actions:  # skipped actions have no events
            item = self.items.get(next((o for o, it in self.items.items() if it.text(0) == a.name), -1))
            if item is not None and item.text(2) in ("pending", "running"):
                item.setText(2, a.result)
                item.setText(3, a.reason)
                item.setText(4, f"{a.duration_s:.2f}")
        self._fit_columns()
        done = sum(a.result == "success" for a in result.actions)
        self.status.setText(f"Mission {result.result}: {done}/{len(result.actions)} actions succeeded.")
        self.ctx.log(f"mission {result.result} ({done}/{len(result.actions)} actions), run {result.run_id}")

    # ------------------------------------------------------------------ evidence
    def show_debug_png(self) -> QDialog | None:
        """Show the newest debug PNG (black = lethal, cyan = footprints along the path)."""
        if not self.evidence:
            return None
        path = self.evidence[-1]
        dialog = QDialog(self)
        dialog.setWindowTitle(f"Navigation debug: {Path(path).name}")
        lay = QVBoxLayout(dialog)
        image = QLabel()
        image.setObjectName("debugImage")
        pix = QPixmap(path)
        image.setPixmap(pix.scaled(pix.width() * PNG_ZOOM, pix.height() * PNG_ZOOM))
        image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        scroll = QScrollArea()
        scroll.setWidget(image)
        lay.addWidget(scroll)
        lay.addWidget(QLabel(path))
        dialog.resize(720, 720)
        dialog.show()
        self.png_dialog = dialog
        return dialog

    def close_panel(self) -> None:
        self.stop()
        self.wait(10.0)
