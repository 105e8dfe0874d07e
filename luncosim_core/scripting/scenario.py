"""Rhai scenarios as co-simulation participants.

A program prim (``LunCoProgramAPI`` or ``info:sourceAsset`` / ``info:sourceCode``) whose source
is Rhai (a ``.rhai`` asset, or inline code) is a scenario. Its lifecycle:

1. compile (a syntax error fails this source revision with a positioned diagnostic);
2. ``simulation_dependencies(me, ctx)`` if defined: the plan is resolved once per revision;
   planning may only resolve ids (no ports, commands or events);
3. the top level runs once, with ``params`` (the validated ``lunco:param:*`` map) in scope;
4. the scenario waits, with a visible reason, until each ``required_inputs`` port holds a sample;
5. first tick: ``on_start(me)``; every tick: ``on_event(me, evt)`` for each event emitted in the
   previous tick, then ``on_tick(me)``; on teardown ``on_stop(me)``.

Hooks share one persistent map as ``this``. A runtime error is a diagnostic with file:line:col;
the scenario faults (no more hooks) while the simulation and the other scenarios go on.

Hot reload (:meth:`ScenarioParticipant.reload_source`): a source that does not compile keeps the
running version and reports the error. A source that compiles replaces it: the old version's
``on_stop`` runs, ``this`` starts empty, the plan and top level run again and ``on_start`` runs
on the next tick (state is NOT carried over: a new revision starts from a known state, which is
what makes a reloaded scenario behave the same as a freshly opened one)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Protocol

from luncosim_core.api.host import Host
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.scripting.compile import compile_scenario
from luncosim_core.scripting.host import SCRIPT_QUERIES
from luncosim_core.scripting.plan import DependencyPlan, resolve_plan
from luncosim_core.scripting.rhai import AST, RhaiError, Scope
from luncosim_core.scripting.runtime import ScenarioRuntime
from luncosim_core.scripting.task_tree import TaskCtx, TaskDriver, TaskTreeError
from luncosim_core.usd.programs import anchor_of, param_value, program_prims


class Projection(Protocol):
    """What scenarios are made from: a composed stage, its asset roots and the simulation's
    :class:`Host` (a ``Simulation`` is one; scripting never imports it)."""

    stage: Any
    roots: Any
    host: Host
    participants: list



def _diag(err: RhaiError, prim_path: str, what: str) -> Diagnostic:
    d = err.to_diagnostic()
    msg = f"{what}: {err.message}"
    stack = getattr(err, "call_stack", None)
    if stack:
        msg += " (in " + " <- ".join(stack) + ")"
    return Diagnostic("error", d.code, msg, path=prim_path, layer=d.layer, line=d.line,
                      column=d.column, source="scenario")


class ScenarioParticipant:
    """One scenario prim, run by the shared :class:`ScenarioRuntime`."""

    kind = "scenario"
    phase = "script"

    def __init__(self, runtime: ScenarioRuntime, prim_path: str, source: str, file: str,
                 params: dict[str, Any], source_path: Path | None = None,
                 initial_diagnostics: list[Diagnostic] | None = None) -> None:
        self.runtime = runtime
        self.prim_path = prim_path
        self.file = file
        self.source_path = source_path
        self.params = params
        self.diagnostics: list[Diagnostic] = list(initial_diagnostics or [])
        self.history: list[Diagnostic] = []  # diagnostics already taken by the scheduler
        self.source = source
        self.revision = 0
        self.ast: AST | None = None
        self.scope = Scope()
        self.this: dict = {}
        self.plan: DependencyPlan | None = None
        self.state = "new"  # new | prepared | failed | faulted | stopped
        self.started = False
        self._task = TaskDriver()
        self._task_events: list[tuple[str, Any]] = []
        self.fault: Diagnostic | None = None
        self.subscriptions: set[str] = set()
        self.subscription_prefixes: set[str] = set()
        self.rand_calls = 0
        self._stamp: tuple[int, int] | None = None
        if source_path is not None:
            try:
                st = source_path.stat()
                self._stamp = (st.st_mtime_ns, st.st_size)
            except OSError:
                pass
        if source is None:
            self.state = "failed"
        else:
            self._compile(source)

    # -- identity --------------------------------------------------------------------
    @property
    def me(self) -> int:
        return self.runtime.id_of(self.prim_path)

    # -- compile / prepare -------------------------------------------------------------
    def _compile(self, source: str) -> bool:
        try:
            ast = compile_scenario(self.runtime.engine, source, self.file, {"params": dict(self.params)})
        except RhaiError as err:
            self.diagnostics.append(_diag(err, self.prim_path, "scenario does not compile"))
            if self.ast is None:
                self.state = "failed"
            return False
        self.ast = ast
        self.source = source
        self.revision += 1
        self.state = "new"
        return True

    def _call(self, name: str, args: list) -> Any:
        rt = self.runtime
        prev, rt.current = rt.current, self
        try:
            return rt.engine.call_fn(self.ast, name, args, this=self.this, scope=self.scope)
        finally:
            rt.current = prev

    def _fault(self, err: RhaiError, what: str) -> None:
        d = _diag(err, self.prim_path, what)
        self.fault = Diagnostic("error", "scenario-runtime-error", d.message, path=self.prim_path,
                                layer=d.layer, line=d.line, column=d.column, source="scenario",
                                data={"kind": err.kind})
        self.diagnostics.append(self.fault)
        self.state = "faulted"
        if err.message.startswith("memory budget exceeded"):
            # its values count against the engine every scenario shares: let them go, so the
            # other scenarios keep their room (a faulted scenario runs no hook until a reset)
            old, self.this = self.this, {}
            if isinstance(old, dict):
                old.clear()  # a frame or a held scope may still point at it: empty it in place
            self.scope.held_this = None
            self.scope = Scope()

    def prepare(self) -> None:
        """Plan, then top level; idempotent. Called before the first tick of a revision."""
        if self.state != "new" or self.ast is None:
            return
        rt = self.runtime
        engine = rt.engine
        self.this = {}
        self.scope = Scope()
        self.scope.push_constant("params", dict(self.params))
        self.plan = None
        self.started = False
        self._task = TaskDriver()
        self._task_events: list[tuple[str, Any]] = []
        if engine.has_fn(self.ast, "simulation_dependencies", 2):
            rt.planning = True
            try:
                value = self._call("simulation_dependencies", [self.me, dict(self.params)])
            except RhaiError as err:
                self.diagnostics.append(_diag(err, self.prim_path, "simulation_dependencies failed"))
                self.state = "failed"
                return
            finally:
                rt.planning = False
            plan, diags = resolve_plan(
                value, where=self.prim_path, file=self.file, path_of=rt.path_of,
                is_modelica=lambda p: rt.host.program_kind(p) == "modelica",
                known_queries=set(SCRIPT_QUERIES))
            self.diagnostics += diags
            if plan is None:
                self.state = "failed"
                return
            self.plan = plan
        prev, rt.current = rt.current, self
        try:
            engine.run(self.ast, self.scope)
        except RhaiError as err:
            self._fault(err, "scenario top level failed")
            return
        finally:
            rt.current = prev
        self.state = "prepared"

    # -- participant protocol ---------------------------------------------------------------
    def port_infos(self) -> list:
        return []

    def wait_reason(self, _sim: object = None) -> str:
        if self.state == "new":
            self.prepare()
        if self.state != "prepared" or self.plan is None or self.started:
            return ""
        host = self.runtime.host
        for path, name in self.plan.required_inputs:
            key = f"{path}.{name}"
            if not host.has_port(path, name):
                self.diagnostics.append(Diagnostic(
                    "error", "scenario-input-missing",
                    f"required input {key} does not exist (no producer publishes it)",
                    path=self.prim_path, layer=self.file, source="scenario"))
                self.state = "failed"
                return ""
            if host.read_port(path, name) is None:
                return f"waiting for required input {key} (no sample yet)"
        return ""

    def step(self, _sim: object = None) -> None:
        rt = self.runtime
        rt.begin_tick(rt.host.time().tick)
        if self.state == "new":
            self.prepare()
        if self.state != "prepared":
            return
        ast = self.ast
        has = rt.engine.has_fn
        me = self.me
        try:
            if not self.started:
                self.started = True
                if has(ast, "on_start", 1):
                    self._call("on_start", [me])
                for driver in ("__init_task", "__init_mission"):  # prelude drivers, when present
                    if self._defined(driver, 1):
                        self._call(driver, [me])
            self._deliver_events(me)
            if has(ast, "on_tick", 1):
                self._call("on_tick", [me])
            self._tick_task(me)
            if self._defined("__run_mission", 1):
                self._call("__run_mission", [me])
        except RhaiError as err:
            self._fault(err, "scenario hook failed")
        except TaskTreeError as err:
            self.fault = Diagnostic("error", "scenario-runtime-error", f"this.task does not compile: {err}",
                                    path=self.prim_path, source="scenario")
            self.diagnostics.append(self.fault)
            self.state = "faulted"

    def _defined(self, name: str, arity: int) -> bool:
        """A function of the script or of a global module (the prelude)."""
        eng = self.runtime.engine
        return eng.has_fn(self.ast, name, arity) or (name, arity) in eng.rt.global_fns

    def _deliver_events(self, me: int) -> None:
        rt, ast = self.runtime, self.ast
        self._task_events = [(ev.name, ev.source) for ev in rt.inbox]
        if not rt.inbox:
            return
        note = self._defined("__note_task_event", 2)
        on_event = rt.engine.has_fn(ast, "on_event", 2)
        subs, prefixes = self.subscriptions, self.subscription_prefixes
        for ev in rt.inbox:
            if note:
                self._call("__note_task_event", [me, ev.to_script()])
            if not on_event or ((subs or prefixes) and ev.name not in subs
                                and not any(ev.name.startswith(p) for p in prefixes)):
                continue
            self._call("on_event", [me, ev.to_script()])

    def _tick_task(self, me: int) -> None:
        """The native task driver over ``this.task`` (see :mod:`luncosim_core.scripting.task_tree`)."""
        spec = self.this.get("task") if isinstance(self.this, dict) else None
        if not isinstance(spec, dict):
            return
        rt = self.runtime
        eng = rt.engine

        def call(fp):
            prev, rt.current = rt.current, self
            try:
                return eng.call_fn_ptr(fp, [me], this=self.this, ast=self.ast, scope=self.scope)
            finally:
                rt.current = prev

        now = rt.host.time()
        ctx = TaskCtx(call=call, now=float(now.time), events=list(self._task_events),
                      resolve=lambda src: rt.id_of(src) if isinstance(src, str) else src)
        status = self._task.tick(spec, ctx)
        if status is not None:
            prev, rt.current = rt.current, self
            try:
                rt.emit("TASK_COMPLETE" if status == "success" else "TASK_FAILED", 0)
            finally:
                rt.current = prev

    def reset(self, _sim: object = None) -> None:
        self._stop()
        if self.ast is not None:
            self.state = "new"
        self.fault = None

    def _stop(self) -> None:
        if self.started and self.state == "prepared" and self.ast is not None \
                and self.runtime.engine.has_fn(self.ast, "on_stop", 1):
            try:
                self._call("on_stop", [self.me])
            except RhaiError as err:
                self._fault(err, "on_stop failed")
        self.started = False
        self._task = TaskDriver()
        self._task_events: list[tuple[str, Any]] = []

    def state_bytes(self) -> bytes:
        from luncosim_core.scripting.rhai import to_debug

        h = hashlib.sha256()
        h.update(f"{self.state}|{self.started}|{self.revision}|".encode())
        h.update(to_debug(self.this).encode())
        return h.digest()

    def take_diagnostics(self) -> list[Diagnostic]:
        out, self.diagnostics = self.diagnostics, []
        out += self.runtime.take_diagnostics()
        self.history += out
        return out

    def all_diagnostics(self) -> list[Diagnostic]:
        """Everything this scenario reported so far (taken or not)."""
        return self.history + self.diagnostics

    def close(self) -> None:
        if self.state == "prepared":
            self._stop()
        if self.state != "failed":
            self.state = "stopped"

    # -- hot reload ---------------------------------------------------------------------
    def reload_source(self, source: str | None = None) -> list[Diagnostic]:
        """Recompile from ``source`` (or re-read the asset file). On a compile error the
        running version keeps running and the error is returned (and reported)."""
        if source is None:
            if self.source_path is None:
                return []
            source, d = read_source(self.source_path, self.prim_path)
            if d is not None:
                self.diagnostics.append(d)
                return [d]
        before = len(self.diagnostics)
        old_ast, old_state = self.ast, self.state
        if old_ast is not None and old_state == "prepared":
            probe = self._probe(source)
            if probe is not None:
                self.diagnostics.append(probe)
                return [probe]
            self._stop()
        if not self._compile(source):
            self.state = old_state if old_ast is not None else "failed"
            return self.diagnostics[before:]
        self.fault = None
        return self.diagnostics[before:]

    def _probe(self, source: str) -> Diagnostic | None:
        try:
            compile_scenario(self.runtime.engine, source, self.file, {"params": {}})
        except RhaiError as err:
            return _diag(err, self.prim_path, "reload kept the running version; the new source does not compile")
        return None

    def source_changed(self) -> bool:
        """Does the asset file on disk differ from the running source? Cheap when nothing
        changed (a stat); the text is compared only when the file's stamp moved."""
        if self.source_path is None:
            return False
        try:
            st = self.source_path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            text, _ = read_source(self.source_path, self.prim_path)
            return text != self.source  # unreadable: changed (the reload reports why)
        except OSError:
            return False


