"""Asset roots and the ``twin://`` / ``lunco://`` URI schemes.

USD's resolver cannot be subclassed from Python, so URIs resolve through the default resolver's
search path: a private *mount* directory holds two links, ``twin:`` -> the twin root and
``lunco:`` -> the asset library root; ``lunco://a/b.usda`` is looked up as ``lunco:/a/b.usda``
on that search path. Saved layers keep their URI text. Escapes (``..`` leaving a root, absolute
paths inside a URI, links pointing outside a root) are refused by :meth:`AssetRoots.check`, which
the composer runs over every arc before trusting what USD resolved.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import posixpath
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.fsutil import file_problem

SCHEMES = ("twin", "lunco")
LUNCO_ROOT_ENV = "LUNCOSIM_LUNCO_ROOT"

_MOUNT_BASE: Path | None = None


def repository_root() -> Path:
    """The source checkout (or install prefix) holding ``assets/`` and ``resources/``."""
    return Path(__file__).resolve().parents[2]


def default_lunco_root() -> Path:
    """``$LUNCOSIM_LUNCO_ROOT`` when set, else the bundled ``assets/`` folder."""
    env = os.environ.get(LUNCO_ROOT_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return (repository_root() / "assets").resolve()


MOUNT_PREFIX = "luncosim-mounts-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_mounts(base: Path | None = None) -> list[Path]:
    """Remove mount folders left by processes that died without cleaning up (a kill -9).

    A folder is named ``luncosim-mounts-<pid>-<random>``: it is stale when that process is gone.
    Returns what was removed."""
    base = Path(base or tempfile.gettempdir())
    removed = []
    for folder in base.glob(f"{MOUNT_PREFIX}*"):
        pid_text = folder.name[len(MOUNT_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _pid_alive(int(pid_text)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _mount_base() -> Path:
    global _MOUNT_BASE
    if _MOUNT_BASE is None:
        clean_stale_mounts()
        _MOUNT_BASE = Path(tempfile.mkdtemp(prefix=f"{MOUNT_PREFIX}{os.getpid()}-"))
        atexit.register(shutil.rmtree, _MOUNT_BASE, True)
    return _MOUNT_BASE


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


@dataclass(frozen=True)
class AssetCheck:
    """The outcome of checking one authored asset path."""

    authored: str
    path: Path | None  # the real file it names (may not exist); None when refused
    diagnostic: Diagnostic | None = None

    @property
    def refused(self) -> bool:
        return self.diagnostic is not None


@dataclass(frozen=True)
class AssetRoots:
    """The roots a twin may read from: its own folder and the asset library."""

    twin_root: Path | None
    lunco_root: Path = field(default_factory=default_lunco_root)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lunco_root", Path(self.lunco_root).resolve())
        if self.twin_root is not None:
            object.__setattr__(self, "twin_root", Path(self.twin_root).resolve())

    # -- mounting -----------------------------------------------------------------------
    @property
    def mount_dir(self) -> Path:
        """A directory holding ``twin:`` and ``lunco:`` links to the roots (made on demand)."""
        key = hashlib.sha1(f"{self.twin_root}|{self.lunco_root}".encode()).hexdigest()[:16]
        mount = _mount_base() / key
        if not mount.exists():
            mount.mkdir(parents=True)
            (mount / "lunco:").symlink_to(self.lunco_root, target_is_directory=True)
            if self.twin_root is not None:
                (mount / "twin:").symlink_to(self.twin_root, target_is_directory=True)
        return mount

    def resolver_context(self):
        """An ``Ar.DefaultResolverContext`` whose search path is the mount directory."""
        from pxr import Ar

        return Ar.DefaultResolverContext([str(self.mount_dir)])

    def allowed_roots(self) -> list[Path]:
        roots = [self.lunco_root]
        if self.twin_root is not None:
            roots.append(self.twin_root)
        return roots

    def root_of(self, scheme: str) -> Path | None:
        return self.lunco_root if scheme == "lunco" else self.twin_root

    def real(self, path: str | Path) -> Path:
        """Map a path that may run through the mount links back onto the real roots."""
        p = Path(os.path.realpath(path))
        return p

    def contains(self, path: str | Path) -> bool:
        real = Path(os.path.realpath(path))
        return any(_inside(real, root) for root in self.allowed_roots())

    # -- checking -----------------------------------------------------------------------
    def check(self, authored: str, anchor: str | Path | None = None, *, where: str = "", layer: str = "") -> AssetCheck:
        """Check one authored asset path (``@...@``) written in the layer at ``anchor``.

        URIs must stay inside their root; relative and absolute paths must land inside an
        allowed root. The returned ``path`` is the real file (it may not exist: a missing file is
        the composer's business, not an escape).
        """

        def refuse(code: str, why: str) -> AssetCheck:
            return AssetCheck(
                authored, None,
                Diagnostic("error", code, f"asset path @{authored}@ refused: {why}", path=where, layer=layer, source="twin"),
            )

        if not authored:
            return refuse("asset-empty", "empty asset path")
        scheme, sep, rest = authored.partition("://")
        if sep:
            if scheme not in SCHEMES:
                return refuse("asset-unknown-scheme", f"unknown URI scheme '{scheme}://' (known: twin://, lunco://)")
            root = self.root_of(scheme)
            if root is None:
                return refuse("asset-no-twin-root", "twin:// used where no twin is open")
            if rest.startswith("/") or (len(rest) > 1 and rest[1] == ":"):
                return refuse("asset-escape-absolute", f"absolute path inside a {scheme}:// URI")
            norm = posixpath.normpath(rest) if rest else "."
            if norm == ".." or norm.startswith("../"):
                return refuse("asset-escape-dotdot", f"'..' leaves the {scheme}:// root {root}")
            target = root / norm
            real = Path(os.path.realpath(target))
            if not _inside(real, root):
                return refuse("asset-escape-link", f"{target} is a link pointing outside the {scheme}:// root ({real})")
            return AssetCheck(authored, real)
        # a plain path: anchored to the referring layer as USD does
        if os.path.isabs(authored):
            target = Path(authored)
        else:
            if anchor is None:
                return AssetCheck(authored, None)
            anchor_real = Path(os.path.realpath(anchor))
            target = Path(posixpath.normpath(str(anchor_real.parent / authored)))
        real = Path(os.path.realpath(target))
        if not any(_inside(real, root) for root in self.allowed_roots()):
            roots = ", ".join(str(r) for r in self.allowed_roots())
            kind = "asset-escape-absolute" if os.path.isabs(authored) else "asset-escape-dotdot"
            if target != real and any(_inside(target, r) for r in self.allowed_roots()):
                kind = "asset-escape-link"
            return refuse(kind, f"resolves to {real}, outside the allowed roots ({roots}); use twin:// or lunco://")
        return AssetCheck(authored, real)

    def resolve_file(self, authored: str, anchor: str | Path | None = None) -> AssetCheck:
        """Check and resolve an asset-valued attribute (e.g. ``info:sourceAsset``) to a file.

        Only a regular file is a file here: a folder, a FIFO (reading one blocks forever), a device
        or a socket is refused (``asset-not-a-file``), so no reader of the result can hang on it."""
        result = self.check(authored, anchor)
        if result.refused or result.path is None:
            return result
        if not result.path.exists():
            return AssetCheck(
                authored, result.path,
                Diagnostic("error", "asset-missing", f"asset @{authored}@ not found (looked at {result.path})", source="twin"),
            )
        problem = file_problem(result.path, f"asset @{authored}@:")
        if problem is not None:
            return AssetCheck(authored, result.path,
                              Diagnostic("error", "asset-not-a-file", problem, source="twin"))
        return result
