"""The Rhai console: a REPL against the running simulation's host API (reads; writes when allowed)."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.rhai_console.widget import RhaiConsolePanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="rhai_console",
    title="Rhai Console",
    area="bottom",
    icon="rhai_console",
    order=65,
    factory=RhaiConsolePanel,
    actions=(
        ActionSpec("rhai_console.clear", "Clear Rhai Console", lambda panel: panel.transcript.clear(),
                   menus=(MenuPlace("view", "7_panel_tools", 65),), tip="Remove the Rhai console's transcript"),
    ),
    perspectives={
        "Simulate": DockPlacement("bottom", 2, visible=False),
        "Debug": DockPlacement("bottom", 2),
    },
)
