"""``UsdDocument``: one composed stage over three layers, edited only through typed ops.

Layers, weakest to strongest: **base** (the source file; saved), **runtime** (durable edits kept
out of the source, persisted to ``<twin>/.lunco/runtime/<scene>`` when the twin asks), **view**
(disposable presentation; never saved, never journaled). The base layer is the stage's root layer;
runtime and view are sublayers of the session layer, so they compose stronger than the source.
"""

from __future__ import annotations

import hashlib
import os
import stat
import weakref
from dataclasses import dataclass
from pathlib import Path

from psygnal import Signal
from pxr import Sdf, Usd, UsdUtils

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.fsutil import (
    MAX_LAYER_BYTES,
    UnreadableFile,
    atomic_write_text,
    read_text_limited,
)
from luncosim_core.twin.roots import AssetRoots
from luncosim_core.usd.compose import compose, open_layer, reread_layer
from luncosim_core.usd.journal import Journal
from luncosim_core.usd.ops import Op, OpError
from luncosim_core.usd.usda_merge import merge_edits


class ExternalChangeConflict(DiagnosticError):
    """The file changed on disk while the document has unsaved edits."""


class DocumentInUse(DiagnosticError):
    """Another open document holds the file with unsaved edits (share it or close it first)."""


class DocumentClosed(DiagnosticError):
    """The document was closed (or a newer document took its file over); it edits nothing."""


# one document per file: the live documents by resolved path (a closed or collected one leaves)
_OPEN: weakref.WeakValueDictionary[Path, UsdDocument] = weakref.WeakValueDictionary()
# what the shared (USD-cached) base layer of a file holds: the stamp of the file it was last read
# from or saved to by a document; a layer whose file no longer has that stamp is read again
_READ: dict[str, FileStamp] = {}


