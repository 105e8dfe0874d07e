"""Host functions over entities: ``find``, ``name``, ``parent``, ``children``, ``path``,
``list_entities`` and ``param``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from luncosim_core.scripting.rhai import Unit

if TYPE_CHECKING:
    from luncosim_core.scripting.host.guard import Guard
    from luncosim_core.scripting.runtime import ScenarioRuntime


def find_entity(rt: ScenarioRuntime, name: Any) -> int:
    """The id of the entity a path, a prim name or (a spawned entity) a display name names; -1."""
    if not isinstance(name, str):
        return -1
    if name.startswith("/"):
        return rt.id_of(name)
    for i, p in enumerate(rt.paths):
        if p.rsplit("/", 1)[-1] == name:
            return i + 1
    for i, p in enumerate(rt.paths):  # a spawned entity answers to its catalog display name
        if rt.host.display_name(p) == name:
            return i + 1
    return -1


def functions(rt: ScenarioRuntime, _guard: Guard) -> dict[str, Callable]:
    host = rt.host

    def find(name: str) -> int:
        return find_entity(rt, name)

    def name_of(ident: Any) -> Any:
        p = rt.path_of(ident)
        return Unit if p is None else p.rsplit("/", 1)[-1]

    def parent(ident: Any) -> Any:
        p = rt.path_of(ident)
        if p is None:
            return Unit
        up = p.rsplit("/", 1)[0]
        return rt.id_of(up) if up in rt.ids else Unit

    def children(ident: Any) -> list:
        p = rt.path_of(ident)
        if p is None:
            return []
        return [i + 1 for i, c in enumerate(rt.paths) if c.rsplit("/", 1)[0] == p and c != p]

    def list_entities() -> list:
        return [{"id": i + 1, "name": p.rsplit("/", 1)[-1], "path": p, "type": host.prim_type(p),
                 "catalog_id": host.catalog_id(p)} for i, p in enumerate(rt.paths)]

    def path_fn(ident: Any) -> Any:
        p = rt.path_of(ident)
        return Unit if p is None else p

    def param(ident: Any, key: str, default: Any = None) -> Any:
        p = rt.path_of(ident)
        v = host.prim_param(p, key) if p is not None and isinstance(key, str) else None
        if v is None:
            return Unit if default is None else default
        return v

    return {"find": find, "name": name_of, "parent": parent, "children": children, "path": path_fn,
            "list_entities": list_entities, "param": param}
