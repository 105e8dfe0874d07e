"""``PropertyInspector``: the composed properties of the current prim with typed editors.

Every edit is a typed op applied through the document journal (undoable) on the chosen edit
target (base or runtime). A value that does not fit is refused with the op's diagnostic, shown
in the inspector and the status bar; the document stays unchanged.

An edit is made only by the user's own gesture: a text field commits when its text was typed
(Enter, Tab or leaving it) and was changed, Escape puts the shown value back, a refresh of the
panel (after any edit, from any panel) keeps the text being typed and its focus, and a selection
change commits what was typed to the prim it was typed for. A field with no authored value is
empty, its schema's fallback (if any) a greyed placeholder ("0 (fallback)"), never a 0 that a
focus change could write; choices ignore the mouse wheel unless focused; outputs are read-only.

A value for a port (``inputs:``) is checked against the live port's bounds (``check``: the bounds
the running simulation knows, its owner's included) before the op is applied, and refused with
the reason. A transformable prim with no xformOps offers "Add Transform" (one ``SetTransform``).
"""

from __future__ import annotations

from collections.abc import Callable

from pxr import Usd, UsdGeom, UsdPhysics
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.usd.document import UsdDocument
from luncosim_core.usd.ops import Op, OpError, SetAttribute, SetTransform, SetVariantSelection
from luncosim_workbench.panels.assembly.properties import (
    PropertyRow,
    format_value,
    parse_vector,
    property_rows,
)


class ValueField(QLineEdit):
    """A typed value as text: commits only what the user typed (see the module doc)."""

    def __init__(self, row: PropertyRow, text: str) -> None:
        super().__init__(text)
        self.row = row
        self.shown = text
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setPlaceholderText(fallback_text(row))
        self.setToolTip(repr(row.value) if row.value is not None else not_authored_tip(row))
        self.setCursorPosition(0)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape and self.isModified():
            self.revert()
            return
        super().keyPressEvent(event)

    def revert(self) -> None:
        self.setText(self.shown)
        self.setModified(False)


def fallback_text(row: PropertyRow) -> str:
    """What an unauthored field shows, greyed: the schema's fallback, or "not authored"."""
    if row.fallback is None:
        return "not authored"
    return f"{format_value(row.fallback)} (fallback)"


def not_authored_tip(row: PropertyRow) -> str:
    if row.fallback is None:
        return "no authored value"
    return f"not authored: the schema's fallback {row.fallback!r} applies until a value is typed"


class _WheelGuard(QObject):
    """Choices change with the mouse wheel only when focused (no edit from scrolling the panel)."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        return event.type() == QEvent.Type.Wheel and not obj.hasFocus()


class _TabWalk(QObject):
    """Tab / Shift+Tab move between the inspector's fields (the tree would leave the panel)."""

    def __init__(self, inspector: PropertyInspector) -> None:
        super().__init__(inspector)
        self.inspector = inspector

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.FocusIn:
            self.inspector.field_focused(obj)  # the field's row becomes the current property
            return False
        if event.type() != QEvent.Type.KeyPress or event.key() not in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            return False
        fields = list(self.inspector.editors.values())
        if obj not in fields:
            return False
        step = -1 if event.key() == Qt.Key.Key_Backtab else 1
        fields[(fields.index(obj) + step) % len(fields)].setFocus(Qt.FocusReason.TabFocusReason)
        return True


def _parse(row: PropertyRow, text: str):
    """The typed value of ``text`` for ``row`` (raises ValueError naming the problem)."""
    text = text.strip()
    if row.editor == "vector":
        return parse_vector(text, row.size)
    if row.editor == "float":
        try:
            if not text:
                raise ValueError("empty: type a number (Escape keeps the shown value)")
            return float(text.split()[0])
        except (ValueError, IndexError) as exc:
            raise ValueError(str(exc) if "empty" in str(exc) else f"not a number: {text!r}") from None
    if row.editor == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"not an integer: {text!r}") from None
    return text


def _same(row: PropertyRow, value) -> bool:
    if row.value is None:
        return False
    if row.editor == "vector":
        return tuple(float(v) for v in row.value) == value
    return value == row.value