@dataclass(frozen=True)
class FileStamp:
    mtime_ns: int
    size: int
    digest: str

    @staticmethod
    def of(path: Path) -> FileStamp | None:
        """The stamp of a regular file; None when there is none to take (missing, unreadable, or a
        FIFO or device, which is never read: the layer reader refuses it with a diagnostic)."""
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                return None
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO swapped in never blocks
            with os.fdopen(fd, "rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
            return FileStamp(st.st_mtime_ns, st.st_size, digest)
        except OSError:
            return None


def _rebased(asset: str, old_dir: Path, new_dir: Path) -> str:
    """A relative asset path written in ``old_dir`` as the same file seen from ``new_dir``."""
    if not asset or "://" in asset or os.path.isabs(asset) or asset.startswith(("lunco:", "twin:")):
        return asset
    target = os.path.normpath(os.path.join(old_dir, asset))
    rel = Path(os.path.relpath(target, new_dir)).as_posix()
    return f"./{rel}" if asset.startswith("./") and not rel.startswith(".") else rel


def _read_text(path: Path) -> str | None:
    """The file's text as it is on disk (None for a binary crate or an unreadable file)."""
    try:
        text = read_text_limited(path, "layer", MAX_LAYER_BYTES)
    except (OSError, UnreadableFile):
        return None
    return None if text.startswith("PXR-USDC") else text


class UsdDocument:
    """A scene document: composed stage, typed ops, shared journal, atomic save."""

    changed = Signal(object)  # the op (or inverse) just applied
    target_changed = Signal(str)  # the shared edit target ("base" or "runtime") changed
    saved = Signal(str)
    reloaded = Signal()
    path_changed = Signal(str, str)  # (old, new): Save As made this the new file's document

    def __init__(
        self,
        scene: str | Path,
        roots: AssetRoots,
        *,
        policy: str = "allow_partial",
        runtime_sidecar: Path | None = None,
        persist_runtime: bool = False,
        register: bool = True,
    ) -> None:
        """``register=False``: a private document (a headless run's: ``open_simulation``, a
        mission, a batch task) that neither holds the file nor takes it over from another. It reads
        the file as it is on disk into a base layer of its own (never USD's shared layer of the
        file), so it never sees nor disturbs another document's unsaved edits, and the other way
        round; it is not refused under them either.

        A registered document reads the file again when the shared layer of it is not what is on
        disk (changed by another program since it was read, or edited by a closed document)."""
        self.path = Path(scene).resolve()
        self.private = not register
        self.closed_reason = ""
        self._edit_target = "base"
        holder = _OPEN.get(self.path) if register else None
        if holder is not None and holder.dirty:
            raise DocumentInUse(Diagnostic(
                "error", "usd-document-in-use",
                f"{self.path} is already open in another document with {holder.unsaved_edits} unsaved "
                "edit(s); save or close that one first, or share it (UsdDocument.shared)",
                layer=str(self.path), source="usd"))
        self.roots = roots
        self.policy = policy
        self.runtime_sidecar = runtime_sidecar
        self.persist_runtime = persist_runtime and runtime_sidecar is not None
        self.journal = Journal()
        self.diagnostics: list[Diagnostic] = []
        self._stamp: FileStamp | None = None
        self._runtime_saved_text = ""
        self._open()
        if register:
            if holder is not None:  # clean: this document takes the file over; the old one edits no more
                holder.close(f"{self.path} was opened again by a newer document")
            _OPEN[self.path] = self

    @classmethod
    def shared(cls, scene: str | Path, roots: AssetRoots, **kw) -> UsdDocument:
        """The open document of ``scene`` when there is one (its journal, its unsaved edits), else a
        new one: every panel and client of a file edits the same document."""
        holder = _OPEN.get(Path(scene).resolve())
        if holder is None:
            return cls(scene, roots, **kw)
        if not holder.dirty and holder.external_change():
            holder.reload()  # clean and changed on disk: hand it out as the file is now
        return holder

    def close(self, reason: str = "the document was closed") -> None:
        """Release the file (unsaved edits are dropped: ask first); further edits are refused."""
        self.closed_reason = reason
        if _OPEN.get(self.path) is self:
            del _OPEN[self.path]

    def _check_open(self) -> None:
        if self.closed_reason:
            raise DocumentClosed(Diagnostic("error", "usd-document-closed", f"{self.closed_reason}; this copy edits nothing",
                                            layer=str(self.path), source="usd"))

    @property
    def unsaved_edits(self) -> int:
        """How many journal entries differ from the saved state (0 when clean)."""
        if not self.dirty:
            return 0
        states = [e.serial for e in self.journal.entries()[: self.journal.position]]
        return len(states) - (states.index(self._saved_state) + 1 if self._saved_state in states else 0) or 1

    # -- building ----------------------------------------------------------------------
    def _base_layer(self, *, reread: bool = False) -> tuple[Sdf.Layer, FileStamp | None]:
        """The base layer holding the file's text as it is on disk now, and the stamp of that text
        (taken before reading: a write in between is seen as an external change later)."""
        stamp = FileStamp.of(self.path)
        if self.private:
            old = getattr(self, "base", None)
            if reread and old is not None:
                reread_layer(old, self.path, self.roots)
                return old, stamp
            return open_layer(self.path, self.roots, private=True), stamp
        cached = Sdf.Layer.Find(str(self.path)) is not None
        base = open_layer(self.path, self.roots)
        # USD hands out its cached layer of the file: an edited one (a closed document's unsaved
        # edits), one read before another program changed the file, or one read by someone else
        # at an unknown time is read again, so a reopen always shows what is on disk
        if cached and (reread or base.dirty or _READ.get(base.identifier) != stamp):
            reread_layer(base, self.path, self.roots)
        if stamp is not None:
            _READ[base.identifier] = stamp
        return base, stamp

    def _open(self, *, reread: bool = False) -> None:
        base, stamp = self._base_layer(reread=reread)  # first: a file that cannot be read changes nothing
        self.view = Sdf.Layer.CreateAnonymous("view.usda")
        self.runtime = Sdf.Layer.CreateAnonymous("runtime.usda")
        if self.persist_runtime and self.runtime_sidecar and self.runtime_sidecar.exists():
            try:
                text = read_text_limited(self.runtime_sidecar, "runtime sidecar", MAX_LAYER_BYTES)
            except (OSError, UnreadableFile) as exc:  # not text, a FIFO, a folder: a diagnostic, never a hang
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise DiagnosticError(Diagnostic(
                    "error", "usd-layer-unreadable", f"{why}; the scene's runtime state cannot be restored from it",
                    layer=str(self.runtime_sidecar), line=getattr(exc, "line", None), source="usd")) from None
            if not self.runtime.ImportFromString(text):
                raise DiagnosticError(
                    Diagnostic("error", "usd-malformed-layer", "runtime sidecar is malformed", layer=str(self.runtime_sidecar), source="usd")
                )
        self._runtime_saved_text = self.runtime.ExportToString()
        self.session = Sdf.Layer.CreateAnonymous("session.usda")
        self.session.subLayerPaths = [self.view.identifier, self.runtime.identifier]
        self.base = base
        # a layer read through the one-line tolerant path is "dirty" from birth: judge by the journal
        self._saved_state = self.journal.state
        self._compose()
        self._stamp = stamp
        self._base_saved_text = base.ExportToString()
        self._file_text = _read_text(self.path)
        self._forms: dict = {}  # how the file wrote statements (see merge_edits)

    def _compose(self) -> None:
        composed = compose(self.path, self.roots, policy=self.policy, session_layer=self.session, root_layer=self.base)
        self.stage: Usd.Stage = composed.stage
        self.stage.SetEditTarget(Usd.EditTarget(self.base))
        self.diagnostics = composed.diagnostics
        self.missing = composed.missing

    @property
    def edit_target(self) -> str:
        """Where panels author their edits ("base" or "runtime"), shared by every panel."""
        return self._edit_target

    def set_edit_target(self, target: str) -> None:
        self.layer_for(target)  # raises OpError for an unknown target
        if target != self._edit_target:
            self._edit_target = target
            self.target_changed.emit(target)

    def layer_for(self, target: str) -> Sdf.Layer:
        if target == "base":
            return self.base
        if target == "runtime":
            return self.runtime
        raise OpError(Diagnostic("error", "op-target", f"unknown edit target {target!r} (use base or runtime)", source="usd"))

    # -- editing -----------------------------------------------------------------------
    def apply(self, op: Op, *, author: str = "user") -> Op:
        """Apply a typed op, journal it with its ``author`` (``user``, ``api``, ``script``), return
        its inverse. Raises :class:`OpError`."""
        self._check_open()
        inverse = op.apply(self)
        self.journal.record(op, inverse, author)
        self.changed.emit(op)
        return inverse

    def undo(self) -> bool:
        self._check_open()
        entry = self.journal.undo(lambda inv: inv.apply(self))
        if entry is not None:
            self.changed.emit(entry.inverse)
        return entry is not None

    def redo(self) -> bool:
        self._check_open()
        entry = self.journal.redo(lambda op: op.apply(self))
        if entry is not None:
            self.changed.emit(entry.op)
        return entry is not None

    def set_view(self, path: str, name: str, value, type_name: str) -> None:
        """Write disposable presentation into the view layer (never journaled, never saved)."""
        with Usd.EditContext(self.stage, self.view):
            prim = self.stage.OverridePrim(path)
            attr = prim.GetAttribute(name) or prim.CreateAttribute(name, Sdf.ValueTypeNames.Find(type_name))
            attr.Set(value)

    def clear_view(self, path: str, names: tuple[str, ...]) -> None:
        """Drop presentation written with :meth:`set_view` (the named properties of ``path``)."""
        spec = self.view.GetPrimAtPath(path)
        if not spec:
            return
        for name in names:
            prop = spec.properties.get(name)
            if prop is not None:
                spec.RemoveProperty(prop)

    def clear_views(self, name: str) -> None:
        """Drop one presentation property (``name``) from every prim of the view layer."""
        paths = []
        self.view.Traverse(Sdf.Path.absoluteRootPath,
                           lambda p: paths.append(p) if p.IsPropertyPath() and p.name == name else None)
        for path in paths:
            spec = self.view.GetPrimAtPath(path.GetPrimPath())
            spec.RemoveProperty(spec.properties[name])

    # -- state -------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        """Unsaved edits: the journal is not where it was at the last open or save (undoing back
        to the saved state is clean again). View-layer writes never make a document dirty."""
        return self.journal.state != self._saved_state

    def external_change(self) -> bool:
        """True when the source file on disk differs from what this document last read or wrote."""
        return FileStamp.of(self.path) != self._stamp

    # -- persistence -------------------------------------------------------------------
    def save(self, *, overwrite_external: bool = False) -> None:
        """Write the base layer atomically (and the runtime sidecar when persisted)."""
        self._check_open()
        if self.dirty and self.external_change() and not overwrite_external:
            raise ExternalChangeConflict(
                Diagnostic("error", "usd-external-change",
                           f"{self.path} changed on disk since it was opened; reload or save with overwrite",
                           layer=str(self.path), source="usd")
            )
        base_text = self.base.ExportToString()
        if base_text != self._base_saved_text:
            # only the statements the edits changed are spliced into the file's own text
            file_text = merge_edits(self._file_text, self._base_saved_text, base_text, self._forms) \
                if self._file_text is not None else base_text
            atomic_write_text(self.path, file_text)
            self._file_text = file_text
            self._base_saved_text = base_text
            self._stamp = FileStamp.of(self.path)
            if not self.private:
                _READ[self.base.identifier] = self._stamp  # the shared layer holds what was written
        self._saved_state = self.journal.state
        if self.persist_runtime and self.runtime_sidecar is not None:
            rt = self.runtime.ExportToString()
            if rt != self._runtime_saved_text:
                atomic_write_text(self.runtime_sidecar, rt)
                self._runtime_saved_text = rt
        self.saved.emit(str(self.path))

    def save_as(self, path: str | Path, *, overwrite: bool = False, runtime_sidecar: Path | None = None) -> None:
        """Write the document (its saved text and unsaved edits) to ``path`` and make it that
        file's document; the old file is left exactly as it is on disk.

        - The write is atomic, and minimal-diff against the old file's text (comments, order and
          number formats are carried over). Relative asset paths (sublayers, references, payloads,
          asset values) are rewritten to point at the same files from the new folder; ``twin://``,
          ``lunco://`` and absolute ones are kept.
        - Afterwards ``path`` is this document's (``UsdDocument.shared(path)`` hands it out, the
          old path is released), ``stage`` is a new stage over the new file with the same
          session, runtime and view layers and edit target, the journal is kept (undo still
          works, now against the new file) and the document is clean. ``path_changed(old, new)``
          is emitted, then ``saved(new)``: listeners take ``doc.stage`` and ``doc.path`` again.
        - The runtime layer persists to ``runtime_sidecar`` when given (the new scene's; the
          twin knows it: ``Twin.runtime_sidecar(path)``), else it is no longer persisted.
        - Refused with a :class:`DiagnosticError` (nothing written): a file that is not ``.usda``,
          an existing file without ``overwrite=True``, a file another open document holds
          (:class:`DocumentInUse`), a folder outside the document's asset roots (its
          ``twin://`` and relative paths would not resolve the same), a closed document.
        """
        self._check_open()
        new = Path(path).resolve()
        if new == self.path:
            self.save()
            return
        self._check_save_as(new, overwrite)
        text = self._text_for(new)
        atomic_write_text(new, text)
        old, old_base = self.path, self.base
        if _OPEN.get(old) is self:
            del _OPEN[old]
        self.path = new
        self.runtime_sidecar = runtime_sidecar
        self.persist_runtime = runtime_sidecar is not None
        self.base, self._stamp = self._base_layer()
        self._compose()
        self._base_saved_text = self.base.ExportToString()
        self._file_text = text
        self._forms = {}
        self._saved_state = self.journal.state
        if not self.private:
            _OPEN[new] = self
            try:  # the old file's shared layer shows the file again (its edits went to the new one)
                reread_layer(old_base, old, self.roots)
                _READ[old_base.identifier] = FileStamp.of(old)
            except DiagnosticError:
                pass  # it is read again by whoever opens it next (it is dirty)
        if self.persist_runtime and self.runtime_sidecar is not None:
            self._runtime_saved_text = self.runtime.ExportToString()
            atomic_write_text(self.runtime_sidecar, self._runtime_saved_text)
        self.path_changed.emit(str(old), str(new))
        self.saved.emit(str(new))

    def _check_save_as(self, new: Path, overwrite: bool) -> None:
        def refuse(code: str, message: str, cls: type[DiagnosticError] = DiagnosticError) -> DiagnosticError:
            return cls(Diagnostic("error", code, f"cannot save {self.path.name} as {new}: {message}",
                                  layer=str(new), source="usd"))

        if new.suffix != ".usda":
            raise refuse("usd-save-as-format", "Save As writes text USD; give a .usda file")
        holder = _OPEN.get(new)
        if holder is not None and holder is not self:
            raise refuse("usd-document-in-use", "another open document holds that file; close it first", DocumentInUse)
        if new.is_dir() or (new.exists() and not overwrite):
            raise refuse("usd-save-as-exists", "the file exists (pass overwrite=True to replace it)")
        if not new.parent.is_dir():
            raise refuse("usd-save-as-folder", f"the folder {new.parent} does not exist")
        if not self.roots.contains(new.parent):
            roots = ", ".join(str(r) for r in self.roots.allowed_roots())
            raise refuse("usd-save-as-outside", f"it lies outside the twin's roots ({roots}), where its twin:// and "
                                                "relative asset paths would not resolve the same")

    def _text_for(self, new: Path) -> str:
        """The file text Save As writes to ``new``: this document's base layer with relative asset
        paths rebased from the old folder, merged into the old file's text."""
        after = self.base.ExportToString()
        if new.parent != self.path.parent:
            copy = Sdf.Layer.CreateAnonymous(".usda")
            copy.ImportFromString(after)
            UsdUtils.ModifyAssetPaths(copy, lambda asset: _rebased(asset, self.path.parent, new.parent))
            after = copy.ExportToString()
        if self._file_text is None:
            return after
        return merge_edits(self._file_text, self._base_saved_text, after, dict(self._forms))

    def reload(self, *, discard: bool = False) -> None:
        """Rebuild everything from source. A dirty document needs ``discard=True``."""
        if self.dirty and not discard:
            raise ExternalChangeConflict(
                Diagnostic("error", "usd-unsaved-edits", f"{self.path} has unsaved edits; reload would lose them", layer=str(self.path), source="usd")
            )
        self._open(reread=True)
        self.journal.clear()
        self._saved_state = self.journal.state
        self.reloaded.emit()

    def export_layers(self) -> dict[str, str]:
        """Text of base and runtime layers (what undo must restore byte-for-byte)."""
        return {"base": self.base.ExportToString(), "runtime": self.runtime.ExportToString()}

    def __repr__(self) -> str:
        return f"UsdDocument({self.path}, dirty={self.dirty})"

