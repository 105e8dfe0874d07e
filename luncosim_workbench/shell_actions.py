"""The shell's menus and actions, declared once (panels contribute theirs in their plugins).

Callbacks receive the :class:`~luncosim_workbench.main_window.MainWindow`. Context keys the
shell keeps current: ``document``, ``saveable``, ``can_undo``, ``can_redo``, ``undo_label``,
``redo_label``, ``selection``, ``simulation`` (a simulation process runs), ``ready`` (its
projection is built and admits ticks: not building, compiling or faulted), ``viewport``,
``perspective``, ``theme``, ``speed``, ``api_server``, ``overlay.<name>``.
"""

from __future__ import annotations

from luncosim_workbench.actions.registry import ActionSpec, MenuPlace, MenuSpec
from luncosim_workbench.layout import PERSPECTIVES
from luncosim_workbench.resources import THEMES

MENUS = (
    MenuSpec("file", "&File", 0),
    MenuSpec("file/recent", "Recent Twins", place=MenuPlace("file", "1_open", 30), dynamic=True),
    MenuSpec("edit", "&Edit", 1),
    MenuSpec("create", "&Create", 1.5),
    MenuSpec("view", "&View", 2),
    MenuSpec("view/panels", "Panels", place=MenuPlace("view", "2_panels", 0), dynamic=True),
    MenuSpec("view/overlays", "Overlays", place=MenuPlace("view", "3_camera", 30)),
    MenuSpec("view/theme", "Theme", place=MenuPlace("view", "4_theme", 0)),
    MenuSpec("simulation", "&Simulation", 3),
)

SPEED_NAMES = ("1x", "2x", "4x", "max")


def _fit_all(w) -> None:
    if w.viewport is not None:
        w.viewport.fit_all()


