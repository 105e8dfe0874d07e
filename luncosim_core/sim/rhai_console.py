"""The Rhai console's side in the simulation: ``EvalRhai`` (read only, answered between ticks) and
``RunRhai`` (with writes, admitted at a tick like any command).

One :class:`~luncosim_core.scripting.runtime.ScenarioRuntime` per simulation, built lazily on a
:class:`ConsoleHost` that wraps the simulation's host: the same host API scenarios call, the same
entity ids (positions in the stage's traversal). Its engine is separate from the scenarios', so a
console ``let`` or ``fn`` never leaks into a scenario. While writes are off, ``execute`` refuses
every command (``console-read-only``) and the refusal is reported with the result; with writes
on, commands apply at once inside the admitting tick, traced as ``console:<session>``.
Operations are capped (``CONSOLE_LIMITS``) so a runaway loop costs the simulation thread at most
about a second.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from luncosim_core.api.commands import Command, CommandResult, EvalRhai, Query, RunRhai
from luncosim_core.api.events import ConsoleLine
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.scripting.rhai import (
    Limits,
    RhaiError,
    RhaiSyntaxError,
    Scope,
    to_display,
    type_of,
)
from luncosim_core.scripting.rhai.batch import to_json_value

CONSOLE_LIMITS = Limits(max_operations=2_000_000, max_call_depth=64, max_string_size=1 << 22,
                        max_array_size=1 << 18, max_map_size=1 << 18,
                        max_memory_bytes=64 << 20)  # a session's live values together (docs/rhai.md)
MAX_PRINTED = 200  # lines of ``print`` output kept per evaluation
MAX_CODE = 64_000  # characters of one evaluation


class ConsoleHost:
    """The simulation's host with a write switch (see the module doc)."""

    def __init__(self, host) -> None:
        self._host = host
        self.writes = False
        self.session = "console"
        self.refused: list[str] = []

    def __getattr__(self, name: str) -> Any:  # time, prim_paths, read_port, pose, drive_mix ...
        return getattr(self._host, name)

    def execute(self, command: Command) -> CommandResult:
        if not self.writes:
            msg = (f"{command.name} refused: writes are off in the Rhai console "
                   "(enable them to change the simulation)")
            self.refused.append(msg)
            return CommandResult.error(Diagnostic("error", "console-read-only", msg, source="console"))
        if command.correlation_id in (None, "scenario"):
            command = dataclasses.replace(command, correlation_id=f"console:{self.session}")
        return self._host.execute(command)

    def query(self, query: Query) -> CommandResult:
        return self._host.query(query)

    def publish(self, event) -> None:
        if not isinstance(event, ConsoleLine):  # printed lines come back with the result
            self._host.publish(event)


class RhaiConsole:
    """Sessions of Rhai evaluation against one simulation (see the module doc)."""

    def __init__(self, sim) -> None:
        from luncosim_core.scripting.runtime import ScenarioRuntime

        self.host = ConsoleHost(sim.host)
        self.runtime = ScenarioRuntime(self.host, roots=getattr(sim, "roots", None), limits=CONSOLE_LIMITS)
        self.scopes: dict[str, Scope] = {}
        self._sim = sim

    def evaluate(self, code: str, session: str, *, writes: bool) -> dict:
        rt, engine = self.runtime, self.runtime.engine
        printed: list[str] = []

        def keep(line: str) -> None:
            if len(printed) < MAX_PRINTED:
                printed.append(line)

        rt.on_print = keep
        self.host.writes, self.host.session, self.host.refused = writes, session, []
        rt.begin_tick(self._sim.tick_count)
        rt.telemetry.clear()
        rt._warned.clear()  # each evaluation reports its own warnings
        rt.refresh_paths()
        out: dict[str, Any]
        try:
            if len(code) > MAX_CODE:
                raise RhaiSyntaxError(f"the code is longer than {MAX_CODE:,} characters", "console", 1, 1)
            ast = engine.compile(code, file="console")
            value = engine.run(ast, self.scopes.setdefault(session, Scope()))
            self._keep_functions(ast)
            out = {"ok": True, "type": type_of(value), "display": to_display(value), "value": to_json_value(value)}
        except RhaiError as e:
            kind = "parse" if isinstance(e, RhaiSyntaxError) else "runtime"
            out = {"ok": False, "error": {"kind": kind, "message": e.message, "line": e.line or None,
                                          "column": e.col or None}}
        except RecursionError:
            out = _failure("Stack overflow")
        except Exception as e:  # noqa: BLE001 - a host or interpreter fault must not stop the simulation
            out = _failure(f"internal error: {type(e).__name__}: {e}")
        finally:
            self.host.writes = False
        out["printed"] = printed
        out["refused"] = list(self.host.refused)
        out["warnings"] = [d.message for d in rt.take_diagnostics()
                           if not any(r in d.message for r in out["refused"])]  # a refusal is said once
        return out

    def _keep_functions(self, ast) -> None:
        """Functions defined in one evaluation are callable in the next ones."""
        fns = ast.lib.fns
        if not fns:
            return
        g = self.runtime.engine.rt.global_fns
        for key, defs in fns.items():
            g[key] = list(defs) + [f for f in g.get(key, []) if f not in defs]
        self.runtime.engine.rt.version += 1


def _failure(message: str) -> dict:
    return {"ok": False, "error": {"kind": "runtime", "message": message, "line": None, "column": None}}


def _console(sim) -> RhaiConsole:
    console = getattr(sim, "_rhai_console", None)
    if console is None:
        console = RhaiConsole(sim)
        sim._rhai_console = console
    return console


def answer_eval_rhai(sim, q: EvalRhai) -> CommandResult:
    """A read-only evaluation, answered between ticks."""
    return CommandResult(True, _console(sim).evaluate(q.code, q.session, writes=False))


def execute_run_rhai(sim, cmd: RunRhai, tick: int, seq: int) -> CommandResult:
    """An evaluation with writes, at admission inside tick ``tick``."""
    return CommandResult(True, _console(sim).evaluate(cmd.code, cmd.session, writes=True), (), tick, seq)
