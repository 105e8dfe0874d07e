"""Ports and wires: the port surface, its one registry, and the compiled connection fabric."""

from luncosim_core.ports.fabric import Fabric
from luncosim_core.ports.model import PortDecl, PortInfo, Wire
from luncosim_core.ports.registry import PortRegistry, PortWriteError
from luncosim_core.ports.units import UnitError, conversion

__all__ = ["Fabric", "PortDecl", "PortInfo", "PortRegistry", "PortWriteError", "UnitError", "Wire", "conversion"]
