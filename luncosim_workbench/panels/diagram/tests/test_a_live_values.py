"""Live values on the diagram from the running demo twin.

This module runs before the panel's other tests: in one process, an ``opened`` window after a
plain ``window`` test waits for ever on "compiling DriveController.mo" (seen on main too)."""

from __future__ import annotations

from luncosim_core.twin.roots import repository_root

LIB = repository_root() / "assets" / "models"


def test_live_values_label_the_running_models_connectors(opened, qtbot):
    p = opened.panels["diagram"]
    assert p.open_file(LIB / "Workbench" / "Rover" / "DriveController.mo")  # read only: no edit is made
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(30)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick >= 30, timeout=150000)  # a loaded machine is slow, not wrong
    p.on_frame(opened.bridge.latest)
    assert p._prims == ("/PracticeYard/RoverA/Controller", "/PracticeYard/RoverB/Controller")
    assert "torque_left" in p.nodes and "torque_left" in p.nodes["torque_left"].live
    assert "torque_left = " in p.nodes["torque_left"].label.text()