def shell_actions(overlay_names: tuple[str, ...] = ()) -> list[ActionSpec]:
    """Every action of the shell (``overlay_names``: the viewport's overlays, one toggle each)."""
    actions = [
        ActionSpec("file.open_twin", "&Open Twin…", lambda w: w.ask_open_twin(), "std:Open",
                   (MenuPlace("file", "1_open", 10),), (MenuPlace("main", "1_file", 10),), "open_twin",
                   "Open a twin folder"),
        ActionSpec("file.open_scene", "Open &Scene File…", lambda w: w.ask_open_scene(), "Ctrl+Shift+O",
                   (MenuPlace("file", "1_open", 20),), icon="open_scene", tip="Open a USD scene file"),
        ActionSpec("file.save", "&Save", lambda w: w.save(), "std:Save", (MenuPlace("file", "2_save", 10),),
                   (MenuPlace("main", "1_file", 20),), "save", "Save the scene (base layer)", enablement="saveable"),
        ActionSpec("file.reload", "&Reload Scene", lambda w: w.reload(), "Ctrl+R", (MenuPlace("file", "2_save", 20),),
                   icon="reload", tip="Rebuild the scene from its files", enablement="document"),
        ActionSpec("file.quit", "&Quit", lambda w: w.close(), "std:Quit", (MenuPlace("file", "9_quit", 10),)),
        ActionSpec("edit.undo", "&Undo {undo_label}", lambda w: w.undo(), "Ctrl+Z", (MenuPlace("edit", "1_history", 10),),
                   (MenuPlace("main", "2_history", 10),), "undo", enablement="can_undo"),
        ActionSpec("edit.redo", "&Redo {redo_label}", lambda w: w.redo(), "Ctrl+Shift+Z",
                   (MenuPlace("edit", "1_history", 20),), (MenuPlace("main", "2_history", 20),), "redo",
                   enablement="can_redo"),
        ActionSpec("edit.palette", "Command &Palette…", lambda w: w.show_palette(), "Ctrl+Shift+P",
                   (MenuPlace("edit", "9_palette", 10),), icon="palette", tip="Find any command"),
        ActionSpec("sim.play_pause", "Play / Pause", lambda w: w.toggle_play(), "Space",
                   (MenuPlace("simulation", "1_transport", 10),), enablement="simulation"),
        ActionSpec("sim.play", "Play", lambda w: w.play(), None, (MenuPlace("simulation", "1_transport", 20),),
                   (MenuPlace("transport", "1_transport", 10),), "play", "Run the simulation (once it is built and compiled)",
                   enablement="ready"),
        ActionSpec("sim.pause", "Pause", lambda w: w.pause(), None, (MenuPlace("simulation", "1_transport", 30),),
                   (MenuPlace("transport", "1_transport", 20),), "pause", "Pause the simulation", enablement="simulation"),
        ActionSpec("sim.step", "Step", lambda w: w.step(), "Ctrl+.", (MenuPlace("simulation", "1_transport", 40),),
                   (MenuPlace("transport", "1_transport", 30),), "step", "Advance one tick (once the simulation is ready)",
                   enablement="ready"),
        ActionSpec("sim.reset", "Reset", lambda w: w.reset(), "Ctrl+Shift+R", (MenuPlace("simulation", "1_transport", 50),),
                   (MenuPlace("transport", "1_transport", 40),), "reset", "Back to tick 0", enablement="simulation"),
        ActionSpec("sim.restart", "Restart Simulation", lambda w: w.restart_simulation(), None,
                   (MenuPlace("simulation", "3_server", 10),), icon="reset",
                   tip="Start a new simulation process for the open scene (after a crash or a hang)",
                   enablement="document"),
        ActionSpec("view.api_server", "API Server", lambda w: w.toggle_api_server(), None,
                   (MenuPlace("view", "5_api", 10),), checked="api_server",
                   tip="Serve the open scene over HTTP on 127.0.0.1 (the token is printed in the console)"),
        ActionSpec("view.fit", "Fit View", lambda w: w.fit_view(), "F", (MenuPlace("view", "3_camera", 10),),
                   icon="fit", tip="Frame the selection (or the moving bodies)", enablement="viewport"),
        ActionSpec("view.fit_all", "Fit All", _fit_all, "Home", (MenuPlace("view", "3_camera", 20),), icon="fit_all",
                   enablement="viewport"),
        ActionSpec("view.reset_layout", "Reset Layout", lambda w: w.apply_perspective(w.perspective), None,
                   (MenuPlace("view", "1_perspective", 90),), tip="Back to the current perspective's default docks"),
    ]
    # the palette test and users find perspectives by these titles
    for i, name in enumerate(PERSPECTIVES):
        actions.append(ActionSpec(f"view.perspective.{name}", f"{name} Perspective",
                                  lambda w, n=name: w.apply_perspective(n), None,
                                  (MenuPlace("view", "1_perspective", i),), checked=f"perspective == {name}",
                                  exclusive="perspective"))
    for i, name in enumerate(SPEED_NAMES):
        actions.append(ActionSpec(f"sim.speed.{name}", f"Speed {name}", lambda w, n=name: w.set_speed(n),
                                  f"Ctrl+{i + 1}", (MenuPlace("simulation", "2_speed", i),),
                                  checked=f"speed == {name}", exclusive="speed"))
    for i, name in enumerate(overlay_names):
        actions.append(ActionSpec(f"view.overlay.{name}", name.capitalize(),
                                  lambda w, n=name: w.set_overlay(n, n not in w.overlays_on), None,
                                  (MenuPlace("view/overlays", "1_overlays", i),), checked=f"overlay.{name}",
                                  enablement="viewport", tip=f"Draw the physics {name} over the scene"))
    for i, key in enumerate(THEMES):
        actions.append(ActionSpec(f"view.theme.{key}", f"{key.capitalize()} Theme", lambda w, k=key: w.set_theme(k),
                                  None, (MenuPlace("view/theme", "1_theme", i),), icon="theme",
                                  checked=f"theme == {key}", exclusive="theme"))
    return actions
