"""Joints: fixed, hinge motor, linear drive, raked-leg frame check, world joints, generic joints."""

from __future__ import annotations

import math

import pytest
from physics_scenes import GROUND, LUNAR_SCENE, codes, run

FIXED_PAIR = LUNAR_SCENE + GROUND + """
def Cube "CubeA" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 1.0
    double3 xformOp:translate = (-2.0, 5.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 1.0
    bool physics:kinematicEnabled = true
}
def Cube "CubeB" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 1.0
    double3 xformOp:translate = (2.0, 5.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 1.0
}
def Cube "FreeCube" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
{
    double size = 1.0
    double3 xformOp:translate = (6.0, 5.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 1.0
}
def PhysicsFixedJoint "Weld"
{
    rel physics:body0 = </CubeA>
    rel physics:body1 = </CubeB>
    point3f physics:localPos0 = (2.0, 0, 0)
    point3f physics:localPos1 = (-2.0, 0, 0)
}
"""


def test_fixed_joint_holds_while_unjointed_cube_falls(make_world):
    w = make_world(FIXED_PAIR)
    assert "joint-starts-violated" not in codes(w)
    run(w, 240)
    pos = dict(zip(w.body_paths, w.positions(), strict=True))
    assert pos["/CubeB"] == pytest.approx([2.0, 5.0, 0.0], abs=1e-3)
    assert pos["/CubeA"] == pytest.approx([-2.0, 5.0, 0.0], abs=1e-9)
    assert pos["/FreeCube"][1] == pytest.approx(0.5, abs=0.02)  # the witness landed


def test_fixed_joint_between_two_dynamic_bodies_moves_them_rigidly(make_world):
    scene = FIXED_PAIR.replace("bool physics:kinematicEnabled = true", "")
    w = make_world(scene)
    run(w, 60)
    pos = dict(zip(w.body_paths, w.positions(), strict=True))
    assert pos["/CubeA"][1] < 4.5  # both fall
    assert pos["/CubeB"] - pos["/CubeA"] == pytest.approx([4.0, 0.0, 0.0], abs=1e-3)


HINGE = LUNAR_SCENE + """
def Cube "Anchor" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.6
    double3 xformOp:translate = (0.0, 5.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Xform "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double3 xformOp:translate = (2.0, 5.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 1.0
    def Cube "Shape" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 0.5
        double3 xformOp:scale = (4.0, 0.4, 0.4)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }
}
def PhysicsRevoluteJoint "Hinge"
{
    rel physics:body0 = </Anchor>
    rel physics:body1 = </Arm>
    uniform token physics:axis = "Y"
    point3f physics:localPos0 = (0.0, 0, 0)
    point3f physics:localPos1 = (-2.0, 0, 0)
}
"""


def test_vertical_hinge_rests_then_obeys_its_angle_port(make_world):
    w = make_world(HINGE)
    run(w, 120)
    assert abs(w.read_port("/Hinge", "angle")) < 1e-6
    assert w.positions()[w.body_paths.index("/Arm")] == pytest.approx([2.0, 5.0, 0.0], abs=1e-4)
    w.write_port("/Hinge", "angle", 1.2)
    run(w, 480)
    a = w.read_port("/Hinge", "angle")
    assert a == pytest.approx(1.2, rel=0.10)
    # the arm really turned about +Y: its centre is on a 2 m circle at that angle
    arm = w.positions()[w.body_paths.index("/Arm")]
    assert arm == pytest.approx([2 * math.cos(a), 5.0, -2 * math.sin(a)], abs=1e-3)
    assert abs(w.read_port("/Hinge", "velocity")) < 1e-3


def test_hinge_to_world_when_body0_unset(make_world):
    scene = HINGE.replace("rel physics:body0 = </Anchor>", "").replace(
        "point3f physics:localPos0 = (0.0, 0, 0)", "point3f physics:localPos0 = (0.0, 5.0, 0)")
    scene = scene.replace('uniform token physics:axis = "Y"', 'uniform token physics:axis = "Z"')
    w = make_world(scene)
    lowest = 5.0
    for _ in range(240):  # the arm swings down about world Z, pinned at (0, 5, 0)
        w.step()
        arm = w.positions()[w.body_paths.index("/Arm")]
        assert math.dist(arm, (0.0, 5.0, 0.0)) == pytest.approx(2.0, abs=1e-3)
        assert abs(arm[2]) < 1e-6
        lowest = min(lowest, arm[1])
    assert lowest == pytest.approx(3.0, abs=0.01)


