"""Regenerate the README pictures: ``xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/images/regenerate.py``.

The demo twin's own scenario (``Drill``) drives the rovers; nothing else is commanded.

``diagram-drive-controller.png`` (the Modelica diagram with live values) is written by its test:
``LUNCOSIM_SHOTS=/tmp/shots xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m pytest
luncosim_workbench/panels/diagram/tests/test_a_live_variables.py`` and copied from ``/tmp/shots``.
"""

from pathlib import Path

from luncosim_workbench.screenshot import take_screenshot

HERE = Path(__file__).resolve().parent
TWIN = HERE.parents[1] / "assets" / "twins" / "practice_yard"

take_screenshot(TWIN, HERE / "workbench.png", ticks=240, perspective="Simulate",
                select=["/PracticeYard/RoverA"],
                plot=["/PracticeYard/RoverA.speed", "/PracticeYard/RoverA/Controller.torque_left",
                      "/PracticeYard/RoverA/Chassis.position_x"])
take_screenshot(TWIN, HERE / "workbench-build.png", perspective="Build", select=["/PracticeYard/RoverA/Chassis"])
print("wrote", HERE / "workbench.png", "and", HERE / "workbench-build.png")
