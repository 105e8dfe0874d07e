"""The host API against a real scene: ids, ports, poses, commands, queries, vector helpers."""

from __future__ import annotations

import math

from scene_helpers import GROUND_AND_BOX, scenario_prim

from luncosim_core.scripting.rhai import Unit
from luncosim_core.scripting.scenario import scenarios_of

HINGE = """
    def Cube "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        double size = 0.5
        bool physics:kinematicEnabled = true
        double3 xformOp:translate = (0, 2, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Cube "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {
        double size = 0.5
        float physics:mass = 1
        double3 xformOp:translate = (1, 2, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def PhysicsRevoluteJoint "Hinge"
    {
        rel physics:body0 = </World/Base>
        rel physics:body1 = </World/Arm>
        uniform token physics:axis = "Y"
        point3f physics:localPos0 = (0.5, 0, 0)
        point3f physics:localPos1 = (-0.5, 0, 0)
    }
"""


def _run_code(make_scene, sims, code, ticks=1, extra=GROUND_AND_BOX):
    sim = sims(make_scene(extra + scenario_prim("S", code=code)))
    sim.run(ticks)
    (part,) = scenarios_of(sim)
    assert part.fault is None, part.fault
    return sim, part


def test_entities(make_scene, sims):
    code = """
    fn on_tick(me) {
        this.box = find("/World/Box");
        this.by_name = find("Box");
        this.none = find("/World/Nope");
        this.name = name(this.box);
        this.parent = name(parent(this.box));
        this.kids = children(find("/World")).map(|c| name(c));
        this.bad_name = name(99999);
        this.unattended = is_unattended();
    }
    """
    sim, part = _run_code(make_scene, sims, code)
    t = part.this
    assert t["box"] == t["by_name"] == part.runtime.id_of("/World/Box") > 0
    assert t["none"] == -1
    assert t["name"] == "Box" and t["parent"] == "World"
    assert t["kids"] == ["Physics", "Ground", "Box", "S"]
    assert t["bad_name"] is Unit
    assert t["unattended"] is False  # an interactive simulation has someone at the controls


def test_ports_and_poses(make_scene, sims):
    code = """
    fn on_tick(me) {
        let b = find("/World/Box");
        this.mass = get(b, "mass");
        this.vy = get(b, "velocity_y");
        this.missing = get(b, "no_such_port");
        this.pos = world_pos(b);
        this.rot = world_rotation(b);
        this.fwd = world_forward(b);
        this.dt = dt();
        this.t = elapsed_seconds();
    }
    """
    sim, part = _run_code(make_scene, sims, code, ticks=30)
    t = part.this
    assert t["mass"] == 2.0
    assert t["vy"] < 0  # falling
    assert t["missing"] is Unit
    assert len(t["pos"]) == 3 and t["pos"][1] < 3.0
    assert t["rot"] == [0.0, 0.0, 0.0, 1.0]  # x, y, z, w
    assert t["fwd"] == [0.0, 0.0, -1.0]
    assert t["dt"] == 1 / 60 and math.isclose(t["t"], 29 / 60)
    diags = sim.snapshot().diagnostics
    assert any(d.code == "scenario-port-unknown" and "no_such_port" in d.message for d in diags)


def test_set_drives_a_joint_through_its_port(make_scene, sims):
    code = """
    fn on_start(me) { this.ok = set(find("/World/Hinge"), "angle", 0.8); this.bad = set(find("/World/Hinge"), "nope", 1.0); }
    fn on_tick(me) { this.angle = get(find("/World/Hinge"), "angle"); }
    """
    sim, part = _run_code(make_scene, sims, code, ticks=180, extra=GROUND_AND_BOX + HINGE)
    assert part.this["ok"] is True and part.this["bad"] is False
    assert abs(part.this["angle"] - 0.8) < 0.05
    # the write is traceable to the scenario
    trace = sim.query(__import__("luncosim_core.api", fromlist=["CausalTrace"]).CausalTrace(target="/World/Hinge"))
    assert trace.ok and "scenario:/World/S" in str(trace.value)


