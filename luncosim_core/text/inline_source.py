"""A program prim's inline source (``info:sourceCode``) as a text document whose saves are USD ops.

The editor edits it like a file (the same journal, undo and dirty state), but it has no file:
``save`` hands the text to ``commit`` (the workbench applies a ``SetAttribute`` on the scene
document, so the scene's journal holds the change and the scene becomes dirty), and the "disk"
it is compared with is the attribute's current value, read through ``read``. An undo in the
scene, or an edit from the inspector, is therefore an external change like a file edited
elsewhere: saving over it asks first, and ``reload`` takes the attribute's value.

Its ``path`` is a name, not a file: ``<scene folder>/<prim path with dots>.info-sourceCode.<ext>``
(the extension gives the language: ``.mo`` or ``.rhai``), so documents, diagnostics and tabs can
key on it as they do on files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.text.document import TextConflict, TextDocument

SUFFIX = {"modelica": ".mo", "rhai": ".rhai"}


def inline_source_path(scene: str | Path, prim_path: str, language: str) -> Path:
    """The document name of ``prim_path``'s inline source in ``scene``."""
    stem = prim_path.strip("/").replace("/", ".") or "root"
    return Path(scene).resolve().parent / f"{stem}.info-sourceCode{SUFFIX.get(language, '.txt')}"


class InlineSourceDocument(TextDocument):
    """``info:sourceCode`` of ``prim_path``: edited as text, saved through ``commit``."""

    def __init__(self, scene: str | Path, prim_path: str, language: str, *, read: Callable[[], str | None],
                 commit: Callable[[str], None], owner: object = None) -> None:
        text = read()
        if text is None:
            raise ValueError(f"{prim_path} has no info:sourceCode")
        super().__init__(inline_source_path(scene, prim_path, language), text=text)
        self.prim_path = prim_path
        self.owner = owner  # the scene document it belongs to (its tab closes when that scene does)
        self._read, self._commit = read, commit
        self._synced = text  # the attribute's value when last read or written

    def external_change(self) -> bool:
        return self._read() != self._synced

    def save(self, *, overwrite_external: bool = False) -> bool:
        """Author the text as ``info:sourceCode`` (one scene op); True when an op was made.
        Raises :class:`TextConflict` when the attribute changed since it was read."""
        if self.external_change() and not overwrite_external:
            raise TextConflict(Diagnostic("error", "text-external-change",
                                          f"{self.prim_path}.info:sourceCode changed in the scene since it was opened; "
                                          "reload it or save over it", path=self.prim_path, source="text"))
        wrote = False
        if self._read() != self._text:
            self._commit(self._text)
            wrote = True
        self._synced = self._text
        self._saved_state = self.state
        self.saved.emit(str(self.path))
        return wrote

    def reload(self, *, discard: bool = False) -> None:
        """Take the attribute's current value (the journal restarts); a dirty document needs ``discard``."""
        if self.dirty and not discard:
            raise TextConflict(Diagnostic("error", "text-unsaved-edits",
                                          f"{self.prim_path}.info:sourceCode has unsaved edits; reload would lose them",
                                          path=self.prim_path, source="text"))
        text = self._read()
        if text is None:
            raise TextConflict(Diagnostic("error", "text-source-gone", f"{self.prim_path} no longer has info:sourceCode",
                                          path=self.prim_path, source="text"))
        self._synced = text
        self._restart(text)

    def __repr__(self) -> str:
        return f"InlineSourceDocument({self.prim_path}, dirty={self.dirty})"


__all__ = ["InlineSourceDocument", "inline_source_path"]