# ---------------------------------------------------------------------------------------
def scenario_source(prim, roots) -> tuple[str | None, str, Path | None, list[Diagnostic]]:
    """(source text, file label, file path, diagnostics) of a scenario prim; source is None
    when it cannot be read. The source is chosen as in :func:`_source_kind`."""
    path = str(prim.GetPath())
    kind = _source_kind(prim)
    if kind == "code":
        return str(prim.GetAttribute("info:sourceCode").Get()), f"{path}.info:sourceCode", None, []
    attr = prim.GetAttribute("info:sourceAsset")
    asset = attr.Get() if attr else None
    authored = asset.path if asset is not None else ""
    resolved = getattr(asset, "resolvedPath", "") if asset is not None else ""
    if not authored:
        return None, path, None, [Diagnostic("error", "scenario-source-missing",
                                             f"{path} has neither info:sourceCode nor info:sourceAsset",
                                             path=path, source="scenario")]
    file: Path | None = None
    if roots is not None:
        check = roots.resolve_file(authored, anchor_of(attr))
        if check.refused:
            d = check.diagnostic
            return None, authored, None, [Diagnostic(d.severity, d.code, f"{path} info:sourceAsset: {d.message}",
                                                     path=path, source="scenario")]
        file = check.path
    elif resolved:
        file = Path(resolved)
    if file is None or not file.exists():
        return None, authored, None, [Diagnostic("error", "asset-missing",
                                                 f"{path} info:sourceAsset @{authored}@ not found",
                                                 path=path, source="scenario")]
    text, problem = read_source(file, path)
    if problem is not None:
        return None, str(file), None, [problem]
    return text, str(file), file, []


