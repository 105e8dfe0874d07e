"""The workbench's resources (``resources/`` at the top of the product): icons, themes, app icon.

``icon(name)`` gives the QIcon a semantic name maps to in ``resources/icons.toml`` (a qtawesome
icon drawn in the current theme's colour); ``apply_theme(app, name)`` sets the palette and style
sheet of ``resources/themes/<name>.toml``; ``app_icon()`` is the application icon. Unknown
names are errors naming the file to edit, never a silent blank.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from luncosim_core.twin.roots import repository_root

THEMES = ("light", "dark")
DEFAULT_THEME = "light"


def resources_dir() -> Path:
    return repository_root() / "resources"


@cache
def icon_names() -> dict[str, str]:
    """Semantic icon name -> qtawesome id, from ``resources/icons.toml``."""
    with open(resources_dir() / "icons.toml", "rb") as f:
        return dict(tomllib.load(f)["icons"])


@dataclass(frozen=True)
class Theme:
    key: str
    name: str
    palette: dict[str, str]
    icon_color: str
    icon_disabled: str
    plot_background: str
    plot_foreground: str
    stylesheet: str = ""
    extra: dict = field(default_factory=dict)


@cache
def load_theme(key: str) -> Theme:
    """The theme ``resources/themes/<key>.toml`` (with its style sheet text)."""
    if key not in THEMES:
        raise KeyError(f"unknown theme {key!r}; themes: {', '.join(THEMES)}")
    folder = resources_dir() / "themes"
    with open(folder / f"{key}.toml", "rb") as f:
        data = tomllib.load(f)
    qss = (folder / data["stylesheet"]).read_text(encoding="utf-8") if data.get("stylesheet") else ""
    return Theme(key, data["name"], dict(data["palette"]), data["icon_color"], data["icon_disabled"],
                 data["plot_background"], data["plot_foreground"], qss)


_current = DEFAULT_THEME


def current_theme() -> Theme:
    return load_theme(_current)


def icon(name: str):
    """The QIcon for a semantic name (``play``, ``prim.Xform``, ``severity.error`` ...) from
    ``resources/icons.toml``, or for a qtawesome id itself (``mdi6.graph-outline``: a panel can
    name its icon without touching anything outside its folder)."""
    import qtawesome as qta

    qta_id = icon_names().get(name, name)
    theme = current_theme()
    try:
        return qta.icon(qta_id, color=theme.icon_color, color_disabled=theme.icon_disabled)
    except Exception as exc:  # qtawesome raises several types for an unknown prefix or name
        raise KeyError(f"no icon named {name!r} in {resources_dir() / 'icons.toml'} "
                       "and it is not a qtawesome id") from exc


def prim_icon(type_name: str, schemas: tuple[str, ...] = ()):
    """A tree badge for a prim: by type (joints, lights, programs by family), else generic."""
    names = icon_names()
    if "LunCoProgramAPI" in schemas:
        return icon("prim.Program")
    if f"prim.{type_name}" in names:
        return icon(f"prim.{type_name}")
    if type_name.endswith("Joint"):
        return icon("prim.Joint")
    if type_name.endswith("Light"):
        return icon("prim.Light")
    if "PhysicsRigidBodyAPI" in schemas:
        return icon("prim.Body")
    return icon("prim")


def app_icon():
    from PySide6.QtGui import QIcon

    return QIcon(str(resources_dir() / "icons" / "luncosim.svg"))


def apply_theme(app, key: str) -> Theme:
    """Set ``app``'s palette and style sheet to the theme ``key``; icons made after this call
    use its colours."""
    from PySide6.QtGui import QColor, QPalette

    global _current
    theme = load_theme(key)
    palette = QPalette()
    for role, color in theme.palette.items():
        palette.setColor(getattr(QPalette.ColorRole, role), QColor(color))
    for role in ("Text", "WindowText", "ButtonText"):
        palette.setColor(QPalette.ColorGroup.Disabled, getattr(QPalette.ColorRole, role), QColor(theme.icon_disabled))
    app.setPalette(palette)
    app.setStyleSheet(theme.stylesheet)
    _current = key
    return theme
