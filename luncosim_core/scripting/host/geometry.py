"""Host functions over poses: ``world_pos``, ``world_rotation`` (x, y, z, w) and
``world_forward`` (the prim's -Z axis in the world)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from luncosim_core.scripting.rhai import Unit
from luncosim_core.scripting.vecmath import rotate

if TYPE_CHECKING:
    from luncosim_core.scripting.host.guard import Guard
    from luncosim_core.scripting.runtime import ScenarioRuntime


def functions(rt: ScenarioRuntime, guard: Guard) -> dict[str, Callable]:
    host = rt.host

    def pose(ident: Any, what: str):
        """(position, quaternion x-y-z-w) of an entity, or None."""
        p = rt.path_of(ident)
        if p is None:
            return None
        guard.check_read(p, what)
        found = host.pose(p)
        if found is None:
            return None
        w, x, y, z = found.orientation
        return found.position, (x, y, z, w)

    def world_pos(ident: Any) -> Any:
        r = pose(ident, "world_pos")
        return Unit if r is None else [float(x) for x in r[0]]

    def world_rotation(ident: Any) -> Any:
        r = pose(ident, "world_rotation")
        return Unit if r is None else [float(x) for x in r[1]]

    def world_forward(ident: Any) -> Any:
        r = pose(ident, "world_forward")
        return Unit if r is None else rotate(r[1], (0.0, 0.0, -1.0))

    return {"world_pos": world_pos, "world_rotation": world_rotation, "world_forward": world_forward}
