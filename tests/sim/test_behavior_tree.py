"""Behaviour trees for autopilots: BehaviorTree.CPP XML read into specs, specs compiled into
trees that tick with the usual composite rules, the steering law, and refusals that name the node."""

from __future__ import annotations

import pytest

from luncosim_core.sim.behavior_tree import (
    FAILURE,
    RUNNING,
    SUCCESS,
    BehaviorError,
    DriveCtx,
    bake_targets,
    btxml_to_spec,
    build_tree,
    has_motion,
    nav_setpoint,
)

UP = (0.0, 1.0, 0.0)
AHEAD = (0.0, 0.0, -1.0)  # -Z is forward


def ctx(pos=(0.0, 0.0, 0.0), fwd=AHEAD, now=0.0):
    return DriveCtx(pos, fwd, UP, now)


def test_btcpp_documents_read_into_specs():
    xml = """<root BTCPP_format="4" main_tree_to_execute="MainTree">
      <BehaviorTree ID="Leg">
        <Fallback>
          <Condition ID="arrived" target="1;0;2" radius="2.5"/>
          <Action ID="drive_to" target="/Scene/P0" speed="0.7"/>
        </Fallback>
      </BehaviorTree>
      <BehaviorTree ID="MainTree">
        <Repeat num_cycles="-1">
          <Sequence>
            <SubTree ID="Leg"/>
            <Timeout msec="1500"><Action ID="wait" seconds="1"/></Timeout>
            <Parallel success_count="1"><AlwaysSuccess/><Action ID="hold"/></Parallel>
            <RetryUntilSuccessful num_attempts="3"><Inverter><AlwaysFailure/></Inverter></RetryUntilSuccessful>
          </Sequence>
        </Repeat>
      </BehaviorTree>
    </root>"""
    spec = btxml_to_spec(xml)
    assert spec["kind"] == "forever"
    leg, timeout, par, retry = spec["child"]["children"]
    assert leg == {"kind": "selector", "children": [
        {"kind": "arrived", "target": "1;0;2", "radius": 2.5},
        {"kind": "drive_to", "target": "/Scene/P0", "speed": 0.7}]}
    assert timeout == {"kind": "timeout", "seconds": 1.5, "child": {"kind": "wait", "seconds": 1}}
    assert par["require"] == "one" and [c["kind"] for c in par["children"]] == ["succeed", "hold"]
    assert retry == {"kind": "retry", "times": 3, "child": {"kind": "invert", "child": {"kind": "fail"}}}


@pytest.mark.parametrize("xml, words", [
    ("<root><BehaviorTree ID='A'><Sequence/></BehaviorTree><BehaviorTree ID='B'><Sequence/></BehaviorTree></root>",
     "main_tree_to_execute"),
    ("<root main_tree_to_execute='M'><BehaviorTree ID='M'><SubTree ID='M'/></BehaviorTree></root>", "recursive"),
    ("<root main_tree_to_execute='M'><BehaviorTree ID='M'><Inverter/></BehaviorTree></root>", "exactly one child"),
    ("<root><BehaviorTree><Sequence>", "not well-formed"),
])
def test_bad_documents_are_refused_with_the_reason(xml, words):
    with pytest.raises(BehaviorError, match=words):
        btxml_to_spec(xml)


def test_targets_bake_from_prim_paths_and_coordinate_text():
    spec = {"kind": "sequence", "children": [{"kind": "drive_to", "target": "/S/A"},
                                             {"kind": "drive_to", "target": "3;0;-4"},
                                             {"kind": "drive_to", "target": "/S/Gone"}]}
    baked, missing = bake_targets(spec, lambda p: [1.0, 2.0, 3.0] if p == "/S/A" else None)
    assert [c["target"] for c in baked["children"]] == [[1.0, 2.0, 3.0], [3.0, 0.0, -4.0], "/S/Gone"]
    assert missing == ["/S/Gone"]
    assert spec["children"][0]["target"] == "/S/A"  # the authored spec is untouched


