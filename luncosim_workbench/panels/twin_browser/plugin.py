"""The Twin Browser: scenes, the twin's library, the shared library, files and composition warnings."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.twin_browser.widget import TwinBrowser
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="twin_browser",
    title="Twin Browser",
    area="left",
    icon="twin_browser",
    order=10,
    factory=TwinBrowser,
    actions=(
        ActionSpec("twin_browser.refresh", "Refresh Twin Browser", lambda panel: panel.refresh(), icon="reload",
                   keybinding="F5", menus=(MenuPlace("view", "7_panel_tools", 10),),
                   tip="Read the twin's folders again (new files, moved files)"),
    ),
    perspectives={
        "Build": DockPlacement("left"),
        "Simulate": DockPlacement("left", 0, visible=False),
        "Debug": DockPlacement("left", 0),
    },
)
