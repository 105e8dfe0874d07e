"""The typed vocabulary shared by the UI, scripts, tests and the CLI: commands and queries, the
events and snapshots the simulation publishes, and the :class:`Host` protocol through which
scripting and lint reach a running simulation. It imports nothing above ``diagnostics``."""

from luncosim_core.api.attachments import AttachBodies, DetachBodies
from luncosim_core.api.commands import (
    AddRuntimeWaypoint,
    ApplyOp,
    BodyPosition,
    CausalTrace,
    ClearPatrol,
    Command,
    CommandResult,
    DisengageAutopilot,
    EngageAutopilot,
    EvalRhai,
    GetBrokenConnections,
    Links,
    LintReport,
    ListConnections,
    ListPorts,
    ModelVariables,
    PhysicsDebugInfo,
    PossessVessel,
    Query,
    QueryUsdPrim,
    ReadPorts,
    ReleasePorts,
    ReleaseVessel,
    RunRhai,
    RuntimeWaypointStatus,
    SetAutopilotBehavior,
    SetEnvironmentLight,
    SetPorts,
    SolarPose,
    SpawnEntity,
    StateHash,
    SyncStage,
    WifiLinks,
    from_name,
)
from luncosim_core.api.events import ConsoleLine, Notification, SimEvent
from luncosim_core.api.host import Host, Pose, SimTime
from luncosim_core.api.snapshot import WorkbenchSnapshot

__all__ = [
    "BodyPosition", "Links", "SolarPose", "WifiLinks",
    "AddRuntimeWaypoint", "ApplyOp", "AttachBodies", "CausalTrace", "Command", "CommandResult", "ConsoleLine", "DetachBodies",
    "EvalRhai", "RunRhai",
    "GetBrokenConnections", "Host", "LintReport", "ListConnections", "ListPorts", "ModelVariables", "Notification", "PhysicsDebugInfo",
    "Pose", "PossessVessel", "Query", "QueryUsdPrim", "ReadPorts", "ReleasePorts", "ReleaseVessel",
    "RuntimeWaypointStatus", "SetEnvironmentLight", "SpawnEntity",
    "ClearPatrol", "DisengageAutopilot", "EngageAutopilot", "SetAutopilotBehavior",
    "SetPorts", "SimEvent", "StateHash", "SimTime", "SyncStage", "WorkbenchSnapshot", "from_name",
]
