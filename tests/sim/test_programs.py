"""Modelica programs inside scenes: compile off-thread, admission, wiring to physics, fencing."""

import time

import pytest

from luncosim_core.api import SetPorts
from luncosim_core.sim.simulation import SimulationConfig, open_simulation

HINGE = """#usda 1.0
(
    defaultPrim = "W"
    upAxis = "Y"
    metersPerUnit = 1
)
def Xform "W"
{
    def PhysicsScene "Scene"
    {
        vector3f physics:gravityDirection = (0, -1, 0)
        float physics:gravityMagnitude = 1.62
    }
    def Cube "Anchor" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
    )
    {
        double size = 0.5
        bool physics:kinematicEnabled = true
        float physics:mass = 1
        double3 xformOp:translate = (0, 2, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "Arm" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
    )
    {
        float physics:mass = 1
        double3 xformOp:translate = (1, 2, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "Shape" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {
            double size = 1
            double3 xformOp:scale = (1.6, 0.2, 0.2)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }
    }
    def PhysicsRevoluteJoint "Hinge"
    {
        rel physics:body0 = </W/Anchor>
        rel physics:body1 = </W/Arm>
        uniform token physics:axis = "Y"
        point3f physics:localPos0 = (0, 0, 0)
        point3f physics:localPos1 = (-1, 0, 0)
        float inputs:angle.connect = </W/Setpoint.outputs:y>
    }
    def Scope "Setpoint" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @lunco://models/Workbench/Control/FirstOrder.mo@
        float inputs:u = 1.2
        float inputs:T = 0.3
        float outputs:y
    }
}
"""


def test_model_output_drives_a_joint_target(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "hinge.usda", HINGE))
    assert sim.wait_reason().endswith("compiling FirstOrder.mo") or sim.wait_reason() == ""
    assert sim.wait_until_ready(120) == ""
    assert not [d for d in sim.diagnostics if d.is_error], sim.diagnostics
    info = sim.registry.info("/W/Setpoint.y")
    assert info.source == "modelica" and not info.writable
    sim.run(60)
    y1 = sim.read("/W/Setpoint", "y")
    assert y1 == pytest.approx(1.2 * (1 - 2.718281828 ** (-1 / 0.3)), rel=0.02)
    sim.run(180)
    assert sim.read("/W/Hinge", "angle") == pytest.approx(1.2, rel=0.1)
    # a parameter port applies at the next communication point
    sim.submit(SetPorts(target="/W/Setpoint", writes={"u": -0.5}))
    sim.run(240)
    assert sim.read("/W/Hinge", "angle") == pytest.approx(-0.5, abs=0.06)


def test_compile_holds_admission_and_is_deterministic(writer, tmp_path):
    scene = writer(tmp_path / "hinge.usda", HINGE)

    def run():
        sim = open_simulation(scene)
        while not sim.tick():  # held while compiling: the clock does not move
            assert sim.tick_count == 0 and sim.status_reason.startswith("/W/Setpoint: compiling")
            time.sleep(0.01)
        sim.run(119)
        return sim.tick_count, sim.state_hash()

    a, b = run(), run()
    assert a == b and a[0] == 120


def test_a_paused_simulation_says_what_its_next_tick_waits_on(writer, tmp_path):
    sim = open_simulation(writer(tmp_path / "hinge.usda", HINGE))
    (part,) = [p for p in sim.participants if p.prim_path == "/W/Setpoint"]
    seen = []
    while part.future is not None and not part.future.done():
        status = sim.status(running=False)
        if not part.future.done():  # still compiling after the status was taken
            assert status == ("waiting", "/W/Setpoint: compiling FirstOrder.mo")
            seen.append(status)
    assert sim.wait_until_ready(120) == ""
    assert sim.status(running=False) == ("paused", "")
    assert sim.snapshot(running=False).status == "paused"


def test_interface_mismatch_is_a_build_error_naming_both_sides(writer, tmp_path):
    bad = HINGE.replace("float outputs:y\n", "float outputs:y\n        float outputs:secret\n")
    sim = open_simulation(writer(tmp_path / "bad.usda", bad))
    sim.wait_until_ready(120)
    errs = [d for d in sim.diagnostics if d.is_error]
    assert errs and errs[0].path == "/W/Setpoint.outputs:secret" and "secret" in errs[0].message
    sim.run(30)
    assert sim.read("/W/Setpoint", "y") is None  # the participant does not run on a broken contract


