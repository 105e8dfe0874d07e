"""What Add Asset… offers (Qt-free): the USD files under the ``twin://`` and ``lunco://`` roots,
with their URIs, folders and a search; and where their thumbnails are cached and how one is
rendered (``luncosim render`` in a child process).

Skipped while scanning: hidden folders (``.lunco/``, ``.git/``, ...), ``__pycache__``, test
folders (``tests/``, ``test/``, ``*_tests/``: a twin's ``scenes/tests/`` checks, not parts),
other twins inside the library (a folder with a ``twin.toml``: their ``twin://`` references would
resolve against the open twin) and the files given as ``exclude`` (the open scene: it cannot
reference itself). A twin inside the library (the bundled demo) is listed once, as ``twin://``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

USD_SUFFIXES = (".usda", ".usd", ".usdc")
MANIFEST = "twin.toml"
CACHE_ENV = "LUNCOSIM_CACHE_DIR"
#: pixel size of a rendered thumbnail (square); part of the cache key
THUMBNAIL_PX = 192
_SKIPPED_DIRS = {"__pycache__", "node_modules", "test", "tests"}


@dataclass(frozen=True, slots=True)
class AssetEntry:
    """One USD file the scene may reference."""

    uri: str  # twin://scenes/crate.usda or lunco://vessels/rovers/yard_rover.usda
    path: Path  # the absolute file
    folder: str  # its folder as a URI: "lunco://vessels/rovers" ("lunco://" at the root)
    mtime_ns: int = 0
    size: int = 0

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def scheme(self) -> str:
        return self.uri.split("://", 1)[0]

    def matches(self, terms: Iterable[str]) -> bool:
        """Every (lower-case) term is in the name or the URI."""
        hay = f"{self.name} {self.uri}".lower()
        return all(t in hay for t in terms)


def _skipped_dir(name: str) -> bool:
    low = name.lower()
    return name.startswith(".") or low in _SKIPPED_DIRS or low.endswith(("_tests", "-tests", "_test", "-test"))


def _walk(root: Path, scheme: str, *, skip: set[Path], exclude: set[Path]) -> list[AssetEntry]:
    entries: list[AssetEntry] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(d) and (here / d) not in skip
                         and not (here / d / MANIFEST).is_file())
        rel = here.relative_to(root).as_posix()
        folder_uri = f"{scheme}://" + ("" if rel == "." else rel)
        for name in sorted(files):
            if not name.lower().endswith(USD_SUFFIXES) or name.startswith("."):
                continue
            path = here / name
            if path in exclude:
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            uri = f"{folder_uri.rstrip('/')}/{name}" if rel != "." else f"{scheme}://{name}"
            entries.append(AssetEntry(uri, path, folder_uri, st.st_mtime_ns, st.st_size))
    return entries


class AssetCatalog:
    """The assets of a twin (``twin://``, listed first) and of the library (``lunco://``)."""

    def __init__(self, entries: Iterable[AssetEntry] = ()) -> None:
        order = {"twin": 0, "lunco": 1}
        self.entries: tuple[AssetEntry, ...] = tuple(
            sorted(entries, key=lambda e: (order.get(e.scheme, 2), e.folder, e.name.lower(), e.uri)))

    @classmethod
    def scan(cls, lunco_root: Path | None, twin_root: Path | None = None, *,
             exclude: Iterable[Path] = ()) -> AssetCatalog:
        """Walk both roots (see the module doc for what is skipped)."""
        excluded = {Path(p).resolve() for p in exclude}
        entries: list[AssetEntry] = []
        twin = Path(twin_root).resolve() if twin_root is not None else None
        if twin is not None and twin.is_dir():
            entries += _walk(twin, "twin", skip=set(), exclude=excluded)
        if lunco_root is not None and Path(lunco_root).is_dir():
            lunco = Path(lunco_root).resolve()
            entries += _walk(lunco, "lunco", skip={twin} if twin is not None else set(), exclude=excluded)
        return cls(entries)

    def __len__(self) -> int:
        return len(self.entries)

    def uris(self) -> list[str]:
        return [e.uri for e in self.entries]

    def folders(self) -> list[tuple[str, int]]:
        """(folder URI, number of assets in it), in listing order."""
        counts: dict[str, int] = {}
        for e in self.entries:
            counts[e.folder] = counts.get(e.folder, 0) + 1
        return list(counts.items())

    def search(self, text: str = "", folder: str = "") -> list[AssetEntry]:
        """The entries whose name or URI holds every word of ``text`` (any case), in ``folder``
        (a folder URI, its subfolders included; "" everywhere)."""
        terms = text.lower().split()
        prefix = folder.rstrip("/") + "/" if folder else ""
        return [e for e in self.entries
                if (not folder or e.folder == folder or e.uri.startswith(prefix)) and e.matches(terms)]


# ---------------------------------------------------------------------- thumbnails
def default_thumbnail_dir() -> Path:
    """``$LUNCOSIM_CACHE_DIR/thumbnails`` when set, else ``thumbnails`` in the user's cache folder."""
    env = os.environ.get(CACHE_ENV)
    base = Path(env) if env else Path(platformdirs.user_cache_dir("luncosim-workbench", "LunCoSim"))
    return base / "thumbnails"


class ThumbnailCache:
    """PNG thumbnails keyed by (absolute path, mtime, size) of the asset file: an edited file gets
    a new key (a new render); an unchanged one is found again in any later session."""

    def __init__(self, folder: Path | None = None, px: int = THUMBNAIL_PX) -> None:
        self.folder = Path(folder) if folder is not None else default_thumbnail_dir()
        self.px = int(px)

    def key(self, entry: AssetEntry) -> str:
        text = f"{entry.path.resolve()}|{entry.mtime_ns}|{entry.size}|{self.px}"
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def png(self, entry: AssetEntry) -> Path:
        return self.folder / f"{self.key(entry)}.png"

    def cached(self, entry: AssetEntry) -> Path | None:
        png = self.png(entry)
        return png if png.is_file() and png.stat().st_size > 0 else None


def luncosim_command() -> list[str]:
    """How to run ``luncosim`` from here: ``python -m luncosim_core.cli``, or the frozen bundle's
    own ``luncosim`` beside it (a bundle has no ``-m``)."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).with_name("luncosim"))]
    return [sys.executable, "-m", "luncosim_core.cli"]


def render_command(entry: AssetEntry, out: Path, *, px: int = THUMBNAIL_PX,
                   lunco_root: Path | None = None) -> list[str]:
    """``luncosim render`` of the asset (its own twin rules, tick 0, iso view framing it) to ``out``."""
    cmd = luncosim_command()
    if lunco_root is not None:
        cmd += ["--lunco-root", str(lunco_root)]
    return cmd + ["render", "--scene", str(entry.path), "--out", str(out), "--width", str(px), "--height", str(px)]


_NOISE = ("pybullet build time", "argv[0]=")


def failure_reason(stderr: str, exit_code: int) -> str:
    """Why a render failed, from its error output: the last meaningful line, else the exit code."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.strip().startswith(_NOISE)]
    if lines:
        return lines[-1].removeprefix("luncosim render: ")
    return f"luncosim render exited with code {exit_code}"
