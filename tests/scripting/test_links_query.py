"""``query("Links")`` from a scenario: the graph speaks the entity ids ``find()`` returns, and
``SolarPose`` / ``BodyPosition`` measure a node against its body."""

from __future__ import annotations

import pytest
from scene_helpers import scenario_prim

from luncosim_core.scripting.scenario import scenarios_of

NODES = """
    double lunco:anchor:lat = -85.0
    double lunco:anchor:lon = 0.0
    int lunco:anchor:body = 301
    double lunco:time:epochJd = 2461395.5
    def Xform "Rover"
    {
        def Xform "Antenna"
        {
            bool lunco:linkNode = true
            string lunco:link:class = "rover"
            double3 xformOp:translate = (0, 2, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
    def Xform "Relay"
    {
        bool lunco:linkNode = true
        string lunco:link:class = "relay"
        double3 xformOp:translate = (30, 5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "Base"
    {
        bool lunco:linkNode = true
        string lunco:link:class = "base"
        double3 xformOp:translate = (-30, 5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
"""

CODE = """
fn on_tick(me) {
    let g = query("Links", #{});
    this.n = g.nodes.len();
    this.rover = find("/World/Rover/Antenna");
    this.relay = find("/World/Relay");
    this.owner = find("/World/Rover");
    this.adj = g.adj["" + this.rover];
    this.owned = g.owners["" + this.owner];
    this.relays = g.groups["relay"];
    this.edge_ids = g.edges.map(|e| [e.a, e.b]);
    let moon = query("BodyPosition", #{ body: 301 });
    let p = query("SolarPose", #{ entity: this.relay });
    let dx = p.pos[0] - moon.pos[0];
    let dy = p.pos[1] - moon.pos[1];
    let dz = p.pos[2] - moon.pos[2];
    this.r = (dx * dx + dy * dy + dz * dz).sqrt();
}
"""


def test_links_speaks_entity_ids(make_scene, sims):
    sim = sims(make_scene(NODES + scenario_prim("S", code=CODE)))
    sim.run(1)
    (part,) = scenarios_of(sim)
    assert part.fault is None, part.fault
    t = part.this
    ids = part.runtime.id_of
    assert t["n"] == 3
    assert t["rover"] == ids("/World/Rover/Antenna") > 0
    # the rover's policy admits the relay only; the base and the relay talk to each other
    assert t["adj"] == [t["relay"]]
    assert t["owned"] == [t["rover"]]
    assert t["relays"] == [t["relay"]]
    assert sorted(map(sorted, t["edge_ids"])) == sorted([sorted([t["rover"], t["relay"]]),
                                                          sorted([ids("/World/Relay"), ids("/World/Base")])])
    assert t["r"] == pytest.approx(1_737_405.0, abs=0.5)
