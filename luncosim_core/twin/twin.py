"""A twin folder and the entry points that open one.

| entry point                       | active scene                               |
|-----------------------------------|--------------------------------------------|
| twin with ``usd.default_scene``   | that scene                                 |
| twin without it                   | none ("no scene selected")                 |
| folder without ``twin.toml``      | none; a USD file opens as isolated preview |
| a loose scene file                | that file; its folder becomes a folder twin |

Every other USD file is an indexed library entry, never mounted automatically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.fsutil import file_problem
from luncosim_core.twin.manifest import MANIFEST_NAME, TwinManifest, load_manifest
from luncosim_core.twin.roots import AssetRoots, default_lunco_root

USD_SUFFIXES = (".usda", ".usd", ".usdc")
_SKIP_DIRS = {".lunco", ".git", ".venv", "__pycache__", "node_modules"}


@dataclass
class Twin:
    """A twin: its root folder, optional manifest, asset roots and library index."""

    root: Path
    manifest: TwinManifest | None
    roots: AssetRoots
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.manifest.name if self.manifest else self.root.name

    @property
    def is_folder_twin(self) -> bool:
        return self.manifest is None

    @property
    def default_scene(self) -> Path | None:
        if self.manifest and self.manifest.default_scene:
            return (self.root / self.manifest.default_scene).resolve()
        return None

    @property
    def composition_policy(self) -> str:
        return self.manifest.composition_policy if self.manifest else "allow_partial"

    @property
    def runtime_persistence(self) -> bool:
        return bool(self.manifest and self.manifest.runtime_persistence)

    def library(self) -> list[Path]:
        """Every USD file in the twin, sorted (the indexed library)."""
        found: list[Path] = []
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
                continue
            if path.is_file() and path.suffix in USD_SUFFIXES:
                found.append(path)
        return found

    def contains(self, path: Path) -> bool:
        """Whether ``path``, links followed, lies inside the twin's folder."""
        try:
            Path(os.path.realpath(path)).relative_to(os.path.realpath(self.root))
            return True
        except ValueError:
            return False

    def scene_entries(self) -> list[Path]:
        """Files matching the manifest's ``usd.scenes`` globs (plus the default scene): regular
        USD files inside the twin only (a link leading out of it is skipped)."""
        entries: list[Path] = []
        if self.manifest:
            for pattern in self.manifest.scenes:
                entries.extend(p for p in sorted(self.root.glob(pattern))
                               if p.suffix in USD_SUFFIXES and self.contains(p) and file_problem(p, "scene") is None)
        default = self.default_scene
        if default is not None and default not in entries:
            entries.insert(0, default)
        return entries

    def relative(self, path: Path) -> str:
        try:
            return str(Path(path).resolve().relative_to(self.root))
        except ValueError:
            return str(path)

    def runtime_sidecar(self, scene: Path) -> Path:
        """Where the runtime layer of ``scene`` persists: ``<twin>/.lunco/runtime/<scene path>``."""
        return self.root / ".lunco" / "runtime" / self.relative(scene)


@dataclass
class OpenResult:
    """What an entry point opened: the twin, the scene to compose (or None) and why."""

    twin: Twin
    scene: Path | None
    preview: bool = False  # an isolated preview of a library file
    reason: str = ""  # why there is no scene, when there is none


def load_twin(folder: str | Path, lunco_root: Path | None = None) -> Twin:
    """A twin from a folder: with its manifest when present, else a folder twin."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise DiagnosticError(Diagnostic("error", "twin-not-a-folder", f"{folder} is not a folder", layer=str(folder), source="twin"))
    manifest_path = folder / MANIFEST_NAME
    manifest = load_manifest(manifest_path) if manifest_path.exists() else None
    roots = AssetRoots(twin_root=folder, lunco_root=lunco_root or default_lunco_root())
    twin = Twin(root=folder, manifest=manifest, roots=roots)
    if manifest and manifest.default_scene:
        problem = default_scene_problem(twin)
        if problem is not None:
            twin.diagnostics.append(problem)
    return twin


def default_scene_problem(twin: Twin) -> Diagnostic | None:
    """Why the manifest's default scene cannot be opened (None when it can)."""
    name = twin.manifest.default_scene
    layer = str(twin.manifest.path)
    unresolved = twin.root / name
    if not os.path.lexists(unresolved):
        return Diagnostic("error", "twin-default-scene-missing", f"default_scene '{name}' does not exist",
                          layer=layer, source="twin")
    if not twin.contains(unresolved):
        return Diagnostic("error", "twin-default-scene-outside",
                          f"default_scene '{name}' leads outside the twin (to {os.path.realpath(unresolved)}); refused",
                          layer=layer, source="twin")
    problem = file_problem(unresolved, "default_scene")
    if problem:
        return Diagnostic("error", "twin-default-scene-invalid", problem, layer=layer, source="twin")
    if Path(os.path.realpath(unresolved)).suffix not in USD_SUFFIXES:
        return Diagnostic("error", "twin-default-scene-invalid",
                          f"default_scene '{name}' is not a USD file ({', '.join(USD_SUFFIXES)})", layer=layer, source="twin")
    return None


def open_path(path: str | Path, lunco_root: Path | None = None, *, preview: str | Path | None = None) -> OpenResult:
    """Apply the entry-point rules to a folder, a twin or a loose scene file."""
    path = Path(path).resolve()
    if path.is_file():
        if path.name == MANIFEST_NAME:
            return open_path(path.parent, lunco_root)
        if path.suffix not in USD_SUFFIXES:
            raise DiagnosticError(Diagnostic("error", "twin-not-a-scene", f"{path} is not a USD file", layer=str(path), source="twin"))
        # a loose scene: the nearest folder with a manifest owns it, else its own folder
        owner = next((p for p in path.parents if (p / MANIFEST_NAME).exists()), path.parent)
        twin = load_twin(owner, lunco_root)
        return OpenResult(twin=twin, scene=path)
    if not path.exists():
        raise DiagnosticError(Diagnostic("error", "twin-not-found", f"{path} does not exist", layer=str(path), source="twin"))
    twin = load_twin(path, lunco_root)
    if preview is not None:
        return OpenResult(twin=twin, scene=Path(preview).resolve(), preview=True)
    if twin.manifest is None:
        return OpenResult(twin=twin, scene=None, reason="folder without twin.toml: no scene selected; open a USD file to preview it")
    if twin.default_scene is None:
        return OpenResult(twin=twin, scene=None, reason="no scene selected: twin.toml has no [usd] default_scene")
    problem = default_scene_problem(twin)
    if problem is not None:
        raise DiagnosticError(problem)
    return OpenResult(twin=twin, scene=twin.default_scene)
