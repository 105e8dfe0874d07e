"""Add Asset…: a grid of the ``twin://`` and ``lunco://`` assets with rendered thumbnails.

The catalog (:mod:`.asset_catalog`, Qt-free) is scanned on a worker thread; the grid
(:class:`AssetGridModel` in a ``QListView`` in icon mode) shows a cached thumbnail at once and a
placeholder while :class:`ThumbnailRenderer` runs ``luncosim render`` for the others: child
processes (``QProcess``: nothing waits on the UI thread) at a lower CPU priority, two at a time
(one on a machine with two cores or fewer), writing PNGs into the thumbnail cache. A failed render shows a warning icon with the reason in the tooltip (not tried
again in this session). Hiding the dialog stops the renders (the children are killed).

Double-click, Enter or Add references the asset through ``add(uri)`` (the Assembly Editor's
:meth:`create_asset`: placed at the viewport's focus point); an entry dragged out carries its URI
as :data:`~luncosim_workbench.mime.ASSET_MIME` (the viewport places it where it is dropped, the
prim tree references it from the prim under the cursor).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QMimeData,
    QModelIndex,
    QObject,
    QProcess,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
)

from luncosim_workbench import resources
from luncosim_workbench.mime import ASSET_MIME
from luncosim_workbench.panels.assembly.asset_catalog import (
    AssetCatalog,
    AssetEntry,
    ThumbnailCache,
    failure_reason,
    render_command,
)

#: reasons of renders that failed in this session, by cache key (a reopened dialog does not retry)
_FAILED: dict[str, str] = {}
RENDER_TIMEOUT_S = 90


def default_jobs() -> int:
    """Renders at a time: two, one on a machine with two cores or fewer (the UI keeps one)."""
    return 2 if (os.cpu_count() or 1) > 2 else 1


class ThumbnailRenderer(QObject):
    """Renders thumbnails with ``luncosim render`` child processes (``jobs`` at a time)."""

    rendered = Signal(str, str)  # cache key, PNG path
    failed = Signal(str, str)  # cache key, reason

    def __init__(self, cache: ThumbnailCache, *, lunco_root: Path | None = None, jobs: int | None = None,
                 timeout_s: float = RENDER_TIMEOUT_S, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cache = cache
        self.lunco_root = lunco_root
        self.jobs = default_jobs() if jobs is None else max(0, int(jobs))
        self.timeout_s = timeout_s
        self.started: list[str] = []  # cache keys a render was started for, in order
        self._queue: dict[str, AssetEntry] = {}
        self._running: dict[str, tuple[QProcess, QTimer, Path, Path]] = {}  # process, timeout, part file, PNG
        self._timed_out: set[str] = set()
        nice = shutil.which("nice") if os.name == "posix" else None
        self._prefix = [nice, "-n", "10"] if nice else []  # the workbench draws first

    @property
    def busy(self) -> int:
        """Renders queued or running."""
        return len(self._queue) + len(self._running)

    def request(self, items: Iterable[tuple[str, AssetEntry]]) -> None:
        """Queue renders for ``(cache key, entry)`` pairs (those not already queued, running, or
        failed before in this session)."""
        for key, e in items:
            if key not in self._queue and key not in self._running and key not in _FAILED:
                self._queue[key] = e
        self._pump()

    def prioritize(self, keys: Iterable[str]) -> None:
        """Move these (e.g. the ones shown after a search) to the front of the queue."""
        first = {k: self._queue[k] for k in keys if k in self._queue}
        if first:
            self._queue = {**first, **{k: v for k, v in self._queue.items() if k not in first}}

    def stop(self) -> None:
        """Forget the queue and kill the running renders (their partial files are removed)."""
        self._queue.clear()
        app = QCoreApplication.instance()
        for proc, timer, tmp, _png in self._running.values():
            timer.stop()
            proc.finished.disconnect()
            proc.errorOccurred.disconnect()
            proc.setParent(app)  # outlives the dialog until the child is reaped; never waited for
            proc.finished.connect(lambda *_a, p=proc, t=tmp: (t.unlink(missing_ok=True), p.deleteLater()))
            proc.kill()
        self._running.clear()

    # ------------------------------------------------------------------ processes
    def _pump(self) -> None:
        while self._queue and len(self._running) < self.jobs:
            key = next(iter(self._queue))
            self._start(key, self._queue.pop(key))

    def _start(self, key: str, entry: AssetEntry) -> None:
        try:
            self.cache.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._fail(key, f"cannot write the thumbnail cache {self.cache.folder}: {exc}")
            return
        tmp = self.cache.folder / f"{key}.part-{os.getpid()}.png"
        cmd = self._prefix + render_command(entry, tmp, px=self.cache.px, lunco_root=self.lunco_root)
        proc = QProcess(self)
        proc.setProgram(cmd[0])
        proc.setArguments(cmd[1:])
        proc.setStandardOutputFile(QProcess.nullDevice())
        proc.finished.connect(lambda code, status, k=key: self._finished(k, code, status))
        proc.errorOccurred.connect(lambda error, k=key: self._error(k, error))
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda k=key: self._timeout(k))
        self._running[key] = (proc, timer, tmp, self.cache.folder / f"{key}.png")
        self.started.append(key)
        timer.start(int(self.timeout_s * 1000))
        proc.start()

    def _finished(self, key: str, code: int, status) -> None:
        job = self._running.pop(key, None)
        if job is None:
            return
        proc, timer, tmp, png = job
        timer.stop()
        timer.deleteLater()
        stderr = bytes(proc.readAllStandardError()).decode("utf-8", "replace")
        proc.deleteLater()
        if status == QProcess.ExitStatus.NormalExit and code == 0 and tmp.is_file() and tmp.stat().st_size > 0:
            os.replace(tmp, png)
            self.rendered.emit(key, str(png))
        else:
            tmp.unlink(missing_ok=True)
            if key in self._timed_out:
                reason = f"the render took longer than {self.timeout_s:g} s"
            elif status == QProcess.ExitStatus.CrashExit:
                reason = "the renderer crashed" + (f": {failure_reason(stderr, code)}" if stderr.strip() else "")
            elif code == 0:
                reason = "luncosim render wrote no picture"
            else:
                reason = failure_reason(stderr, code)
            self._fail(key, reason)
        self._timed_out.discard(key)
        self._pump()

    def _error(self, key: str, error) -> None:
        if error != QProcess.ProcessError.FailedToStart:
            return  # crashes and kills end in finished()
        job = self._running.pop(key, None)
        if job is None:
            return
        proc, timer, _tmp, _png = job
        timer.stop()
        timer.deleteLater()
        self._fail(key, f"could not start luncosim render: {proc.errorString()}")
        proc.deleteLater()
        self._pump()

    def _timeout(self, key: str) -> None:
        job = self._running.get(key)
        if job is not None:
            self._timed_out.add(key)
            job[0].kill()

    def _fail(self, key: str, reason: str) -> None:
        _FAILED[key] = reason
        self.failed.emit(key, reason)


class AssetGridModel(QAbstractListModel):
    """The shown assets: name, thumbnail (or placeholder), URI and state in the tooltip; drags
    carry the URI."""

    ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
    STATE_ROLE = Qt.ItemDataRole.UserRole + 2  # ("ok", png) / ("failed", reason) / ("pending", "")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[AssetEntry] = []
        self._keys: dict[str, str] = {}  # uri -> cache key
        self._rows: dict[str, int] = {}  # cache key -> row
        self._state: dict[str, tuple[str, str]] = {}
        self._icons: dict[str, QIcon] = {}
        self._placeholders: dict[str, QIcon] = {}

    def set_keys(self, keys: dict[str, str]) -> None:
        self._keys = dict(keys)

    def key(self, entry: AssetEntry) -> str:
        return self._keys.get(entry.uri, "")

    def set_entries(self, entries: list[AssetEntry]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self._rows = {self.key(e): i for i, e in enumerate(self._entries)}
        self.endResetModel()

    def entries(self) -> list[AssetEntry]:
        return list(self._entries)

    def entry(self, row: int) -> AssetEntry | None:
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def state(self, key: str) -> tuple[str, str]:
        return self._state.get(key, ("pending", ""))

    def set_state(self, key: str, kind: str, detail: str = "") -> None:
        self._state[key] = (kind, detail)
        self._icons.pop(key, None)
        row = self._rows.get(key)
        if row is not None:
            idx = self.index(row)
            self.dataChanged.emit(idx, idx, [Qt.ItemDataRole.DecorationRole, Qt.ItemDataRole.ToolTipRole])

    def clear_icon_cache(self) -> None:
        """After a theme change: the placeholders are drawn in the theme's colours."""
        self._placeholders.clear()
        self._icons.clear()
        if self._entries:
            self.dataChanged.emit(self.index(0), self.index(len(self._entries) - 1), [Qt.ItemDataRole.DecorationRole])

    def _placeholder(self, kind: str) -> QIcon:
        if kind not in self._placeholders:
            self._placeholders[kind] = resources.icon("severity.warning" if kind == "failed" else "scene")
        return self._placeholders[kind]

    # ------------------------------------------------------------------ Qt model
    def rowCount(self, parent=QModelIndex()):  # noqa: N802
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        e = self.entry(index.row()) if index.isValid() else None
        if e is None:
            return None
        key = self.key(e)
        kind, detail = self.state(key)
        if role == Qt.ItemDataRole.DisplayRole:
            return e.name
        if role == Qt.ItemDataRole.DecorationRole:
            if kind != "ok":
                return self._placeholder(kind)
            if key not in self._icons:
                self._icons[key] = QIcon(detail)
            return self._icons[key]
        if role == Qt.ItemDataRole.ToolTipRole:
            note = {"ok": "", "failed": f"\nno thumbnail: {detail}", "pending": "\nthumbnail: rendering…"}[kind]
            return f"{e.uri}\n{e.path}{note}"
        if role == self.ENTRY_ROLE:
            return e
        if role == self.STATE_ROLE:
            return (kind, detail)
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled

    def mimeTypes(self):  # noqa: N802
        return [ASSET_MIME, "text/uri-list", "text/plain"]

    def supportedDragActions(self):  # noqa: N802
        return Qt.DropAction.CopyAction | Qt.DropAction.LinkAction

    def mimeData(self, indexes) -> QMimeData:  # noqa: N802
        """The first dragged entry: its URI (ASSET_MIME and text) and its file (a URL)."""
        data = QMimeData()
        entries = [e for e in (self.entry(i.row()) for i in indexes if i.isValid()) if e is not None]
        if entries:
            data.setData(ASSET_MIME, entries[0].uri.encode("utf-8"))
            data.setText(entries[0].uri)
            data.setUrls([QUrl.fromLocalFile(str(entries[0].path))])
        return data


