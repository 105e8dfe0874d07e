"""Panels are plugins: a folder with plugin.py is found and docked, gets the narrow facade,
its actions join the menus, shortcuts and palette, and its subscriptions are delivered."""

from __future__ import annotations

import sys
import textwrap

import pytest

from luncosim_core.api import SetPorts
from luncosim_core.usd.ops import SetAttribute
from luncosim_workbench.context import PanelContext
from luncosim_workbench.events import LogLine
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.plugins import PanelSpec, PanelWidget, PluginError, discover_panels
from luncosim_workbench.testing import AXLE_FL, MARKER, wait_future

HELLO_PLUGIN = '''
from luncosim_workbench.actions.registry import ActionSpec, MenuPlace
from luncosim_workbench.layout import DockPlacement
from luncosim_workbench.plugins import PanelSpec, PanelWidget


class Hello(PanelWidget):
    def __init__(self, ctx, parent=None):
        super().__init__(ctx, parent)
        self.frames, self.events, self.selections, self.pokes = [], [], [], 0

    def on_frame(self, snapshot):
        self.frames.append(snapshot.tick)

    def on_events(self, events):
        self.events.extend(events)

    def on_selection(self, added, removed):
        self.selections.append((added, removed))


PANEL = PanelSpec(
    id="hello", title="Hello", area="right", factory=Hello, order=99, icon="console",
    subscribes=("frames", "events", "selection"),
    actions=(ActionSpec("hello.poke", "Poke Hello", lambda panel: setattr(panel, "pokes", panel.pokes + 1),
                        keybinding="Ctrl+Alt+H", menus=(MenuPlace("view", "7_panel_tools", 99),)),),
    perspectives={"Simulate": DockPlacement("right", 0)},
)
'''


@pytest.fixture
def extra_panels(tmp_path, monkeypatch):
    """A package of panels outside the workbench: one folder, one plugin.py, nothing else."""
    root = tmp_path / "plugins_src"
    pkg = root / "extra_panels"
    (pkg / "hello").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "hello" / "__init__.py").write_text("")
    (pkg / "hello" / "plugin.py").write_text(textwrap.dedent(HELLO_PLUGIN))
    (pkg / "not_a_panel").mkdir()
    (pkg / "not_a_panel" / "__init__.py").write_text("")  # a folder without plugin.py is skipped
    monkeypatch.syspath_prepend(str(root))
    yield "extra_panels"
    for name in [m for m in sys.modules if m.startswith("extra_panels")]:
        del sys.modules[name]


def test_the_shipped_panels_are_discovered_from_their_folders():
    specs = discover_panels()
    assert [s.id for s in specs] == ["twin_browser", "assembly", "layers", "ports", "plots", "connections",
                                        "editor", "diagnostics", "console", "diagram", "rhai_console", "mission",
                                        "batch"]
    for s in specs:
        assert s.icon and s.perspectives, s.id
        assert all(a.id.startswith(s.id + ".") for a in s.actions)


def test_a_new_panel_folder_is_docked_wired_and_in_the_menus(make_window, extra_panels, qtbot, twin_copy):
    window = make_window(panels=discover_panels() + discover_panels(extra_panels))
    window.show()
    hello = window.panels["hello"]
    assert isinstance(hello.ctx, PanelContext)
    assert window.docks["hello"].titleBarWidget().text() == "Hello"
    assert "Hello" in {a.text() for a in window.qt_actions.menus["view/panels"].actions()}
    palette = window.show_palette()
    qtbot.addWidget(palette)
    assert dict((label, sc) for label, sc, _a in palette.entries)["Poke Hello"] == "Ctrl+Alt+H"
    palette.close()
    window.action("hello.poke").trigger()
    assert hello.pokes == 1  # the action's callback got the panel widget
    window.apply_perspective("Simulate")
    assert "hello" in window.visible_panels()
    window.apply_perspective("Build")
    assert "hello" not in window.visible_panels()  # not placed in Build: hidden there

    assert window.open_path(twin_copy)
    assert any(isinstance(e, LogLine) and e.text.startswith("opened ") for e in hello.events)
    qtbot.waitUntil(lambda: bool(hello.frames), timeout=30000)
    window.session.selection.set([MARKER])
    window.session.selection.set([MARKER, AXLE_FL])
    window.session.selection.set([AXLE_FL])
    assert hello.selections[-3:] == [((MARKER,), ()), ((AXLE_FL,), ()), ((), (MARKER,))]


def test_the_facade_sends_commands_and_applies_ops_with_an_author(opened, qtbot):
    ctx = opened.ctx
    qtbot.waitUntil(lambda: ctx.latest is not None, timeout=30000)
    fut = ctx.send(SetPorts(target=AXLE_FL, writes={"target_velocity": -1.0}))
    opened.step(1)
    assert wait_future(qtbot, fut).ok
    ctx.apply(SetAttribute(path=MARKER, name="size", value=2.0), author="script")
    ctx.apply(SetAttribute(path=MARKER, name="size", value=3.0))
    entries = opened.session.document.journal.entries()
    assert [(e.op.value, e.author) for e in entries[-2:]] == [(2.0, "script"), (3.0, "user")]
    assert opened.session.document.undo() and opened.session.document.redo()
    assert opened.session.document.journal.entries()[-1].author == "user"  # kept through undo/redo
    for name in ("bridge", "worker", "sim", "simulation", "session"):
        assert not hasattr(ctx, name), name  # the facade has no back door by these names


def test_a_send_without_a_scene_resolves_with_a_clear_error(window):
    res = window.ctx.send(SetPorts(target=AXLE_FL, writes={"x": 1.0})).result(timeout=1)
    assert not res.ok and res.diagnostics[0].code == "no-simulation"


def test_bad_panel_specs_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="area 'middle'"):
        PanelSpec("x", "X", "middle", PanelWidget)
    with pytest.raises(ValueError, match="unknown subscriptions"):
        PanelSpec("x", "X", "left", PanelWidget, subscribes=("ticks",))
    with pytest.raises(ValueError, match="unknown perspectives"):
        PanelSpec("x", "X", "left", PanelWidget, perspectives={"Fly": DockPlacement("left")})


def test_a_broken_plugin_is_named(tmp_path, monkeypatch):
    pkg = tmp_path / "src" / "broken_panels"
    (pkg / "oops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "oops" / "__init__.py").write_text("")
    (pkg / "oops" / "plugin.py").write_text("PANEL = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    try:
        with pytest.raises(PluginError, match="broken_panels.oops.plugin must define PANEL"):
            discover_panels("broken_panels")
        (pkg / "oops" / "plugin.py").write_text("import nowhere_to_be_found\n")
        sys.modules.pop("broken_panels.oops.plugin", None)
        with pytest.raises(PluginError, match="broken_panels.oops.plugin could not be imported"):
            discover_panels("broken_panels")
    finally:
        for name in [m for m in sys.modules if m.startswith("broken_panels")]:
            del sys.modules[name]
