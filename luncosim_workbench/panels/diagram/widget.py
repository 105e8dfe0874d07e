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
connectors and fill the icons' tooltips; when the model it runs is the class shown, the model's
own variables are drawn too (:mod:`luncosim_workbench.panels.diagram.live`: hover cards, wire
values, input sliders, the Variables table and plotting).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QSplitter,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.fsutil import atomic_write_text
from luncosim_core.modelica.syntax.catalog import Catalog, bundled_library, component_name, palette
from luncosim_core.modelica.syntax.geometry import moved, placement_of
from luncosim_core.modelica.syntax.ops import (
    AddComponent,
    AddConnection,
    AddGraphic,
    Op,
    OpError,
    RemoveComponent,
    RemoveConnection,
    RemoveGraphic,
    SetGraphic,
    SetLinePoints,
    SetParameter,
    SetPlacement,
    fmt_num,
    fmt_point,
)
from luncosim_core.modelica.syntax.parameters import parameters_of
from luncosim_core.text import TextConflict, TextDocument
from luncosim_core.twin.roots import default_lunco_root
from luncosim_workbench.context import PanelContext
from luncosim_workbench.panels.diagram.browser import LibraryBrowser
from luncosim_workbench.panels.diagram.canvas import (
    GRID,
    DiagramView_,
    GraphicItem,
    NodeItem,
    WireItem,
    build_icon_scene,
    build_scene,
)
from luncosim_workbench.panels.diagram.live import LiveLayer
from luncosim_workbench.panels.diagram.model import (
    Clipboard,
    DiagramEdits,
    Transaction,
    clip,
    duplicate_class,
    graphic_text,
    icon_of,
    live_values,
)
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
        self.view.open_class_requested.connect(self.open_class)
        self.view.wire_edited.connect(self._wire_edited)
        self.view.resized.connect(self._resized)
        self.view.menu_requested.connect(self._menu)
        self.read_only: str | None = None  # why the class shown cannot be edited (a library class)
        self.history: list[tuple[Path, str | None, str | None]] = []  # drilled out of: path, class, read-only why
        self.clipboard: Clipboard | None = None
        self._pastes = 0
        self.layer = "Diagram"
        self.graphics: dict[int, GraphicItem] = {}
        self.view.graphics_moved.connect(self._graphics_moved)
        self.view.graphic_drawn.connect(self._graphic_drawn)
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
        self.back_button = QToolButton()
        self.back_button.setText("Back")
        self.back_button.setToolTip("Back to the class this one was opened from")
        self.back_button.clicked.connect(self.back)
        self.back_button.setEnabled(False)
        bar.insertWidget(1, self.back_button)
        self.duplicate_button = QToolButton()
        self.duplicate_button.setText("Duplicate to edit")
        self.duplicate_button.setToolTip("This library class is read-only here: copy it into an editable file")
        self.duplicate_button.clicked.connect(self.duplicate_to_edit)
        self.duplicate_button.setVisible(False)
        bar.addWidget(self.duplicate_button)
        self.icon_button = QToolButton()
        self.icon_button.setText("Icon")
        self.icon_button.setCheckable(True)
        self.icon_button.setToolTip("Edit the class's Icon (its graphics) instead of its diagram")
        self.icon_button.toggled.connect(lambda on: self.set_layer("Icon" if on else "Diagram")
                                         if (self.layer == "Icon") != on else None)
        bar.insertWidget(2, self.icon_button)
        self.tools: dict[str, QToolButton] = {}
        for tool in ("Rectangle", "Ellipse", "Line", "Polygon", "Text"):
            b = QToolButton()
            b.setText(tool)
            b.setCheckable(True)
            b.setVisible(False)
            b.setToolTip(f"Draw a {tool.lower()}: drag in the Icon view (click the tool again to stop)")
            b.clicked.connect(lambda on, t=tool: self.choose_tool(t if on else None))
            self.tools[tool] = b
            bar.insertWidget(3 + len(self.tools) - 1, b)
        self.live = LiveLayer(self)  # the running model's variables (hover cards, wire values, sliders, plots)
        self.view.hovered.connect(self.live.hovered)
        self.variables_button = QToolButton()
        self.variables_button.setText("Variables")
        self.variables_button.setCheckable(True)
        self.variables_button.setToolTip("While the simulation runs this class: its model's variables, values and "
                                         "units, each with a plot link")
        self.variables_button.toggled.connect(self.live.show_table)
        bar.addWidget(self.variables_button)
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
        split.addWidget(self.live.table)
        split.setStretchFactor(1, 1)
        split.setSizes([220, 680, 240])
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

    def open_file(self, path: Path | str, cls: str | None = None, *, read_only: str | None = None,
                  keep_history: bool = False) -> bool:
        """Show ``cls`` of the file (default: its first model); False (and a message) if it cannot.
        ``read_only``: why it may not be edited here (a library class drilled into)."""
        path = Path(path).resolve()
        if not keep_history:
            self.history.clear()
        try:
            doc = self._document(path, share=read_only is None or self.ctx.documents.get(path) is not None)
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
        if self.cls is not None and self.cls not in names:
            names = [*names, self.cls]  # a connector or record drilled into
        self._set_classes(names)
        self.set_read_only(read_only)
        self.back_button.setEnabled(bool(self.history))
        if self.layer != "Diagram":
            self.layer = "Diagram"
            self.view.icon_layer = False
            self.icon_button.setChecked(False)
            self.choose_tool(None)
            for b in self.tools.values():
                b.setVisible(False)
        self.rebuild(keep_view=False)
        self._reveal()
        self.fit()
        snapshot = self.ctx.latest
        if snapshot is not None:  # a paused simulation sends no frames: find the file's prim now
            prims = self._running_prims(snapshot)
            self.live.follow(prims[0] if prims else None)
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
        self.live.resume()

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().hideEvent(event)
        self.live.pause()  # no queries while nobody sees the values

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

    def _document(self, path: Path, share: bool = True) -> TextDocument:
        """The file's one TextDocument: the open one (an editor's) or a new one joining the set
        (``share=False``: a read-only look at a library file keeps its own, outside the set)."""
        doc = self.ctx.documents.get(path)
        if isinstance(doc, TextDocument):
            if not doc.dirty and doc.external_change():
                doc.reload()  # a clean buffer of a file changed on disk: take the disk's text
            return doc
        doc = TextDocument(path)
        if share:
            self.ctx.documents.add(doc)
        return doc

    def set_read_only(self, why: str | None) -> None:
        self.read_only = why
        self.view.read_only = why is not None
        self.duplicate_button.setVisible(why is not None)
        self.view.update_handles()

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
        selected, graphics = self.selected(), self.selected_graphics()
        h, v = self.view.horizontalScrollBar().value(), self.view.verticalScrollBar().value()
        center = self.view.mapToScene(self.view.viewport().rect().center())
        try:
            view = self.edits.icon_view(self.cls) if self.layer == "Icon" else self.edits.view(self.cls)
        except OpError as exc:
            self.message.setText(str(exc))
            return
        if self.layer == "Icon":
            self.graphics, self.nodes = build_icon_scene(self.scene, view)
        else:
            self.graphics, self.nodes = {}, build_scene(self.scene, view)
        for name in selected:
            if name in self.nodes:
                self.nodes[name].setSelected(True)
        for index in graphics:
            if index in self.graphics:
                self.graphics[index].setSelected(True)
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
        if self.layer == "Icon":
            self.message.setText(f"Icon of {self.cls}: {len(view.own)} graphics"
                                 + (f" (+{len(view.inherited)} inherited)" if view.inherited else "")
                                 + "; pick a shape to draw, drag to move, R rotates, Delete removes")
        elif view.unplaced:
            self.message.setText(f"{self.cls}: {len(view.nodes)} placed, {len(view.wires)} connections; "
                                 f"not drawn (no Placement): {', '.join(view.unplaced[:8])}"
                                 + ("…" if len(view.unplaced) > 8 else ""))
        else:
            self.message.setText(f"{self.cls}: {len(view.nodes)} components, {len(view.wires)} connections")
        self.live.rebuilt()

    def fit(self) -> None:
        rect = self.scene.itemsBoundingRect()
        if not rect.isEmpty():
            self.view.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)

    def selected(self) -> list[str]:
        return sorted(i.view.name for i in self.scene.selectedItems() if isinstance(i, NodeItem))

    def selected_graphics(self) -> list[int]:
        """The Icon view's selected primitives, by their place in the graphics array."""
        return sorted(i.index for i in self.scene.selectedItems() if isinstance(i, GraphicItem) and i.index is not None)

    # -- the Icon view ---------------------------------------------------------------------------------
    def set_layer(self, layer: str) -> None:
        """Show the class's ``Diagram`` (components and connections) or its ``Icon`` (its graphics,
        edited with the same gestures and the drawing tools)."""
        self.layer = layer
        self.view.icon_layer = layer == "Icon"
        self.icon_button.setChecked(layer == "Icon")
        for b in self.tools.values():
            b.setVisible(layer == "Icon")
            b.setChecked(False)
        self.view.tool = None
        self.scene.clearSelection()
        self.rebuild(keep_view=False)
        self.fit()

    def choose_tool(self, tool: str | None) -> None:
        self.view.tool = tool
        for name, b in self.tools.items():
            b.setChecked(name == tool)
        self.view.setDragMode(QGraphicsView.DragMode.NoDrag if tool else QGraphicsView.DragMode.RubberBandDrag)

    def _graphic_drawn(self, tool: str, a: tuple, b: tuple) -> None:
        index = len(self.graphics_of_class())  # the new primitive's place: the array's end
        tx = self.apply([AddGraphic(self.cls, graphic_text(tool, a, b))], f"Draw {tool.lower()}")
        if tx is not None and index in self.graphics:
            self.scene.clearSelection()
            self.graphics[index].setSelected(True)

    def graphics_of_class(self) -> list:
        cls = self.edits.sd.find(self.cls) if self.edits and self.cls else None
        g = cls.graphics("Icon") if cls is not None else None
        return g.items if g is not None and g.kind == "array" else []

    def _graphics_moved(self, deltas: dict) -> None:
        ops = []
        for index, (dx, dy) in sorted(deltas.items()):
            item = self.graphics.get(index)
            if item is not None:
                ox, oy = item.prim.origin
                ops.append(SetGraphic(self.cls, index, "origin", fmt_point((ox + dx, oy + dy))))
        self.apply(ops, "Move" if len(ops) == 1 else f"Move {len(ops)} graphics")

    def _icon_command(self, name: str) -> bool:
        """A key in the Icon view (delete, rotate); True when it was one."""
        chosen = self.selected_graphics()
        if name not in ("delete", "rotate") or not chosen:
            return False
        if name == "delete":  # the last first: earlier places do not move
            self.apply([RemoveGraphic(self.cls, i) for i in sorted(chosen, reverse=True)], "Delete graphics")
        else:
            ops = [SetGraphic(self.cls, i, "rotation", fmt_num((self.graphics[i].prim.rotation + 90) % 360))
                   for i in chosen]
            self.apply(ops, "Rotate")
        return True

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
        if self.read_only is not None:
            self.rebuild()  # put dragged icons back
            self.say(f"{label} refused: {self.read_only}", at)
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
        """A canvas key: undo, redo, save, fit (F), copy, paste, duplicate (Ctrl+D), parameters
        (Enter), delete, rotate (R), flip_h (H), flip_v (V)."""
        if name in ("undo", "redo", "fit", "save"):
            getattr(self, name)()
            return
        if self.layer == "Icon":
            self._icon_command(name)
            return
        if name in ("copy", "paste", "duplicate"):
            getattr(self, name)()
            return
        comps = [c for c in self._placed() if c is not None]
        if not comps:
            inherited = [n for n in self.selected() if n in self.nodes and self.nodes[n].view.inherited]
            if inherited:
                self.say(f"{', '.join(inherited)}: inherited from a base class, edited there")
            return
        if name == "parameters":
            self.edit_parameters(comps[0].name)
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

    def _wire_edited(self, a: str, b: str, points: list) -> None:
        pts = tuple((round(x / GRID) * GRID, round(y / GRID) * GRID) for x, y in points)
        self.apply([SetLinePoints(self.cls, a, b, pts)], "Bend connection")

    def _resized(self, name: str, extent) -> None:
        self.apply([SetPlacement(self.cls, name, extent=extent)], f"Resize {name}")

    # -- copy, paste, duplicate -----------------------------------------------------------------------
    def copy(self) -> int:
        """Keep the selected components (and the connections among them) for Paste; how many."""
        cls = self.edits.sd.find(self.cls) if self.edits and self.cls else None
        if cls is None:
            return 0
        self.clipboard = clip(self.edits, cls, self.selected())
        self._pastes = 0
        if self.clipboard.parts:
            QApplication.clipboard().setText(self.clipboard.text)
            self.message.setText(f"Copied {len(self.clipboard.parts)} component(s)")
        return len(self.clipboard.parts)

    def paste(self) -> Transaction | None:
        """Add copies of the copied components, named uniquely and offset, with the connections
        among them: one transaction."""
        cls = self.edits.sd.find(self.cls) if self.edits and self.cls else None
        if cls is None or self.clipboard is None or not self.clipboard.parts:
            return None
        self._pastes += 1
        taken = {c.name for b in self.edits.lib.bases(cls) for c in b.components} | {c.name for c in cls.classes}
        ops, names = self.clipboard.ops(self.cls, taken, (10.0 * self._pastes, -10.0 * self._pastes))
        tx = self.apply(ops, f"Paste {len(names)} component{'s' if len(names) != 1 else ''}")
        if tx is not None:
            self.scene.clearSelection()
            for n in names:
                if n in self.nodes:
                    self.nodes[n].setSelected(True)
        return tx

    def duplicate(self) -> Transaction | None:
        return self.paste() if self.copy() else None

    # -- drilling into classes -----------------------------------------------------------------------
    def _library_file(self, path: Path) -> bool:
        """Whether ``path`` belongs to a library (bundled, LunCoSim's) rather than to the twin."""
        twin = self.ctx.workspace.twin
        real = path.resolve()
        if twin is not None and real.is_relative_to(Path(twin.root).resolve()):
            return False
        libs = [bundled_library().resolve()]
        lunco = Path(twin.roots.lunco_root) if twin is not None else default_lunco_root()
        libs.append((lunco / "models").resolve())
        return any(real.is_relative_to(r) for r in libs)

    def open_class(self, name: str) -> bool:
        """Show the diagram of component ``name``'s class (a library class read-only)."""
        cls = self.edits.sd.find(self.cls) if self.edits and self.cls else None
        found = self.edits.lib.element(cls, name) if cls is not None else None
        if found is None:
            return False
        comp, owner = found
        target = self.edits.lib.resolve(comp.type_name, owner)
        home = self.edits.lib.home(target) if target is not None else None
        if home is None:
            self.say(f"Cannot open {comp.type_name}: the class is not found from {self.edits.path.name}")
            return False
        path = home.path or self.edits.path
        why = None
        if path.resolve() != self.edits.path and self._library_file(path):
            why = f"{home.full} is a library class, read-only here: Duplicate to edit makes an editable copy"
        self.history.append((self.edits.path, self.cls, self.read_only))
        if not self.open_file(path, home.full, read_only=why, keep_history=True):
            self.history.pop()
            return False
        self.message.setText(f"{home.full}" + (" (library class, read-only)" if why else ""))
        return True

    def back(self) -> bool:
        if not self.history:
            return False
        path, cls, why = self.history.pop()
        return self.open_file(path, cls, read_only=why, keep_history=True)

    def duplicate_to_edit(self) -> Path | None:
        """Copy the read-only class shown into an editable file (the twin's ``models/`` folder,
        else beside the file it was opened from), renamed ``<Name>Copy``, and show that."""
        cls = self.edits.sd.find(self.cls) if self.edits and self.cls else None
        home = self.edits.lib.home(cls) if cls is not None else None
        if cls is None or home is None:
            return None
        twin = self.ctx.workspace.twin
        if twin is not None:
            folder = Path(twin.root) / "models"
        elif self.history:
            folder = self.history[0][0].parent
        else:
            folder = Path.home()
        try:
            path, text = duplicate_class(self.edits.text, cls, home.full, folder)
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
        except OSError as exc:
            self.say(f"Cannot duplicate {home.full}: {exc}")
            return None
        self.history.append((self.edits.path, self.cls, self.read_only))
        self.open_file(path, keep_history=True)
        self.say(f"Duplicated {home.full} as {path.stem} in {path}: edit it here")
        return path

    # -- the context menu -----------------------------------------------------------------------------
    def _menu(self, target, at: QPointF) -> None:
        menu = self.context_menu(target)
        menu.exec(self.view.viewport().mapToGlobal(QPoint(int(at.x()), int(at.y()))))

    def context_menu(self, target) -> QMenu:
        """The actions for a right-click on ``target`` (a NodeItem, a WireItem or None)."""
        menu = QMenu(self)
        ro = self.read_only is not None

        def add(text: str, fn, enabled: bool = True) -> None:
            act = menu.addAction(text)
            act.triggered.connect(fn)
            act.setEnabled(enabled)

        if isinstance(target, NodeItem):
            name = target.view.name
            add("Parameters…\tEnter", lambda: self.edit_parameters(name), target.view.own_connector is None)
            add("Open class", lambda: self.open_class(name), target.view.own_connector is None)
            menu.addSeparator()
            for text, cmd in (("Rotate\tR", "rotate"), ("Flip horizontally\tH", "flip_h"),
                              ("Flip vertically\tV", "flip_v")):
                add(text, lambda _c=False, c=cmd: self.command(c), not ro)
            menu.addSeparator()
            add("Copy\tCtrl+C", self.copy)
            add("Duplicate\tCtrl+D", self.duplicate, not ro)
            add("Delete\tDel", lambda: self.command("delete"), not ro)
            self._plot_menu(menu, name)
        elif isinstance(target, WireItem):
            a, b = target.view.a, target.view.b
            pts = [(p.x(), -p.y()) for p in target.points()]
            add("Route around icons", lambda: self._wire_edited(a, b, pts), not ro and len(target.view.points) < 2)
            add("Remove bends", lambda: self._wire_edited(a, b, [pts[0], pts[-1]]), not ro and len(pts) > 2)
            add("Delete connection", lambda: self.apply([RemoveConnection(self.cls, a, b)], "Delete connection"), not ro)
        else:
            add("Paste\tCtrl+V", self.paste, not ro and self.clipboard is not None)
            add("Fit\tF", self.fit)
            self._plot_menu(menu, None)
        return menu

    def _plot_menu(self, menu: QMenu, node: str | None) -> None:
        """"Plot" entries for the live variables of a node (the class's own ones for the canvas)."""
        names = self.live.plot_names(node)
        if not names:
            return
        menu.addSeparator()
        sub = menu.addMenu("Plot") if len(names) > 1 else menu
        for n in names:
            act = sub.addAction(n if len(names) > 1 else f"Plot {n}")
            act.triggered.connect(lambda _c=False, n=n: self.live.plot(n))

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
        if self.edits is None:
            return
        prims = self._running_prims(snapshot)
        self.live.follow(prims[0] if prims else None)
        if not prims or not self.nodes:
            return
        values = live_values(snapshot.port_keys, snapshot.port_values, prims)
        live_note = f"live values of {prims[0]}" + (f" (+{len(prims) - 1} more running this file)" if len(prims) > 1 else "")
        if live_note not in self.view.toolTip() and not self.live.note():
            self.view.setToolTip(live_note)
        for node in self.nodes.values():
            live = {k: v for k, v in values.items() if k == node.view.name}
            if not live and node.view.name in node.live and self.live.active():
                continue  # not a port: the model's value (LiveLayer) stays
            if live != node.live:
                node.live = live
                node.update_tooltip()
                node.update()

    def close_panel(self) -> None:
        self.live.close()
        self.ctx.documents.removed.disconnect(self._on_document_removed)
        self._detach()
        self.scene.clear()
        self.graphics, self.nodes = {}, {}  # their items went with the scene
