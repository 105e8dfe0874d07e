"""The Layer stack panel: which layers compose the scene, strongest first, with their files; the
edit target (double-click base or runtime, or Enter on it, to switch it for every panel); which layers hold
opinions about the selected prim (the strongest one in bold) and what each says about the property
current in the inspector (the winning one in bold). File > Save Scene As… and File > New Twin…
come from here (the core's ``UsdDocument.save_as`` and ``new_twin``)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.usd.new_twin import new_twin
from luncosim_workbench.panels.layers.model import layer_rows, strength_order
from luncosim_workbench.plugins import PanelWidget

COLUMNS = ["Layer", "Edit target", "Opinions on selection", "Property opinion", "File", "Role"]
PROPERTY_COL = 3


class NewTwinDialog(QDialog):
    """Where the new twin goes, its name, and whether its scene has a ground."""

    def __init__(self, parent=None, start: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("New Twin")
        form = QFormLayout(self)
        row = QHBoxLayout()
        self.folder = QLineEdit(start)
        self.folder.setPlaceholderText("an empty or new folder")
        row.addWidget(self.folder, 1)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row.addWidget(browse)
        form.addRow("Folder", row)
        self.name = QLineEdit()
        self.name.setPlaceholderText("the folder's name")
        form.addRow("Name", self.name)
        self.ground = QCheckBox("A ground collider (100 m slab, top at height 0)")
        self.ground.setChecked(True)
        form.addRow("", self.ground)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of the new twin", self.folder.text())
        if folder:
            self.folder.setText(folder)


class LayerStackPanel(PanelWidget):
    def __init__(self, ctx, parent=None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        self.header = QLabel("")
        layout.addWidget(self.header)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setRootIsDecorated(False)
        for col, width in enumerate((180, 80, 140, 150, 380)):
            self.tree.setColumnWidth(col, width)
        self.tree.itemActivated.connect(self._on_double_click)  # double-click or Enter
        layout.addWidget(self.tree, 1)
        self.rows = []
        self._doc = None
        self._order: dict[str, int] | None = None  # strength of the composed layers (per document state)
        ctx.documents.scene_replaced.connect(lambda _doc: self._on_changed())
        ctx.property_selected.connect(lambda _path: self.refresh())
        self.refresh()

    def _watch(self, doc) -> None:
        if doc is self._doc:
            return
        if self._doc is not None:
            self._doc.changed.disconnect(self._on_changed)
            self._doc.target_changed.disconnect(self._on_changed)
        self._doc = doc
        if doc is not None:
            doc.changed.connect(self._on_changed)
            doc.target_changed.connect(self._on_changed)

    def _on_changed(self, *_args) -> None:
        self._order = None
        self.refresh()

    def refresh(self) -> None:
        doc = self.ctx.documents.scene
        self._watch(doc)
        self.tree.clear()
        if doc is None:
            self.rows = []
            self.header.setText("No scene")
            return
        selected = self.ctx.selection.current or ""
        prop = self.ctx.selected_property
        prop = prop if selected and prop.startswith(selected + ".") else ""
        if self._order is None:
            self._order = strength_order(doc.stage)
        self.rows = layer_rows(doc, selected, prop, self._order)
        self.tree.headerItem().setText(PROPERTY_COL, f"Opinion on {prop.rpartition('.')[2]}" if prop else "Property opinion")
        self.header.setText(f"{len(self.rows)} layers; edit target: {doc.edit_target}"
                            + (f"; opinions about {prop or selected}" if selected else ""))
        bold = QFont()
        bold.setBold(True)
        for r in self.rows:
            item = QTreeWidgetItem(["  " * r.depth + r.name + (" *" if r.dirty else ""),
                                    "✎" if r.role == doc.edit_target else "",
                                    (str(r.opinions) + ("  strongest" if r.strongest else "")) if r.opinions else "",
                                    r.property_opinion + ("  (wins)" if r.property_wins else ""),
                                    r.file or "(in memory)", r.note])
            item.setToolTip(4, r.file or "this layer lives in memory")
            item.setToolTip(0, r.note + ("; double-click to edit here" if r.editable else ""))
            if r.property_opinion:
                item.setToolTip(PROPERTY_COL, f"{r.name} authors {prop.rpartition('.')[2]} = {r.property_opinion}"
                                + ("; the strongest opinion: it is the value" if r.property_wins else ""))
            if r.strongest:
                for c in range(len(COLUMNS)):
                    item.setFont(c, bold)
            elif r.property_wins:
                item.setFont(PROPERTY_COL, bold)
            self.tree.addTopLevelItem(item)

    def set_edit_target(self, role: str) -> bool:
        doc = self.ctx.documents.scene
        if doc is None or role not in ("base", "runtime"):
            self.ctx.notify(f"{role} cannot be the edit target (choose base or runtime)")
            return False
        doc.set_edit_target(role)
        self.ctx.notify(f"Edits now go to the {role} layer")
        return True

    def _on_double_click(self, item, _column) -> None:
        row = self.rows[self.tree.indexOfTopLevelItem(item)]
        self.set_edit_target(row.role)

    def on_selection(self, _added, _removed) -> None:
        self.refresh()

    # ------------------------------------------------------------------ Save As, New Twin
    def ask_save_as(self) -> None:
        doc = self.ctx.documents.scene
        if doc is None:
            self.ctx.notify("Open a scene first")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save Scene As", str(doc.path), "USD text (*.usda)")
        if path:
            self.save_scene_as(Path(path) if path.endswith(".usda") else Path(path + ".usda"), overwrite=True)

    def save_scene_as(self, path: Path, *, overwrite: bool = False) -> bool:
        """Write the scene (unsaved edits included) to ``path`` and work on that file from now on
        (the old file stays as it was). ``overwrite``: the user agreed to replace ``path``."""
        doc = self.ctx.documents.scene
        if doc is None:
            return False
        twin = self.ctx.workspace.twin
        sidecar = twin.runtime_sidecar(path) if twin is not None and doc.persist_runtime else None
        try:
            doc.save_as(path, overwrite=overwrite, runtime_sidecar=sidecar)
        except DiagnosticError as exc:
            msg = "; ".join(d.message for d in exc.diagnostics)
            self.ctx.notify(f"Save As refused: {msg}")
            self.ctx.log(f"save as {path} refused: {msg}")
            return False
        self.ctx.log(f"saved the scene as {path}")
        # the session follows the document to its new file: every panel, the viewport and the
        # simulation take it, and the journal (undo) stays with the document
        self.ctx.notify(f"Saved as {path}")
        return True

    def ask_new_twin(self) -> None:
        twin = self.ctx.workspace.twin
        dialog = NewTwinDialog(self, str(twin.root.parent) + "/" if twin is not None else "")
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.folder.text().strip():
            self.make_twin(Path(dialog.folder.text().strip()).expanduser(), dialog.name.text().strip(),
                           ground=dialog.ground.isChecked())

    def make_twin(self, folder: Path, name: str = "", *, ground: bool = True) -> bool:
        """Make a new twin in ``folder`` (``twin.toml`` and a scene at lunar gravity) and open it."""
        try:
            made = new_twin(folder, name, ground=ground)
        except DiagnosticError as exc:
            msg = "; ".join(d.message for d in exc.diagnostics)
            self.ctx.notify(f"New Twin refused: {msg}")
            self.ctx.log(f"new twin in {folder} refused: {msg}")
            return False
        self.ctx.log(f"made the twin {made.root} ({made.scene.name})")
        return bool(self.ctx.open_path(made.root))
