"""What every panel is given: the session, the simulation bridge and a few window services."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from luncosim_workbench.bridge import SimBridge
from luncosim_workbench.session import Session


def _ignore(*_args) -> None:
    return None


@dataclass
class PanelContext:
    session: Session
    bridge: SimBridge
    notify: Callable[[str], None] = _ignore  # a status-bar message
    open_location: Callable[[str, int], None] = _ignore  # a file and a line (0 = none)
    open_path: Callable[..., None] = _ignore  # (path, preview=None): open a twin/scene/preview
    panels: dict = field(default_factory=dict)  # id -> widget, filled by the main window
