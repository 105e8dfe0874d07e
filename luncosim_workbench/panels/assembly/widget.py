"""The Assembly Editor: the composed prim tree (filterable, shared selection) over the inspector."""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QMenu,
    QSplitter,
    QToolButton,
    QTreeView,
    QVBoxLayout,
)

from luncosim_core.api import ListPorts
from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.ports.bounds import bound_problem_json
from luncosim_core.usd.create import create, create_joint, create_reference
from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import AddPrim, AddReference, Batch, MovePrim, RemovePrim
from luncosim_workbench import resources
from luncosim_workbench.asset_names import asset_reference
from luncosim_workbench.context import PanelContext
from luncosim_workbench.panels.assembly.asset_dialog import AddAssetDialog
from luncosim_workbench.panels.assembly.inspector import PropertyInspector
from luncosim_workbench.panels.assembly.prim_tree import PrimFilterProxy, PrimTreeModel
from luncosim_workbench.panels.assembly.program_source import has_source, open_program_source
from luncosim_workbench.plugins import PanelWidget


class AssemblyEditor(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.document: UsdDocument | None = None
        self.asset_dialog: AddAssetDialog | None = None  # Add Asset…, while it is open
        self.model = PrimTreeModel()
        self.proxy = PrimFilterProxy()
        self.proxy.setSourceModel(self.model)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        bar = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter prims (name, type, kind, schema)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._on_filter)
        bar.addWidget(self.filter, 1)
        self.tool_buttons: list[QToolButton] = []
        for icon, tip, slot in (("add", "Add a child prim", self.ask_add), ("remove", "Remove the selected prim", self.remove_selected),
                                ("rename", "Rename the selected prim (F2)", self.ask_rename),
                                ("open_source", "Open the selected program prim's source in the editor",
                                 self.open_source)):
            b = QToolButton()
            b.setIcon(resources.icon(icon))
            b.setProperty("icon_name", icon)
            b.setAutoRaise(True)
            self.tool_buttons.append(b)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            bar.addWidget(b)
        layout.addLayout(bar)
        split = QSplitter(Qt.Orientation.Vertical)
        self.view = QTreeView()
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.view.setAcceptDrops(True)
        self.view.setDropIndicatorShown(True)
        self.view.setColumnWidth(0, 200)
        self.view.setColumnWidth(1, 90)
        self.view.setColumnWidth(2, 70)
        self.view.selectionModel().selectionChanged.connect(self._on_view_selection)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        split.addWidget(self.view)
        self.inspector = PropertyInspector(ctx.notify, ctx.apply, check=self.port_value_problem,
                                           current_property=ctx.select_property)
        self._ports: tuple[str, object, Future] | None = None  # (prim, (generation, tick), ListPorts)
        split.addWidget(self.inspector)
        split.setSizes([300, 400])
        layout.addWidget(split, 1)
        self._syncing = False
        self.model.referenceDropped.connect(self.add_reference)
        self.model.primsChanged.connect(self._on_prims_changed)
        ctx.documents.scene_replaced.connect(self.set_document)
        self.set_document(ctx.documents.scene)

    # ------------------------------------------------------------------ document
    def set_document(self, doc: UsdDocument | None) -> None:
        if doc is not self.document:
            self.close_asset_dialog()  # it lists the old twin's assets
        self.document = doc
        self.model.set_stage(doc.stage if doc else None)
        self.inspector.set_document(doc)
        if doc is not None:
            self.view.expandToDepth(1)

    def close_panel(self) -> None:
        self.close_asset_dialog()
        self.model.close()

    def on_theme_changed(self) -> None:
        for b in self.tool_buttons:
            b.setIcon(resources.icon(b.property("icon_name")))
        self.model.clear_icon_cache()
        if self.asset_dialog is not None:
            self.asset_dialog.on_theme_changed()

    def _on_prims_changed(self, paths: list) -> None:
        current = self.inspector.prim_path
        if current and any(current == p or current.startswith(p.rstrip("/") + "/") or p == "/" for p in paths):
            self.inspector.schedule_refresh()

    # ------------------------------------------------------------------ program sources
    def _selected_path(self) -> str:
        return self.ctx.selection.current or ""

    def open_source(self, path: str | None = None) -> bool:
        """Open a program prim's source in the editor: its file, or its inline ``info:sourceCode``
        as a document whose saves edit the scene. False (with the reason shown) when it has none."""
        path = path or self._selected_path()
        said = open_program_source(self.ctx, path)
        self.ctx.notify(said)
        return said.startswith("opened")

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        path = self.model.path_for_index(self.proxy.mapToSource(index))
        prim = self.document.stage.GetPrimAtPath(path) if self.document is not None and path else None
        menu = QMenu(self.view)
        act = menu.addAction(resources.icon("open_source"), "Open source", lambda: self.open_source(path))
        act.setEnabled(has_source(prim))
        menu.addAction(resources.icon("rename"), "Rename…", self.ask_rename)
        menu.addAction(resources.icon("remove"), "Remove", self.remove_selected)
        self.context_menu = menu  # kept for tests
        menu.popup(self.view.viewport().mapToGlobal(pos))

    # ------------------------------------------------------------------ selection
    def _on_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        if text:
            self.view.expandAll()

    def _on_view_selection(self, *_args) -> None:
        if self._syncing:
            return
        rows = self.view.selectionModel().selectedRows(0)
        paths = [self.model.path_for_index(self.proxy.mapToSource(i)) for i in rows]
        self._syncing = True
        try:
            self.ctx.selection.set(paths)
        finally:
            self._syncing = False
        self.inspector.show_prim(paths[-1] if paths else "")

    def on_selection(self, _added: tuple, _removed: tuple) -> None:
        paths = self.ctx.selection.paths
        self.inspector.show_prim(paths[-1] if paths else "")
        if paths:
            self._live_ports(paths[-1])  # asked now, answered by the time a value is typed
        if self._syncing:
            return
        self._syncing = True
        try:
            sel = QItemSelection()
            for p in paths:
                idx = self.proxy.mapFromSource(self.model.index_for_path(p))
                if idx.isValid():
                    sel.select(idx, idx.siblingAtColumn(self.proxy.columnCount() - 1))
                    self.view.scrollTo(idx)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
            self.view.selectionModel().select(sel, flags)
        finally:
            self._syncing = False

    # ------------------------------------------------------------------ live port bounds
    def _live_ports(self, prim: str) -> Future:
        """The running simulation's ports of ``prim`` (asked again once the simulation moved on: a
        compile that finished meanwhile brings its model's bounds)."""
        snap = self.ctx.latest
        when = (snap.generation, snap.tick) if snap is not None else None
        if self._ports is None or self._ports[:2] != (prim, when):
            self._ports = (prim, when, self.ctx.query(ListPorts(prim)))
        return self._ports[2]

    def port_value_problem(self, prim: str, name: str, value) -> str:
        """Why ``value`` may not be authored for the port ``inputs:<x>`` of ``prim`` (its live bounds,
        the owner's included: a controller's min/max behind a rover's input), "" when it may (or
        when no simulation runs to say)."""
        namespace, _, bare = name.partition(":")
        if namespace != "inputs" or isinstance(value, bool) or not isinstance(value, (int, float)):
            return ""
        try:
            result = self._live_ports(prim).result(timeout=1.0)
        except FutureTimeout:
            return ""  # the simulation is busy: the document op's own checks still apply
        if not result.ok:
            return ""
        entry = next((p for p in result.value or () if p.get("name") == bare and p.get("direction") == "in"), None)
        return bound_problem_json(f"{prim}.{bare}", float(value), entry) if entry is not None else ""

    # ------------------------------------------------------------------ structure edits
    def _apply(self, op) -> bool:
        try:
            self.ctx.apply(op)
        except DiagnosticError as exc:  # a refused op (the document is unchanged) or no document
            self.ctx.notify("; ".join(d.message for d in exc.diagnostics))
            return False
        return True

    def ask_add(self) -> None:
        name, ok = QInputDialog.getText(self, "Add prim", "Name of the new child prim:")
        if ok and name:
            type_name, ok = QInputDialog.getItem(self, "Add prim", "Type:", ["Xform", "Scope", "Cube", "Sphere", "Cylinder", "Mesh"], 0, True)
            if ok:
                self.add_child(name, type_name)

    def add_child(self, name: str, type_name: str = "Xform") -> str | None:
        parent = self.ctx.selection.current or (
            str(self.document.stage.GetDefaultPrim().GetPath()) if self.document and self.document.stage.GetDefaultPrim() else "")
        path = f"{parent.rstrip('/')}/{name}" if parent else f"/{name}"
        if self._apply(AddPrim(path=path, type_name=type_name, target=self.inspector.edit_target)):
            self.ctx.selection.set([path])
            return path
        return None

    def remove_selected(self) -> None:
        paths = self.ctx.selection.paths
        if not paths:
            self.ctx.notify("Select a prim to remove")
            return
        ops = tuple(RemovePrim(path=p, target=self.inspector.edit_target) for p in sorted(paths, key=len, reverse=True))
        self._apply(ops[0] if len(ops) == 1 else Batch(ops=ops, name=f"remove {len(ops)} prims"))
        self.ctx.selection.clear()

    def ask_rename(self) -> None:
        current = self.ctx.selection.current
        if not current:
            return
        name, ok = QInputDialog.getText(self, "Rename prim", "New name:", text=current.rsplit("/", 1)[-1])
        if ok and name:
            self.rename(current, name)

    def rename(self, path: str, new_name: str) -> str | None:
        new_path = f"{path.rsplit('/', 1)[0]}/{new_name}"
        if self._apply(MovePrim(path=path, new_path=new_path, target=self.inspector.edit_target)):
            self.ctx.selection.set([new_path])
            return new_path
        return None

    def add_reference(self, prim_path: str, asset_file: str) -> bool:
        """Reference ``asset_file`` (a library entry dropped on the prim) from ``prim_path``."""
        if self.document is None:
            return False
        rel = asset_reference(self.document, asset_file)
        ok = self._apply(AddReference(path=prim_path, asset_path=rel, target=self.inspector.edit_target))
        if ok:
            self.ctx.notify(f"{prim_path} now references {rel}")
        return ok

    # ------------------------------------------------------------------ Create
    def create_parent(self) -> str:
        """Where Create puts a new prim: the selected Xform or Scope, else the selection's parent,
        else the default prim (else the root)."""
        stage = self.document.stage if self.document else None
        current = self.ctx.selection.current
        prim = stage.GetPrimAtPath(current) if stage is not None and current else None
        if prim:
            return current if prim.GetTypeName() in ("Xform", "Scope", "") else str(prim.GetParent().GetPath())
        default = stage.GetDefaultPrim() if stage is not None else None
        return str(default.GetPath()) if default else "/"

    def _create(self, make) -> str | None:
        if self.document is None:
            self.ctx.notify("Open a scene first")
            return None
        try:
            batch = make(self.document.stage, self.create_parent())
        except DiagnosticError as exc:
            self.ctx.notify("; ".join(d.message for d in exc.diagnostics))
            return None
        path = batch.ops[0].path
        if self._apply(batch):
            self.ctx.selection.set([path])
            return path
        return None

    def create_prim(self, kind: str, at=None) -> str | None:
        """Create a ``kind`` prim (see ``luncosim_core.usd.create.RECIPES``); selects it."""
        return self._create(lambda stage, parent: create(kind, stage, parent, at=at))

    def create_joint(self) -> str | None:
        """A joint between the two selected bodies, seated where they are."""
        paths = self.ctx.selection.paths
        if len(paths) != 2:
            self.ctx.notify("Select exactly two bodies to join")
            return None
        return self._create(lambda stage, _parent: create_joint(
            stage, str(stage.GetPrimAtPath(paths[0]).GetParent().GetPath()), paths[0], paths[1]))

    def create_asset(self, asset: str, at=None) -> str | None:
        """An Xform referencing ``asset`` (a ``lunco://`` / ``twin://`` URI, or a file: named by
        :func:`asset_reference`) under :meth:`create_parent`, placed at ``at`` (in the parent's
        frame), by default at the viewport's focus point (the parent's origin without a viewport)."""
        if self.document is None:
            return None
        uri = asset_reference(self.document, asset)

        def make(stage, parent):
            where = at if at is not None else self.ctx.focus_point(parent)
            return create_reference(stage, parent, uri, at=where)

        return self._create(make)

    def ask_asset(self) -> AddAssetDialog | None:
        """Show the Add Asset dialog (one at a time; raised again when already open)."""
        if self.document is None:
            self.ctx.notify("Open a scene first")
            return None
        if self.asset_dialog is not None:
            self.asset_dialog.show()
            self.asset_dialog.raise_()
            self.asset_dialog.activateWindow()
            return self.asset_dialog
        roots = self.document.roots
        dlg = AddAssetDialog(add=self.create_asset, lunco_root=getattr(roots, "lunco_root", None),
                             twin_root=getattr(roots, "twin_root", None), exclude=(self.document.path,),
                             parent=self.window())
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.destroyed.connect(self._asset_dialog_gone)
        self.asset_dialog = dlg
        dlg.show()
        return dlg

    def _asset_dialog_gone(self, *_args) -> None:
        self.asset_dialog = None

    def close_asset_dialog(self) -> None:
        if self.asset_dialog is not None:
            dlg, self.asset_dialog = self.asset_dialog, None
            dlg.close()
