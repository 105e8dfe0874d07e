"""The Assembly Editor: the composed prim tree over the property inspector."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.assembly.widget import AssemblyEditor
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="assembly",
    title="Assembly Editor",
    area="right",
    icon="assembly",
    order=20,
    factory=AssemblyEditor,
    subscribes=("selection",),
    actions=(
        ActionSpec("assembly.add_prim", "Add Child Prim…", lambda panel: panel.ask_add(), icon="add",
                   menus=(MenuPlace("edit", "3_prim", 10),), enablement="document",
                   tip="Add a prim under the selected one (or under the default prim)"),
        ActionSpec("assembly.remove_prims", "Remove Selected Prims", lambda panel: panel.remove_selected(), icon="remove",
                   menus=(MenuPlace("edit", "3_prim", 20),), enablement="document && selection"),
        ActionSpec("assembly.rename_prim", "Rename Prim…", lambda panel: panel.ask_rename(), icon="rename",
                   keybinding="F2", menus=(MenuPlace("edit", "3_prim", 30),), enablement="document && selection"),
    ),
    perspectives={
        "Build": DockPlacement("right"),
        "Simulate": DockPlacement("right", 0, visible=False),
        "Debug": DockPlacement("left", 0),
    },
)