PRISMATIC = LUNAR_SCENE + """
def Cube "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.6
    double3 xformOp:translate = (0.0, 6.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Xform "Platform" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double3 xformOp:translate = (0.0, 4.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 50.0
    def Cube "Shape" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 0.5
        double3 xformOp:scale = (1.6, 0.3, 1.6)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }
}
def PhysicsPrismaticJoint "Lift" (prepend apiSchemas = ["PhysicsDriveAPI:linear"])
{
    rel physics:body0 = </Base>
    rel physics:body1 = </Platform>
    uniform token physics:axis = "Y"
    point3f physics:localPos0 = (0.0, 0.0, 0.0)
    point3f physics:localPos1 = (0.0, 2.0, 0.0)
    float physics:lowerLimit = -3.0
    float physics:upperLimit = 0.5
    float drive:linear:physics:targetPosition = -1.5
    float drive:linear:physics:maxForce = 5000.0
}
"""


def test_linear_drive_holds_its_target_then_moves_to_a_new_one(make_world):
    w = make_world(PRISMATIC)
    run(w, 300)
    assert w.read_port("/Lift", "displacement") == pytest.approx(-1.5, rel=0.02)
    plat = w.positions()[w.body_paths.index("/Platform")]
    assert plat == pytest.approx([0.0, 2.5, 0.0], abs=0.03)
    w.write_port("/Lift", "displacement", -0.5)
    run(w, 300)
    assert w.read_port("/Lift", "displacement") == pytest.approx(-0.5, rel=0.02)
    assert w.read_port("/Lift", "force") == pytest.approx(50.0 * 1.62, rel=0.05)  # holds the weight


def test_without_a_drive_the_slider_falls_to_its_limit(make_world):
    scene = PRISMATIC.replace('prepend apiSchemas = ["PhysicsDriveAPI:linear"]', "").replace(
        "float drive:linear:physics:targetPosition = -1.5", "").replace(
        "float drive:linear:physics:maxForce = 5000.0", "")
    w = make_world(scene)
    run(w, 240)
    assert w.read_port("/Lift", "displacement") == pytest.approx(-3.0, abs=0.02)


def test_spring_drive_settles_where_stiffness_balances_weight(make_world):
    scene = PRISMATIC.replace("float drive:linear:physics:targetPosition = -1.5", """
    float drive:linear:physics:targetPosition = 0
    float drive:linear:physics:stiffness = 810
    float drive:linear:physics:damping = 300
    uniform token drive:linear:physics:type = "force"
""")
    w = make_world(scene)
    run(w, 600)
    # k x = m g  ->  x = 50 * 1.62 / 810 = 0.1 m below the rest pose
    assert w.read_port("/Lift", "displacement") == pytest.approx(-0.1, rel=0.02)


def _leg(rot0: str, rot1: str | None, leg_rot: str = "(0, 0, 0)", kind: str = "PhysicsPrismaticJoint") -> str:
    rot1_line = f"quatf physics:localRot1 = {rot1}" if rot1 else ""
    return f"""
def Xform "Lander" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 100
    bool physics:kinematicEnabled = true
    double3 xformOp:translate = (0, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Xform "Leg" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {{
        float physics:mass = 5
        double3 xformOp:translate = (2, 0, 0)
        double3 xformOp:rotateXYZ = {leg_rot}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
        def Cylinder "Strut" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {{
            uniform token axis = "Y"
            double radius = 0.05
            double height = 2
            double3 xformOp:translate = (0, -1, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }}
    }}
}}
def {kind} "LegSpring"
{{
    rel physics:body0 = </Lander>
    rel physics:body1 = </Lander/Leg>
    uniform token physics:axis = "Y"
    point3f physics:localPos0 = (2, 0, 0)
    point3f physics:localPos1 = (0, 0, 0)
    quatf physics:localRot0 = {rot0}
    {rot1_line}
}}
"""


RZ25 = f"({math.cos(math.radians(12.5)):.6f}, 0, 0, {math.sin(math.radians(12.5)):.6f})"


