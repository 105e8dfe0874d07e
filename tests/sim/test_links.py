"""The connectivity kernel: placements resolve to real geometry, and each verdict (range,
elevation, body occultation, occluder box, class policy) severs exactly the pairs it should, on
the pure kernel and on small scenes of our own through the ``Links`` query and the link ports."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luncosim_core.api.commands import BodyPosition, Links, SolarPose
from luncosim_core.environment.links import (
    MOON_NAIF,
    SPEED_OF_LIGHT_M_S,
    Geodetic,
    Kepler,
    Libration,
    LinkError,
    LinkNode,
    Occluder,
    body_position,
    link_graph,
    place,
    site_axes,
)
from luncosim_core.sim.simulation import open_simulation

JD = 2461395.5
HEAD = '#usda 1.0\n(\n    defaultPrim = "World"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\n'


def _pair(graph):
    return {frozenset((e.a, e.b)): e for e in graph.edges}


# -- the pure kernel ------------------------------------------------------------------------------

def test_kepler_radius_is_the_semi_major_axis_and_the_range_gate_reads_max_range():
    a = LinkNode("/A", Kepler(MOON_NAIF, 6_540_000.0, 0.0, 90.0, mean_anomaly_deg=180.0), "sat", max_range_m=1.0e6)
    b = LinkNode("/B", Kepler(MOON_NAIF, 6_540_000.0, 0.0, 90.0, mean_anomaly_deg=184.0), "sat")
    moon = body_position(MOON_NAIF, JD)
    assert np.linalg.norm(place(a.placement, JD)[0] - moon) == pytest.approx(6_540_000.0, abs=1e-3)
    (edge,) = link_graph([a, b], JD).edges
    chord = 2 * 6_540_000.0 * math.sin(math.radians(2.0))
    assert edge.range_m == pytest.approx(chord, rel=1e-9)
    assert edge.light_time_s == pytest.approx(chord / SPEED_OF_LIGHT_M_S, rel=1e-12)
    short = LinkNode("/A", a.placement, "sat", max_range_m=400_000.0)
    g = link_graph([short, b], JD)
    assert g.edges == [] and "range" in g.severed[("/A", "/B")]


def test_libration_points_lie_where_the_pair_puts_them():
    earth, moon = body_position(399, JD), body_position(MOON_NAIF, JD)
    d = np.linalg.norm(moon - earth)
    l4 = place(Libration(399, MOON_NAIF, "L4"), JD)[0]
    assert np.linalg.norm(l4 - earth) == pytest.approx(d, rel=1e-9)
    assert np.linalg.norm(l4 - moon) == pytest.approx(d, rel=1e-9)
    l1, l2 = place(Libration(399, MOON_NAIF, "L1"), JD)[0], place(Libration(399, MOON_NAIF, "L2"), JD)[0]
    assert 55e6 < np.linalg.norm(l1 - moon) < 70e6 and np.linalg.norm(l1 - earth) < d < np.linalg.norm(l2 - earth)
    # L1 and L2 sit on opposite sides of the Moon: it occults the pair
    g = link_graph([LinkNode("/L1", Libration(399, MOON_NAIF, "L1")), LinkNode("/L2", Libration(399, MOON_NAIF, "L2"))], JD)
    assert g.edges == [] and "body 301" in g.severed[("/L1", "/L2")]
    with pytest.raises(LinkError, match="L7"):
        place(Libration(399, MOON_NAIF, "L7"), JD)


def test_surface_nodes_sit_on_their_body_and_the_elevation_mask_gates():
    moon = body_position(MOON_NAIF, JD)
    pos, up = place(Geodetic(MOON_NAIF, -85.43, -0.94), JD)
    assert np.linalg.norm(pos - moon) == pytest.approx(1_737_400.0, abs=1e-3)
    assert up @ (pos - moon) / np.linalg.norm(pos - moon) == pytest.approx(1.0)
    # two stations 30 degrees apart on the Moon: below each other's horizon, and the Moon is between
    a = LinkNode("/A", Geodetic(MOON_NAIF, 0.0, 0.0, 10.0), "base", min_elevation_deg=-90.0)
    b = LinkNode("/B", Geodetic(MOON_NAIF, 0.0, 30.0, 10.0), "base", min_elevation_deg=-90.0)
    assert "body 301" in link_graph([a, b], JD).severed[("/A", "/B")]
    masked = LinkNode("/A", a.placement, "base", min_elevation_deg=0.0)
    assert "mask" in link_graph([masked, b], JD).severed[("/A", "/B")]


def test_earth_stations_rotate_with_earth():
    st = Geodetic(399, 40.4314, -4.2481, 837.0)
    earth = body_position(399, JD)
    r0 = place(st, JD)[0] - earth
    r6 = place(st, JD + 0.25)[0] - body_position(399, JD + 0.25)  # a quarter day later: ~90 degrees of rotation
    ang = math.degrees(math.acos(r0 @ r6 / np.linalg.norm(r0) / np.linalg.norm(r6)))
    lat = math.radians(40.4314)
    expect = math.degrees(math.acos(math.sin(lat) ** 2 + math.cos(lat) ** 2 * math.cos(math.radians(90.25))))
    assert ang == pytest.approx(expect, abs=0.5)
    assert np.linalg.norm(r0) == pytest.approx(6_369_800.0, abs=3000.0)


def test_an_occluder_box_severs_the_segment_through_it_and_not_the_one_beside_it():
    site = Geodetic(MOON_NAIF, -85.0, 0.0)
    a = LinkNode("/A", Geodetic(MOON_NAIF, -85.0, 0.0, 0.0, (0.0, -20.0, 1.0)), "x")
    b = LinkNode("/B", Geodetic(MOON_NAIF, -85.0, 0.0, 0.0, (0.0, 20.0, 1.0)), "x")
    c = LinkNode("/C", Geodetic(MOON_NAIF, -85.0, 0.0, 0.0, (12.0, 20.0, 1.0)), "x")
    origin, enu = site_axes(site, JD)
    wall = Occluder("/Wall", origin + enu @ np.array([0.0, 0.0, 6.0]), enu, np.array([4.0, 0.5, 6.0]))
    g = link_graph([a, b, c], JD, (wall,))
    assert set(_pair(g)) == {frozenset(("/A", "/C")), frozenset(("/B", "/C"))}
    assert "occluder /Wall" in g.severed[("/A", "/B")]


def test_a_rover_links_only_to_earth_and_relays_and_nested_nodes_never_link():
    p = Geodetic(MOON_NAIF, -85.0, 0.0, 0.0, (0.0, 0.0, 2.0))
    q = Geodetic(MOON_NAIF, -85.0, 0.0, 0.0, (10.0, 0.0, 2.0))
    rover, base, relay = LinkNode("/R", p, "rover"), LinkNode("/B", q, "base"), LinkNode("/S", q, "relay")
    assert set(_pair(link_graph([rover, base, relay], JD))) == {frozenset(("/R", "/S")), frozenset(("/B", "/S"))}
    assert link_graph([LinkNode("/R", p), LinkNode("/R/Feed", q)], JD).edges == []


def test_the_graph_is_deterministic():
    nodes = [LinkNode(f"/N{i}", Kepler(MOON_NAIF, 3.0e6 + i * 1e5, 0.1, 10.0 * i)) for i in range(4)]
    a, b = link_graph(nodes, JD), link_graph(nodes, JD)
    assert [(e.a, e.b, e.range_m) for e in a.edges] == [(e.a, e.b, e.range_m) for e in b.edges]


# -- the query and the ports on a small scene -----------------------------------------------------

WALL_SCENE = HEAD + """
def Xform "World"
{
    double lunco:anchor:lat = -85.0
    double lunco:anchor:lon = 0.0
    int lunco:anchor:body = 301
    double lunco:time:epochJd = 2461395.5

    def Xform "Rover"
    {
        double3 xformOp:translate = (0, 1, 20)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Xform "Antenna"
        {
            bool lunco:linkNode = true
            string lunco:link:class = "rover"
            double outputs:link_relay_connected
            double outputs:link_relay_range_m
            double3 xformOp:translate = (0, 0.5, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
    def Xform "Mast"
    {
        bool lunco:linkNode = true
        string lunco:link:class = "relay"
        double3 xformOp:translate = (0, 10, -20)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "MastClear"
    {
        bool lunco:linkNode = true
        string lunco:link:class = "relay"
        double3 xformOp:translate = (12, 10, -20)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "Wall"
    {
        double3 xformOp:translate = (0, 6, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "Body"
        {
            double size = 1
            bool lunco:occluder = WALL_ON
            double3 xformOp:scale = (8, 12, 1)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }
    }
    def Scope "Consumer"
    {
        float inputs:up.connect = </World/Rover/Antenna.outputs:link_relay_connected>
        float inputs:range.connect = </World/Rover/Antenna.outputs:link_relay_range_m>
    }
}
"""


@pytest.fixture
def wall_sim(writer, tmp_path):
    opened = []

    def make(wall_on=True):
        path = writer(tmp_path / f"wall_{wall_on}.usda", WALL_SCENE.replace("WALL_ON", "true" if wall_on else "false"))
        sim = open_simulation(path)
        opened.append(sim)
        sim.run(2)
        return sim
    yield make
    for s in opened:
        s.close()


def _edges(sim):
    res = sim.query(Links())
    assert res.ok, res.diagnostics
    return {frozenset((e["a"], e["b"])): e for e in res.value["edges"]}, res.value


def test_the_wall_severs_the_shorter_link_and_the_clear_one_stays_up(wall_sim):
    sim = wall_sim(True)
    edges, g = _edges(sim)
    rover, mast, clear = "/World/Rover/Antenna", "/World/Mast", "/World/MastClear"
    assert frozenset((rover, clear)) in edges and frozenset((rover, mast)) not in edges
    assert any(s["why"].startswith("occluder /World/Wall/Body") for s in g["severed"])
    assert g["groups"] == {"rover": [rover], "relay": [mast, clear]}
    assert g["owners"]["/World/Rover"] == [rover]
    # the consumer wired to the rover's relay ports sees the best relay: the connected one
    assert sim.read("/World/Consumer", "up") == 1.0
    assert sim.read("/World/Consumer", "range") == pytest.approx(math.hypot(12.0, 8.5, 40.0), rel=1e-6)
    # without the occluder flag the wall is just geometry: both links are up
    edges_off, _ = _edges(wall_sim(False))
    assert frozenset((rover, mast)) in edges_off and frozenset((rover, clear)) in edges_off


def test_solar_pose_and_body_position_agree_on_the_site(wall_sim):
    sim = wall_sim(True)
    moon = sim.query(BodyPosition(body=301)).value
    mast = sim.query(SolarPose(entity="/World/Mast")).value
    assert moon["found"] and mast["found"] and moon["radius"] == 1_737_400.0
    assert np.linalg.norm(np.subtract(mast["pos"], moon["pos"])) == pytest.approx(1_737_400.0 + 10.0, abs=0.5)
    assert sim.query(BodyPosition(body=42)).value["found"] is False
    assert not sim.query(SolarPose(entity="/World/Nope")).ok


FALLING = HEAD + """
def Xform "World"
{
    double lunco:anchor:lat = -85.0
    int lunco:anchor:body = 301
    def PhysicsScene "Physics"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }
    def Cube "Lander" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {
        double size = 1
        float physics:mass = 10
        double3 xformOp:translate = (0, 50, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Xform "Antenna"
        {
            bool lunco:linkNode = true
            double3 xformOp:translate = (0, 1, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
    def Xform "Station"
    {
        bool lunco:linkNode = true
        double3 xformOp:translate = (30, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""


def test_a_node_rides_the_simulated_body_carrying_it(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "falling.usda", FALLING))
    try:
        sim.run(1)
        (before,) = _edges(sim)[0].values()
        sim.run(120)
        (after,) = _edges(sim)[0].values()
        body = sim.world_pose("/World/Lander")[0]
        assert body[1] < 48.0  # it fell
        expect = math.dist((body[0], body[1] + 1.0, body[2]), (30.0, 0.0, 0.0))
        assert after["range_m"] == pytest.approx(expect, abs=1e-3)
        assert after["range_m"] < before["range_m"]
    finally:
        sim.close()


WIFI = HEAD + """
def Xform "World"
{
    double lunco:anchor:lat = 26.13
    double lunco:anchor:lon = 3.63
    int lunco:anchor:body = 301
    def Xform "RoverA"
    {
        bool lunco:linkNode = true
        bool lunco:wifiNode = true
        string lunco:link:class = "rover"
        double3 xformOp:translate = (0, 1, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "RoverB"
    {
        bool lunco:linkNode = true
        bool lunco:wifiNode = true
        string lunco:link:class = "rover"
        double3 xformOp:translate = (20, 1, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "FarRover"
    {
        bool lunco:linkNode = true
        bool lunco:wifiNode = true
        double lunco:wifi:maxRangeM = 50
        string lunco:link:class = "rover"
        double3 xformOp:translate = (0, 1, 80)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""


def test_wifi_connects_rovers_the_direct_policy_keeps_apart(writer, tmp_path):
    from luncosim_core.api.commands import WifiLinks

    sim = open_simulation(writer(tmp_path / "wifi.usda", WIFI))
    try:
        sim.run(1)
        edges, _g = _edges(sim)
        assert edges == {}  # rover to rover is policy-down in the direct graph
        wifi = sim.query(WifiLinks()).value
        pairs = {frozenset((e["a"], e["b"])) for e in wifi["edges"]}
        # A-B 20 m inside the default 5 km; FarRover's own 50 m reach keeps it off both (80, 82.5 m)
        assert pairs == {frozenset(("/World/RoverA", "/World/RoverB"))}
        assert {n["path"]: n["max_range_m"] for n in wifi["nodes"]}["/World/FarRover"] == 50.0
    finally:
        sim.close()


def test_a_node_that_cannot_be_placed_is_named_and_the_rest_still_answers(writer, tmp_path):
    text = WIFI.replace('''    def Xform "FarRover"''', '''    def Xform "OnJupiter"
    {
        bool lunco:linkNode = true
        int lunco:orbit:body = 599
        double lunco:orbit:semiMajorAxisM = 1e8
    }
    def Xform "Loose"
    {
        def Xform "Feed" { bool lunco:linkNode = true }
    }
    def Xform "FarRover"''').replace("double lunco:anchor:lat = 26.13", "")
    text = text.replace('def Xform "World"\n{', 'def Xform "World"\n{\n    double lunco:anchor:lat = 26.13', 1)
    sim = open_simulation(writer(tmp_path / "bad.usda", text))
    try:
        sim.run(1)
        _edges_, g = _edges(sim)
        why = {u["path"]: u["why"] for u in g["unplaced"]}
        assert "599" in why["/World/OnJupiter"]
        assert "/World/Loose/Feed" not in why  # placed by the scene's site anchor
        assert {n["path"] for n in g["nodes"]} == {"/World/RoverA", "/World/RoverB", "/World/FarRover",
                                                   "/World/Loose/Feed"}
    finally:
        sim.close()


def test_aos_and_los_reach_scenarios_as_the_sight_line_closes(writer, tmp_path):
    """The lander's antenna falls behind a wall: the link is acquired at the first recompute and
    lost once the sight-line dips under the wall's top, each announced once."""
    wall = '''    def Cube "Wall"
    {
        double size = 1
        bool lunco:occluder = true
        double3 xformOp:translate = (15, 12, 0)
        double3 xformOp:scale = (1, 24, 10)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
    def Scope "Watch" (prepend apiSchemas = ["LunCoProgramAPI"])
    {
        uniform token info:language = "rhai"
        string info:sourceCode = """
fn on_start(me) { this.seen = []; subscribe_prefix("link."); }
fn on_event(me, evt) { this.seen.push([evt.name, evt.value, sim_tick()]); }
"""
    }
}
'''
    text = FALLING[:FALLING.rstrip().rfind("}")] + wall
    sim = open_simulation(writer(tmp_path / "aos.usda", text))
    try:
        sim.run(240)
        from luncosim_core.scripting.scenario import scenarios_of

        (part,) = scenarios_of(sim)
        assert part.fault is None, part.fault
        ids = part.runtime.id_of
        pair = "-".join(str(i) for i in sorted((ids("/World/Lander/Antenna"), ids("/World/Station"))))
        seen = part.this["seen"]
        assert [(name, value) for name, value, _tick in seen] == [("link.aos", pair), ("link.los", pair)]
        assert seen[0][2] <= 2 and 60 < seen[1][2] < 120  # the sight-line grazes the top near 1.5 s
    finally:
        sim.close()
