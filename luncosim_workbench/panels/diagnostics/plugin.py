"""The Diagnostics panel: composition warnings, lint findings and runtime diagnostics."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.diagnostics.widget import DiagnosticsPanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="diagnostics",
    title="Diagnostics",
    area="bottom",
    icon="diagnostics",
    order=50,
    factory=DiagnosticsPanel,
    subscribes=("frames", "events"),
    actions=(
        ActionSpec("diagnostics.clear_runtime", "Clear Runtime Diagnostics", lambda panel: panel.clear_runtime(),
                   icon="clear", menus=(MenuPlace("view", "7_panel_tools", 50),),
                   tip="Forget the runtime diagnostics shown so far (composition and lint stay)"),
    ),
    perspectives={
        "Build": DockPlacement("bottom", 0),
        "Debug": DockPlacement("bottom", 1),
    },
)
