"""The Assembly Editor: the composed prim tree over the property inspector."""

from luncosim_core.usd.create import RECIPES
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
        *(ActionSpec(f"assembly.create.{kind}", recipe.title, lambda panel, k=kind: panel.create_prim(k),
                     menus=(MenuPlace("create", "1_prims" if i < 6 else "2_physics", i),), enablement="document",
                     tip=f"Create a {recipe.title} under the selected prim")
          for i, (kind, recipe) in enumerate(RECIPES.items())),
        ActionSpec("assembly.create.joint", "Joint Between Selected Bodies", lambda panel: panel.create_joint(),
                   menus=(MenuPlace("create", "2_physics", 50),), enablement="document && selection",
                   tip="A revolute joint between the two selected bodies, seated where they are"),
        ActionSpec("assembly.create.asset", "Add Asset…", lambda panel: panel.ask_asset(), icon="add",
                   menus=(MenuPlace("create", "3_assets", 10),), enablement="document",
                   tip="Reference a library asset (lunco:// or twin://) under the selected prim"),
    ),
    perspectives={
        "Build": DockPlacement("right"),
        "Simulate": DockPlacement("right", 0, visible=False),
        "Debug": DockPlacement("left", 0),
    },
)