def read_source(file: Path, prim_path: str, what: str = "scenario source") -> tuple[str | None, Diagnostic | None]:
    """A scenario file's text, or why it cannot be read (``scenario-source-unreadable``, naming
    the file, the prim and, for text that is not UTF-8, the line): only a regular file under the
    size cap (:data:`luncosim_core.fsutil.MAX_TEXT_BYTES`) is read, so a FIFO cannot hang a run."""
    from luncosim_core.fsutil import UnreadableFile, read_text_limited

    try:
        return read_text_limited(file, what), None
    except (OSError, UnreadableFile) as exc:
        message = str(exc) if isinstance(exc, UnreadableFile) else f"cannot read {file}: {exc.strerror or exc}"
        return None, Diagnostic("error", "scenario-source-unreadable", message, path=prim_path, layer=str(file),
                                line=getattr(exc, "line", None), source="scenario")


def _source_kind(prim) -> str | None:
    """Which source a program uses: ``info:implementationSource`` when authored, else the asset
    when one is authored, else inline code."""
    impl = prim.GetAttribute("info:implementationSource")
    if impl and impl.HasAuthoredValue():
        v = str(impl.Get())
        if v in ("sourceAsset", "sourceCode"):
            return "asset" if v == "sourceAsset" else "code"
    for name, kind in (("info:sourceAsset", "asset"), ("info:sourceCode", "code")):
        a = prim.GetAttribute(name)
        if a and a.HasAuthoredValue() and a.Get():
            return kind
    return None