class PropertyInspector(QWidget):
    """Shows one prim; ``document`` and ``prim_path`` are set by the Assembly Editor. Edits go
    through ``apply(op)`` (the panel's ``PanelContext.apply``: the journal, author ``user``)."""

    def __init__(self, notify: Callable[[str], None] = lambda _m: None,
                 apply: Callable[[Op], Op] | None = None, parent=None, *,
                 check: Callable[[str, str, object], str] | None = None,
                 current_property: Callable[[str], None] | None = None) -> None:
        super().__init__(parent)
        self.notify = notify
        self._apply_op = apply
        self._check = check  # (prim, attribute, value) -> why it may not be written ("" = fine)
        self._current_property = current_property or (lambda _p: None)  # "/Prim.attr" or ""
        self.current_name = ""  # the property whose row is current
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
        self.target.currentTextChanged.connect(self._on_target_chosen)
        layout.addLayout(top)
        self.add_transform = QPushButton("Add Transform")
        self.add_transform.setToolTip("Author translate, rotate (and scale) ops on this prim: one undoable edit")
        self.add_transform.clicked.connect(self.author_transform)
        self.add_transform.hide()
        layout.addWidget(self.add_transform)
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
        self.tree.currentItemChanged.connect(self._on_current_item)
        layout.addWidget(self.tree, 1)
        self._refresh_pending = False
        self._wheel_guard = _WheelGuard(self)
        self._tab_walk = _TabWalk(self)

    @property
    def edit_target(self) -> str:
        return self.target.currentText()

    def set_edit_target(self, target: str) -> None:
        self.target.setCurrentText(target)

    def _on_target_chosen(self, target: str) -> None:
        if self.document is not None and target:
            self.document.set_edit_target(target)  # every panel edits there

    # ------------------------------------------------------------------ content
    def set_document(self, doc: UsdDocument | None) -> None:
        if self.document is not None:
            self.document.target_changed.disconnect(self.set_edit_target)
        self.document = doc
        if doc is not None:
            doc.target_changed.connect(self.set_edit_target)
            self.set_edit_target(doc.edit_target)
        self.prim_path = ""
        self.refresh()

    def show_prim(self, path: str) -> None:
        if path != self.prim_path:
            self.commit_typed()  # typed for the prim being left: it goes there, not to the next one
            for w in self.editors.values():
                if isinstance(w, ValueField):
                    w.setModified(False)
            self.current_name = ""
        self.prim_path = path
        self.refresh()
        self._current_property(f"{path}.{self.current_name}" if path and self.current_name else "")

    # ------------------------------------------------------------------ current property
    def _on_current_item(self, item, _previous) -> None:
        if self.tree.signalsBlocked():
            return
        self.current_name = item.text(0) if item is not None else ""
        self._current_property(f"{self.prim_path}.{self.current_name}" if self.current_name else "")

    def field_focused(self, field: QWidget) -> None:
        """A field took the focus: its row is the current property (as a click on the row is)."""
        name = next((n for n, w in self.editors.items() if w is field), "")
        item = self._item(name)
        if item is not None and self.tree.currentItem() is not item:
            self.tree.setCurrentItem(item)

    def _item(self, name: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            if self.tree.topLevelItem(i).text(0) == name:
                return self.tree.topLevelItem(i)
        return None

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

    def _typed(self) -> tuple[dict[str, str], str]:
        """Text typed but not committed, by property, and the property whose field has focus."""
        typed = {n: w.text() for n, w in self.editors.items() if isinstance(w, ValueField) and w.isModified()}
        focus = next((n for n, w in self.editors.items() if w.hasFocus()), "")
        return typed, focus

    def commit_typed(self) -> None:
        """Commit every field's typed text (to the prim it was typed for)."""
        for w in list(self.editors.values()):
            if isinstance(w, ValueField) and w.isModified():
                self._finish(w)

    def refresh(self) -> None:
        typed, focus = self._typed()
        for w in self.editors.values():
            w.blockSignals(True)  # a field destroyed here never commits
        self.tree.blockSignals(True)  # the current property stays what it was
        self.tree.clear()
        self.editors.clear()
        self._fill()
        item = self._item(self.current_name)
        if item is not None:
            self.tree.setCurrentItem(item)
        self.tree.blockSignals(False)
        for w in self.editors.values():
            w.installEventFilter(self._tab_walk)  # Tab walks the fields in the order shown
        for name, text in typed.items():
            w = self.editors.get(name)
            if isinstance(w, ValueField):
                w.setText(text)
                w.setModified(True)
        if focus in self.editors:
            self.editors[focus].setFocus()

    def _fill(self) -> None:
        while self.variants.rowCount():
            self.variants.removeRow(0)
        self.variant_boxes.clear()
        prim = self._prim()
        self.add_transform.setVisible(prim is not None and needs_transform(prim))
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
            box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            box.installEventFilter(self._wheel_guard)
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
                if not row.authored and not row.connections:
                    text = fallback_text(row) if row.fallback is not None else ""
                    item.setForeground(1, QBrush(self.palette().color(QPalette.ColorGroup.Disabled,
                                                                      QPalette.ColorRole.Text)))
                item.setText(1, text)
                item.setToolTip(1, text if row.authored or row.connections else not_authored_tip(row))
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
            w.setChecked(bool(row.value if row.authored else row.fallback))
            if not row.authored:
                w.setText("(fallback)" if row.fallback is not None else "(not authored)")
                w.setToolTip(not_authored_tip(row))
                w.setStyleSheet("color: palette(mid)")
            w.toggled.connect(lambda v: self.set_value(name, bool(v)))
            return w
        if row.editor == "token":
            w = QComboBox()
            w.addItems(list(row.allowed))
            if row.authored:
                w.setCurrentText(str(row.value))
            else:
                w.setCurrentIndex(-1)  # nothing chosen: the fallback is a placeholder
                w.setPlaceholderText(fallback_text(row))
                w.setToolTip(not_authored_tip(row))
            w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            w.installEventFilter(self._wheel_guard)
            w.currentTextChanged.connect(lambda v: self.set_value(name, str(v)))
            return w
        text = "" if row.value is None else (format_value(row.value) if row.editor in ("float", "vector") else str(row.value))
        w = ValueField(row, text)
        if row.editor == "asset":
            w.setPlaceholderText("asset path")
        elif row.editor == "vector":
            w.setToolTip(f"{row.size} numbers separated by commas")
        if row.unit:
            w.setToolTip(f"{w.toolTip()} [{row.unit}]")
        w.editingFinished.connect(lambda w=w: self._finish(w))
        return w

    def _finish(self, w: ValueField) -> None:
        """Enter, Tab or focus out: commit what the user typed, if it changed the value."""
        if not w.isModified():
            return
        w.setModified(False)
        row = w.row
        if not w.text().strip() and row.value is None:
            return  # still not authored
        try:
            value = _parse(row, w.text())
        except ValueError as exc:
            self._show_error(f"{self.prim_path}.{row.name}: {exc}")
            return
        if not _same(row, value):
            self.set_value(row.name, value)

    def set_value(self, name: str, value) -> bool:
        """Apply ``SetAttribute`` for the current prim on the chosen edit target (a port's value is
        first checked against the live port's bounds)."""
        problem = self._check(self.prim_path, name, value) if self._check is not None else ""
        if problem:
            self._show_error(problem)
            return False
        return self._apply(SetAttribute(path=self.prim_path, name=name, value=value, target=self.edit_target))

    def author_transform(self) -> bool:
        """"Add Transform": translate, rotateXYZ (and scale, but not on a rigid body) at identity,
        as one ``SetTransform`` on the chosen edit target."""
        prim = self._prim()
        if prim is None:
            return False
        body = prim.HasAPI(UsdPhysics.RigidBodyAPI)
        return self._apply(SetTransform(path=self.prim_path, translate=(0.0, 0.0, 0.0), rotate_xyz=(0.0, 0.0, 0.0),
                                        scale=None if body else (1.0, 1.0, 1.0), target=self.edit_target))

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


def needs_transform(prim: Usd.Prim) -> bool:
    """A transformable prim that authors no xformOps yet (the inspector offers to add them)."""
    if not prim.IsA(UsdGeom.Xformable):
        return False
    return not UsdGeom.Xformable(prim).GetOrderedXformOps()
