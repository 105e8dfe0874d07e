"""``PrimTreeModel``: a lazy item model over a composed stage, kept current by USD change notices.

Children are read from the stage the first time a view asks for them. ``Usd.Notice.ObjectsChanged``
drives updates: a resynced path re-reads the children of its parent and of itself (rows removed
and inserted), an info-only change repaints the prim's row.
"""

from __future__ import annotations

import os

from pxr import Sdf, Tf, Usd
from PySide6.QtCore import (
    QMimeData,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)

from luncosim_workbench import resources
from luncosim_workbench.mime import ASSET_MIME
from luncosim_workbench.widgets.table_model import ColumnTreeModel

COLUMNS = ("Prim", "Type", "Kind", "Badges")
#: applied schemas that choose a prim's tree icon when its type does not
_ICON_SCHEMAS = ("LunCoProgramAPI", "PhysicsRigidBodyAPI")


class _Node:
    __slots__ = ("path", "parent", "children")

    def __init__(self, path: Sdf.Path, parent: _Node | None) -> None:
        self.path = path
        self.parent = parent
        self.children: list[_Node] | None = None  # None = not read yet

    def row(self) -> int:
        if self.parent is None or self.parent.children is None:
            return 0
        for i, c in enumerate(self.parent.children):
            if c is self:
                return i
        return 0


def prim_badges(prim: Usd.Prim) -> list[str]:
    """Short markers: applied schemas, variant selections, instance, references, payloads, inactive."""
    out = [s[:-3] if s.endswith("API") else s for s in prim.GetAppliedSchemas()]
    vsets = prim.GetVariantSets()
    for name in vsets.GetNames():
        out.append(f"{name}={vsets.GetVariantSelection(name) or '-'}")
    if prim.IsInstance():
        out.append("instance")
    if prim.HasAuthoredReferences():
        out.append("ref")
    if prim.HasAuthoredPayloads():
        out.append("payload")
    if not prim.IsActive():
        out.append("inactive")
    return out


