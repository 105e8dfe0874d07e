"""The Layer stack panel: which layers compose the scene, strongest first, with their files; the
edit target (double-click base or runtime, or Enter on it, to switch it for every panel); which layers hold
opinions about the selected prim (the strongest one in bold)."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout

from luncosim_workbench.panels.layers.model import layer_rows
from luncosim_workbench.plugins import PanelWidget

COLUMNS = ["Layer", "Edit target", "Opinions on selection", "File", "Role"]


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
        self.tree.setColumnWidth(0, 180)
        self.tree.setColumnWidth(1, 80)
        self.tree.setColumnWidth(2, 140)
        self.tree.setColumnWidth(3, 380)
        self.tree.itemActivated.connect(self._on_double_click)  # double-click or Enter
        layout.addWidget(self.tree, 1)
        self.rows = []
        self._doc = None
        ctx.documents.scene_replaced.connect(lambda _doc: self.refresh())
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
        self.rows = layer_rows(doc, selected)
        self.header.setText(f"{len(self.rows)} layers; edit target: {doc.edit_target}"
                            + (f"; opinions about {selected}" if selected else ""))
        bold = QFont()
        bold.setBold(True)
        for r in self.rows:
            item = QTreeWidgetItem(["  " * r.depth + r.name + (" *" if r.dirty else ""),
                                    "✎" if r.role == doc.edit_target else "",
                                    (str(r.opinions) + ("  strongest" if r.strongest else "")) if r.opinions else "",
                                    r.file or "(in memory)", r.note])
            item.setToolTip(3, r.file or "this layer lives in memory")
            item.setToolTip(0, r.note + ("; double-click to edit here" if r.editable else ""))
            if r.strongest:
                for c in range(len(COLUMNS)):
                    item.setFont(c, bold)
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
