"""The Console panel: scenario prints, notifications, diagnostics and workbench messages."""

from __future__ import annotations


def test_console_shows_scenario_prints(opened, qtbot):
    console = opened.panels["console"]
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(3)
    qtbot.waitUntil(lambda: any("[yard] drill started" in line for line in console.lines()), timeout=10000)
    printed = [line for line in console.lines() if "[yard] drill started" in line]
    assert len(printed) == 1 and printed[0].startswith("[tick 0]")
