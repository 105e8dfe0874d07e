"""Panels are plugins: each folder under ``luncosim_workbench/panels/`` holding a ``plugin.py``
with a ``PANEL = PanelSpec(...)`` is a dock of the workbench. Nothing else names it.

A :class:`PanelSpec` says what the panel is (id, title, icon), where it docks (default area,
its place in each perspective), what it contributes (actions) and what it listens to
(``subscribes``: ``"frames"``, ``"events"``, ``"selection"``); the shell connects those to the
widget's :class:`PanelWidget` handlers. The widget gets a
:class:`~luncosim_workbench.context.PanelContext` and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from PySide6.QtWidgets import QWidget

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_workbench.actions.registry import ActionSpec
from luncosim_workbench.context import PanelContext
from luncosim_workbench.layout import PERSPECTIVES, DockPlacement

AREAS = ("left", "right", "bottom", "top")
SUBSCRIPTIONS = ("frames", "events", "selection")
PANELS_PACKAGE = "luncosim_workbench.panels"


class PanelWidget(QWidget):
    """Base of every panel widget: the handlers the shell connects, per ``PanelSpec.subscribes``."""

    def __init__(self, ctx: PanelContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx

    def on_frame(self, snapshot: WorkbenchSnapshot) -> None:
        """The newest snapshot, at most once per display frame (``"frames"``)."""

    def on_events(self, events: tuple) -> None:
        """Events since the previous frame, in order (``"events"``; see luncosim_workbench.events)."""

    def on_selection(self, added: tuple[str, ...], removed: tuple[str, ...]) -> None:
        """The shared selection changed (``"selection"``); ``ctx.selection.paths`` is the whole."""

    def on_theme_changed(self) -> None:
        """The theme changed: re-make cached icons (the palette itself follows by Qt)."""

    def close_panel(self) -> None:
        """The window is closing: disconnect from models, stop timers."""


@dataclass(frozen=True)
class PanelSpec:
    id: str
    title: str
    area: str
    factory: Callable[[PanelContext], PanelWidget]
    icon: str = ""  # a name from resources/icons.toml
    order: int = 100  # position in menus and the default dock order
    actions: tuple[ActionSpec, ...] = ()  # their callbacks receive the panel widget
    subscribes: tuple[str, ...] = ()
    perspectives: Mapping[str, DockPlacement] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        problems = []
        if self.area not in AREAS:
            problems.append(f"area {self.area!r} is not one of {', '.join(AREAS)}")
        bad = [s for s in self.subscribes if s not in SUBSCRIPTIONS]
        if bad:
            problems.append(f"unknown subscriptions {bad} (known: {', '.join(SUBSCRIPTIONS)})")
        unknown = [p for p in self.perspectives if p not in PERSPECTIVES]
        if unknown:
            problems.append(f"unknown perspectives {unknown} (known: {', '.join(PERSPECTIVES)})")
        for a in self.actions:
            if not a.id.startswith(f"{self.id}."):
                problems.append(f"action {a.id!r} must be named '{self.id}.<name>'")
        if problems:
            raise ValueError(f"panel {self.id!r}: " + "; ".join(problems))


class PluginError(RuntimeError):
    """A panel folder whose ``plugin.py`` cannot be loaded or declares no usable ``PANEL``."""


def discover_panels(package: str = PANELS_PACKAGE) -> tuple[PanelSpec, ...]:
    """Every ``<package>/<folder>/plugin.py``'s ``PANEL``, ordered by (order, id). A folder without
    ``plugin.py`` is skipped; a broken one is a :class:`PluginError` naming it."""
    pkg = importlib.import_module(package)
    specs: list[PanelSpec] = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.ispkg:
            continue
        name = f"{package}.{info.name}.plugin"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise PluginError(f"{name} could not be imported: {exc}") from exc
        except Exception as exc:
            raise PluginError(f"{name} could not be imported: {type(exc).__name__}: {exc}") from exc
        spec = getattr(module, "PANEL", None)
        if not isinstance(spec, PanelSpec):
            raise PluginError(f"{name} must define PANEL = PanelSpec(...)")
        specs.append(spec)
    ids = [s.id for s in specs]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise PluginError(f"two panels share the id(s) {', '.join(dupes)}")
    return tuple(sorted(specs, key=lambda s: (s.order, s.id)))
