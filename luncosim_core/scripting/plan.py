"""Scenario dependency plans: what a scenario declares it reads, writes, queries and waits for.

``simulation_dependencies(me, ctx)`` returns a map with five arrays, all required:
``modelica_entities`` (ids of live Modelica programs; read and write), ``entity_reads``,
``entity_writes`` (ids), ``query_reads`` (public query names) and ``required_inputs``
(``#{owner, identity}``: the port ``identity`` of entity ``owner`` must hold a sample before
the scenario starts). A scenario without the hook declares nothing and is not checked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from luncosim_core.diagnostics import Diagnostic

PLAN_KEYS = ("modelica_entities", "entity_reads", "entity_writes", "query_reads", "required_inputs")


@dataclass
class DependencyPlan:
    """A resolved plan: prim paths, not ids, so it survives id reassignment."""

    modelica: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    queries: set[str] = field(default_factory=set)
    required_inputs: list[tuple[str, str]] = field(default_factory=list)

    def may_read(self, path: str) -> bool:
        return path in self.reads or path in self.writes or path in self.modelica

    def may_write(self, path: str) -> bool:
        return path in self.writes or path in self.modelica


def resolve_plan(value: Any, *, where: str, file: str, path_of: Callable[[Any], str | None],
                 is_modelica: Callable[[str], bool], known_queries: set[str]) -> tuple[DependencyPlan | None, list[Diagnostic]]:
    """Validate what the hook returned; every problem is a diagnostic and fails the plan."""
    diags: list[Diagnostic] = []

    def bad(msg: str) -> None:
        diags.append(Diagnostic("error", "scenario-plan-invalid", f"simulation_dependencies: {msg}",
                                path=where, layer=file, source="scenario"))

    _check_shape(value, bad)
    if diags:
        return None, diags
    plan = DependencyPlan()
    for key, into in (("entity_reads", plan.reads), ("entity_writes", plan.writes), ("modelica_entities", plan.modelica)):
        for item in value[key]:
            p = path_of(item)
            if p is None:
                bad(f"{key}: id {item!r} does not resolve to a prim on this stage")
            else:
                into.add(p)
    for p in sorted(plan.modelica):
        if not is_modelica(p):
            bad(f"modelica_entities: {p} is not a live Modelica program")
    _read_queries(value["query_reads"], known_queries, plan, bad)
    _read_inputs(value["required_inputs"], path_of, plan, bad)
    return (None if diags else plan), diags


def _check_shape(value: Any, bad: Callable[[str], None]) -> None:
    if not isinstance(value, dict):
        bad(f"must return a map with {', '.join(PLAN_KEYS)}; got {type(value).__name__}")
        return
    missing = [k for k in PLAN_KEYS if k not in value]
    if missing:
        bad(f"missing {', '.join(missing)} (all five arrays are required, even when empty)")
    extra = sorted(k for k in value if k not in PLAN_KEYS)
    if extra:
        bad(f"unknown key(s) {', '.join(extra)} (allowed: {', '.join(PLAN_KEYS)})")
    for k in PLAN_KEYS:
        if k in value and not isinstance(value[k], list):
            bad(f"'{k}' must be an array, got {type(value[k]).__name__}")


def _read_queries(items: list, known: set[str], plan: DependencyPlan, bad: Callable[[str], None]) -> None:
    for q in items:
        if not isinstance(q, str):
            bad(f"query_reads: {q!r} is not a query name")
        elif q not in known:
            bad(f"query_reads: unknown query '{q}' (known: {', '.join(sorted(known))})")
        else:
            plan.queries.add(q)


def _read_inputs(items: list, path_of: Callable[[Any], str | None], plan: DependencyPlan,
                 bad: Callable[[str], None]) -> None:
    for item in items:
        if not isinstance(item, dict) or "owner" not in item or "identity" not in item:
            bad(f"required_inputs: {item!r} is not #{{owner, identity}}")
            continue
        p = path_of(item["owner"])
        if p is None:
            bad(f"required_inputs: owner {item['owner']!r} does not resolve to a prim on this stage")
            continue
        plan.required_inputs.append((p, str(item["identity"])))