def test_raked_leg_with_the_seed_frame_pair_starts_clean(make_world):
    # The leg body carries the 25 deg rake; localRot0 = 205 deg about Z, localRot1 = 180 deg.
    w = make_world(_leg("(-0.216440, 0, 0, 0.976296)", "(0, 0, 0, 1)", leg_rot="(0, 0, 25)"))
    assert "joint-starts-violated" not in codes(w), [str(d) for d in w.diagnostics]


def test_raked_leg_frame_pair_and_missing_local_rot1(make_world):
    ok = make_world(_leg(RZ25, RZ25))
    assert "joint-starts-violated" not in codes(ok)
    bad = make_world(_leg(RZ25, None))
    d = next(d for d in bad.diagnostics if d.code == "joint-starts-violated")
    assert d.path == "/LegSpring"
    assert d.data["violation_rad"] == pytest.approx(math.radians(25), abs=1e-4)
    assert d.data["violation_m"] == pytest.approx(0.0, abs=1e-6)
    assert "0.436 rad" in d.message
    assert "/Lander/Leg" in d.message and "/Lander " in d.message
    assert "localRot1" in d.message and "seating" in d.message
    info = {j.joint_path: j for j in bad.debug_info().joints}["/LegSpring"]
    assert info.violation_rad == pytest.approx(0.436, abs=1e-3)
    # seated: after build the leg sits on the authored frame, so frames now agree
    leg_q = bad.orientations()[bad.body_paths.index("/Lander/Leg")]
    assert abs(leg_q[0]) == pytest.approx(math.cos(math.radians(12.5)), abs=1e-6)


def test_revolute_violation_is_reported_not_seated(make_world):
    bad = make_world(_leg(RZ25, None, kind="PhysicsRevoluteJoint").replace(
        'uniform token physics:axis = "Y"', 'uniform token physics:axis = "X"'))
    d = next(d for d in bad.diagnostics if d.code == "joint-starts-violated")
    assert "reported only" in d.message


def test_joint_connected_bodies_do_not_collide_unless_enabled(make_world):
    base = LUNAR_SCENE + """
def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    bool physics:kinematicEnabled = true
}
def Cube "B" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (0.8, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsRevoluteJoint "J"
{
    rel physics:body0 = </A>
    rel physics:body1 = </B>
    uniform token physics:axis = "Z"
    COLLIDE
}
"""
    w = make_world(base.replace("COLLIDE", ""))
    w.step()
    assert w.read_port("/B", "contact") == 0.0
    w2 = make_world(base.replace("COLLIDE", "bool physics:collisionEnabled = true"))
    w2.step()
    assert w2.read_port("/B", "contact") == 1.0


def test_generic_joint_maps_to_a_hinge_about_its_free_axis(make_world):
    scene = LUNAR_SCENE + """
def Cube "D6Anchor" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.4
    double3 xformOp:translate = (0.0, 6.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Xform "D6Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double3 xformOp:translate = (0.5, 5.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 2.0
}
def PhysicsJoint "D6Hinge" (
    prepend apiSchemas = ["PhysicsLimitAPI:transX", "PhysicsLimitAPI:transY", "PhysicsLimitAPI:transZ",
                          "PhysicsLimitAPI:rotX", "PhysicsLimitAPI:rotY"]
)
{
    rel physics:body0 = </D6Anchor>
    rel physics:body1 = </D6Arm>
    point3f physics:localPos0 = (0.0, 0.0, 0.0)
    point3f physics:localPos1 = (-0.5, 1.0, 0.0)
    float limit:transX:physics:low = 1.0
    float limit:transX:physics:high = -1.0
    float limit:transY:physics:low = 1.0
    float limit:transY:physics:high = -1.0
    float limit:transZ:physics:low = 1.0
    float limit:transZ:physics:high = -1.0
    float limit:rotX:physics:low = 1.0
    float limit:rotX:physics:high = -1.0
    float limit:rotY:physics:low = 1.0
    float limit:rotY:physics:high = -1.0
}
"""
    w = make_world(scene)
    kinds = {j.joint_path: j.kind for j in w.debug_info().joints}
    assert kinds["/D6Hinge"] == "generic"
    run(w, 120)
    arm = w.positions()[w.body_paths.index("/D6Arm")]
    assert arm[2] == pytest.approx(0.0, abs=1e-6)  # swings only in the XY plane (about Z)
    assert arm[0] < 0.45  # it did swing down
    assert math.dist(arm, (0, 6, 0)) == pytest.approx(math.hypot(0.5, 1.0), abs=1e-3)
    assert w.read_port("/D6Hinge", "angle") < -0.05


