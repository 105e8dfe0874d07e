"""The Parameters dialog: every parameter of a component's class (inherited too) with type, unit,
default and description, and its modifier in this diagram, editable. A value that does not parse
or falls outside the parameter's min/max is refused with the reason; the dialog stays open."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.modelica.syntax.parameters import ParameterInfo, value_problem

COLUMNS = ("Parameter", "Type", "Unit", "Default", "Modifier", "Description")
MODIFIER = COLUMNS.index("Modifier")


class ParametersDialog(QDialog):
    """``apply(changes)`` gets {name: new modifier text, or None to remove it} and returns None
    when they were applied, else the reason they were refused."""

    def __init__(self, component: str, type_name: str, params: list[ParameterInfo], current: dict[str, str],
                 apply: Callable[[dict[str, str | None]], str | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Parameters of {component} ({type_name})")
        self.params = params
        self.current = {p.name: current.get(p.name, "") for p in params}
        self._apply = apply
        self.table = QTableWidget(len(params), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for row, p in enumerate(params):
            bounds = "" if p.min is None and p.max is None else \
                f" [{'' if p.min is None else f'{p.min:g}'}..{'' if p.max is None else f'{p.max:g}'}]"
            cells = (p.name, p.type_name, p.unit + bounds, p.default, self.current[p.name], p.description)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col != MODIFIER:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        self.problem = QLabel("Empty a modifier to remove it (the default applies).")
        self.problem.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        for b in buttons.buttons():  # Enter in a cell commits the cell; it does not close the dialog
            b.setAutoDefault(False)
            b.setDefault(False)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(self.problem)
        lay.addWidget(buttons)
        self.resize(760, 120 + 30 * max(len(params), 3))

    def changes(self) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for row, p in enumerate(self.params):
            text = self.table.item(row, MODIFIER).text().strip()
            if text != self.current[p.name].strip():
                out[p.name] = text or None
        return out

    def accept(self) -> None:
        changes = self.changes()
        for p in self.params:
            value = changes.get(p.name)
            if value is not None and (why := value_problem(p, value)) is not None:
                self.problem.setText(why)
                return
        if changes and (why := self._apply(changes)) is not None:
            self.problem.setText(why)
            return
        super().accept()
