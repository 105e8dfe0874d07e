"""A trigger zone's crossing names both the zone's model (the marker that route bookkeeping keys on)
and the trigger prim itself, which scenarios hear as the event's source (LunCoSim's sensor
collider is the source of its ``enter:``/``exit:`` events)."""

from __future__ import annotations

import pickle

from physics_scenes import run

from luncosim_core.physics.triggers import ZoneEvent

SCENE = """
def Xform "Marker" (kind = "component")
{
    def Xform "Mount"
    {
        double3 xformOp:translate = (0, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Sphere "Trigger" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 1.0
            custom string lunco:triggerZone = "wp"
        }
    }
}
def Cube "Probe" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{
    double size = 0.2
    float physics:mass = 1
    vector3f physics:velocity = (0, -2, 0)
    double3 xformOp:translate = (0, 2, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""


def test_a_crossing_carries_the_trigger_prim_beside_the_zones_model(make_world):
    w = make_world(SCENE, tick_hz=60.0)
    events = []
    for _ in range(150):
        run(w, 1)
        events += w.take_zone_events()
    assert [tuple(e) for e in events] == [("enter:wp", "/Probe", "/Marker"), ("exit:wp", "/Probe", "/Marker")]
    assert all(isinstance(e, ZoneEvent) and e.zone == "/Marker/Mount/Trigger" for e in events)
    again = pickle.loads(pickle.dumps(events[0]))  # a snapshot keeps the zone
    assert again == events[0] and again.zone == "/Marker/Mount/Trigger"
