"""The typed command/query vocabulary shared by the UI, scripts, tests and the CLI."""

from luncosim_core.api.attachments import AttachBodies, DetachBodies
from luncosim_core.api.commands import (
    ApplyOp,
    CausalTrace,
    Command,
    CommandResult,
    GetBrokenConnections,
    ListConnections,
    ListPorts,
    Query,
    QueryUsdPrim,
    ReadPorts,
    ReleasePorts,
    SetEnvironmentLight,
    SetPorts,
    from_name,
)

__all__ = [
    "ApplyOp", "AttachBodies", "CausalTrace", "Command", "CommandResult", "DetachBodies", "GetBrokenConnections",
    "ListConnections", "ListPorts", "Query", "QueryUsdPrim", "ReadPorts", "ReleasePorts", "SetEnvironmentLight",
    "SetPorts", "from_name",
]
