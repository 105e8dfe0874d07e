"""Collision ownership, filtering (pairs, groups), purpose, meshes, materials, contact ports."""

from __future__ import annotations

import pytest
from physics_scenes import GROUND, LUNAR_SCENE, codes, run

RIG = """
def Xform "Rig"
{
    double3 xformOp:translate = (0, 6.0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Hull" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {
        double size = 2.0
        float physics:mass = 500.0
        bool physics:kinematicEnabled = true
    }
    def Cube "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {
        double size = 0.4
        double3 xformOp:translate = (2.0, 0.0, 0.0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        float physics:mass = 10.0
    }
    def Cube "Pad" (PAD_SCHEMAS)
    {
        double size = 0.6
        double3 xformOp:translate = (0.8, 0.0, 0.0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        float physics:mass = 5.0
        PAD_FILTER
    }
    def PhysicsFixedJoint "HullToArm"
    {
        rel physics:body0 = </Rig/Hull>
        rel physics:body1 = </Rig/Arm>
        point3f physics:localPos0 = (2.0, 0.0, 0.0)
        point3f physics:localPos1 = (0.0, 0.0, 0.0)
    }
    def PhysicsFixedJoint "ArmToPad"
    {
        rel physics:body0 = </Rig/Arm>
        rel physics:body1 = </Rig/Pad>
        point3f physics:localPos0 = (-1.2, 0.0, 0.0)
        point3f physics:localPos1 = (0.0, 0.0, 0.0)
    }
}
"""
PAD = '"PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"'


def _rig(filtered: bool, extra: str = "") -> str:
    extra_api = ', "PhysicsFilteredPairsAPI"' if filtered else ""
    schemas = f"prepend apiSchemas = [{PAD}{extra_api}]"
    filt = "rel physics:filteredPairs = </Rig/Hull>" if filtered else ""
    return LUNAR_SCENE + RIG.replace("PAD_SCHEMAS", schemas).replace("PAD_FILTER", filt) + extra


def _seen_contact(w, path: str, ticks: int = 60) -> float:
    seen = 0.0
    for _ in range(ticks):
        w.step()
        seen = max(seen, w.read_port(path, "contact"))
    return seen


def test_filtered_pair_does_not_touch_while_unfiltered_control_does(make_world):
    control = make_world(_rig(False))
    assert _seen_contact(control, "/Rig/Pad") == 1.0
    assert control.read_port("/Rig/Pad", "contact_count") == 1.0
    assert control.read_port("/Rig/Pad", "contact_force") >= 0.0
    touching = {(c.body_a, c.body_b) for c in control.debug_info().contacts}
    assert touching <= {("/Rig/Hull", "/Rig/Pad"), ("/Rig/Pad", "/Rig/Hull")} and touching
    filtered = make_world(_rig(True))
    assert _seen_contact(filtered, "/Rig/Pad") == 0.0
    assert filtered.debug_info().contacts == ()


def test_collision_groups_filter_like_the_pair(make_world):
    groups = """
def Scope "CollisionGroups"
{
    def PhysicsCollisionGroup "Hulls"
    {
        prepend rel collection:colliders:includes = </Rig/Hull>
        prepend rel physics:filteredGroups = </CollisionGroups/Pads>
    }
    def PhysicsCollisionGroup "Pads"
    {
        prepend rel collection:colliders:includes = </Rig/Pad>
    }
}
"""
    w = make_world(_rig(False, groups))
    assert _seen_contact(w, "/Rig/Pad") == 0.0
    # the group filters only the named pair: the pad still lands on other things
    assert "physics-filter-invalid-target" not in codes(w)


def test_filter_naming_a_missing_prim_is_a_diagnostic(make_world):
    scene = _rig(True).replace("rel physics:filteredPairs = </Rig/Hull>",
                               "rel physics:filteredPairs = [</Rig/Hull>, </Rig/Nope>]")
    w = make_world(scene)
    d = next(d for d in w.diagnostics if d.code == "physics-filter-invalid-target")
    assert d.path == "/Rig/Pad" and "/Rig/Nope" in d.message


def _drop_on(ground_purpose: str, extra: str = "") -> str:
    return LUNAR_SCENE + f"""
def Cube "Floor" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{{
    double size = 1
    uniform token purpose = "{ground_purpose}"
    double3 xformOp:translate = (0, -0.5, 0)
    double3 xformOp:scale = (20, 1, 20)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}}
def Sphere "Ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{{
    double radius = 0.5
    double3 xformOp:translate = (0, 1, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
{extra}
"""


def test_guide_purpose_never_collides(make_world):
    control = make_world(_drop_on("default"))
    run(control, 120)
    assert control.positions()[0, 1] == pytest.approx(0.5, abs=0.02)
    guide = make_world(_drop_on("guide"))
    run(guide, 120)
    assert guide.positions()[0, 1] < -1.0
    assert all(c.prim_path != "/Floor" for c in guide.debug_info().colliders)


