"""The Twin Browser: scene entries, the twin's USD library, the shared library, the twin's files
and the composition warnings of the open scene.

Activating a scene opens it; activating a library file opens an isolated preview of it; library
entries can be dragged onto a prim in the Assembly Editor to add a reference.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from luncosim_core.twin.twin import USD_SUFFIXES
from luncosim_workbench import resources
from luncosim_workbench.context import PanelContext
from luncosim_workbench.mime import ASSET_MIME
from luncosim_workbench.plugins import PanelWidget

PATH_ROLE = Qt.ItemDataRole.UserRole
ACTION_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_FILES = 2000


class _DraggableTree(QTreeWidget):
    def mimeData(self, items):  # noqa: N802
        data = QMimeData()
        paths = [it.data(0, PATH_ROLE) for it in items if it.data(0, PATH_ROLE)]
        if paths:
            data.setData(ASSET_MIME, paths[0].encode("utf-8"))
            data.setUrls([QUrl.fromLocalFile(p) for p in paths])
        return data

    def mimeTypes(self):  # noqa: N802
        return [ASSET_MIME, "text/uri-list"]


class TwinBrowser(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        self.header = QLabel("No twin open")
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.tree = _DraggableTree()
        self.tree.setHeaderLabels(["Item", "Detail"])
        self.tree.setColumnWidth(0, 220)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.itemActivated.connect(self._on_activated)
        layout.addWidget(self.tree, 1)
        self.sections: dict[str, QTreeWidgetItem] = {}
        ctx.workspace.opened.connect(lambda _r: self.refresh())
        ctx.workspace.diagnostics_changed.connect(self.refresh)
        self.refresh()

    def _section(self, key: str, title: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([title, ""])
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        self.tree.addTopLevelItem(item)
        self.sections[key] = item
        return item

    def _file_item(self, parent: QTreeWidgetItem, label: str, path: Path, action: str, detail: str = "") -> QTreeWidgetItem:
        item = QTreeWidgetItem([label, detail])
        item.setIcon(0, resources.icon("scene" if action == "open" else "library" if action.startswith("preview") else "file"))
        item.setData(0, PATH_ROLE, str(path))
        item.setData(0, ACTION_ROLE, action)
        item.setToolTip(0, str(path))
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if path.suffix in USD_SUFFIXES:
            flags |= Qt.ItemFlag.ItemIsDragEnabled
        item.setFlags(flags)
        parent.addChild(item)
        return item

    def refresh(self) -> None:
        self.tree.clear()
        self.sections.clear()
        session = self.ctx.workspace
        twin = session.twin
        if twin is None:
            self.header.setText("No twin open (Ctrl+O)")
            return
        scene = session.scene
        mode = "preview" if session.preview else "scene"
        self.header.setText(f"<b>{twin.name}</b> — {twin.root}<br>{mode}: "
                            f"{twin.relative(scene) if scene else (session.reason or 'none')}")
        scenes = self._section("scenes", "Scenes")
        for p in twin.scene_entries():
            item = self._file_item(scenes, twin.relative(p), p, "open", "default" if p == twin.default_scene else "")
            if scene is not None and p == scene:
                f = item.font(0)
                f.setItalic(True)
                item.setFont(0, f)
        library = self._section("library", "Library (twin)")
        for p in twin.library():
            self._file_item(library, twin.relative(p), p, "preview", "scene" if p in twin.scene_entries() else "")
        lunco = getattr(twin.roots, "lunco_root", None)
        if lunco is not None and Path(lunco).is_dir():
            shared = self._section("shared", "Shared library (lunco://)")
            lunco = Path(lunco)
            for p in sorted(lunco.rglob("*")):
                rel = p.relative_to(lunco)
                if p.suffix in USD_SUFFIXES and rel.parts[0] != "twins" and not any(s.startswith(".") for s in rel.parts):
                    self._file_item(shared, rel.as_posix(), p, "preview-shared", "lunco://" + rel.as_posix())
        files = self._section("files", "Files")
        count = 0
        for p in sorted(twin.root.rglob("*")):
            rel = p.relative_to(twin.root)
            if p.is_file() and not any(s.startswith(".") or s == "__pycache__" for s in rel.parts):
                self._file_item(files, rel.as_posix(), p, "file")
                count += 1
                if count >= MAX_FILES:
                    break
        warnings = self._section("warnings", "Composition warnings")
        diags = session.composition_diagnostics()
        for d in diags:
            item = QTreeWidgetItem([f"{d.severity}: {d.code}", d.message])
            item.setIcon(0, resources.icon(f"severity.{d.severity}"))
            item.setToolTip(1, str(d))
            warnings.addChild(item)
        warnings.setText(1, f"{len(diags)}" if diags else "none")
        for key in ("scenes", "library", "warnings"):
            self.sections[key].setExpanded(True)

    def _on_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        path = item.data(0, PATH_ROLE)
        action = item.data(0, ACTION_ROLE)
        twin = self.ctx.workspace.twin
        if not path or twin is None:
            return
        if action == "open":
            self.ctx.open_path(path)
        elif action in ("preview", "preview-shared"):
            if path in {str(p) for p in twin.scene_entries()}:
                self.ctx.open_path(path)
            else:
                self.ctx.open_path(str(twin.root), preview=path)
        else:
            self.ctx.open_location(path, 0)