def test_cmd_and_query_over_the_typed_api(make_scene, sims):
    code = """
    fn on_tick(me) {
        let b = find("/World/Box");
        this.set = cmd("SetPorts", #{ target: b, force_x: 1.0 });
        this.read = query("ReadPorts", #{ target: b, names: ["mass"] });
        this.list = query("ListPorts", #{ target: "/World/Box" }).len();
        this.prim = query("QueryUsdPrim", #{ path: "/World/Box" });
        this.unknown = cmd("Teleport", #{});
        this.unknown_q = query("Nope");
        this.broken = query("GetBrokenConnections");
    }
    """
    sim, part = _run_code(make_scene, sims, code)
    t = part.this
    assert t["set"]["ok"] is True and t["set"]["data"] == {"force_x": 1.0}
    assert t["read"]["mass"]["value"] == 2.0
    assert t["list"] > 10
    assert t["prim"]["type"] == "Cube" and "PhysicsRigidBodyAPI" in t["prim"]["schemas"]
    assert t["unknown"]["ok"] is False and "unknown command 'Teleport'" in t["unknown"]["error"]
    assert t["unknown_q"] is Unit
    assert t["broken"] == []


def test_param_reads_authored_parameters(make_scene, sims):
    code = 'fn on_tick(me) { this.a = param(me, "gain", 0.0); this.b = param(me, "absent", 7.0); this.c = param(me, "absent"); }'
    sim = sims(make_scene(scenario_prim("S", code=code, params={"gain": 1.5})))
    sim.run(1)
    t = scenarios_of(sim)[0].this
    assert t["a"] == 1.5 and t["b"] == 7.0 and t["c"] is Unit


def test_vector_helpers(make_scene, sims):
    code = """
    fn on_tick(me) {
        this.r = [
            vadd([1.0, 2.0, 3.0], [1, 1, 1]), vsub([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]),
            vdot([1.0, 0.0, 0.0], [0.5, 1.0, 0.0]), vcross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
            vlen([3.0, 4.0, 0.0]), vnorm([0.0, 0.0, 2.0]), vscale([1.0, 2.0, 3.0], 2.0),
            r4(qrot([0.0, 0.7071067811865476, 0.0, 0.7071067811865476], [1.0, 0.0, 0.0])[2]),
            clamp(5.0, 0.0, 1.0), angle_deg([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            yaw_delta_deg([0.0, 0.0, -1.0], [1.0, 0.0, 0.0]), vlen("not a vector"),
        ];
    }
    """
    _, part = _run_code(make_scene, sims, code, extra="")
    assert part.this["r"] == [
        [2.0, 3.0, 4.0], [0.0, 1.0, 2.0], 0.5, [0.0, 0.0, 1.0], 5.0, [0.0, 0.0, 1.0],
        [2.0, 4.0, 6.0], -1.0, 1.0, 90.0, 90.0, Unit,
    ]


LOOSE_PART = """
    def Xform "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        def Cube "Hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double size = 1
        }
        def Cube "Loose" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
        {
            double size = 0.2
        }
    }
"""


def test_scenario_runs_lint_and_reads_the_report(make_scene, sims):
    code = """
    fn on_tick(me) {
        this.run = cmd("RunLint", #{});
        let r = query("LintReport");
        this.errors = r.errors;
        this.rules = r.findings.map(|f| f.rule + " " + f.subject);
        print("lint done");
    }
    """
    sim, part = _run_code(make_scene, sims, code, extra=GROUND_AND_BOX + LOOSE_PART)
    assert part.this["run"]["ok"] is True and part.this["run"]["data"]["errors"] == 1
    assert part.this["errors"] == 1
    assert part.this["rules"] == ["nested-body-no-joint /World/Rover/Loose"]
    # without a test runner attached, prints reach the simulation's event stream with their origin
    from luncosim_core.api import ConsoleLine

    printed = [(e.tick, e.source, e.text) for e in sim.snapshot().events if isinstance(e, ConsoleLine)]
    assert printed == [(0, "/World/S", "lint done")]


def test_a_prim_inside_a_body_rides_on_it(make_scene, sims):
    body = GROUND_AND_BOX.replace('''        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
''', '''        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Xform "Mast"
        {
            double3 xformOp:translate = (0, 0, 0.25)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
''', 1)
    code = """
    fn on_tick(me) {
        this.box = world_pos(find("/World/Box"));
        this.mast = world_pos(find("/World/Box/Mast"));
        this.rot = world_rotation(find("/World/Box/Mast"));
        this.box_rot = world_rotation(find("/World/Box"));
    }
    """
    sim, part = _run_code(make_scene, sims, code, ticks=40, extra=body)
    box, mast = part.this["box"], part.this["mast"]
    assert box[1] < 2.5  # the box fell ...
    assert [round(m - b, 9) for m, b in zip(mast, box, strict=True)] == [0.0, 0.0, 0.25]  # ... and the mast with it
    assert [round(a - b, 12) for a, b in zip(part.this["rot"], part.this["box_rot"], strict=True)] == [0.0] * 4
