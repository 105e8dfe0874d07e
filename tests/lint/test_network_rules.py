"""Lint rules about programs, acausal connectors, component networks, link nodes and sprung legs:
each fires on its defect by rule id and subject, and a healthy network stays silent."""

from __future__ import annotations

from pxr import Usd

from luncosim_core.lint import extract_facts, run_lint

HEADER = '#usda 1.0\n(\n    defaultPrim = "W"\n    metersPerUnit = 1\n    upAxis = "Y"\n)\n'


def program(name: str, asset: str, connectors: str = "", kind: str = "Scope", extra: str = "") -> str:
    return f"""
    def {kind} "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])
    {{
        uniform token info:implementationSource = "sourceAsset"
        uniform asset info:sourceAsset = @{asset}@
        {connectors}
        {extra}
    }}
"""


SCENE = HEADER + """
def Xform "W"
{
""" + program("Source", "./models/Source.mo", "custom token connectors:p") + \
    program("Load", "./models/Load.mo", "custom token connectors:p.connect = </W/Source.connectors:p>") + """
    def Scope "Healthy" (prepend apiSchemas = ["CollectionAPI:components"])
    {
        uniform token collection:components:expansionRule = "explicitOnly"
        prepend rel collection:components:includes = [</W/Source>, </W/Load>]
    }
""" + program("StrandedLoad", "./models/Load.mo", "custom token connectors:p.connect = </W/StrandedSource.connectors:p>") + \
    program("StrandedSource", "./models/Source.mo", "custom token connectors:p") + \
    program("Catalogue", "./models/Source.mo", "custom token connectors:p") + """
    def Scope "Empty" (prepend apiSchemas = ["CollectionAPI:components"])
    {
        uniform token collection:components:expansionRule = "explicitOnly"
    }
""" + program("Inside", "./models/Load.mo", "custom token connectors:p.connect = </W/Outside.connectors:p>") + \
    program("Outside", "./models/Source.mo", "custom token connectors:p") + """
    def Scope "Dangling" (prepend apiSchemas = ["CollectionAPI:components"])
    {
        uniform token collection:components:expansionRule = "explicitOnly"
        prepend rel collection:components:includes = [</W/Inside>]
    }
    def Scope "Scripted" (prepend apiSchemas = ["LunCoProgramAPI"])
    {
        uniform asset info:sourceAsset = @./scripts/pin.rhai@
        custom token connectors:p
    }
    def Scope "NotSource" (prepend apiSchemas = ["CollectionAPI:components"])
    {
        uniform token collection:components:expansionRule = "explicitOnly"
        prepend rel collection:components:includes = [</W/Scripted>]
    }
    def LunCoProgram "Retired"
    {
    }
    def Xform "Dish" (prepend apiSchemas = ["LunCoLinkAPI"])
    {
        def Xform "Feed" (prepend apiSchemas = ["LunCoLinkAPI"]) {}
    }
    def Xform "Leg" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        double3 xformOp:translate = (0, 6, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "Strut" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
        {
            double size = 1.0
            double3 xformOp:translate = (0, -2, 0)
            double3 xformOp:scale = (0.2, 4, 0.2)
            uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
        }
        def Cube "Foot" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
        {
            double size = 0.2
            double3 xformOp:translate = (0, -3.5, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        def PhysicsPrismaticJoint "Spring" (prepend apiSchemas = ["PhysicsDriveAPI:linear"])
        {
            rel physics:body0 = </W/Leg>
            rel physics:body1 = </W/Leg/Strut>
            uniform token physics:axis = "Y"
        }
        def PhysicsSphericalJoint "Ankle"
        {
            rel physics:body0 = </W/Leg/Strut>
            rel physics:body1 = </W/Leg/Foot>
        }
    }
}
"""


def lint(tmp_path, text):
    path = tmp_path / f"scene{len(list(tmp_path.glob('scene*.usda')))}.usda"  # a fresh layer each time
    path.write_text(text)
    stage = Usd.Stage.Open(str(path))
    return stage, run_lint(stage)


def by_rule(diags, rule):
    return sorted(d.path for d in diags if d.code == rule)


def test_network_and_connector_rules_fire_on_their_defects(tmp_path):
    _, diags = lint(tmp_path, SCENE)
    assert by_rule(diags, "connector-requires-network-scope") == ["/W/StrandedLoad"]
    assert by_rule(diags, "empty-component-network") == ["/W/Empty", "/W/NotSource"]
    assert by_rule(diags, "dangling-network-connector") == ["/W/Inside.connectors:p"]
    assert by_rule(diags, "invalid-network-program-source") == ["/W/Scripted"]
    assert by_rule(diags, "connector-requires-modelica") == ["/W/Scripted"]
    assert by_rule(diags, "unsupported-program-prim-type") == ["/W/Retired"]
    assert by_rule(diags, "nested-link-node") == ["/W/Dish/Feed"]
    # the strut reaches down to y = 6 - 2 - 2 = 2.0, the foot only to 6 - 3.5 - 0.1 = 2.4: the strut
    # grounds first
    assert by_rule(diags, "sprung-foot-not-lowest") == ["/W/Leg/Spring"]


def test_a_healthy_network_and_bare_connector_declarations_stay_silent(tmp_path):
    _, diags = lint(tmp_path, SCENE)
    quiet = {"/W/Healthy", "/W/Source", "/W/Load", "/W/StrandedSource", "/W/Catalogue", "/W/Outside"}
    named = {d.path for d in diags if d.severity == "error"}
    assert not quiet & named, sorted(quiet & named)


def test_a_foot_below_its_strut_is_clean_and_a_thin_margin_is_not(tmp_path):
    clean = SCENE.replace("double3 xformOp:translate = (0, -3.5, 0)", "double3 xformOp:translate = (0, -4.5, 0)")
    _, diags = lint(tmp_path, clean)
    assert not by_rule(diags, "sprung-foot-not-lowest") and not by_rule(diags, "sprung-foot-thin-clearance")
    # foot bottom at 1.95: 5 cm below a 4 m strut, less than one degree of attitude (0.07 m)
    thin = SCENE.replace("double3 xformOp:translate = (0, -3.5, 0)", "double3 xformOp:translate = (0, -3.95, 0)")
    _, diags = lint(tmp_path, thin)
    assert by_rule(diags, "sprung-foot-thin-clearance") == ["/W/Leg/Spring"]


def test_network_facts_describe_members_and_units(tmp_path):
    stage, _ = lint(tmp_path, SCENE)
    facts = extract_facts(stage)
    healthy = next(s for s in facts["network_scopes"] if s["path"] == "/W/Healthy")
    assert healthy["members"] == ["/W/Source", "/W/Load"]
    assert healthy["modelica_member_count"] == 2
    assert healthy["units"] == [{"members": ["/W/Load", "/W/Source"]}]
    programs = {p["path"]: p for p in facts["connector_programs"]}
    assert programs["/W/Catalogue"]["connected"] == [] and programs["/W/Load"]["connected"] == ["p"]
