"""``DocumentSet``: the documents the workbench has open, by path (Qt-free).

Today it holds the scene's :class:`~luncosim_core.usd.document.UsdDocument`; text documents
(Modelica, Rhai) join it under their own paths. Panels reach documents only through it (and edit
them only with typed ops through ``PanelContext.apply``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from psygnal import Signal

from luncosim_core.usd.document import UsdDocument


class DocumentSet:
    """Open documents by resolved path; ``scene`` is the one the simulation projects."""

    scene_replaced = Signal(object)  # UsdDocument | None: another scene was opened (or closed)
    added = Signal(object)  # a document joined the set
    removed = Signal(object)  # a document left the set

    def __init__(self) -> None:
        self._scene: UsdDocument | None = None
        self._by_path: dict[Path, Any] = {}

    @property
    def scene(self) -> UsdDocument | None:
        return self._scene

    def set_scene(self, doc: UsdDocument | None, *, notify: bool = True) -> None:
        """Make ``doc`` the scene document (the previous one leaves the set); ``notify=False``
        leaves emitting ``scene_replaced`` to the caller (who announces the opening first)."""
        old = self._scene
        if old is not None:
            self._by_path.pop(Path(old.path).resolve(), None)
        self._scene = doc
        if doc is not None:
            self._by_path[Path(doc.path).resolve()] = doc
        if notify:
            self.scene_replaced.emit(doc)

    def add(self, doc: Any) -> None:
        """Open another document (anything with ``path``, ``apply(op, author=)`` and a journal)."""
        self._by_path[Path(doc.path).resolve()] = doc
        self.added.emit(doc)

    def remove(self, doc: Any) -> None:
        if self._by_path.pop(Path(doc.path).resolve(), None) is not None:
            self.removed.emit(doc)

    def get(self, path: str | Path) -> Any | None:
        return self._by_path.get(Path(path).resolve())

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._by_path.values()))

    def __len__(self) -> int:
        return len(self._by_path)