_MODELICA_RE = re.compile(r"^\s*(within\b|(partial\s+)?(model|block|package|class)\s+\w+)", re.M)


def is_rhai_program(prim) -> bool:
    """Rhai when the source asset is a ``.rhai`` file, or for inline ``info:sourceCode`` when its
    language (``info:sourceCode:language`` or ``info:language``) says rhai, or, with no language
    given, when the code is neither Modelica nor markup (XML)."""
    kind = _source_kind(prim)
    if kind == "asset":
        asset = prim.GetAttribute("info:sourceAsset").Get()
        text = asset.path if hasattr(asset, "path") else str(asset)
        return text.lower().endswith(".rhai")
    if kind != "code":
        return False
    for name in ("info:sourceCode:language", "info:language"):
        lang = prim.GetAttribute(name)
        if lang and lang.HasAuthoredValue():
            return str(lang.Get()).strip().lower() == "rhai"
    text = str(prim.GetAttribute("info:sourceCode").Get() or "")
    # neither Modelica nor markup (behaviour-tree XML and the like are other engines' sources)
    return not _MODELICA_RE.search(text) and not text.lstrip().startswith("<")


def scenario_params(prim) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The validated ``lunco:param:*`` map: numbers become floats; bools and strings stay."""
    out: dict[str, Any] = {}
    diags: list[Diagnostic] = []
    for attr in prim.GetAttributes():
        name = attr.GetName()
        for ns in ("lunco:param:", "lunco:params:"):
            if name.startswith(ns) and attr.HasAuthoredValue():
                v = param_value(attr.Get())
                if isinstance(v, str) and not isinstance(attr.Get(), str):
                    diags.append(Diagnostic("warning", "scenario-param-type",
                                            f"{name} has type {attr.GetTypeName()}; scenario parameters are "
                                            "numbers, bools or strings (passed as text)",
                                            path=str(prim.GetPath()), source="scenario"))
                out[name[len(ns):]] = v
    return dict(sorted(out.items())), diags


def scenario_participants(sim: Projection) -> list[ScenarioParticipant]:
    """A participant for every Rhai scenario prim of ``sim.stage``, sorted by prim path, all
    sharing one :class:`ScenarioRuntime` (one engine, the prelude loaded once) that acts
    through ``sim.host``."""
    prims = sorted((p for p in program_prims(sim.stage) if is_rhai_program(p)), key=lambda p: str(p.GetPath()))
    if not prims:
        return []
    roots = getattr(sim, "roots", None)
    runtime = ScenarioRuntime(sim.host, roots=roots)
    out = []
    for prim in prims:
        source, file, path, diags = scenario_source(prim, roots)
        params, pdiags = scenario_params(prim)
        out.append(ScenarioParticipant(runtime, str(prim.GetPath()), source, file, params, path,
                                       diags + pdiags))
    return out


def scenarios_of(sim: Projection) -> list[ScenarioParticipant]:
    return [p for p in sim.participants if isinstance(p, ScenarioParticipant)]


def reload_changed_sources(sim: Projection) -> list[Diagnostic]:
    """The file-watch hook: reload every scenario whose asset file changed on disk."""
    out: list[Diagnostic] = []
    for part in scenarios_of(sim):
        if part.source_changed():
            out += part.reload_source()
    return out
