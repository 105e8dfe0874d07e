"""Mission tasks: ordered task lists run against the live simulation.

Load a task file (:func:`load_task_file`), wrap a simulation in a :class:`SimulationHost` and
run it with :class:`MissionRunner`. Navigation plans with Hybrid A* on a costmap captured from
the composed stage and live poses, and drives the robot through its input ports; see
``docs/mission.md`` for the task-file reference and the robot contract.
"""

import importlib

_EXPORTS = {
    "EventLog": "events", "MissionEvent": "events", "MissionHost": "host", "SimulationHost": "host",
    "MissionOverlay": "runner", "MissionResult": "runner", "MissionRunner": "runner",
    "TaskError": "taskfile", "TaskFile": "taskfile", "TaskFileError": "taskfile", "load_task_file": "taskfile",
    "parse_task_text": "taskfile",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Exports load on first use, so validating a task file does not import the simulation."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
