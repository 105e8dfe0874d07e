"""Task-file validation: closed schema, field paths with lines, aliases, refusals."""

from __future__ import annotations

import textwrap

import pytest

from luncosim_core.mission.taskfile import (
    CUROBO_REFUSAL,
    TaskFileError,
    load_task_file,
    parse_task_text,
)

GOOD = """
plugins:
  mission:
    config:
      solvers:
        navigation: {backend: navigation, role: navigation, config: {}}
scenario:
  aliases: {rover: /Yard/RoverA, crate: /Yard/Crate}
  behavior:
    task:
      - name: go
        type: navigate
        robot: rover
        motions:
          navigate: {kind: navigation, solver_profile: navigation, pose: {x: 4.85, y: 2.30, yaw: 0.0}}
"""


def errors(text: str) -> list[tuple[str, str, int | None]]:
    with pytest.raises(TaskFileError) as info:
        parse_task_text(textwrap.dedent(text))
    return [(e.path, e.message, e.line) for e in info.value.errors]


def test_the_issue_example_loads_into_typed_values():
    task = parse_task_text(GOOD)
    assert task.aliases == {"rover": "/Yard/RoverA", "crate": "/Yard/Crate"}
    (action,) = task.actions
    assert (action.ordinal, action.name, action.type, action.robot) == (1, "go", "navigate", "rover")
    (motion,) = action.motions
    assert (motion.pose.x, motion.pose.y, motion.pose.yaw) == (4.85, 2.30, 0.0)
    assert motion.solver.allow_reverse and motion.solver.allow_in_place_rotation
    assert motion.position_tolerance_m == 0.3 and motion.yaw_tolerance_rad == pytest.approx(0.17453, abs=1e-5)


def test_unknown_fields_are_rejected_with_their_path_and_line():
    bad = GOOD.replace("pose: {x: 4.85, y: 2.30, yaw: 0.0}", "pose: {x: 4.85, y: 2.30, yaw: 0.0, z: 1}") \
        .replace("  behavior:", "  extra: 1\n  behavior:")
    found = errors(bad)
    paths = {p: line for p, _m, line in found}
    assert "scenario.behavior.task[0].motions.navigate.pose.z" in paths
    assert "scenario.extra" in paths
    assert paths["scenario.extra"] == 9
    assert any("unknown field 'z'" in m for _p, m, _l in found)


def test_unknown_alias_empty_task_list_and_behavior_shape():
    found = errors(GOOD.replace("robot: rover", "robot: rovr"))
    assert found[0][0] == "scenario.behavior.task[0].robot" and "unknown alias 'rovr'" in found[0][1]
    empty = errors("scenario:\n  aliases: {}\n  behavior:\n    task: []\n")
    assert empty == [("scenario.behavior.task", "the task list is empty; it needs at least one action", 4)]
    extra = errors("scenario:\n  aliases: {}\n  behavior:\n    task: [x]\n    schema: 1\n")
    assert ("scenario.behavior.schema" in [p for p, _m, _l in extra])


def test_types_duplicates_and_non_finite_values():
    found = errors(GOOD.replace("x: 4.85", "x: .nan").replace("name: go", "name: go\n        name: again"))
    paths = [p for p, _m, _l in found]
    assert "scenario.behavior.task[0].name" in paths  # duplicate key
    assert "scenario.behavior.task[0].motions.navigate.pose.x" in paths
    assert errors("- a\n")[0][1].startswith("expected a mapping")
    assert "not valid YAML" in errors("scenario: [\n")[0][1]


def test_curobo_actions_are_refused_up_front():
    arm = GOOD.replace("        navigation: {backend", "        arm: {backend: curobo, role: arm}\n        navigation: {backend")
    arm = arm.replace("""      - name: go""", """      - name: hold
        type: curobo_attachment
        robot: rover
        motions:
          change: {kind: curobo_attachment, solver_profile: arm, operation: attach, object: crate}
      - name: reach
        type: move_joints
        robot: rover
        motions:
          close: {kind: joints, solver_profile: arm, joints: {joint1: 0.0}}
      - name: go""")
    found = errors(arm)
    assert [p for p, _m, _l in found] == ["scenario.behavior.task[0].type", "scenario.behavior.task[1].motions.close"]
    assert all(CUROBO_REFUSAL in m for _p, m, _l in found)


def test_attachment_and_fill_rules(tmp_path):
    text = GOOD.replace("""      - name: go""", """      - name: grab
        type: physical_attachment
        robot: rover
        motions:
          change: {kind: physical_attachment, operation: detach, object: crate, link: Chassis}
      - name: fill-cup
        type: fill
        robot: rover
        motions:
          pre_fill: null
          fill: {kind: pose, arm: left, solver_profile: navigation, pose: {x: 1, y: 1, yaw: 0}}
          dispense:
            kind: fluid
            verification: visual_only
            renderer: visualization_overlay
            source: {kind: entity, entity: crate, position_m: [0, 0, 0.8], direction: [0, 0, -1]}
            fluid: water
            rate_ml_s: 40.0
            volume_ml: 24.0
            particle_count: 3
            seed: 23
      - name: go""")
    path = tmp_path / "task.yaml"
    path.write_text(textwrap.dedent(text))
    with pytest.raises(TaskFileError) as info:
        load_task_file(path)
    got = {e.path: e.message for e in info.value.errors}
    assert "a detach names no link" in got["scenario.behavior.task[0].motions.change.link"]
    assert CUROBO_REFUSAL in got["scenario.behavior.task[1].motions.fill"]
    assert "particle_count" in got["scenario.behavior.task[1].motions.dispense.particle_count"]
    assert "inherit_velocity: false" in got["scenario.behavior.task[1].motions.dispense.source.inherit_velocity"]


def test_a_missing_file_is_reported(tmp_path):
    with pytest.raises(TaskFileError) as info:
        load_task_file(tmp_path / "nope.yaml")
    assert "cannot read" in info.value.errors[0].message