def test_unsupported_generic_joint_is_a_diagnostic(make_world):
    scene = LUNAR_SCENE + """
def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 1
}
def PhysicsJoint "Loose" (prepend apiSchemas = ["PhysicsLimitAPI:transX"])
{
    rel physics:body1 = </A>
    float limit:transX:physics:low = 1.0
    float limit:transX:physics:high = -1.0
}
"""
    w = make_world(scene)
    d = next(d for d in w.diagnostics if d.code == "physics-joint-unsupported")
    assert d.path == "/Loose" and "transY" in d.message


def test_distance_joint_holds_the_weight_at_max_distance(make_world):
    scene = LUNAR_SCENE + """
def Cube "Anchor" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.4
    double3 xformOp:translate = (2.0, 6.0, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Cube "Weight" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.5
    double3 xformOp:translate = (2.0, 4.5, 0.0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 5.0
}
def PhysicsDistanceJoint "Tether"
{
    rel physics:body0 = </Anchor>
    rel physics:body1 = </Weight>
    point3f physics:localPos0 = (0.0, 0.0, 0.0)
    point3f physics:localPos1 = (0.0, 0.0, 0.0)
    float physics:minDistance = 0.0
    float physics:maxDistance = 2.0
}
"""
    w = make_world(scene)
    assert "physics-distance-joint-soft" in codes(w)
    run(w, 300)
    y = w.positions()[w.body_paths.index("/Weight"), 1]
    assert y == pytest.approx(4.0, abs=0.01)


def test_loop_closing_revolute_becomes_two_point_constraints(make_world):
    # Two kinematic posts and one bar hinged to both: the second hinge closes a loop.
    scene = LUNAR_SCENE + """
def Cube "PostA" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.2
    double3 xformOp:translate = (-1, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Cube "PostB" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.2
    double3 xformOp:translate = (1, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Cube "Bar" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.2
    double3 xformOp:translate = (0, 5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 3
}
def PhysicsRevoluteJoint "HingeA"
{
    rel physics:body0 = </PostA>
    rel physics:body1 = </Bar>
    uniform token physics:axis = "X"
}
def PhysicsRevoluteJoint "HingeB"
{
    rel physics:body0 = </PostB>
    rel physics:body1 = </Bar>
    uniform token physics:axis = "X"
}
"""
    w = make_world(scene)
    d = next(d for d in w.diagnostics if d.code == "physics-joint-as-constraint")
    assert d.path == "/HingeB"
    run(w, 120)
    assert w.positions()[w.body_paths.index("/Bar")] == pytest.approx([0, 5, 0], abs=5e-3)


def test_hinge_with_body0_as_the_child_keeps_the_usd_sign(make_world):
    # body0 = Arm (dynamic), body1 = Anchor (kinematic, the tree root): the engine joint is
    # reversed, the port still reports body1 relative to body0.
    scene = HINGE.replace("rel physics:body0 = </Anchor>", "rel physics:body0 = </Arm>").replace(
        "rel physics:body1 = </Arm>", "rel physics:body1 = </Anchor>").replace(
        "point3f physics:localPos0 = (0.0, 0, 0)", "point3f physics:localPos0 = (-2.0, 0, 0)").replace(
        "point3f physics:localPos1 = (-2.0, 0, 0)", "point3f physics:localPos1 = (0.0, 0, 0)")
    w = make_world(scene)
    w.write_port("/Hinge", "angle", 1.2)
    run(w, 480)
    assert w.read_port("/Hinge", "angle") == pytest.approx(1.2, rel=0.02)
    arm = w.positions()[w.body_paths.index("/Arm")]
    # the anchor turned +1.2 relative to the arm, so the arm turned -1.2 about +Y
    assert arm == pytest.approx([2 * math.cos(1.2), 5.0, 2 * math.sin(1.2)], abs=0.03)


