"""The Console panel: every message and event, as it happened."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.console.widget import ConsolePanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="console",
    title="Console",
    area="bottom",
    icon="console",
    order=60,
    factory=ConsolePanel,
    subscribes=("events",),
    actions=(
        ActionSpec("console.clear", "Clear Console", lambda panel: panel.clear(), icon="clear",
                   menus=(MenuPlace("view", "7_panel_tools", 60),), tip="Remove every line from the console"),
    ),
    perspectives={
        "Build": DockPlacement("bottom", 0),
        "Simulate": DockPlacement("bottom", 1),
        "Debug": DockPlacement("bottom", 1),
    },
)
