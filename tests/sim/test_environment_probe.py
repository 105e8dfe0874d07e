"""Environment probes on real scenes: gravity from the PhysicsScene, the sun from the scene's distant
light in the probe frame, Earth from the DE421 ephemeris at the site, pending when unknown."""

import math

import numpy as np
import pytest

from luncosim_core.api import SetEnvironmentLight
from luncosim_core.environment import earth_direction_enu
from luncosim_core.sim.simulation import open_simulation

HEAD = '#usda 1.0\n(\n    defaultPrim = "World"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'


def scene(*, gravity=True, sun=True, anchor="", probe_rotate="(0, 0, 0)", wires=True):
    text = HEAD + 'def Xform "World"\n{\n' + anchor
    if gravity:
        text += """
    def PhysicsScene "PhysicsScene"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }
"""
    if sun:
        text += """
    def DistantLight "Sun"
    {
        double3 xformOp:rotateXYZ = (-35, 40, 0)
        uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
    }
"""
    text += f"""
    def Xform "Probe" (
        prepend apiSchemas = ["LunCoEnvironmentProbeAPI"]
    )
    {{
        double3 xformOp:rotateXYZ = {probe_rotate}
        uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
    }}
"""
    if wires:
        text += """
    def Scope "Consumer"
    {
        float inputs:g.connect = </World/Probe.outputs:gravity_accel>
        float inputs:sx.connect = </World/Probe.outputs:sun_mount_x>
        float inputs:sy.connect = </World/Probe.outputs:sun_mount_y>
        float inputs:sz.connect = </World/Probe.outputs:sun_mount_z>
        float inputs:ex.connect = </World/Probe.outputs:earth_mount_x>
        float inputs:ey.connect = </World/Probe.outputs:earth_mount_y>
        float inputs:ez.connect = </World/Probe.outputs:earth_mount_z>
    }
"""
    return text + "}\n"


def run(writer, tmp_path, text, ticks=2):
    sim = open_simulation(writer(tmp_path / "scene.usda", text))
    sim.run(ticks)
    return sim


def sun_world():
    """+Z of rotateXYZ(-35, 40, 0): X first, then Y (column vectors: R = Ry(40) Rx(-35))."""
    ax, ay = math.radians(-35), math.radians(40)
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    return ry @ rx @ np.array([0.0, 0.0, 1.0])


def read3(sim, prefix):
    return np.array([sim.read("/World/Consumer", prefix + a) for a in "xyz"], dtype=float)


def test_gravity_and_sun_reach_their_consumers(writer, tmp_path):
    sim = run(writer, tmp_path, scene())
    assert sim.read("/World/Consumer", "g") == pytest.approx(1.62, rel=1e-6)
    assert sim.read("/World/Probe", "gravity_y") == pytest.approx(-1.62, rel=1e-6)
    assert read3(sim, "s") == pytest.approx(sun_world(), abs=1e-6)
    assert sim.registry.info("/World/Probe.sun_mount_x").writable is False


def test_the_sun_is_expressed_in_the_probe_frame(writer, tmp_path):
    sim = run(writer, tmp_path, scene(probe_rotate="(0, 90, 0)"))
    world = sun_world()
    # a probe yawed +90 deg about Y: its +X is world -Z, its +Z is world +X
    assert read3(sim, "s") == pytest.approx([-world[2], world[1], world[0]], abs=1e-6)


def test_set_environment_light_re_aims_the_sun(writer, tmp_path):
    sim = run(writer, tmp_path, scene())
    results = []
    sim.submit(SetEnvironmentLight(sun_yaw=0.0), results.append)
    sim.run(2)
    assert results[0].ok
    pitch = results[0].value["sun_pitch"]
    assert pitch == pytest.approx(math.radians(-35), abs=1e-9)  # kept from the authored light (tilted down)
    assert read3(sim, "s") == pytest.approx([0.0, -math.sin(pitch), math.cos(pitch)], abs=1e-9)
    bad = []
    sim.submit(SetEnvironmentLight(sun_yaw=float("nan")), bad.append)
    sim.run(1)
    assert not bad[0].ok and "finite" in bad[0].diagnostics[0].message


def test_no_data_is_pending_never_zero(writer, tmp_path):
    sim = run(writer, tmp_path, scene(gravity=False, sun=False))
    for name in ("g", "sx", "sy", "sz", "ex", "ey", "ez"):
        assert sim.read("/World/Consumer", name) is None
    notes = {d.message for d in sim.diagnostics + list(sim.snapshot().diagnostics) if d.code == "environment-probe-pending"}
    text = " ".join(notes)
    assert "no PhysicsScene" in text and "no DistantLight" in text and "no site anchor" in text


ANCHOR = """
    double lunco:anchor:lat = {lat}
    double lunco:anchor:lon = {lon}
    double lunco:anchor:height = 0.0
    int lunco:anchor:body = 301
    double lunco:time:epochJd = 2451545.0
"""


def test_earth_stands_near_the_zenith_of_the_sub_earth_point(writer, tmp_path):
    sim = run(writer, tmp_path, scene(anchor=ANCHOR.format(lat=0.0, lon=0.0)))
    e = read3(sim, "e")
    assert np.linalg.norm(e) == pytest.approx(1.0, abs=1e-9)
    # libration keeps Earth within ~10 degrees of the zenith at selenographic (0, 0)
    assert e[1] > math.cos(math.radians(12))


def test_earth_is_on_the_western_horizon_at_ninety_east(writer, tmp_path):
    sim = run(writer, tmp_path, scene(anchor=ANCHOR.format(lat=0.0, lon=90.0)))
    e = read3(sim, "e")
    assert abs(e[1]) < math.sin(math.radians(12))  # near the horizon
    assert e[0] < -0.95  # west is world -X (east is +X)
    # the same vector as the ephemeris function, mapped east-north-up -> (x, y, -z)
    east, north, up = earth_direction_enu(2451545.0, 0.0, 90.0)
    assert e == pytest.approx([east, up, -north], abs=1e-12)


def test_earth_is_computed_only_where_wired(writer, tmp_path):
    sim = run(writer, tmp_path, scene(anchor=ANCHOR.format(lat=0.0, lon=0.0), wires=False))
    assert sim.read("/World/Probe", "earth_mount_y") is None
    assert sim.read("/World/Probe", "sun_mount_y") is not None  # cheap values are always there


def test_a_wire_into_the_suns_azimuth_moves_the_sun(writer, tmp_path):
    text = scene().replace('''        uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
    }
''', '''        uniform token[] xformOpOrder = ["xformOp:rotateXYZ"]
        float inputs:sun_azimuth.connect = </World/Orbit.outputs:sun_azimuth>
    }
    def Scope "Orbit" (prepend apiSchemas = ["LunCoProgramAPI"])
    {
        uniform string info:sourceCode = "model Orbit\\n  output Real sun_azimuth = 0.5;\\nend Orbit;\\n"
    }
''', 1)
    sim = open_simulation(writer(tmp_path / "scene.usda", text))
    assert sim.wait_until_ready(180) == ""
    sim.run(3)
    pitch = math.radians(-35)  # the authored light's pitch is kept
    expected = [math.cos(pitch) * math.sin(0.5), -math.sin(pitch), math.cos(pitch) * math.cos(0.5)]
    assert read3(sim, "s") == pytest.approx(expected, abs=1e-9)
    assert sim.read("/World/Sun", "sun_elevation") == pytest.approx(math.radians(35), abs=1e-9)
