"""The host API scenarios call: entities, ports, poses, time, events, commands and queries.

Every function acts for the scenario running right now (``runtime.current``) and reaches the
simulation only through the runtime's :class:`~luncosim_core.api.host.Host`. Ids are entity ids
from ``find``; a bad id or a missing value gives ``()`` (or -1 / false where the shape says so),
never a crash. When the scenario declared a dependency plan, a port, pose or query access it did
not declare is a runtime error at the call, naming what was not declared.

Port names are those the runtime publishes (bodies: ``position_x`` .. ``angvel_z``, ``contact``,
``contact_count``, ``contact_force``, ``mass``, ``force_*``, ``torque_*``; revolute joints:
``angle``, ``velocity``, ``target_velocity``, ``torque``; prismatic: ``displacement``,
``velocity``, ``target_velocity``, ``force``; declared ``inputs:``/``outputs:``; program ports).
A few aliases used by existing scenarios map onto them (see ``PORT_ALIASES``).

One module per concern: :mod:`.entities`, :mod:`.ports`, :mod:`.geometry`, :mod:`.events`
(events, time, randomness), :mod:`.commands` (commands, queries, lint)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from luncosim_core.scripting.host import commands, entities, events, geometry, ports
from luncosim_core.scripting.host.commands import SCRIPT_COMMANDS, SCRIPT_QUERIES, TARGETED_QUERIES
from luncosim_core.scripting.host.guard import Guard
from luncosim_core.scripting.host.ports import PORT_ALIASES
from luncosim_core.scripting.rhai import Engine
from luncosim_core.scripting.vecmath import register_vector_helpers

if TYPE_CHECKING:
    from luncosim_core.scripting.runtime import ScenarioRuntime

__all__ = ["PORT_ALIASES", "SCRIPT_COMMANDS", "SCRIPT_QUERIES", "TARGETED_QUERIES", "bind_host_api"]


def bind_host_api(engine: Engine, rt: ScenarioRuntime) -> None:
    """Register every host function on ``engine``, acting through ``rt`` and its host."""
    register_vector_helpers(engine)
    guard = Guard(rt)
    for concern in (entities, ports, geometry, events, commands):
        for name, fn in concern.functions(rt, guard).items():
            engine.register_fn(name, fn)
