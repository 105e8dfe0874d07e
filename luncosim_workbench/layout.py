"""Perspectives (Build, Simulate, Debug) and per-user layout persistence.

Settings live in a per-user folder (platformdirs), or in ``LUNCOSIM_SETTINGS_DIR`` when set
(tests point it at a temporary folder). A saved layout carries a version; a layout that cannot be
read or restored falls back to the default perspective instead of leaving a broken window.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from luncosim_core.fsutil import atomic_write_text

LAYOUT_VERSION = 1
LAYOUT_FILE = "layout.json"
RECENT_FILE = "recent.json"
MAX_RECENT = 10
DEFAULT_PERSPECTIVE = "Simulate"


@dataclass(frozen=True)
class DockPlacement:
    area: str  # left, right, bottom, top
    group: int = 0  # docks with the same area and group are tabbed together
    visible: bool = True


# panel id -> placement; panels not listed are hidden in that perspective
PERSPECTIVES: dict[str, dict[str, DockPlacement]] = {
    "Build": {
        "twin_browser": DockPlacement("left"),
        "assembly": DockPlacement("right"),
        "diagnostics": DockPlacement("bottom", 0),
        "console": DockPlacement("bottom", 0),
    },
    "Simulate": {
        "twin_browser": DockPlacement("left", 0, visible=False),
        "ports": DockPlacement("right", 0),
        "assembly": DockPlacement("right", 0, visible=False),
        "plots": DockPlacement("bottom", 0),
        "console": DockPlacement("bottom", 1),
    },
    "Debug": {
        "twin_browser": DockPlacement("left", 0),
        "assembly": DockPlacement("left", 0),
        "ports": DockPlacement("right", 0),
        "plots": DockPlacement("bottom", 0),
        "diagnostics": DockPlacement("bottom", 1),
        "console": DockPlacement("bottom", 1),
    },
}


def settings_dir() -> Path:
    """Where the workbench keeps per-user settings (``LUNCOSIM_SETTINGS_DIR`` overrides)."""
    env = os.environ.get("LUNCOSIM_SETTINGS_DIR")
    return Path(env) if env else Path(platformdirs.user_config_dir("luncosim-workbench", "LunCoSim"))


@dataclass(frozen=True)
class SavedLayout:
    perspective: str
    geometry: bytes
    state: bytes


class LayoutError(ValueError):
    """A saved layout that cannot be used; the message says why."""


def save_layout(folder: Path, perspective: str, geometry: bytes, state: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LAYOUT_FILE
    atomic_write_text(path, json.dumps({
        "version": LAYOUT_VERSION,
        "perspective": perspective,
        "geometry": base64.b64encode(geometry).decode("ascii"),
        "state": base64.b64encode(state).decode("ascii"),
    }, indent=1))
    return path


def load_layout(folder: Path) -> SavedLayout | None:
    """The saved layout, None when there is none; raises :class:`LayoutError` when unusable."""
    path = folder / LAYOUT_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LayoutError(f"{path} is not a readable layout: {exc}") from exc
    if not isinstance(data, dict):
        raise LayoutError(f"{path} does not hold a layout object")
    if data.get("version") != LAYOUT_VERSION:
        raise LayoutError(f"{path} has layout version {data.get('version')!r}; this workbench uses {LAYOUT_VERSION}")
    perspective = data.get("perspective")
    if perspective not in PERSPECTIVES:
        raise LayoutError(f"{path} names an unknown perspective {perspective!r}")
    try:
        geometry = base64.b64decode(data["geometry"], validate=True)
        state = base64.b64decode(data["state"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"{path} has a damaged geometry or state field: {exc}") from exc
    return SavedLayout(perspective, geometry, state)


def load_recent(folder: Path) -> list[str]:
    try:
        items = json.loads((folder / RECENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(i) for i in items if isinstance(i, str)][:MAX_RECENT] if isinstance(items, list) else []


def add_recent(folder: Path, path: str) -> list[str]:
    items = [path] + [p for p in load_recent(folder) if p != path]
    items = items[:MAX_RECENT]
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / RECENT_FILE, json.dumps(items, indent=1))
    return items