def test_compile_error_reports_file_line(writer, tmp_path):
    model = writer(tmp_path / "models" / "Broken.mo", "model Broken\n  Real x(start = 1);\nequation\n  der(x) = -x +;\nend Broken;\n")
    scene = HINGE.replace("@lunco://models/Workbench/Control/FirstOrder.mo@", "@twin://models/Broken.mo@")
    sim = open_simulation(writer(tmp_path / "s.usda", scene))
    sim.wait_until_ready(120)
    errs = [d for d in sim.diagnostics if d.is_error and d.source == "modelica"]
    assert errs and errs[0].line == 4 and errs[0].layer.endswith("Broken.mo")
    assert model.exists()


def test_inline_source_and_pending_input_does_not_step(writer, tmp_path):
    scene = HINGE.replace(
        'uniform asset info:sourceAsset = @lunco://models/Workbench/Control/FirstOrder.mo@',
        'uniform string info:sourceCode = "model Lag\\n  input Real u;\\n  output Real y(start = 0, fixed = true);\\nequation\\n  der(y) = u - y;\\nend Lag;\\n"',
    ).replace("float inputs:u = 1.2", "float inputs:u").replace("float inputs:T = 0.3\n", "")
    sim = open_simulation(writer(tmp_path / "inline.usda", scene))
    assert sim.wait_until_ready(120) == ""
    sim.run(10)
    assert sim.read("/W/Setpoint", "y") is None  # u has no sample: the model waits
    assert "waiting for input u" in sim.snapshot().extra["waits"]["/W/Setpoint"]
    sim.submit(SetPorts(target="/W/Setpoint", writes={"u": 1.0}))
    sim.run(60)
    assert sim.read("/W/Setpoint", "y") == pytest.approx(1 - 2.718281828 ** -1, rel=0.02)


def test_stale_compile_result_is_discarded(writer, tmp_path):
    from luncosim_core.modelica import compile_model

    sim = open_simulation(writer(tmp_path / "hinge.usda", HINGE))
    sim.wait_until_ready(120)
    prog = next(p for p in sim.participants if p.prim_path == "/W/Setpoint")
    old = compile_model(source_text="model Old\n  output Real y = 1;\nend Old;\n")
    prog._commit(old)  # a result whose revision is not the current source's
    notes = [d.code for d in prog.take_diagnostics()]
    assert "modelica.stale-compile" in notes
    assert prog.participant.compiled.model_name.endswith("FirstOrder")


def test_communication_period_steps_every_k_ticks(writer, tmp_path):
    scene = HINGE.replace("float outputs:y\n", "float outputs:y\n        double lunco:program:communicationPeriod = 0.05\n")
    sim = open_simulation(writer(tmp_path / "p.usda", scene), config=SimulationConfig(tick_hz=60))
    sim.wait_until_ready(120)
    assert next(p for p in sim.participants if p.prim_path == "/W/Setpoint").every == 3
    seen = []
    for _ in range(9):
        sim.tick()
        seen.append(sim.read("/W/Setpoint", "y"))
    changes = sum(1 for a, b in zip(seen, seen[1:], strict=False) if a != b)
    assert changes == 2  # stepped at ticks 3, 6, 9 only


def test_hot_reload_recompiles_keeps_running_and_survives_a_broken_edit(writer, tmp_path):
    model = writer(tmp_path / "models" / "Lag.mo", "model Lag\n  input Real u;\n  output Real y(start = 0, fixed = true);\nequation\n  der(y) = u - y;\nend Lag;\n")
    scene = HINGE.replace("@lunco://models/Workbench/Control/FirstOrder.mo@", "@twin://models/Lag.mo@").replace("float inputs:T = 0.3\n", "")
    sim = open_simulation(writer(tmp_path / "s.usda", scene))
    sim.wait_until_ready(120)
    sim.run(30)
    # a broken edit: the running version continues, the error is reported
    model.write_text("model Lag\n  input Real u;\n  output Real y;\nequation\n  der(y) = u - ;\nend Lag;\n")
    assert sim.poll_sources() == ["/W/Setpoint"]
    prog = next(p for p in sim.participants if p.prim_path == "/W/Setpoint")
    prog._reload.result(120)
    sim.run(1)
    kept = [d for d in sim.snapshot().diagnostics if d.code == "modelica.reload-kept"]
    y = sim.read("/W/Setpoint", "y")
    sim.run(1)
    assert sim.read("/W/Setpoint", "y") != y  # still stepping
    assert kept or any(d.code == "modelica.reload-kept" for d in prog.take_diagnostics())
    # a good edit: gain 2 -> y heads for 2 * u
    model.write_text("model Lag\n  input Real u;\n  output Real y(start = 0, fixed = true);\nequation\n  der(y) = 2 * u - y;\nend Lag;\n")
    assert sim.poll_sources() == ["/W/Setpoint"]
    prog._reload.result(120)
    sim.run(600)
    assert sim.read("/W/Setpoint", "y") == pytest.approx(2.4, rel=0.01)
