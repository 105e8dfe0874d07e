"""The Layer stack: the scene's layers, the edit target, where the selection's opinions live."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.layers.widget import LayerStackPanel
from luncosim_workbench.plugins import PanelSpec

PANEL = PanelSpec(
    id="layers",
    title="Layer Stack",
    area="left",
    icon="layers",
    order=25,
    factory=LayerStackPanel,
    subscribes=("selection",),
    actions=(
        ActionSpec("layers.target_base", "Edit Target: Base Layer (the scene file)",
                   lambda panel: panel.set_edit_target("base"), menus=(MenuPlace("edit", "5_target", 10),),
                   enablement="document"),
        ActionSpec("layers.target_runtime", "Edit Target: Runtime Layer",
                   lambda panel: panel.set_edit_target("runtime"), menus=(MenuPlace("edit", "5_target", 20),),
                   enablement="document"),
        ActionSpec("layers.save_as", "Save Scene &As…", lambda panel: panel.ask_save_as(), keybinding="std:SaveAs",
                   menus=(MenuPlace("file", "2_save", 15),), enablement="document",
                   tip="Write the scene, unsaved edits included, to another file and work on that one"),
        ActionSpec("layers.new_twin", "&New Twin…", lambda panel: panel.ask_new_twin(), keybinding="std:New",
                   menus=(MenuPlace("file", "1_open", 5),),
                   tip="A new twin folder: twin.toml and a scene with a PhysicsScene at lunar gravity"),
    ),
    perspectives={
        "Build": DockPlacement("left", 0),
        "Debug": DockPlacement("left", 1),
    },
)