def test_render_geometry_collides_only_when_the_body_has_no_proxy(make_world):
    def body(with_proxy: bool) -> str:
        proxy = """
    def Cube "Collision" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 1
        uniform token purpose = "proxy"
    }""" if with_proxy else ""
        return LUNAR_SCENE + GROUND + f"""
def Xform "Crate" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{{
    double3 xformOp:translate = (0, 3, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "Visual" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double size = 3
        uniform token purpose = "render"
    }}{proxy}
}}
"""
    render_only = make_world(body(False))
    run(render_only, 300)
    assert render_only.positions()[0, 1] == pytest.approx(1.5, abs=0.02)
    with_proxy = make_world(body(True))
    run(with_proxy, 300)
    assert with_proxy.positions()[0, 1] == pytest.approx(0.5, abs=0.02)


def test_mesh_colliders_convex_on_dynamic_trimesh_on_static(make_world):
    cube_pts = "[(-0.5,-0.5,-0.5),(0.5,-0.5,-0.5),(0.5,0.5,-0.5),(-0.5,0.5,-0.5),(-0.5,-0.5,0.5),(0.5,-0.5,0.5),(0.5,0.5,0.5),(-0.5,0.5,0.5)]"
    cube_counts = "[4,4,4,4,4,4]"
    cube_idx = "[0,3,2,1, 4,5,6,7, 0,1,5,4, 2,3,7,6, 1,2,6,5, 0,4,7,3]"
    scene = LUNAR_SCENE + f"""
def Mesh "Terrain" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{{
    point3f[] points = [(-10,0,-10),(10,0,-10),(10,0,10),(-10,0,10),(0,2,0)]
    int[] faceVertexCounts = [3,3,3,3]
    int[] faceVertexIndices = [0,4,1, 1,4,2, 2,4,3, 3,4,0]
}}
def Mesh "Rock" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{{
    point3f[] points = {cube_pts}
    int[] faceVertexCounts = {cube_counts}
    int[] faceVertexIndices = {cube_idx}
    double3 xformOp:translate = (6, 2, 6)
    double3 xformOp:scale = (2, 1, 2)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
}}
"""
    w = make_world(scene)
    kinds = {c.prim_path: c.shape for c in w.debug_info().colliders}
    assert kinds == {"/Terrain": "trimesh", "/Rock": "convex"}
    run(w, 300)
    rock = w.positions()[0]
    assert rock[1] < 2.0 and rock[1] > 0.0  # landed on the pyramid's flank, not through it
    assert w.read_port("/Rock", "contact") == 1.0


def test_compound_with_cone_and_capsule(make_world):
    scene = LUNAR_SCENE + GROUND + """
def Xform "Probe" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double3 xformOp:translate = (0, 4, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cone "Nose" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        uniform token axis = "Y"
        double radius = 0.5
        double height = 1
        double3 xformOp:translate = (0, 1, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Capsule "Body" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        uniform token axis = "Y"
        double radius = 0.5
        double height = 1
    }
}
"""
    w = make_world(scene)
    run(w, 400)
    # lands on the capsule's lower cap: origin 0.5 + 0.5 above the ground; upright or tipped
    y = w.positions()[0, 1]
    assert 0.45 < y < 1.05


def test_physics_material_friction_decides_sliding(make_world):
    def scene(friction: float) -> str:
        return LUNAR_SCENE + f"""
def Scope "Materials"
{{
    def Material "Grip" (prepend apiSchemas = ["PhysicsMaterialAPI"])
    {{
        float physics:staticFriction = {friction}
        float physics:dynamicFriction = {friction}
        float physics:restitution = 0
    }}
}}
def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
{{
    double size = 1
    double3 xformOp:translate = (0, -0.5, 0)
    double3 xformOp:scale = (200, 1, 200)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    rel material:binding:physics = </Materials/Grip>
}}
def Cube "Sled" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI", "MaterialBindingAPI"])
{{
    double size = 1
    float physics:mass = 10
    double3 xformOp:translate = (0, 0.5, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    rel material:binding:physics = </Materials/Grip>
    double3 physics:velocity = (0, 0, 0)
}}
"""
    slippery = make_world(scene(0.05))
    grippy = make_world(scene(1.0))
    for w in (slippery, grippy):
        w.write_port("/Sled", "force_x", 10.0)  # 1 N/kg: above 0.05^2 * 1.62, below 1.0 * 1.62
        run(w, 120)
    assert slippery.positions()[0, 0] > 1.0
    assert grippy.positions()[0, 0] == pytest.approx(0.0, abs=0.01)
