"""The source editor: Modelica and Rhai files with live diagnostics, completion, F12, Save & Run."""

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.panels.editor.widget import EditorPanel
from luncosim_workbench.plugins import PanelSpec

_MENU = (MenuPlace("view", "7_panel_tools", 60),)

PANEL = PanelSpec(
    id="editor",
    title="Source Editor",
    area="right",
    icon="file",
    order=45,
    factory=EditorPanel,
    subscribes=("events",),
    actions=(
        ActionSpec("editor.save", "Save Source File", lambda panel: panel.save(), menus=_MENU,
                   tip="Save the current source tab (Ctrl+S inside the editor)"),
        ActionSpec("editor.save_run", "Save && Run Source", lambda panel: panel.save_and_run(), menus=_MENU,
                   tip="Save the current source tab and reload it into the running simulation (Ctrl+Enter)"),
        ActionSpec("editor.revert", "Revert Source File", lambda panel: panel.revert(), menus=_MENU,
                   tip="Discard the current source tab's unsaved edits and reload it from disk (asks first)"),
        ActionSpec("editor.definition", "Go to Definition", lambda panel: panel.go_to_definition(), menus=_MENU,
                   tip="Open the definition of the name at the caret (F12 inside the editor)"),
    ),
    perspectives={
        "Build": DockPlacement("right", 1, visible=False),  # shown when a source opens
        "Debug": DockPlacement("right", 1),
    },
)
