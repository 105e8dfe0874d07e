"""``Session``: what the workbench has open (twin, scene, documents) and the shared selection.

Qt-free: panels observe its psygnal signals (through their ``PanelContext``); the main window
drives it. Opening follows the core's entry-point rules (:func:`luncosim_core.twin.open_path`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from psygnal import Signal

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.twin import OpenResult, Twin, open_path
from luncosim_core.usd.document import UsdDocument
from luncosim_workbench.documents import DocumentSet


class Selection:
    """The shared prim selection (prim paths, in selection order).

    ``changed(added, removed)`` reports the difference; ``paths`` is the whole selection."""

    changed = Signal(tuple, tuple)

    def __init__(self) -> None:
        self._paths: tuple[str, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return self._paths

    @property
    def current(self) -> str | None:
        return self._paths[-1] if self._paths else None

    def set(self, paths: Iterable[str]) -> None:
        new = tuple(dict.fromkeys(p for p in paths if p))
        if new != self._paths:
            old, self._paths = self._paths, new
            self.changed.emit(tuple(p for p in new if p not in old), tuple(p for p in old if p not in new))

    def clear(self) -> None:
        self.set(())


class Session:
    """The open twin, its documents and the shared selection."""

    opened = Signal(object)  # OpenResult
    diagnostics_changed = Signal()
    message = Signal(str)  # a workbench console line: transport, opening, saving
    source_diagnostics_changed = Signal()  # a source editor's live check found (or cleared) something

    def __init__(self) -> None:
        self.result: OpenResult | None = None
        self.documents = DocumentSet()
        self.selection = Selection()
        self.open_diagnostics: list[Diagnostic] = []
        self._lint_key: tuple | None = None
        self._lint: list[Diagnostic] = []
        self._source_diags: dict[str, list[Diagnostic]] = {}

    @property
    def document(self) -> UsdDocument | None:
        """The scene document (the one the simulation projects)."""
        return self.documents.scene

    @property
    def document_replaced(self):
        """Emitted with the new scene document (or None) when another scene opens."""
        return self.documents.scene_replaced

    @property
    def reason(self) -> str:
        """Why no scene is open (a twin without a default scene), else ""."""
        return (self.result.reason or "") if self.result else ""

    @property
    def twin(self) -> Twin | None:
        return self.result.twin if self.result else None

    @property
    def scene(self) -> Path | None:
        return self.result.scene if self.result else None

    @property
    def preview(self) -> bool:
        return bool(self.result and self.result.preview)

    def open(self, path: str | Path, *, preview: str | Path | None = None) -> OpenResult:
        """Open a twin folder, a scene file or a library file (``preview``) by the entry-point rules.
        Raises :class:`luncosim_core.diagnostics.DiagnosticError` on a bad manifest or stage."""
        result = open_path(path, preview=preview)
        doc = None
        old = self.document
        if result.scene is not None:
            if old is not None and old.path == Path(result.scene).resolve():
                old.close("the scene was opened again")  # the window asked about its edits first
            twin = result.twin
            doc = UsdDocument(result.scene, twin.roots, policy=twin.composition_policy,
                              runtime_sidecar=twin.runtime_sidecar(result.scene),
                              persist_runtime=twin.runtime_persistence and not result.preview)
        self.result = result
        if doc is not None:
            doc.path_changed.connect(lambda _old, new, d=doc: self._saved_as(d, new))
        self.documents.set_scene(doc, notify=False)
        if old is not None and old is not doc:
            old.close("another scene was opened")
        self.open_diagnostics = list(result.twin.diagnostics)
        if result.scene is None and result.reason:
            self.open_diagnostics.append(Diagnostic("info", "no-scene", result.reason, layer=str(result.twin.root), source="twin"))
        self.selection.clear()
        self.opened.emit(result)
        self.documents.scene_replaced.emit(doc)
        self.diagnostics_changed.emit()
        return result

    def _saved_as(self, doc: UsdDocument, new: str) -> None:
        """Save As made ``doc`` the new file's document: the workbench follows it (the journal,
        and so undo, stays with the document)."""
        if doc is not self.document or self.result is None:
            return
        self.result = dataclasses.replace(self.result, scene=Path(new))
        self.opened.emit(self.result)
        self.documents.scene_replaced.emit(doc)
        self.diagnostics_changed.emit()

    def reload(self) -> None:
        """Rebuild the document from source (discarding unsaved edits: ask first)."""
        if self.document is not None:
            self.document.reload(discard=True)
            self.document_replaced.emit(self.document)
            self.diagnostics_changed.emit()

    def log(self, text: str) -> None:
        """A line for the console (transport events, projection restarts, script output)."""
        self.message.emit(text)

    def set_source_diagnostics(self, path: str, diags: list[Diagnostic]) -> None:
        """The newest live-check findings of one open source file (empty: none, or closed)."""
        if diags:
            self._source_diags[path] = list(diags)
        elif self._source_diags.pop(path, None) is None:
            return
        self.source_diagnostics_changed.emit()

    def source_diagnostics(self) -> list[Diagnostic]:
        """Every open source file's live-check findings, by file."""
        return [d for path in sorted(self._source_diags) for d in self._source_diags[path]]

    def composition_diagnostics(self) -> list[Diagnostic]:
        return list(self.open_diagnostics) + (list(self.document.diagnostics) if self.document else [])

    def lint_diagnostics(self) -> list[Diagnostic]:
        """The Rhai lint policies over the open document, recomputed only after an edit."""
        if self.document is None:
            return []
        key = (id(self.document), self.document.journal.state)
        if key != self._lint_key:
            from luncosim_core.lint import run_lint

            try:
                self._lint = run_lint(self.document.stage, roots=self.twin.roots if self.twin else None)
            except Exception as exc:  # a broken policy is a diagnostic, never a broken window
                self._lint = [Diagnostic("error", "lint-failed", f"lint could not run: {exc}", source="lint")]
            self._lint_key = key
        return list(self._lint)