def test_the_steering_law():
    # straight ahead: full speed, no steer
    assert nav_setpoint((0, 0, 0), AHEAD, UP, (0, 0, -10), 0.6, 3.0) == (0.6, 0.0, 0.0, False)
    # to the right: +steer yaws right (skid: left = drive + steer), throttle eased
    t, s, b, arrived = nav_setpoint((0, 0, 0), AHEAD, UP, (10, 0, -10), 0.6, 3.0)
    assert s > 0 and 0.15 < t < 0.6 and b == 0.0 and not arrived
    # behind and to the left: hard over to the left at a crawl
    t, s, _, _ = nav_setpoint((0, 0, 0), AHEAD, UP, (-5, 0, 10), 0.6, 3.0)
    assert s == -1.0 and t == pytest.approx(0.15)
    # inside the radius: brake, arrived
    assert nav_setpoint((0, 0, 0), AHEAD, UP, (0, 0, -2), 0.6, 3.0) == (0.0, 0.0, 1.0, True)


def test_a_sequence_moves_on_in_the_same_tick_and_a_patrol_loops():
    tree = build_tree({"kind": "patrol", "waypoints": [{"pos": [0, 0, -1]}, [0, 0, -20]], "radius": 2.0})
    c = ctx()
    assert tree.tick(c) == RUNNING  # the first waypoint is already reached: on to the second
    assert c.out[0] > 0 and c.out[2] == 0.0
    assert tree.cursor() == 1
    c = ctx(pos=(0, 0, -19))
    assert tree.tick(c) == RUNNING and tree.cursor() == 0  # lap done: the patrol starts again
    assert has_motion({"kind": "patrol", "waypoints": []}) is False
    assert has_motion({"kind": "sequence", "children": [{"kind": "wait"}, {"kind": "face", "target": [0, 0, 1]}]})


def test_waits_timeouts_and_cooldowns_run_on_mission_time():
    wait = build_tree({"kind": "wait", "seconds": 1.0})
    assert wait.tick(ctx(now=5.0)) == RUNNING and wait.tick(ctx(now=5.9)) == RUNNING
    assert wait.tick(ctx(now=6.0)) == SUCCESS
    timeout = build_tree({"kind": "timeout", "seconds": 2.0, "child": {"kind": "hold"}})
    assert timeout.tick(ctx(now=0.0)) == RUNNING
    c = ctx(now=2.0)
    assert timeout.tick(c) == FAILURE and c.out == (0.0, 0.0, 1.0)
    cool = build_tree({"kind": "cooldown", "seconds": 3.0, "child": {"kind": "succeed"}})
    assert cool.tick(ctx(now=1.0)) == SUCCESS
    assert cool.tick(ctx(now=2.0)) == FAILURE and cool.tick(ctx(now=4.0)) == SUCCESS


def test_reactive_composites_recheck_their_guards_every_tick():
    tree = build_tree({"kind": "reactive_selector", "children": [
        {"kind": "arrived", "target": [0, 0, -10], "radius": 1.0},
        {"kind": "drive_to", "target": [0, 0, -10], "radius": 1.0}]})
    c = ctx()
    assert tree.tick(c) == RUNNING and c.out[0] > 0
    assert tree.tick(ctx(pos=(0, 0, -9.5))) == SUCCESS


@pytest.mark.parametrize("spec, words", [
    ({"kind": "follow", "target": 3}, "tracking a moving entity"),
    ({"kind": "sequence", "children": [{"kind": "drive_to", "target": "/S/Unbaked"}]}, "children[0]"),
    ({"kind": "patrol", "waypoints": [{"pos": [0, 0, 0], "on_arrival": [{"kind": "run_tool", "tool": "x"}]}]},
     "on_arrival"),
    ({"kind": "repeat", "times": -1, "child": {"kind": "succeed"}}, "whole, non-negative"),
    ({"kind": "teleport"}, "unknown behaviour kind `teleport`"),
    ({"kind": "invert"}, "needs a `child`"),
])
def test_what_cannot_compile_is_refused_by_name(spec, words):
    with pytest.raises(BehaviorError, match=words.replace("[", r"\[").replace("]", r"\]")):
        build_tree(spec)
