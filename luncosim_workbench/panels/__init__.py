"""Dock panels: one folder a panel, each registered here with an id, a title and a default area.

A panel is a QWidget built from a :class:`PanelContext`; it may define ``on_frame(snapshot)``
(called at display rate with the newest snapshot) and ``close_panel()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from luncosim_workbench.panels.base import PanelContext

AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "bottom": Qt.DockWidgetArea.BottomDockWidgetArea,
    "top": Qt.DockWidgetArea.TopDockWidgetArea,
}


@dataclass(frozen=True)
class PanelSpec:
    id: str
    title: str
    area: str  # left, right, bottom, top
    factory: Callable[[PanelContext], QWidget]


def _twin_browser(ctx: PanelContext) -> QWidget:
    from luncosim_workbench.panels.twin_browser.widget import TwinBrowser

    return TwinBrowser(ctx)


def _assembly(ctx: PanelContext) -> QWidget:
    from luncosim_workbench.panels.assembly.widget import AssemblyEditor

    return AssemblyEditor(ctx)


def _ports(ctx: PanelContext) -> QWidget:
    from luncosim_workbench.panels.ports.widget import PortsPanel

    return PortsPanel(ctx)


def _plots(ctx: PanelContext) -> QWidget:
    from luncosim_workbench.panels.plots.widget import PlotsPanel

    return PlotsPanel(ctx)


def _diagnostics(ctx: PanelContext) -> QWidget:
    from luncosim_workbench.panels.diagnostics.widget import DiagnosticsPanel

    return DiagnosticsPanel(ctx)


def _console(ctx: PanelContext) -> QWidget:
    from luncosim_workbench.panels.console.widget import ConsolePanel

    return ConsolePanel(ctx)


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("twin_browser", "Twin Browser", "left", _twin_browser),
    PanelSpec("assembly", "Assembly Editor", "right", _assembly),
    PanelSpec("ports", "Ports", "right", _ports),
    PanelSpec("plots", "Plots", "bottom", _plots),
    PanelSpec("diagnostics", "Diagnostics", "bottom", _diagnostics),
    PanelSpec("console", "Console", "bottom", _console),
)


def panel_spec(panel_id: str) -> PanelSpec:
    for spec in PANELS:
        if spec.id == panel_id:
            return spec
    raise KeyError(f"no panel with id {panel_id!r}; known: {', '.join(s.id for s in PANELS)}")


__all__ = ["AREAS", "PANELS", "PanelContext", "PanelSpec", "panel_spec"]
