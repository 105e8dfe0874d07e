"""The diagram's library browser: a tree of the classes that can be placed (our Workbench package,
the bundled standard-library subset, the twin's models, LunCoSim's library when the lunco:// root
holds it), a search box, and drag (or double-click) into the diagram.

A drag carries the class's full name as :data:`CLASS_MIME`; the canvas turns a drop into one
AddComponent. The tree is read from :func:`luncosim_core.modelica.syntax.catalog.palette`.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.modelica.syntax.catalog import Catalog, Entry

CLASS_MIME = "application/x-luncosim-modelica-class"
ROLE = Qt.ItemDataRole.UserRole


class _Tree(QTreeWidget):
    def mimeData(self, items) -> QMimeData:  # noqa: N802 - Qt's name
        data = QMimeData()
        names = [i.data(0, ROLE) for i in items if i.data(0, ROLE)]
        if names:
            data.setData(CLASS_MIME, names[0].encode())
            data.setText(names[0])
        return data

    def mimeTypes(self) -> list[str]:  # noqa: N802 - Qt's name
        return [CLASS_MIME]


class LibraryBrowser(QWidget):
    """``chosen(full_name)``: a class was double-clicked (or Enter pressed on it)."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog: Catalog | None = None
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the library")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.tree = _Tree()
        self.tree.setHeaderHidden(True)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.itemActivated.connect(self._activated)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.search)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.note)
        self.items: dict[str, QTreeWidgetItem] = {}

    def set_catalog(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.tree.clear()
        self.items = {}
        sections: dict[str, QTreeWidgetItem] = {}
        for e in sorted(catalog.entries, key=lambda e: e.qualified.lower()):
            if e.kind == "package" and not any(x.qualified.startswith(e.qualified + ".") and x.placeable
                                               for x in catalog.entries):
                continue  # a package with nothing to place
            if not e.placeable and e.kind != "package":
                continue
            section = sections.get(e.source)
            if section is None:
                section = QTreeWidgetItem([e.source])
                section.setFlags(Qt.ItemFlag.ItemIsEnabled)
                sections[e.source] = section
            self._item(section, e)
        order = ["Workbench", "Modelica (bundled subset)", "Twin", "LunCoSim"]
        for name in sorted(sections, key=lambda n: order.index(n) if n in order else len(order)):
            self.tree.addTopLevelItem(sections[name])
            sections[name].setExpanded(True)
        placeable = sum(e.placeable for e in catalog.entries)
        self.note.setText(f"{placeable} classes; drag one into the diagram or double-click it"
                          + (f" ({len(catalog.problems)} file(s) unreadable)" if catalog.problems else ""))
        self.note.setToolTip("\n".join(catalog.problems[:20]))
        self._filter(self.search.text())

    def _item(self, section: QTreeWidgetItem, e: Entry) -> QTreeWidgetItem:
        """The entry's item under its package's item (created on the way)."""
        parent_name, _, short = e.qualified.rpartition(".")
        parent = self.items.get(parent_name, section) if parent_name else section
        if parent_name and parent_name not in self.items:
            parent = self._package(section, parent_name)
        item = self.items.get(e.qualified)
        if item is None:
            item = QTreeWidgetItem(parent, [short])
            self.items[e.qualified] = item
        if e.placeable:
            item.setData(0, ROLE, e.qualified)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
        else:
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        item.setToolTip(0, f"<b>{e.qualified}</b> ({e.kind})" + (f"<br>{e.description}" if e.description else "")
                        + f"<br><i>{e.path}</i>")
        return item

    def _package(self, section: QTreeWidgetItem, name: str) -> QTreeWidgetItem:
        head, _, short = name.rpartition(".")
        parent = section if not head else (self.items.get(head) or self._package(section, head))
        item = QTreeWidgetItem(parent, [short])
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.items[name] = item
        return item

    def _filter(self, text: str) -> None:
        words = text.lower().split()

        def visit(item: QTreeWidgetItem) -> bool:
            name = item.data(0, ROLE) or ""
            tip = item.toolTip(0).lower()
            hit = bool(name) and all(w in name.lower() or w in tip for w in words)
            shown = False
            for k in range(item.childCount()):
                shown = visit(item.child(k)) or shown
            visible = shown or hit or (not words and item.childCount() > 0)
            item.setHidden(not visible)
            if words and shown:
                item.setExpanded(True)
            return visible

        for k in range(self.tree.topLevelItemCount()):
            visit(self.tree.topLevelItem(k))

    def visible_classes(self) -> list[str]:
        """Full names of the classes the tree shows now (after the search)."""
        out = []
        for name, item in self.items.items():
            hidden = False
            it: QTreeWidgetItem | None = item
            while it is not None:
                hidden = hidden or it.isHidden()
                it = it.parent()
            if item.data(0, ROLE) and not hidden:
                out.append(name)
        return sorted(out)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        name = item.data(0, ROLE)
        if name:
            self.chosen.emit(name)