def test_spherical_joint_pendulum_keeps_its_pivot(make_world):
    scene = LUNAR_SCENE + """
def Cube "Anchor" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double size = 0.2
    double3 xformOp:translate = (0, 6, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    bool physics:kinematicEnabled = true
}
def Cube "Bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    double size = 0.2
    float physics:mass = 2
    double3 xformOp:translate = (1, 6, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsSphericalJoint "Ball"
{
    rel physics:body0 = </Anchor>
    rel physics:body1 = </Bob>
    point3f physics:localPos0 = (0, 0, 0)
    point3f physics:localPos1 = (-1, 0, -1)
}
"""
    w = make_world(scene)
    lowest = 6.0
    for _ in range(180):
        w.step()
        bob = w.positions()[w.body_paths.index("/Bob")]
        # the pivot is the bob's (-1, 0, -1) corner: it stays at the anchor
        pivot = bob + _rotate(w.orientations()[w.body_paths.index("/Bob")], (-1.0, 0.0, -1.0))
        assert pivot == pytest.approx([0, 6, 0], abs=2e-3)
        lowest = min(lowest, bob[1])
    assert lowest < 5.0


def _rotate(q, v):
    import numpy as np

    from luncosim_core.physics.frames import quat_rotate

    return quat_rotate(np.asarray(q), np.asarray(v))


def test_kinematic_body_has_no_force_inputs_and_does_not_fall(make_world):
    w = make_world(HINGE)
    names = {s.name for s in w.port_specs() if s.prim_path == "/Anchor"}
    assert "position_y" in names and "force_x" not in names
    run(w, 60)
    assert w.positions()[w.body_paths.index("/Anchor")] == pytest.approx([0, 5, 0])


def test_disabled_rigid_body_is_static(make_world):
    scene = LUNAR_SCENE + """
def Cube "Table" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double size = 1
    bool physics:rigidBodyEnabled = false
}
def Sphere "Ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{
    double radius = 0.25
    double3 xformOp:translate = (0, 1, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""
    w = make_world(scene)
    assert w.body_paths == ("/Ball",)
    run(w, 240)
    assert w.positions()[0, 1] == pytest.approx(0.75, abs=0.02)


def test_excluded_from_articulation_becomes_a_constraint_that_still_holds(make_world):
    scene = FIXED_PAIR.replace('rel physics:body0 = </CubeA>',
                               'rel physics:body0 = </CubeA>\n    bool physics:excludeFromArticulation = true')
    w = make_world(scene)
    d = next(d for d in w.diagnostics if d.code == "physics-joint-as-constraint")
    assert d.path == "/Weld" and "excludeFromArticulation" in d.message
    run(w, 240)
    assert w.positions()[w.body_paths.index("/CubeB")] == pytest.approx([2.0, 5.0, 0.0], abs=5e-3)


def test_moving_a_kinematic_body_carries_its_jointed_body(make_world):
    w = make_world(FIXED_PAIR)
    w.move_kinematic("/CubeA", (-2.0, 7.0, 1.0))
    run(w, 30)
    pos = dict(zip(w.body_paths, w.positions(), strict=True))
    assert pos["/CubeA"] == pytest.approx([-2.0, 7.0, 1.0])
    assert pos["/CubeB"] == pytest.approx([2.0, 7.0, 1.0], abs=2e-3)
    with pytest.raises(ValueError, match="dynamic"):
        w.move_kinematic("/CubeB", (0, 0, 0))


def test_fixed_joint_with_an_offset_is_reported_and_seated(make_world):
    scene = FIXED_PAIR.replace("(2.0, 5.0, 0.0)", "(2.0, 5.3, 0.0)")  # CubeB 0.3 m above its frame
    w = make_world(scene)
    d = next(d for d in w.diagnostics if d.code == "joint-starts-violated")
    assert d.path == "/Weld" and d.data["violation_m"] == pytest.approx(0.3, abs=1e-6)
    assert "seating `/CubeB`" in d.message
    assert w.positions()[w.body_paths.index("/CubeB")] == pytest.approx([2.0, 5.0, 0.0], abs=1e-6)
    run(w, 60)
    assert w.positions()[w.body_paths.index("/CubeB")] == pytest.approx([2.0, 5.0, 0.0], abs=1e-3)
