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


FILL = NAV_HEAD + """scenario:
  aliases: {rover: /Yard/Rover, faucet: /Yard/Faucet}
  behavior:
    task:
      - name: fill-cup
        type: fill
        robot: rover
        motions:
          fill: {kind: pose, solver_profile: navigation, pose: {x: 0.0, y: 0.0, yaw: 0.0}}
          dispense:
            kind: fluid
            verification: visual_only
            renderer: visualization_overlay
            source: {kind: entity, entity: faucet, position_m: [0.0, 0.0, 0.8], direction: [1.0, 0.0, 0.3],
                     inherit_velocity: false}
            fluid: water
            rate_ml_s: 60.0
            volume_ml: 300.0
            speed_m_s: 2.0
            seed: 23
"""


def _blue_pixels(png: Path) -> int:
    from PIL import Image

    img = np.asarray(Image.open(png).convert("RGB")).astype(int)
    return int(((img[..., 2] > 170) & (img[..., 0] < 120) & (img[..., 2] - img[..., 1] > 40)).sum())


def test_render_draws_the_fill_fluid_mid_dispense(tmp_path):
    import subprocess
    import sys

    from tests.mission.yard import crate

    scene = yard(tmp_path / "yard.usda", "Z", (crate("Z", "Faucet", 2.0, 1.5, 0.15),), size=10.0)
    task = tmp_path / "fill.yaml"
    task.write_text(FILL, encoding="utf-8")
    cli = [sys.executable, "-m", "luncosim_core.cli", "render", "--scene", str(scene), "--width", "640",
           "--height", "420", "--camera", "2.5,-4,3:2.5,1.5,0.5"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    plain = subprocess.run([*cli, "--out", str(tmp_path / "plain.png")], capture_output=True, text=True, env=env,
                           timeout=300)
    assert plain.returncode == 0, plain.stderr
    mid = subprocess.run([*cli, "--out", str(tmp_path / "fluid.png"), "--mission", str(task),
                          "--mission-seconds", "3"], capture_output=True, text=True, env=env, timeout=300)
    assert mid.returncode == 0, mid.stderr
    assert "stopped at 3 s" in mid.stdout
    assert _blue_pixels(tmp_path / "fluid.png") > _blue_pixels(tmp_path / "plain.png") + 30
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "render_fill_fluid.png").write_bytes((tmp_path / "fluid.png").read_bytes())
    bad = tmp_path / "bad.yaml"
    bad.write_text(FILL.replace("fluid: water", "fluid: water\n            colour: blue"), encoding="utf-8")
    refused = subprocess.run([*cli, "--out", str(tmp_path / "x.png"), "--mission", str(bad)], capture_output=True,
                             text=True, env=env, timeout=300)
    assert refused.returncode == 2 and "colour" in refused.stderr


def test_the_same_costmap_keeps_its_image_between_drawings(planned):
    _scene, runner, d = planned
    layer = MissionLayer()
    s2v = stage_to_view("Z", 1.0)
    layer.update(OverlayInputs(None, s2v, 0.5, mission=d))
    first, particles = layer.image, layer.markers.positions.copy()
    later = mission_drawing(runner.overlay, runner.frame, 1.2, tick=d.tick + 30)  # the fluid moved on
    layer.update(OverlayInputs(None, s2v, 0.5, mission=later))
    assert layer.image is first and not np.array_equal(layer.markers.positions, particles)
    cm = runner.overlay.costmap
    runner.overlay.costmap = type(cm)(cm.origin, cm.resolution, cm.lethal.copy())
    try:
        layer.update(OverlayInputs(None, s2v, 0.5, mission=mission_drawing(runner.overlay, runner.frame, 1.2)))
        assert layer.image is not first and (layer.image.rgba == first.rgba).all()  # a new map: a new image
    finally:
        runner.overlay.costmap = cm


def test_a_y_up_mission_lands_on_the_same_view_ground():
    """On a Y-up stage plane (x, y) is world (X, -Z): the view (+Z up) shows it at (x, y)."""
    import shapely

    from luncosim_core.mission.costmap import rasterize
    from luncosim_core.mission.frames import GroundFrame
    from luncosim_core.mission.runner import MissionOverlay

    cm = rasterize([("/Rock", shapely.box(2.8, 1.8, 3.2, 2.2))], (0.0, 0.0, 6.0, 4.0))
    overlay = MissionOverlay(costmap=cm, ground=0.5)
    d = mission_drawing(overlay, GroundFrame("Y"), 0.0)
    assert d.corners[0] == pytest.approx([0.0, 0.52, 0.0])  # world (X, height, -y)
    layer = MissionLayer()
    layer.update(OverlayInputs(None, stage_to_view("Y", 1.0), 0.5, mission=d))
    img = layer.image
    rows, cols = np.nonzero(img.rgba[1:-1, 1:-1, 3] > 0)  # the rock, the border left out
    view = img.transform @ np.array([cols.mean() + 1.5, rows.mean() + 1.5, 0.0, 1.0])
    assert view[:3] == pytest.approx([3.0, 2.0, 0.52], abs=0.05)