def _scan(lunco_root, twin_root, exclude, cache: ThumbnailCache):
    """On the worker thread: the catalog, each entry's cache key and the thumbnails cached."""
    catalog = AssetCatalog.scan(lunco_root, twin_root, exclude=exclude)
    keys = {e.uri: cache.key(e) for e in catalog.entries}
    cached = {}
    for e in catalog.entries:
        png = cache.cached(e)
        if png is not None:
            cached[keys[e.uri]] = str(png)
    return catalog, keys, cached


class AddAssetDialog(QDialog):
    """Browse the twin's and the library's assets and add one to the scene (see the module doc)."""

    assetAdded = Signal(str, str)  # uri, the new prim's path

    def __init__(self, *, add: Callable[[str], str | None], lunco_root: Path | None, twin_root: Path | None = None,
                 exclude: Iterable[Path] = (), cache: ThumbnailCache | None = None, jobs: int | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add Asset")
        self.setModal(False)
        self.resize(820, 560)
        self._add = add
        self.cache = cache or ThumbnailCache()
        self.catalog: AssetCatalog | None = None
        self.model = AssetGridModel(self)
        self.renderer = ThumbnailRenderer(self.cache, lunco_root=lunco_root, jobs=jobs, parent=self)
        self.renderer.rendered.connect(lambda key, png: self._on_thumbnail(key, "ok", png))
        self.renderer.failed.connect(lambda key, why: self._on_thumbnail(key, "failed", why))

        layout = QVBoxLayout(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search assets (name or URI)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.apply_filter)
        layout.addWidget(self.search)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.folders = QListWidget()
        self.folders.currentItemChanged.connect(lambda *_a: self.apply_filter())
        split.addWidget(self.folders)
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setViewMode(QListView.ViewMode.IconMode)
        self.view.setIconSize(QSize(128, 128))
        self.view.setGridSize(QSize(150, 172))
        self.view.setResizeMode(QListView.ResizeMode.Adjust)
        self.view.setMovement(QListView.Movement.Static)
        self.view.setUniformItemSizes(True)
        self.view.setWordWrap(True)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.view.doubleClicked.connect(lambda idx: self.add_entry(self.model.entry(idx.row())))
        split.addWidget(self.view)
        split.setStretchFactor(1, 1)
        split.setSizes([220, 600])
        layout.addWidget(split, 1)
        hint = QLabel("Double-click or Enter adds the asset at the viewport's focus point; "
                      "drag it onto the viewport to place it where it is dropped.")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        bottom = QHBoxLayout()
        self.status = QLabel("Scanning the asset folders…")
        bottom.addWidget(self.status, 1)
        self.add_button = QPushButton("Add")
        self.add_button.setDefault(True)
        self.add_button.clicked.connect(self.add_current)
        close = QPushButton("Close")
        close.setAutoDefault(False)
        close.clicked.connect(self.reject)
        bottom.addWidget(self.add_button)
        bottom.addWidget(close)
        layout.addLayout(bottom)

        self._added = ""
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="asset-catalog")
        self._scan: Future | None = self._pool.submit(_scan, lunco_root, twin_root, tuple(exclude), self.cache)
        self._poll = QTimer(self)
        self._poll.setInterval(20)
        self._poll.timeout.connect(self._check_scan)
        self._poll.start()
        self.search.setFocus()

    # ------------------------------------------------------------------ catalog
    @property
    def loaded(self) -> bool:
        return self.catalog is not None

    def _check_scan(self) -> None:
        if self._scan is None or not self._scan.done():
            return
        self._poll.stop()
        fut, self._scan = self._scan, None
        self._pool.shutdown(wait=False)
        try:
            catalog, keys, cached = fut.result()
        except Exception as exc:  # noqa: BLE001 - an unreadable folder: say so, offer nothing
            self.status.setText(f"could not list the assets: {exc}")
            return
        self.catalog = catalog
        self.model.set_keys(keys)
        for key, png in cached.items():
            self.model.set_state(key, "ok", png)
        for key, why in _FAILED.items():
            if key in keys.values() and key not in cached:
                self.model.set_state(key, "failed", why)
        self.folders.blockSignals(True)
        all_item = QListWidgetItem(f"All assets ({len(catalog)})")
        all_item.setData(Qt.ItemDataRole.UserRole, "")
        self.folders.addItem(all_item)
        for folder, n in catalog.folders():
            item = QListWidgetItem(f"{folder} ({n})")
            item.setData(Qt.ItemDataRole.UserRole, folder)
            item.setToolTip(folder)
            self.folders.addItem(item)
        self.folders.setCurrentRow(0)
        self.folders.blockSignals(False)
        self.apply_filter()
        if self.isVisible():
            self._request_thumbnails()

    def _request_thumbnails(self) -> None:
        if self.catalog is None:
            return
        keyed = ((self.model.key(e), e) for e in self.catalog.entries)
        self.renderer.request((k, e) for k, e in keyed if self.model.state(k)[0] == "pending")
        self.renderer.prioritize(self.model.key(e) for e in self.model.entries())
        self._show_status()

    def _on_thumbnail(self, key: str, kind: str, detail: str) -> None:
        self.model.set_state(key, kind, detail)
        self._show_status()

    def _show_status(self) -> None:
        if self.catalog is None:
            return
        shown, total = self.model.rowCount(), len(self.catalog)
        text = f"{shown} of {total} assets" if shown != total else f"{total} assets"
        if self.renderer.busy:
            text += f"; rendering {self.renderer.busy} thumbnails…"
        if self._added:
            text += f"; {self._added}"
        self.status.setText(text)

    def current_folder(self) -> str:
        item = self.folders.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else ""

    def apply_filter(self, *_args) -> None:
        """Show the entries of the chosen folder matching the search text; the first is current."""
        if self.catalog is None:
            return
        shown = self.catalog.search(self.search.text(), self.current_folder())
        self.model.set_entries(shown)
        if shown:
            self.view.setCurrentIndex(self.model.index(0))
        self.renderer.prioritize(self.model.key(e) for e in shown)
        self._show_status()

    # ------------------------------------------------------------------ adding
    def add_entry(self, entry: AssetEntry | None) -> str | None:
        if entry is None:
            return None
        path = self._add(entry.uri)
        if path:
            self._added = f"added {entry.uri} as {path}"
            self.assetAdded.emit(entry.uri, path)
        else:
            self._added = f"{entry.uri} was not added"
        self._show_status()
        return path

    def add_current(self) -> str | None:
        """Add the current entry (Enter, the Add button)."""
        idx = self.view.currentIndex()
        return self.add_entry(self.model.entry(idx.row()) if idx.isValid() else None)

    def on_theme_changed(self) -> None:
        self.model.clear_icon_cache()

    # ------------------------------------------------------------------ lifetime
    def showEvent(self, event) -> None:  # noqa: N802 - Qt naming
        super().showEvent(event)
        self._request_thumbnails()

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt naming
        self.renderer.stop()
        super().hideEvent(event)
