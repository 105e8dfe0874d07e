"""Make the co-simulation participants of a simulation's program prims.

The language of a program follows its source (:mod:`luncosim_core.usd.programs`): ``.mo`` /
inline Modelica -> a Modelica participant, ``.fmu`` -> an FMU participant, ``.rhai`` / inline
Rhai -> a scenario (run by the shared scenario runtime, acting through the simulation's
:class:`~luncosim_core.api.host.Host`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from luncosim_core.usd.programs import program_language, program_prims

__all__ = ["program_language", "program_participants", "program_prims"]

if TYPE_CHECKING:
    from luncosim_core.sim.simulation import Simulation



def program_participants(sim: Simulation) -> list:
    """One participant per program prim whose engine is available, ordered by prim path."""
    from luncosim_core.scripting.scenario import scenario_participants
    from luncosim_core.sim.environment_probe import probe_participants
    from luncosim_core.sim.link_query import link_port_participants
    from luncosim_core.sim.program_modelica import ModelicaProgram
    from luncosim_core.sim.program_network import network_participants
    from luncosim_core.sim.scene_sun import scene_sun_participants

    parts, members = network_participants(sim)  # network members run inside their network's model
    for prim in program_prims(sim.stage):
        if program_language(prim) in ("modelica", "fmu") and str(prim.GetPath()) not in members:
            parts.append(ModelicaProgram(sim, prim))
    parts.extend(probe_participants(sim))
    parts.extend(scene_sun_participants(sim))
    parts.extend(link_port_participants(sim))
    parts.extend(scenario_participants(sim))
    return sorted(parts, key=lambda p: p.prim_path)
