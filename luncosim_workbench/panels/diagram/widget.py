"""The Modelica Diagram panel: one class of a .mo file as icons, connectors and wires.

The panel edits the file's one :class:`~luncosim_core.text.TextDocument`, shared through
``ctx.documents`` with the code editors: every gesture is one journal entry of the pure ops of
:mod:`luncosim_core.modelica.syntax.ops` (dragging five selected icons: five SetPlacement ops, one
undo step); only the spans the ops touch change (in an open editor too), undo and redo are the
document's one history, and Save (Ctrl+S) is the document's save, which refuses to overwrite a
file changed on disk. Any change of the document (a diagram gesture, typing in an editor, an undo
anywhere) re-projects the diagram, keeping the selection and the view. A refused connect says why
at the cursor. While a simulation
runs a prim whose ``info:sourceAsset`` is this file, its port values label the class's own
connectors and fill the icons' tooltips.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QSplitter,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.modelica.syntax.catalog import Catalog, component_name, palette
from luncosim_core.modelica.syntax.geometry import moved, placement_of
from luncosim_core.modelica.syntax.ops import (
    AddComponent,
    AddConnection,
    Op,
    OpError,
    RemoveComponent,
    SetParameter,
    SetPlacement,
)
from luncosim_core.modelica.syntax.parameters import parameters_of
from luncosim_core.text import TextConflict, TextDocument
from luncosim_core.twin.roots import default_lunco_root
from luncosim_workbench.context import PanelContext
from luncosim_workbench.panels.diagram.browser import LibraryBrowser
from luncosim_workbench.panels.diagram.canvas import GRID, DiagramView_, NodeItem, build_scene
from luncosim_workbench.panels.diagram.model import DiagramEdits, Transaction, icon_of, live_values
from luncosim_workbench.panels.diagram.params import ParametersDialog
from luncosim_workbench.plugins import PanelWidget


class DiagramPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.edits: DiagramEdits | None = None
        self.cls: str | None = None
        self.nodes: dict[str, NodeItem] = {}
        self.message = QLabel("Open a Modelica file (.mo) to see its diagram.")
        self.message.setWordWrap(True)
        self.message.setObjectName("diagramMessage")
        self.classes = QComboBox()
        self.classes.setToolTip("The class of the file shown")
        self.classes.currentTextChanged.connect(self._class_chosen)
        self.scene = QGraphicsScene(self)
        self.view = DiagramView_(self.scene, self)
        self.view.moved.connect(self._moved)
        self.view.connect_requested.connect(self._connect)
        self.view.key_command.connect(self.command)
        self.view.parameters_requested.connect(self.edit_parameters)
        self.dialog: ParametersDialog | None = None
        self._prims: tuple[str, ...] = ()
        self._prims_key: tuple = ()
        self.doc: TextDocument | None = None
        self._own = False  # this panel's gesture is being written (it re-projects at once)
        self._pending = QTimer(self)  # re-projection after a change made elsewhere (typing), debounced
        self._pending.setSingleShot(True)
        self._pending.setInterval(150)
        self._pending.timeout.connect(self._on_text_changed)
        # answers "overwrite", "reload" or "cancel" when a save finds the file changed on disk (tests replace it)
        self.ask_conflict = self._ask_conflict_dialog
        ctx.documents.removed.connect(self._on_document_removed)
        bar = QHBoxLayout()
        bar.addWidget(self.classes, 1)
        for text, tip, fn in (("Open…", "Open a Modelica file", self.choose_file),
                              ("Save", "Save the file (Ctrl+S in the canvas); refuses to overwrite a file changed on disk",
                               self.save),
                              ("Undo", "Undo the last edit of this file, made here or in an editor (Ctrl+Z)", self.undo),
                              ("Redo", "Redo (Ctrl+Shift+Z in the canvas)", self.redo),
                              ("Fit", "Fit the diagram in the view (F)", self.fit)):
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.clicked.connect(fn)
            bar.addWidget(b)
        self.library_button = QToolButton()
        self.library_button.setText("Library")
        self.library_button.setCheckable(True)
        self.library_button.setChecked(True)
        self.library_button.setToolTip("Show the library browser: drag a class into the diagram, or double-click it")
        bar.insertWidget(0, self.library_button)
        self.browser = LibraryBrowser()
        self.browser.chosen.connect(lambda name: self.add_component(name))
        self.library_button.toggled.connect(self.browser.setVisible)
        self.view.class_dropped.connect(lambda name, at: self.add_component(name, (at.x(), at.y())))
        self.catalog: Catalog | None = None
        ctx.workspace.opened.connect(lambda *_a: self._forget_catalog())
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.browser)
        split.addWidget(self.view)
        split.setStretchFactor(1, 1)
        split.setSizes([220, 680])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(bar)
        lay.addWidget(split, 1)
        lay.addWidget(self.message)

    # -- opening -----------------------------------------------------------------------------------
    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open Modelica file", "", "Modelica (*.mo)")
        if path:
            self.open_file(Path(path))

    def open_file(self, path: Path | str, cls: str | None = None) -> bool:
        """Show ``cls`` of the file (default: its first model); False (and a message) if it cannot."""
        path = Path(path).resolve()
        try:
            doc = self._document(path)
            edits = DiagramEdits(doc, self._roots())
        except (OSError, ValueError) as exc:  # unreadable (UnreadableFile), not UTF-8, does not parse
            self.say(f"Cannot open {path.name}: {exc}")
            return False
        self._attach(doc, edits)
        names = self.edits.classes()
        try:
            self.cls = self.edits.choose_class(cls)
        except OpError:  # not a class of this file: its first one with connections
            self.cls = self.edits.choose_class(None)
        self._set_classes(names)
        self.rebuild(keep_view=False)
        self._reveal()
        self.fit()
        return True

    # -- the shared document ------------------------------------------------------------------------
    def _roots(self) -> tuple[Path, ...]:
        """Library roots beyond the file's own package and the bundled library: the palette's
        (the twin's model folders, LunCoSim's models when the lunco:// root holds them)."""
        return tuple(self.ensure_catalog().roots)

    def ensure_catalog(self) -> Catalog:
        """The palette of the open twin (read once per twin: about 0.1 s for LunCoSim's library)."""
        if self.catalog is None:
            twin = self.ctx.workspace.twin
            lunco = Path(twin.roots.lunco_root) if twin is not None else default_lunco_root()
            self.catalog = palette(Path(twin.root) if twin is not None else None, lunco / "models")
            self.browser.set_catalog(self.catalog)
        return self.catalog

    def _forget_catalog(self) -> None:
        self.catalog = None
        if self.isVisible():
            self.ensure_catalog()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.ensure_catalog()

    # -- placing classes from the library --------------------------------------------------------------
    def add_component(self, qualified: str, at: tuple[float, float] | None = None) -> Transaction | None:
        """Declare a component of library class ``qualified``, named uniquely (``R1``, ``R2``...),
        placed at the diagram point ``at`` (default: the middle of the view), snapped to the grid."""
        if self.edits is None or self.cls is None:
            self.say("Open a Modelica file first: a class is placed into the diagram shown")
            return None
        cls = self.edits.sd.find(self.cls)
        target = self.edits.lib.lookup(qualified)
        if cls is None or target is None:
            self.say(f"Cannot place {qualified}: the class is not found from {self.edits.path.name}")
            return None
        (x1, y1), (x2, y2) = icon_of(self.edits.lib, target).coords
        extent = ((x1 / 10, y1 / 10), (x2 / 10, y2 / 10))  # a tenth of the icon, as OMEdit places it
        if at is None:
            c = self.view.mapToScene(self.view.viewport().rect().center())
            at = (c.x(), -c.y())
            used = {(n.view.placement.center()) for n in self.nodes.values()}
            while (round(at[0] / GRID) * GRID, round(at[1] / GRID) * GRID) in used:
                at = (at[0] + 2 * abs(extent[1][0] - extent[0][0]), at[1])
        origin = (round(at[0] / GRID) * GRID, round(at[1] / GRID) * GRID)
        taken = {c.name for b in self.edits.lib.bases(cls) for c in b.components} | {c.name for c in cls.classes}
        name = component_name(qualified.rsplit(".", 1)[-1], taken)
        tx = self.apply([AddComponent(self.cls, qualified, name, extent=extent, origin=origin)], f"Add {name}")
        if tx is not None and name in self.nodes:
            self.scene.clearSelection()
            self.nodes[name].setSelected(True)
            self.view.setFocus()
        return tx

    def _document(self, path: Path) -> TextDocument:
        """The file's one TextDocument: the open one (an editor's) or a new one joining the set."""
        doc = self.ctx.documents.get(path)
        if isinstance(doc, TextDocument):
            if not doc.dirty and doc.external_change():
                doc.reload()  # a clean buffer of a file changed on disk: take the disk's text
            return doc
        doc = TextDocument(path)
        self.ctx.documents.add(doc)
        return doc

    def _attach(self, doc: TextDocument, edits: DiagramEdits) -> None:
        if self.doc is not doc:
            self._detach()
            self.doc = doc
            doc.changed.connect(self._on_document_changed)
            doc.reloaded.connect(self._on_document_reloaded)
            doc.saved.connect(self._on_document_saved)
        self.edits = edits

    def _detach(self) -> None:
        """Stop showing the document; a clean one nobody else shows leaves the set."""
        doc, self.doc = self.doc, None
        self._pending.stop()
        if doc is None:
            return
        doc.changed.disconnect(self._on_document_changed)
        doc.reloaded.disconnect(self._on_document_reloaded)
        doc.saved.disconnect(self._on_document_saved)
        if not doc.dirty and len(doc.changed) == 0:
            self.ctx.documents.remove(doc)

    def _on_document_removed(self, doc) -> None:
        if doc is self.doc:  # an editor closed its tab: the diagram still edits this buffer
            self.ctx.documents.add(doc)

    def _on_document_changed(self, _edit, _author) -> None:
        if not self._own:
            self._pending.start()  # typing: re-project once it pauses

    def _on_text_changed(self) -> None:
        if self.edits is None:
            return
        if not self.edits.refresh():
            self.message.setText(f"{self.edits.path.name} does not parse ({self.edits.problem}); "
                                 "the diagram shows the last text that did")
            return
        names = self.edits.classes()
        if self.cls not in names:
            self.cls = (names or [None])[0]
        self._set_classes(names)
        self.rebuild()

    def _on_document_reloaded(self) -> None:
        self._pending.stop()
        self._on_text_changed()

    def _on_document_saved(self, _path: str) -> None:
        if self.edits is not None:
            self.message.setText(f"Saved {self.edits.path.name}")

    def save(self) -> bool:
        """Save the document (the editors' too); a file changed on disk asks before overwriting."""
        if self.doc is None:
            return False
        try:
            self.doc.save()
        except TextConflict as exc:
            why = "; ".join(d.message for d in exc.diagnostics)
            answer = self.ask_conflict(why)
            if answer == "reload":
                self.doc.reload(discard=True)
                self.say(f"Reloaded {self.doc.path.name} from disk: the unsaved edits were dropped")
                return False
            if answer != "overwrite":
                self.say(f"Not saved: {why}")
                return False
            self.doc.save(overwrite_external=True)
        except (OSError, DiagnosticError) as exc:
            self.say(f"Cannot save {self.doc.path.name}: {exc}")
            return False
        self.ctx.log(f"saved {self.doc.path}")
        return True

    def _ask_conflict_dialog(self, why: str) -> str:
        box = QMessageBox(self)
        box.setWindowTitle("File changed on disk")
        box.setText(why + "\n\nOverwrite it with this diagram's text, or reload it (dropping the unsaved edits)?")
        over = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
        reload = box.addButton("Reload", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return {id(over): "overwrite", id(reload): "reload"}.get(id(box.clickedButton()), "cancel")

    def _set_classes(self, names: list[str]) -> None:
        self.classes.blockSignals(True)
        if [self.classes.itemText(i) for i in range(self.classes.count())] != names:
            self.classes.clear()
            self.classes.addItems(names)
        if self.cls:
            self.classes.setCurrentText(self.cls)
        self.classes.blockSignals(False)

    def _reveal(self) -> None:
        """Show the panel's dock (hidden in a perspective until a diagram is opened)."""
        dock = self.parentWidget()
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        if dock is not None:
            dock.show()
            dock.raise_()

    def _class_chosen(self, name: str) -> None:
        if self.edits is not None and name and name != self.cls:
            self.cls = name
            self.rebuild(keep_view=False)
            self.fit()

    def rebuild(self, keep_view: bool = True) -> None:
        """Re-project the diagram from the text, keeping the selection and (``keep_view``) the view."""
        if self.edits is None or self.cls is None:
            return
        selected = self.selected()
        h, v = self.view.horizontalScrollBar().value(), self.view.verticalScrollBar().value()
        center = self.view.mapToScene(self.view.viewport().rect().center())
        try:
            view = self.edits.view(self.cls)
        except OpError as exc:
            self.message.setText(str(exc))
            return
        self.nodes = build_scene(self.scene, view)
        for name in selected:
            if name in self.nodes:
                self.nodes[name].setSelected(True)
        rect = self.scene.itemsBoundingRect().adjusted(-200, -200, 200, 200)
        if not keep_view:
            self.scene.setSceneRect(rect)
        else:  # the scene only grows while the view is kept, so the scroll position still holds
            old = self.scene.sceneRect()
            rect = rect.united(old)
            self.scene.setSceneRect(rect)
            self.view.horizontalScrollBar().setValue(h)
            self.view.verticalScrollBar().setValue(v)
            if rect != old:  # the scroll range moved: put the same scene point back in the middle
                now = self.view.mapFromScene(center)
                want = self.view.viewport().rect().center()
                self.view.pan_by(now.x() - want.x(), now.y() - want.y())
        if view.unplaced:
            self.message.setText(f"{self.cls}: {len(view.nodes)} placed, {len(view.wires)} connections; "
                                 f"not drawn (no Placement): {', '.join(view.unplaced[:8])}"
                                 + ("…" if len(view.unplaced) > 8 else ""))
        else:
            self.message.setText(f"{self.cls}: {len(view.nodes)} components, {len(view.wires)} connections")

    def fit(self) -> None:
        rect = self.scene.itemsBoundingRect()
        if not rect.isEmpty():
            self.view.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)

    def selected(self) -> list[str]:
        return sorted(i.view.name for i in self.scene.selectedItems() if isinstance(i, NodeItem))

    # -- edits ---------------------------------------------------------------------------------------
    def say(self, text: str, at: QPointF | None = None) -> None:
        self.message.setText(text)
        if at is not None:
            QToolTip.showText(self.view.mapToGlobal(QPoint(int(at.x()), int(at.y()))), text, self.view)
        self.ctx.notify(text)

    def apply(self, ops: list[Op], label: str, at: QPointF | None = None) -> Transaction | None:
        """One gesture's ops as one transaction; a refusal changes nothing and says why."""
        if self.edits is None or self.doc is None or not ops:
            return None
        if self.doc.external_change() and not self.doc.dirty:  # changed on disk: edit what is there now
            self.doc.reload()
            self.say(f"{label} not made: {self.doc.path.name} changed on disk and was reloaded", at)
            return None
        self._pending.stop()
        self._own = True
        try:
            tx = self.edits.apply(ops, label)
        except OpError as exc:
            self.rebuild()  # put dragged icons back
            self.say(f"{label} refused: {exc}", at)
            return None
        finally:
            self._own = False
        self.rebuild()
        self.message.setText(f"{label} ({len(ops)} edit{'s' if len(ops) != 1 else ''}); "
                             f"{self.edits.path.name} unsaved (Save, Ctrl+S)")
        return tx

    def _moved(self, deltas: dict) -> None:
        cls = self.edits.sd.find(self.cls) if self.edits else None
        if cls is None:
            return
        ops = [moved(self.cls, cls.component(name), dx, dy) for name, (dx, dy) in sorted(deltas.items())
               if cls.component(name) is not None]
        self.apply(ops, "Move" if len(ops) == 1 else f"Move {len(ops)} components")

    def _connect(self, a: str, b: str, at: QPointF) -> None:
        self.apply([AddConnection(self.cls, a, b)], "Connect", at)

    def _placed(self) -> list:
        cls = self.edits.sd.find(self.cls) if self.edits else None
        return [cls.component(n) for n in self.selected()] if cls is not None else []

    def command(self, name: str) -> None:
        """A canvas key: undo, redo, delete, rotate (R), flip_h (H), flip_v (V), fit (F)."""
        if name in ("undo", "redo", "fit", "save"):
            getattr(self, name)()
            return
        comps = [c for c in self._placed() if c is not None]
        if not comps:
            return
        if name == "delete":
            self.apply([RemoveComponent(self.cls, c.name) for c in comps], "Delete")
            return
        ops = []
        for c in comps:
            p = placement_of(c)
            if name == "rotate":
                ops.append(SetPlacement(self.cls, c.name, rotation=((p.rotation if p else 0) + 90) % 360))
            elif name == "flip_h":
                ops.append(SetPlacement(self.cls, c.name, flip_h=not (p and p.flip_h)))
            elif name == "flip_v":
                ops.append(SetPlacement(self.cls, c.name, flip_v=not (p and p.flip_v)))
        self.apply(ops, {"rotate": "Rotate", "flip_h": "Flip horizontally", "flip_v": "Flip vertically"}[name])

    def edit_parameters(self, name: str) -> ParametersDialog | None:
        """Open the Parameters dialog of component ``name`` (non-blocking; OK applies, as one
        transaction, the modifiers that changed)."""
        cls = self.edits.sd.find(self.cls) if self.edits else None
        comp = cls.component(name) if cls is not None else None
        if comp is None:
            return None
        comp_cls = self.edits.lib.resolve(comp.type_name, cls)
        if comp_cls is None:
            self.say(f"cannot find class {comp.type_name} of {name}: no parameters to show")
            return None
        params = parameters_of(self.edits.lib, comp_cls)
        current = self.nodes[name].view.modifiers if name in self.nodes else {}

        def apply(changes: dict[str, str | None]) -> str | None:
            ops = [SetParameter(self.cls, name, k, v) for k, v in changes.items()]
            self._own = True
            try:
                self.edits.apply(ops, f"Parameters of {name}")
            except OpError as exc:
                return str(exc)
            finally:
                self._own = False
            self.rebuild()
            return None

        self.dialog = ParametersDialog(name, comp.type_name, params, current, apply, self)
        self.dialog.open()
        return self.dialog

    def undo(self) -> None:
        self._history("undo")

    def redo(self) -> None:
        self._history("redo")

    def _history(self, which: str) -> None:
        """Undo or redo the newest entry of the document's one history (a gesture or typed text)."""
        if self.edits is None:
            return
        self._pending.stop()
        self._own = True
        try:
            label = getattr(self.edits, which)()
        finally:
            self._own = False
        if label is not None:
            self._on_text_changed()
            self.message.setText(f"{'Undone' if which == 'undo' else 'Redone'}: {label}")

    # -- live values -----------------------------------------------------------------------------------
    def _running_prims(self, snapshot: WorkbenchSnapshot) -> tuple[str, ...]:
        doc = self.ctx.documents.scene
        key = (id(doc), snapshot.generation, self.edits.path if self.edits else None)
        if key == self._prims_key:
            return self._prims
        self._prims_key = key
        self._prims = ()
        if doc is None or self.edits is None:
            return ()
        mine = self.edits.path.resolve()
        found = []
        for prim in doc.stage.Traverse():
            attr = prim.GetAttribute("info:sourceAsset")
            value = attr.Get() if attr and attr.HasAuthoredValue() else None
            resolved = getattr(value, "resolvedPath", "") if value is not None else ""
            if resolved and Path(resolved).resolve() == mine:
                found.append(str(prim.GetPath()))
        self._prims = tuple(found)
        return self._prims

    def on_frame(self, snapshot: WorkbenchSnapshot) -> None:
        if self.edits is None or not self.nodes:
            return
        prims = self._running_prims(snapshot)
        if not prims:
            return
        values = live_values(snapshot.port_keys, snapshot.port_values, prims)
        live_note = f"live values of {prims[0]}" + (f" (+{len(prims) - 1} more running this file)" if len(prims) > 1 else "")
        if live_note not in self.view.toolTip():
            self.view.setToolTip(live_note)
        for node in self.nodes.values():
            live = {k: v for k, v in values.items() if k == node.view.name}
            if live != node.live:
                node.live = live
                node.update_tooltip()
                node.update()

    def close_panel(self) -> None:
        self.ctx.documents.removed.disconnect(self._on_document_removed)
        self._detach()
        self.scene.clear()
