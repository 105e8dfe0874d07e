"""The Ports panel: live values of every port (or the selection's), writable inputs, wires."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.ports.widget import PortsPanel
from luncosim_workbench.plugins import PanelSpec


def _focus_filter(panel: PortsPanel) -> None:
    panel.filter.setFocus()
    panel.filter.selectAll()


PANEL = PanelSpec(
    id="ports",
    title="Ports",
    area="right",
    icon="ports",
    order=30,
    factory=PortsPanel,
    subscribes=("frames", "selection"),
    actions=(
        ActionSpec("ports.filter", "Filter Ports…", _focus_filter, menus=(MenuPlace("view", "7_panel_tools", 30),),
                   tip="Type to filter the Ports panel by path or owner"),
        ActionSpec("ports.refresh", "Refresh Port List", lambda panel: panel.refresh_ports(), icon="reload",
                   enablement="simulation", tip="Ask the simulation for its ports and wires again"),
    ),
    perspectives={
        "Simulate": DockPlacement("right", 0),
        "Debug": DockPlacement("right", 0),
    },
)
