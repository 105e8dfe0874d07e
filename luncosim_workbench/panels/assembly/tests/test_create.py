"""The Create menu: each entry is one undoable edit by the user, selects the new prim, and reaches
the running simulation without restarting it."""

from __future__ import annotations

from luncosim_core.usd.create import RECIPES

ROOT = "/PracticeYard"


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


def test_the_create_menu_lists_every_recipe(opened):
    menu = opened.qt_actions.menus["create"]
    titles = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert [r.title for r in RECIPES.values()] == titles[: len(RECIPES)]
    assert "Joint Between Selected Bodies" in titles and "Add Asset…" in titles


def test_create_a_rigid_body_from_the_menu_then_undo(opened, qtbot):
    doc = opened.session.document
    original = doc.export_layers()
    qtbot.waitUntil(lambda: opened.bridge.latest is not None, timeout=15000)
    opened.bridge.step(5)
    qtbot.waitUntil(lambda: opened.bridge.latest.tick == 5, timeout=15000)
    opened.session.selection.set([ROOT])
    opened.action("assembly.create.rigid_body").trigger()
    body = f"{ROOT}/Body"
    assert _journal(doc) == [(f"create Rigid Body {body}", "user")]
    assert opened.session.selection.paths == (body,)
    opened.bridge.step(1)
    qtbot.waitUntil(lambda: body in opened.bridge.latest.body_paths, timeout=15000)
    assert opened.bridge.latest.tick == 6  # the run went on
    opened.action("edit.undo").trigger()
    assert doc.export_layers() == original
    opened.bridge.step(1)
    qtbot.waitUntil(lambda: body not in opened.bridge.latest.body_paths, timeout=15000)
    assert opened.bridge.latest.tick == 7


def test_create_under_a_shape_goes_to_its_parent_and_a_joint_needs_two_bodies(opened):
    doc = opened.session.document
    opened.session.selection.set([f"{ROOT}/Marker"])
    opened.action("assembly.create.sphere").trigger()
    assert doc.stage.GetPrimAtPath(f"{ROOT}/Sphere")
    opened.session.selection.set([f"{ROOT}/RoverA/Chassis"])
    opened.action("assembly.create.joint").trigger()  # one body: refused with a message, no edit
    assert _journal(doc) == [(f"create Sphere {ROOT}/Sphere", "user")]
    opened.session.selection.set([f"{ROOT}/Marker", f"{ROOT}/Sphere"])
    opened.action("assembly.create.joint").trigger()
    joint = doc.stage.GetPrimAtPath(f"{ROOT}/Joint")
    assert joint and joint.GetTypeName() == "PhysicsRevoluteJoint"
    assert [str(t) for t in joint.GetRelationship("physics:body0").GetTargets()] == [f"{ROOT}/Marker"]


def test_add_asset_places_a_reference_to_the_library(opened):
    doc = opened.session.document
    rover = doc.roots.lunco_root / "vessels" / "rovers" / "yard_rover.usda"
    opened.session.selection.set([ROOT])
    path = opened.panels["assembly"].create_asset(str(rover), at=(0.0, 0.0, -6.0))
    assert path == f"{ROOT}/yard_rover"
    assert doc.stage.GetPrimAtPath(f"{path}/Chassis")
    assert _journal(doc) == [(f"add lunco://vessels/rovers/yard_rover.usda as {path}", "user")]
