"""The Console panel: scenario prints, notifications, diagnostics and workbench messages."""

from __future__ import annotations


def test_console_shows_scenario_prints(opened, qtbot):
    console = opened.panels["console"]
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(3)
    qtbot.waitUntil(lambda: any("[yard] drill started" in line for line in console.lines()), timeout=10000)
    printed = [line for line in console.lines() if "[yard] drill started" in line]
    assert len(printed) == 1 and printed[0].startswith("[tick 0]")


SCENE = '''#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    upAxis = "Z"
)
def Xform "World"
{
    def Scope "Talker" (prepend apiSchemas = ["LunCoProgramAPI"])
    {
        uniform token info:language = "rhai"
        string info:sourceCode = """
fn on_tick(me) {
    if sim_tick() == 1 {
        print("hello from tick one");
        cmd("ShowNotification", #{ kind: "warn", text: "battery low" });
        get(me, "no_such_port");
    }
}
"""
    }
}
'''


def test_console_shows_notifications_and_every_diagnostic_in_order(window, qtbot, tmp_path):
    scene = tmp_path / "talk.usda"
    scene.write_text(SCENE)
    window.show()
    assert window.open_path(scene)
    console = window.panels["console"]
    qtbot.waitUntil(lambda: window.bridge.latest is not None, timeout=15000)
    window.step(3)
    qtbot.waitUntil(lambda: any("battery low" in line for line in console.lines()), timeout=10000)
    lines = console.lines()
    hello = lines.index("[tick 1] Talker: hello from tick one")
    note = lines.index("[tick 1] warn: battery low")
    warn = next(i for i, line in enumerate(lines) if "warning scenario-port-unknown" in line and "no_such_port" in line)
    assert hello < note and lines[warn].startswith("[t=")
    assert lines.index("simulation projection restarted: scene opened") < hello
    assert sum("hello from tick one" in line for line in lines) == 1  # each event exactly once
    # the Diagnostics panel got the same diagnostic from the same stream
    rows = window.panels["diagnostics"].model.rows
    assert any(origin == "runtime" and d.code == "scenario-port-unknown" for origin, d in rows)
    window.action("console.clear").trigger()
    assert console.lines() == []
