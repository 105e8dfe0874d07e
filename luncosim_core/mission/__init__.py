"""Mission tasks: ordered task lists run against the live simulation.

Load a task file (:func:`load_task_file`), wrap a simulation in a :class:`SimulationHost` and
run it with :class:`MissionRunner`. Navigation plans with Hybrid A* on a costmap captured from
the composed stage and live poses, and drives the robot through its input ports; see
``docs/mission.md`` for the task-file reference and the robot contract.
"""

from luncosim_core.mission.events import EventLog, MissionEvent
from luncosim_core.mission.host import MissionHost, SimulationHost
from luncosim_core.mission.runner import MissionOverlay, MissionResult, MissionRunner
from luncosim_core.mission.taskfile import (
    TaskError,
    TaskFile,
    TaskFileError,
    load_task_file,
    parse_task_text,
)

__all__ = [
    "EventLog", "MissionEvent", "MissionHost", "MissionOverlay", "MissionResult", "MissionRunner",
    "SimulationHost", "TaskError", "TaskFile", "TaskFileError", "load_task_file", "parse_task_text",
]
