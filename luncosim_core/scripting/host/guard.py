"""What every host function checks: planning restrictions and the scenario's dependency plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.scripting.rhai import RhaiRuntimeError

if TYPE_CHECKING:
    from luncosim_core.scripting.runtime import ScenarioRuntime


class Guard:
    """Checks on behalf of the scenario running now (``rt.current``)."""

    def __init__(self, rt: ScenarioRuntime) -> None:
        self.rt = rt

    @staticmethod
    def fail(msg: str) -> None:
        raise RhaiRuntimeError(msg)

    def no_planning(self, what: str) -> None:
        if self.rt.planning:
            self.fail(f"{what} is not allowed in simulation_dependencies (planning may only resolve ids)")

    def check_read(self, path: str, what: str) -> None:
        cur = self.rt.current
        if cur is not None and cur.plan is not None and not cur.plan.may_read(path):
            self.fail(f"{what}: {path} is not in this scenario's dependency plan "
                      "(add its id to entity_reads in simulation_dependencies)")

    def check_write(self, path: str, what: str) -> None:
        cur = self.rt.current
        if cur is not None and cur.plan is not None and not cur.plan.may_write(path):
            self.fail(f"{what}: {path} is not in this scenario's dependency plan "
                      "(add its id to entity_writes in simulation_dependencies)")

    def correlation_id(self) -> str:
        """What commands issued by the current scenario are traced as."""
        cur = self.rt.current
        return f"scenario:{cur.prim_path}" if cur is not None else "scenario"

    def current_path(self) -> str:
        cur = self.rt.current
        return cur.prim_path if cur is not None else ""

    def warn_once(self, key: tuple, code: str, message: str, path: str | None = None) -> None:
        """A warning for the current scenario, once per ``key``."""
        self.rt.warn_once(key, Diagnostic("warning", code, message, path=path or "", source="scenario"))
