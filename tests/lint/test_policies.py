"""USD lint as Rhai policy: each shipped rule fires on its defect and stays quiet on healthy
authoring; rules are added by writing Rhai; broken policies are positioned diagnostics."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from pxr import Usd

from luncosim_core.lint import extract_facts, lint_report, policy_dir, run_lint

HEADER = '#usda 1.0\n(\n    defaultPrim = "W"\n    metersPerUnit = 1\n    upAxis = "Y"\n)\n'

DEFECTS = HEADER + """
def Xform "W"
{
    def PhysicsScene "SceneA" {}
    def PhysicsScene "SceneB" {}
    def Xform "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        def Cube "Chassis" (prepend apiSchemas = ["PhysicsCollisionAPI"]) { double size = 1 }
        def Cube "Loose" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]) { double size = 0.2 }
        def Cube "Wheel" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]) { double size = 0.3 }
        def Xform "Mount" {}
        def Cube "Bumper" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsFilteredPairsAPI"])
        {
            rel physics:filteredPairs = [</W/Nowhere>, </W/Rover/Chassis>]
        }
    }
    def PhysicsRevoluteJoint "WheelJoint"
    {
        rel physics:body0 = </W/Rover/Mount>
        rel physics:body1 = </W/Rover/Wheel>
    }
    def PhysicsFixedJoint "BadJoint"
    {
        rel physics:body0 = </W/Decor>
        rel physics:body1 = </W/Rover>
    }
    def Xform "Decor" (prepend apiSchemas = ["PhysicsMassAPI"])
    {
        bool physics:collisionEnabled = true
    }
    def Cube "Ghost" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        double3 xformOp:scale = (1, 2, 1)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }
    def PhysicsCollisionGroup "Group"
    {
        rel collection:colliders:includes = [</W/Vanished>]
        rel physics:filteredGroups = </W/Rover>
    }
    def PhysicsCollisionGroup "EmptyGroup" {}
    def Xform "Battery"
    {
        double connectors:p
    }
    def Xform "Load"
    {
        double inputs:demand.connect = </W/NoSource.outputs:current>
    }
}
"""

CLEAN = HEADER + """
def Xform "W"
{
    def PhysicsScene "Physics" {}
    def Xform "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 10
        def Cube "Chassis" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMassAPI"]) { double size = 1 }
        def Cube "Wheel" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]) { double size = 0.3 }
    }
    def PhysicsRevoluteJoint "WheelJoint"
    {
        rel physics:body0 = </W/Rover>
        rel physics:body1 = </W/Rover/Wheel>
    }
    def Cube "Visual" { bool physics:collisionEnabled = false }
    def Xform "Cart" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        def Cube "Body" (prepend apiSchemas = ["PhysicsCollisionAPI"]) { double size = 1 }
        def Cylinder "RaycastWheel" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) { float physxVehicleWheel:radius = 0.3 }
    }
    def Xform "Sensor" { double outputs:reading = 1 }
    def Xform "Display" { double inputs:value.connect = </W/Sensor.outputs:reading> }
    def Xform "A" { double connectors:p.connect = </W/B.connectors:n> }
    def Xform "B" { double connectors:n }
}
"""


def _stage(tmp_path: Path, text: str, name: str = "s.usda") -> Usd.Stage:
    p = tmp_path / name
    # the text format wants a prim body's statements on their own lines
    p.write_text(re.sub(r"\{ ([^{}\n]+) \}", "{\n\\1\n}", text))
    return Usd.Stage.Open(str(p))


def _by_rule(diags):
    out: dict[str, list[str]] = {}
    for d in diags:
        out.setdefault(d.code, []).append(d.path)
    return out


def test_every_shipped_rule_fires_on_its_defect(tmp_path):
    diags = run_lint(_stage(tmp_path, DEFECTS))
    rules = _by_rule(diags)
    assert rules["nested-body-no-joint"] == ["/W/Rover/Loose"]
    assert rules["multiple-physics-scenes"] == ["/W/SceneA", "/W/SceneB"]
    assert rules["collision-enabled-without-api"] == ["/W/Decor"]
    assert rules["joint-target-not-a-body"] == ["/W/BadJoint"]  # not WheelJoint: Mount is inside a body
    assert rules["dynamic-body-no-collider"] == ["/W/Ghost"]
    assert rules["mass-outside-any-body"] == ["/W/Decor"]
    assert rules["body-is-its-own-scaled-mesh"] == ["/W/Ghost"]
    assert rules["filtered-pair-target-missing"] == ["/W/Rover/Bumper"]
    assert rules["filtered-pair-same-body"] == ["/W/Rover/Bumper"]
    assert rules["collision-group-include-missing"] == ["/W/Group"]
    assert rules["collision-group-filter-not-a-group"] == ["/W/Group"]
    assert rules["collision-group-empty"] == ["/W/EmptyGroup"]
    assert rules["orphan-connector"] == ["/W/Battery.connectors:p"]
    assert rules["broken-wire"] == ["/W/Load"]
    sev = {d.code: d.severity for d in diags}
    assert sev["nested-body-no-joint"] == "error" and sev["dynamic-body-no-collider"] == "warning"
    assert all(d.source == "lint" and d.message for d in diags)
    broken = next(d for d in diags if d.code == "broken-wire")
    assert "/W/NoSource" in broken.message


def test_healthy_authoring_is_quiet(tmp_path):
    assert run_lint(_stage(tmp_path, CLEAN)) == []


def test_missing_stage_metadata(tmp_path):
    diags = run_lint(_stage(tmp_path, '#usda 1.0\ndef Xform "W" {}\n'))
    assert [(d.code, d.severity) for d in diags] == [
        ("missing-stage-metadata", "warning"), ("missing-stage-metadata", "warning"),
        ("missing-stage-metadata", "info")]
    assert "metersPerUnit" in diags[0].message and "upAxis" in diags[1].message


def test_report_shape(tmp_path):
    report = lint_report(run_lint(_stage(tmp_path, DEFECTS)))
    assert set(report) == {"findings", "errors", "warnings", "infos"}
    assert report["errors"] == sum(f["severity"] == "error" for f in report["findings"])
    f = report["findings"][0]
    assert set(f) == {"rule", "severity", "subject", "message"} and f["severity"] in ("error", "warn", "info")


def test_a_rule_is_added_by_writing_rhai(tmp_path):
    folder = tmp_path / "policy"
    folder.mkdir()
    for f in policy_dir().glob("_*.rhai"):
        (folder / f.name).write_text(f.read_text())
    (folder / "team.rhai").write_text(textwrap.dedent("""
        // every body must carry a mass
        fn rule_body_without_mass(facts) {
            let out = [];
            for b in facts.bodies {
                if !schemas_at(facts, b.path).contains("PhysicsMassAPI") {
                    out.push(finding("body-without-mass", "info", b.path, "has no PhysicsMassAPI"));
                }
            }
            out
        }
        fn helper_not_a_rule(facts) { [finding("never", "error", "/", "x")] }
    """))
    diags = run_lint(_stage(tmp_path, CLEAN), policies=folder)
    assert [(d.code, d.severity, d.path) for d in diags] == [
        ("body-without-mass", "info", p) for p in ("/W/Rover/Wheel", "/W/Cart", "/W/Cart/RaycastWheel")]


def test_broken_policies_are_positioned_diagnostics(tmp_path):
    folder = tmp_path / "policy"
    folder.mkdir()
    (folder / "a_crash.rhai").write_text("fn rule_crash(facts) {\n    facts.nope.len()\n}\n")
    (folder / "b_syntax.rhai").write_text("fn rule_x(facts) { [ }\n")
    (folder / "c_shape.rhai").write_text('fn rule_shape(facts) { [#{ rule: "r" }] }\nfn rule_ok(facts) { [] }\n')
    diags = run_lint(_stage(tmp_path, CLEAN), policies=folder)
    codes = [(d.code, Path(d.layer).name, d.line) for d in diags]
    assert codes[0][:2] == ("lint-policy-error", "a_crash.rhai") and codes[0][2] == 2
    assert codes[1][:2] == ("lint-policy-error", "b_syntax.rhai") and codes[1][2] == 1
    assert codes[2][:2] == ("lint-policy-invalid", "c_shape.rhai")
    assert len(diags) == 3


def test_facts_are_plain_and_deterministic(tmp_path):
    stage = _stage(tmp_path, DEFECTS)
    a, b = extract_facts(stage), extract_facts(stage)
    assert a == b
    loose = next(x for x in a["bodies"] if x["path"] == "/W/Rover/Loose")
    assert loose["host_body"] == "/W/Rover" and loose["jointed"] is False and loose["collider"] is True
    wheel_joint = next(j for j in a["joints"] if j["path"] == "/W/WheelJoint")
    assert wheel_joint["bodies"] == ["/W/Rover", "/W/Rover/Wheel"] and wheel_joint["missing"] == []


def test_the_shipped_demo_twin_is_lint_clean():
    from luncosim_core.sim.simulation import open_simulation
    from luncosim_core.twin.roots import repository_root

    sim = open_simulation(repository_root() / "assets" / "twins" / "practice_yard")
    try:
        diags = run_lint(sim.stage, roots=sim.roots, host=sim.host)
    finally:
        sim.close()
    assert [d for d in diags if d.severity != "info"] == []
