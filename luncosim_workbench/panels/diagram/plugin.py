"""The Modelica Diagram panel: a class's components, connectors and connections, edited in place."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.diagram.widget import DiagramPanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="diagram",
    title="Modelica Diagram",
    area="right",
    order=60,
    icon="diagram",
    factory=DiagramPanel,
    subscribes=("frames",),
    actions=(
        ActionSpec("diagram.open", "Open Modelica Diagram…", lambda panel: panel.choose_file(),
                   menus=(MenuPlace("view", "7_panel_tools", 60),),
                   tip="Show a Modelica file's class as a diagram you can edit"),
        ActionSpec("diagram.fit", "Fit Diagram", lambda panel: panel.fit(), tip="Fit the diagram in its view"),
    ),
    perspectives={
        "Build": DockPlacement("right", 1, visible=False),  # shown when a diagram is opened
        "Debug": DockPlacement("right", 1),
    },
)
