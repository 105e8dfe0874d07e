"""``PropertyInspector``: the composed properties of the current prim with typed editors.

Every edit is a typed op applied through the document journal (undoable) on the chosen edit
target (base or runtime). A value that does not fit is refused with the op's diagnostic, shown
in the inspector and the status bar; the document stays unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

from pxr import Usd
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import Op, OpError, SetAttribute, SetVariantSelection
from luncosim_workbench.panels.assembly.properties import (
    PropertyRow,
    format_value,
    parse_vector,
    property_rows,
)


class PropertyInspector(QWidget):
    """Shows one prim; ``document`` and ``prim_path`` are set by the Assembly Editor. Edits go
    through ``apply(op)`` (the panel's ``PanelContext.apply``: the journal, author ``user``)."""

    def __init__(self, notify: Callable[[str], None] = lambda _m: None,
                 apply: Callable[[Op], Op] | None = None, parent=None) -> None:
        super().__init__(parent)
        self.notify = notify
        self._apply_op = apply
        self.document: UsdDocument | None = None
        self.prim_path = ""
        self.editors: dict[str, QWidget] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.title = QLabel("No prim selected")
        self.title.setStyleSheet("font-weight: bold")
        top.addWidget(self.title, 1)
        top.addWidget(QLabel("Edit target:"))
        self.target = QComboBox()
        self.target.addItems(["base", "runtime"])
        self.target.setToolTip("base: the scene file (saved). runtime: durable edits kept beside it.")
        top.addWidget(self.target)
        layout.addLayout(top)
        self.variants = QFormLayout()
        layout.addLayout(self.variants)
        self.variant_boxes: dict[str, QComboBox] = {}
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c0392b")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Property", "Value", "Type", "Strongest opinion"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setColumnWidth(0, 170)
        self.tree.setColumnWidth(1, 190)
        self.tree.setColumnWidth(2, 70)
        layout.addWidget(self.tree, 1)
        self._refresh_pending = False

    @property
    def edit_target(self) -> str:
        return self.target.currentText()

    def set_edit_target(self, target: str) -> None:
        self.target.setCurrentText(target)

    # ------------------------------------------------------------------ content
    def set_document(self, doc: UsdDocument | None) -> None:
        self.document = doc
        self.prim_path = ""
        self.refresh()

    def show_prim(self, path: str) -> None:
        self.prim_path = path
        self.refresh()

    def schedule_refresh(self) -> None:
        """Refresh after the current event (an editor may be emitting the signal that edited)."""
        if not self._refresh_pending:
            self._refresh_pending = True
            QTimer.singleShot(0, self._deferred_refresh)

    def _deferred_refresh(self) -> None:
        self._refresh_pending = False
        self.refresh()

    def _prim(self) -> Usd.Prim | None:
        if self.document is None or not self.prim_path:
            return None
        prim = self.document.stage.GetPrimAtPath(self.prim_path)
        return prim if prim else None

    def refresh(self) -> None:
        self.tree.clear()
        self.editors.clear()
        while self.variants.rowCount():
            self.variants.removeRow(0)
        self.variant_boxes.clear()
        prim = self._prim()
        if prim is None:
            self.title.setText("No prim selected" if not self.prim_path else f"{self.prim_path} (gone)")
            return
        self.title.setText(f"{prim.GetPath()}  ({prim.GetTypeName() or 'untyped'})")
        vsets = prim.GetVariantSets()
        for name in vsets.GetNames():
            box = QComboBox()
            vset = vsets.GetVariantSet(name)
            box.addItems([""] + list(vset.GetVariantNames()))
            box.setCurrentText(vset.GetVariantSelection())
            box.currentTextChanged.connect(lambda sel, n=name: self._apply(
                SetVariantSelection(path=self.prim_path, variant_set=n, selection=sel, target=self.edit_target)))
            self.variant_boxes[name] = box
            self.variants.addRow(f"variant {name}", box)
        for row in property_rows(prim, self.document):
            item = QTreeWidgetItem([row.name, "", row.type_name + (f" [{row.unit}]" if row.unit else ""), row.layer])
            tip = row.name
            if row.connections:
                tip += "\nconnected from: " + ", ".join(row.connections)
            item.setToolTip(0, tip)
            self.tree.addTopLevelItem(item)
            editor = self._editor(row)
            if editor is None:
                text = ", ".join(row.value) if row.kind == "relationship" else format_value(row.value)
                if row.connections:
                    text = (text + "  " if text else "") + "<- " + ", ".join(row.connections)
                item.setText(1, text)
                item.setToolTip(1, text)
            else:
                self.editors[row.name] = editor
                self.tree.setItemWidget(item, 1, editor)

    # ------------------------------------------------------------------ editors
    def _editor(self, row: PropertyRow) -> QWidget | None:
        if row.kind != "attribute" or row.editor == "readonly":
            return None
        name = row.name
        if row.editor == "bool":
            w = QCheckBox()
            w.setChecked(bool(row.value))
            w.toggled.connect(lambda v: self.set_value(name, bool(v)))
            return w
        if row.editor == "int":
            w = QSpinBox()
            w.setRange(-2**31, 2**31 - 1)
            w.setValue(int(row.value or 0))
            w.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
            w.editingFinished.connect(lambda w=w: self._commit_if_changed(name, int(w.value()), row.value))
            return w
        if row.editor == "float":
            w = QDoubleSpinBox()
            w.setDecimals(6)
            w.setRange(-1e12, 1e12)
            w.setValue(float(row.value) if row.value is not None else 0.0)
            w.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
            if row.unit:
                w.setSuffix(f" {row.unit}")
            w.editingFinished.connect(lambda w=w: self._commit_if_changed(name, float(w.value()), row.value))
            return w
        if row.editor == "token":
            w = QComboBox()
            w.addItems(list(row.allowed))
            w.setCurrentText(str(row.value or ""))
            w.currentTextChanged.connect(lambda v: self.set_value(name, str(v)))
            return w
        if row.editor in ("string", "asset"):
            w = QLineEdit(str(row.value or ""))
            if row.editor == "asset":
                w.setPlaceholderText("asset path")
            w.editingFinished.connect(lambda w=w: self._commit_if_changed(name, w.text(), row.value or ""))
            return w
        if row.editor == "vector":
            w = QLineEdit(format_value(row.value))
            w.setToolTip(f"{row.size} numbers separated by commas")
            w.editingFinished.connect(lambda w=w: self._commit_vector(name, w.text(), row))
            return w
        return None

    def _commit_if_changed(self, name: str, value, old) -> None:
        if old is not None and value == old:
            return
        self.set_value(name, value)

    def _commit_vector(self, name: str, text: str, row: PropertyRow) -> None:
        try:
            value = parse_vector(text, row.size)
        except ValueError as exc:
            self._show_error(f"{self.prim_path}.{name}: {exc}")
            return
        if row.value is not None and tuple(float(v) for v in row.value) == value:
            return
        self.set_value(name, value)

    def set_value(self, name: str, value) -> bool:
        """Apply ``SetAttribute`` for the current prim on the chosen edit target."""
        return self._apply(SetAttribute(path=self.prim_path, name=name, value=value, target=self.edit_target))

    def _apply(self, op) -> bool:
        if self.document is None:
            return False
        try:
            if self._apply_op is not None:
                self._apply_op(op)
            else:
                self.document.apply(op)
        except OpError as exc:
            self._show_error("; ".join(d.message for d in exc.diagnostics) or str(exc))
            return False
        self.error.hide()
        self.schedule_refresh()
        return True

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
        self.notify(text)
        self.schedule_refresh()
