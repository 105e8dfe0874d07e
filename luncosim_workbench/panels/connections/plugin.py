"""The Connections canvas: the selected assembly's ports as a node graph; drag to wire."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.connections.widget import ConnectionsCanvas
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="connections",
    title="Connections",
    area="bottom",
    icon="connections",
    order=45,
    factory=ConnectionsCanvas,
    subscribes=("selection", "frames"),
    actions=(
        ActionSpec("connections.auto_layout", "Connections: Auto Layout", lambda panel: panel.auto_layout(),
                   menus=(MenuPlace("view", "7_panel_tools", 45),), enablement="document",
                   tip="Place the canvas nodes in columns by signal rank"),
        ActionSpec("connections.delete", "Connections: Delete Selected Wires and Nodes' Wires",
                   lambda panel: panel.delete_selected(),
                   menus=(MenuPlace("edit", "4_wires", 10),), enablement="document"),
    ),
    perspectives={
        "Build": DockPlacement("bottom", 1),
        "Debug": DockPlacement("bottom", 2),
    },
)
