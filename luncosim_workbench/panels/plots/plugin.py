"""The Plots panel: strip charts over every tick's telemetry; drop ports here to plot them; result
series other panels publish (a sweep's output against its parameter) below them."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.plots.widget import PlotsPanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="plots",
    title="Plots",
    area="bottom",
    icon="plots",
    order=40,
    factory=PlotsPanel,
    subscribes=("frames", "events"),
    actions=(
        ActionSpec("plots.export_csv", "Export Telemetry CSV…", lambda panel: panel.ask_export(), icon="export",
                   menus=(MenuPlace("file", "3_export", 10),),
                   tip="Every recorded sample of the plotted channels (all ports when none is plotted)"),
        ActionSpec("plots.clear", "Clear Plots", lambda panel: panel.clear_channels(), icon="clear",
                   menus=(MenuPlace("view", "7_panel_tools", 40),), tip="Remove every curve"),
    ),
    perspectives={
        "Simulate": DockPlacement("bottom", 0),
        "Debug": DockPlacement("bottom", 0),
    },
)
