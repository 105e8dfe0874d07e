"""Perspectives (Build, Simulate, Debug) and per-user layout persistence.

A perspective is a name; each panel's plugin says where it sits in it (``PanelSpec.perspectives``),
and a panel a perspective does not mention is hidden there.

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
PREFERENCES_FILE = "preferences.json"
MAX_RECENT = 10
DEFAULT_PERSPECTIVE = "Simulate"


@dataclass(frozen=True)
class DockPlacement:
    """Where a panel sits in one perspective (each panel's plugin declares its own)."""

    area: str  # left, right, bottom, top
    group: int = 0  # docks with the same area and group are tabbed together
    visible: bool = True


#: The named perspectives; which panels each shows, and where, comes from the panels' plugins.
PERSPECTIVES: tuple[str, ...] = ("Build", "Simulate", "Debug")


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


class SettingsUnwritable(LayoutError):
    """The settings folder cannot be written (it is a file, a name in it is a folder, ...)."""


def write_setting(folder: Path, name: str, text: str) -> Path:
    """Write one settings file atomically; :class:`SettingsUnwritable` says why it cannot be."""
    path = folder / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder")
        atomic_write_text(path, text)
    except OSError as exc:
        raise SettingsUnwritable(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def save_layout(folder: Path, perspective: str, geometry: bytes, state: bytes) -> Path:
    return write_setting(folder, LAYOUT_FILE, json.dumps({
        "version": LAYOUT_VERSION,
        "perspective": perspective,
        "geometry": base64.b64encode(geometry).decode("ascii"),
        "state": base64.b64encode(state).decode("ascii"),
    }, indent=1))


def load_layout(folder: Path) -> SavedLayout | None:
    """The saved layout, None when there is none; raises :class:`LayoutError` when unusable."""
    path = folder / LAYOUT_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LayoutError(f"{path} is not a readable layout: {exc}") from exc
    except RecursionError:
        raise LayoutError(f"{path} is not a readable layout: nested too deeply") from None
    if not isinstance(data, dict):
        raise LayoutError(f"{path} does not hold a layout object")
    if data.get("version") != LAYOUT_VERSION:
        raise LayoutError(f"{path} has layout version {data.get('version')!r}; this workbench uses {LAYOUT_VERSION}")
    perspective = data.get("perspective")
    if not isinstance(perspective, str) or perspective not in PERSPECTIVES:
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
    except (OSError, ValueError, RecursionError):
        return []
    return [str(i) for i in items if isinstance(i, str)][:MAX_RECENT] if isinstance(items, list) else []


def add_recent(folder: Path, path: str) -> list[str]:
    items = [path] + [p for p in load_recent(folder) if p != path]
    items = items[:MAX_RECENT]
    write_setting(folder, RECENT_FILE, json.dumps(items, indent=1))
    return items


def load_preferences(folder: Path) -> dict:
    """Small user preferences (the theme); an unreadable file gives the defaults."""
    try:
        data = json.loads((folder / PREFERENCES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def save_preferences(folder: Path, prefs: dict) -> Path:
    return write_setting(folder, PREFERENCES_FILE, json.dumps(prefs, indent=1, sort_keys=True))
