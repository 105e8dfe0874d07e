"""Modelica programs: compile with rumoca, step on CasADi at a fixed tick, run FMUs with fmpy."""

from luncosim_core.modelica.compiler import BUNDLED_LIBRARY, CompiledModel, compile_model
from luncosim_core.modelica.fmu import FmuParticipant
from luncosim_core.modelica.interface import ModelInterface, Variable, check_interface
from luncosim_core.modelica.open import open_participant
from luncosim_core.modelica.participant import ModelicaParticipant

__all__ = [
    "BUNDLED_LIBRARY",
    "CompiledModel",
    "FmuParticipant",
    "ModelInterface",
    "ModelicaParticipant",
    "Variable",
    "check_interface",
    "compile_model",
    "open_participant",
]
