"""The Mission panel: run a mission task file on the open scene, progress per action."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.mission.widget import MissionPanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="mission",
    title="Mission",
    area="right",
    icon="mission",
    order=70,
    factory=MissionPanel,
    actions=(
        ActionSpec("mission.run", "Run Mission Task File…", lambda panel: panel.ask_run(), icon="play",
                   menus=(MenuPlace("view", "7_panel_tools", 70),),
                   tip="Run a mission task file (YAML) on the open scene"),
    ),
    perspectives={"Debug": DockPlacement("right", 1)},
)
