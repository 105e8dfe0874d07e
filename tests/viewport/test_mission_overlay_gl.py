"""The mission overlay: a real plan around obstacles on our own yard, drawn in the viewport
(lethal costmap cells, the planned path, footprint outlines, fluid particles)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from luncosim_core.mission import MissionRunner, SimulationHost, parse_task_text
from luncosim_core.mission.drawing import mission_drawing
from luncosim_core.mission.fluid import FluidStream
from luncosim_core.sim.simulation import open_simulation
from luncosim_workbench.viewport.model.overlay_layers import MissionLayer, OverlayInputs
from luncosim_workbench.viewport.model.overlays import FOOTPRINT_COLOR, LETHAL_RGBA, PATH_COLOR
from luncosim_workbench.viewport.model.transforms import apply, stage_to_view
from tests.mission.yard import NAV_HEAD, block, yard

SHOTS = Path(os.environ.get("LUNCOSIM_SHOTS", Path(__file__).resolve().parents[3] / "missionui-shots"))
TASK = NAV_HEAD + """scenario:
  aliases: {rover: /Yard/Rover}
  behavior:
    task:
      - name: go
        type: navigate
        robot: rover
        motions:
          navigate: {kind: navigation, solver_profile: navigation, pose: {x: 6.0, y: 0.5, yaw: 0.0}}
"""


class PlanOnlyHost(SimulationHost):
    """Stops advancing once the plan is submitted (the drawing is what these tests look at)."""

    stop = False

    def tick(self) -> bool:
        return False if self.stop else super().tick()


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("yard")
    parts = (block("Z", "Wall", 3.0, 0.0, 0.6, 3.0), block("Z", "Rock", 1.5, 2.5, 1.0, 1.0),
             block("Z", "Post", 5.0, -1.5, 0.5, 0.5))
    scene = yard(tmp / "yard.usda", "Z", parts, size=16.0)
    sim = open_simulation(scene)
    host = PlanOnlyHost(sim)
    for _ in range(20):
        host.tick()

    def stop_at_submit(event):
        if event.name == "mission.navigation.submitted":
            host.stop = True

    runner = MissionRunner(host, parse_task_text(TASK), run_id="overlay", listeners=(stop_at_submit,))
    runner.run()
    # a visual fluid stream, as a fill's dispense publishes it
    stream = FluidStream("demo", "water", np.array([0.6, 0.0, 0.8]), np.array([1.0, 0.0, -0.2]),
                         np.array([0.0, 0.0, 1.0]), 40.0, 3.0, 1.5, 8.0, 7)
    runner.overlay.fluids["demo"] = (stream, 0.0)
    world = sim.world
    drawing = mission_drawing(runner.overlay, runner.frame, 0.8, tick=host.tick_count,
                              poses=(world.body_paths, world.positions(), world.orientations()))
    yield scene, runner, drawing
    sim.close()


def test_drawing_holds_the_costmap_path_footprints_and_particles(planned):
    _scene, runner, d = planned
    cm = runner.overlay.costmap
    assert d.lethal.shape == cm.lethal.shape and d.lethal.any()
    assert np.allclose(d.corners[0][:2], cm.origin)
    assert abs(d.path[0][0]) < 0.3 and abs(d.path[-1][0] - 6.0) < 0.3  # rover to goal
    assert abs(d.corners[0][2] - d.path[0][2]) < 0.05  # on the floor, not at the rover's base height
    assert len(d.footprints) > 0 and len(d.footprints) % 2 == 0
    assert 0 < len(d.particles) and "/Yard/Rover" in "".join(d.body_paths)


def test_mission_layer_puts_lethal_cells_on_the_obstacles(planned):
    _scene, runner, d = planned
    layer = MissionLayer()
    assert layer.enabled  # on by default: it draws only while a mission publishes
    s2v = stage_to_view("Z", 1.0)
    layer.update(OverlayInputs(None, s2v, 0.5, mission=d))
    img = layer.image
    rows, cols = np.nonzero(img.rgba[..., 3] > 0)
    assert (img.rgba[rows[0], cols[0]] == LETHAL_RGBA).all()
    # the cell under the wall's centre (3, 0) is lethal; one in the open (1.5, -1) is not
    for (x, y), lethal in (((3.0, 0.0), True), ((1.5, -1.0), False)):
        c, r = (np.linalg.inv(img.transform) @ np.array([x, y, d.corners[0][2], 1.0]))[:2]
        assert bool(img.rgba[int(r), int(c), 3]) is lethal
    for color in (PATH_COLOR, FOOTPRINT_COLOR):
        assert np.isclose(layer.lines.colors, color, atol=1e-3).all(axis=1).any()
    assert len(layer.markers.positions) == len(d.particles)
    layer.set_enabled(False, OverlayInputs(None, s2v, 0.5, mission=d))
    assert layer.image is None and layer.lines is None


@pytest.mark.gl
@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (run under xvfb-run)")
def test_viewport_draws_the_mission_over_the_scene(planned, qtbot):
    from luncosim_workbench.viewport import ViewportWidget

    scene, _runner, d = planned
    w = ViewportWidget(size=(900, 640))
    qtbot.addWidget(w)
    w.resize(900, 640)
    w.show()
    qtbot.waitExposed(w)
    from pxr import Usd

    w.set_stage(Usd.Stage.Open(str(scene)))
    w.viewport.set_camera({"eye": (3.0, -7.0, 9.0), "center": (3.0, 0.3, 0.0)})
    before = w.render()
    w.set_mission(d)
    qtbot.wait(50)
    after = w.render()
    SHOTS.mkdir(parents=True, exist_ok=True)
    from PIL import Image

    Image.fromarray(after[..., :3]).save(SHOTS / "mission_overlay.png")
    mid = d.path[len(d.path) // 2]
    x, y = w.viewport.project([mid])[0]
    patch = after[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3, :3].reshape(-1, 3).astype(int)
    assert any(p[0] > 180 and p[1] > 150 and p[2] < 100 for p in patch), patch  # the yellow path
    wx, wy = w.viewport.project([apply(stage_to_view("Z", 1.0), np.array([3.0, 0.0, d.corners[0][2]]))[0]])[0]
    red_gain = int(after[int(wy), int(wx), 0]) - int(before[int(wy), int(wx), 0])
    assert red_gain > 30  # the wall's lethal cells tint it red
    w.set_mission(None)
    assert (w.render()[..., :3] == before[..., :3]).mean() > 0.99