class PrimTreeModel(ColumnTreeModel):
    """Prims of one stage as a tree (pseudo-root hidden); each row wears a type icon."""

    COLUMNS = COLUMNS

    referenceDropped = Signal(str, str)  # prim path, asset file path
    primsChanged = Signal(list)  # prim paths whose subtree or info changed

    def __init__(self, stage: Usd.Stage | None = None, parent=None) -> None:
        super().__init__(parent)
        self.stage: Usd.Stage | None = None
        self._root = _Node(Sdf.Path.absoluteRootPath, None)
        self._listener = None
        self._icons: dict[tuple, object] = {}
        self.set_stage(stage)

    # ------------------------------------------------------------------ stage
    def set_stage(self, stage: Usd.Stage | None) -> None:
        self.beginResetModel()
        if self._listener is not None:
            self._listener.Revoke()
            self._listener = None
        self.stage = stage
        self._root = _Node(Sdf.Path.absoluteRootPath, None)
        if stage is not None:
            self._listener = Tf.Notice.Register(Usd.Notice.ObjectsChanged, self._on_objects_changed, stage)
        self.endResetModel()

    def close(self) -> None:
        if self._listener is not None:
            self._listener.Revoke()
            self._listener = None

    def _prim(self, node: _Node) -> Usd.Prim | None:
        if self.stage is None:
            return None
        prim = self.stage.GetPrimAtPath(node.path)
        return prim if prim else None

    def _child_paths(self, node: _Node) -> list[Sdf.Path]:
        prim = self._prim(node)
        return [c.GetPath() for c in prim.GetAllChildren()] if prim else []

    def _children(self, node: _Node) -> list[_Node]:
        if node.children is None:
            node.children = [_Node(p, node) for p in self._child_paths(node)]
        return node.children

    # ------------------------------------------------------------------ notices
    def _on_objects_changed(self, notice, _sender) -> None:
        touched: list[str] = []
        for path in notice.GetResyncedPaths():
            prim_path = path.GetPrimPath()
            parent_path = prim_path.GetParentPath() if prim_path != Sdf.Path.absoluteRootPath else prim_path
            node = self._find_loaded(parent_path)
            if node is not None:
                self._resync(node)
            touched.append(str(prim_path))
        for path in notice.GetChangedInfoOnlyPaths():
            prim_path = path.GetPrimPath()
            node = self._find_loaded(prim_path)
            if node is not None and node.parent is not None:
                row = node.row()
                self.dataChanged.emit(self.createIndex(row, 0, node), self.createIndex(row, len(COLUMNS) - 1, node))
            touched.append(str(prim_path))
        if touched:
            self.primsChanged.emit(sorted(set(touched)))

    def _find_loaded(self, path: Sdf.Path) -> _Node | None:
        node = self._root
        if path == Sdf.Path.absoluteRootPath:
            return node
        for prefix in path.GetPrefixes():
            if node.children is None:
                return None
            nxt = next((c for c in node.children if c.path == prefix), None)
            if nxt is None:
                return None
            node = nxt
        return node

    def _index_of(self, node: _Node) -> QModelIndex:
        if node.parent is None:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node)

    def _resync(self, node: _Node) -> None:
        """Re-read ``node``'s children; keep loaded subtrees of children that still exist."""
        if node.children is None:
            return
        parent_index = self._index_of(node)
        new_paths = self._child_paths(node)
        old = node.children
        if [c.path for c in old] != new_paths:
            if old:
                self.beginRemoveRows(parent_index, 0, len(old) - 1)
                node.children = []
                self.endRemoveRows()
            if new_paths:
                self.beginInsertRows(parent_index, 0, len(new_paths) - 1)
                node.children = [_Node(p, node) for p in new_paths]
                self.endInsertRows()
            else:
                node.children = []
            return
        for child in old:  # same names: their contents may have changed
            if self._prim(child) is not None:
                self._resync(child)
        if old:
            self.dataChanged.emit(self.createIndex(0, 0, old[0]), self.createIndex(len(old) - 1, len(COLUMNS) - 1, old[-1]))

    # ------------------------------------------------------------------ lookups
    def index_for_path(self, path: str) -> QModelIndex:
        """The index of ``path`` (loading ancestors as needed); invalid when absent."""
        if self.stage is None or not path or not Sdf.Path.IsValidPathString(path):
            return QModelIndex()
        node = self._root
        for prefix in Sdf.Path(path).GetPrefixes():
            nxt = next((c for c in self._children(node) if c.path == prefix), None)
            if nxt is None:
                return QModelIndex()
            node = nxt
        return self._index_of(node)

    @staticmethod
    def path_for_index(index: QModelIndex) -> str:
        if not index.isValid():
            return ""
        return str(index.internalPointer().path)

    # ------------------------------------------------------------------ Qt model
    def index(self, row, column, parent=QModelIndex()):
        node = parent.internalPointer() if parent.isValid() else self._root
        children = self._children(node)
        if 0 <= row < len(children) and 0 <= column < len(COLUMNS):
            return self.createIndex(row, column, children[row])
        return QModelIndex()

    def parent(self, index=QModelIndex()):
        if not index.isValid():
            return QModelIndex()
        node = index.internalPointer().parent
        if node is None or node.parent is None:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node)

    def rowCount(self, parent=QModelIndex()):  # noqa: N802
        if parent.isValid() and parent.column() != 0:
            return 0
        node = parent.internalPointer() if parent.isValid() else self._root
        return len(self._children(node))

    def hasChildren(self, parent=QModelIndex()):  # noqa: N802
        node = parent.internalPointer() if parent.isValid() else self._root
        if node.children is not None:
            return bool(node.children)
        prim = self._prim(node)
        return bool(prim and prim.GetAllChildren())

    def clear_icon_cache(self) -> None:
        """Icons are re-made in the current theme's colours on the next paint."""
        self._icons.clear()
        if self._root.children:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._root.children) - 1, 0))

    def _icon(self, prim: Usd.Prim):
        key = (str(prim.GetTypeName()), tuple(s for s in _ICON_SCHEMAS if s in prim.GetAppliedSchemas()))
        if key not in self._icons:
            self._icons[key] = resources.prim_icon(*key)
        return self._icons[key]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        node = index.internalPointer()
        prim = self._prim(node)
        if prim is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return prim.GetName()
            if col == 1:
                return str(prim.GetTypeName()) or ("class" if prim.IsAbstract() else "")
            if col == 2:
                return str(Usd.ModelAPI(prim).GetKind() or "")
            if col == 3:
                return "  ".join(f"[{b}]" for b in prim_badges(prim))
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return self._icon(prim)
        if role == Qt.ItemDataRole.ToolTipRole:
            return str(node.path)
        if role == Qt.ItemDataRole.ForegroundRole and not prim.IsActive():
            return Qt.GlobalColor.gray
        return None

    def flags(self, index):
        base = super().flags(index)
        if index.isValid():
            return base | Qt.ItemFlag.ItemIsDropEnabled
        return base

    # ------------------------------------------------------------------ drop a library entry
    def mimeTypes(self):  # noqa: N802
        return [ASSET_MIME, "text/uri-list"]

    def supportedDropActions(self):  # noqa: N802
        return Qt.DropAction.CopyAction | Qt.DropAction.LinkAction

    def canDropMimeData(self, data, action, row, column, parent):  # noqa: N802
        return parent.isValid() and (data.hasFormat(ASSET_MIME) or data.hasUrls())

    def dropMimeData(self, data: QMimeData, action, row, column, parent) -> bool:  # noqa: N802
        target = parent
        if not target.isValid() and row >= 0:
            return False
        if data.hasFormat(ASSET_MIME):
            files = [bytes(data.data(ASSET_MIME)).decode("utf-8")]
        else:
            files = [u.toLocalFile() for u in data.urls() if u.isLocalFile()]
        files = [f for f in files if f and os.path.splitext(f)[1] in (".usd", ".usda", ".usdc", ".usdz")]
        if not files:
            return False
        prim_path = self.path_for_index(target.siblingAtColumn(0))
        for f in files:
            self.referenceDropped.emit(prim_path, f)
        return True


class PrimFilterProxy(QSortFilterProxyModel):
    """Case-insensitive text filter over name, type, kind and badges; ancestors of a match stay."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(-1)
