"""The runtime: fixed-step scheduler, command admission, snapshots, the worker thread."""

from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.sim.simulation import Simulation, SimulationConfig
from luncosim_core.sim.worker import CommandQueueFull, SimulationWorker

__all__ = ["CommandQueueFull", "Simulation", "SimulationConfig", "SimulationWorker", "WorkbenchSnapshot"]
