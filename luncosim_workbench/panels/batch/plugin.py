"""The Batch panel: a parameter sweep of the open scene on a local Dask cluster."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.batch.widget import BatchPanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="batch",
    title="Batch",
    area="right",
    icon="batch",
    order=75,
    factory=BatchPanel,
    actions=(
        ActionSpec("batch.run", "Run Sweep of the Open Scene", lambda panel: panel.run(), icon="play",
                   menus=(MenuPlace("view", "7_panel_tools", 75),),
                   tip="Run the Batch panel's sweep on a local Dask cluster"),
    ),
    perspectives={"Debug": DockPlacement("right", 2)},
)
