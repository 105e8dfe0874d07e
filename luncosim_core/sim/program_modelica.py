"""Modelica and FMU programs as co-simulation participants.

A program prim (``LunCoProgramAPI``) whose ``info:sourceAsset`` is a ``.mo`` (or whose
``info:sourceCode`` holds Modelica) or an ``.fmu``. Compilation runs on a background thread; until
the first compile commits, the participant holds simulation admission ("compiling ..."). Results
are fenced by source revision: a result for a source that changed meanwhile is discarded.

Ports: every declared ``inputs:<name>`` that is a model input is a writable input (or a wire
sink); one that names a model parameter is a parameter port (a write applies at the next
communication point); every declared ``outputs:<name>`` must be a model output. An undeclared
model output that a wire reads is published as an implicit public output (see
:mod:`luncosim_core.ports.surface`); other model variables are never ports. On a prim that is also
a rigid body, ``inputs:`` naming the body's force, torque, mass, inertia or centre of mass belong to
the physics body, not to the model. Inputs that are pending (no sample yet) keep
the model from stepping: it never runs on invented values.
"""

from __future__ import annotations

import hashlib
import math
import struct
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.ports.model import PortInfo, port_key
from luncosim_core.ports.surface import RIGID_BODY_INPUTS, is_rigid_body
from luncosim_core.usd.programs import anchor_of, asset_text

_EXECUTOR: ThreadPoolExecutor | None = None
_CACHE: dict[tuple, Future] = {}
_LOCK = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _EXECUTOR
    if _EXECUTOR is None:
        _EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="luncosim-compile")
    return _EXECUTOR


def compile_async(path: Path | None, text: str, library_roots: tuple[Path, ...]) -> Future:
    """Compile off the simulation thread; identical sources share one compile."""
    from luncosim_core.modelica import compile_model

    key = (str(path), hashlib.sha256(text.encode()).hexdigest(), library_roots)
    with _LOCK:
        fut = _CACHE.get(key)
        if fut is None:
            fut = _executor().submit(compile_model, source_path=path, source_text=text, library_roots=list(library_roots))
            _CACHE[key] = fut
            if len(_CACHE) > 256:
                _CACHE.pop(next(iter(_CACHE)))
    return fut


def _model_name(port: str) -> str:
    """The model variable behind a port name (``outputs:force_y`` -> ``force_y``)."""
    return port.partition(":")[2] if port.startswith("outputs:") else port


class ModelicaProgram:
    """One Modelica/FMU program prim stepping at its communication period."""

    kind = "modelica"
    phase = "model"

    def __init__(self, sim, prim) -> None:
        self.prim_path = str(prim.GetPath())
        self.sim = sim
        self._diags: list[Diagnostic] = []
        self.participant = None
        self.error = ""
        self.declared_in: dict[str, tuple[str, float | None]] = {}
        self.declared_out: dict[str, str] = {}
        self.declared_arrays: dict[str, tuple[str, str, tuple[float, ...] | None]] = {}  # name -> (ns, unit, values)
        self._authored_type: dict[str, str] = {}  # a port's type until the model types it
        self.implicit_out: tuple[str, ...] = ()  # undeclared model outputs that wires read
        body = is_rigid_body(prim)
        for attr in prim.GetAttributes():
            ns, _, name = attr.GetName().partition(":")
            if ns not in ("inputs", "outputs") or not name:
                continue
            if body and ns == "inputs" and name in RIGID_BODY_INPUTS:
                continue  # the body's own physics sink (force, mass, inertia, com), not a model input
            unit = str((attr.GetCustomData() or {}).get("unit", ""))
            self._authored_type[name] = str(attr.GetTypeName().scalarType)
            if attr.GetTypeName().isArray:  # element ports name[1], name[2], ... once the model is known
                value = attr.Get() if attr.HasAuthoredValue() else None
                self.declared_arrays[name] = (ns, unit, tuple(float(x) for x in value) if value is not None else None)
                continue
            if ns == "inputs":
                default = attr.Get() if attr.HasAuthoredValue() else None
                self.declared_in[name] = (unit, float(default) if isinstance(default, (int, float)) else None)
            else:
                self.declared_out[name] = unit
        self._scalar_ports = (dict(self.declared_in), dict(self.declared_out))
        self.period = sim.dt
        per = prim.GetAttribute("lunco:program:communicationPeriod") or prim.GetAttribute("info:communicationPeriod")
        if per and per.HasAuthoredValue():
            self.period = float(per.Get())
        self.every = max(1, round(self.period / sim.dt))
        if abs(self.every * sim.dt - self.period) > 1e-9 * self.period:
            self._fail("modelica.period", f"communicationPeriod {self.period} s is not a whole number of ticks ({sim.dt:.6g} s)")
        self.source_path, self.text, self.is_fmu = self._read_source(prim)
        self.revision = hashlib.sha256(self.text.encode()).hexdigest() if self.text else ""
        self.future: Future | None = None
        self.interface = None
        self._compiled_for = ""
        self._waiting_inputs = ""
        self.missing_inputs: tuple[str, ...] = ()  # inputs the last step attempt waited for
        self._loop_starts: dict[str, float] = {}  # feedback-loop start values held until a sample arrives
        self._nonfinite: set[str] = set()  # outputs last published as non-finite (reported once)
        self._params_sent: dict[str, float] = {}
        self._running = None  # the participant that has stepped (its clock follows the scene's)
        self._ended = False
        if self.error:
            return
        if self.is_fmu:
            self._open_fmu()
        else:
            self._library_roots = self.library_roots(sim)
            self.future = self.start_compile(sim)

    def start_compile(self, sim) -> Future:
        """Compile off the simulation thread (a Future of a CompiledModel)."""
        return compile_async(self.source_path, self.text, self._library_roots)

    # -- sources ---------------------------------------------------------------------------
    def library_roots(self, sim) -> tuple[Path, ...]:
        """Folders of top-level Modelica packages the source may use (besides the bundled one)."""
        return (sim.roots.lunco_root / "models",) if sim.roots is not None else ()

    def _read_source(self, prim) -> tuple[Path | None, str, bool]:
        code = prim.GetAttribute("info:sourceCode")
        asset = prim.GetAttribute("info:sourceAsset")
        if asset and asset.HasAuthoredValue():
            authored = asset_text(asset)
            roots = self.sim.roots
            if roots is None:
                path = Path(authored)
                if not path.is_absolute():
                    anchor = anchor_of(asset)
                    path = Path(anchor).parent / authored if anchor else path
            else:
                check = roots.resolve_file(authored, anchor_of(asset))
                if check.diagnostic is not None:
                    d = check.diagnostic
                    self._fail(d.code, d.message)
                    return None, "", False
                path = check.path
            if path is None or not path.exists():
                self._fail("modelica.source", f"source asset @{authored}@ not found")
                return None, "", False
            return self._read_file(path)
        if code and code.HasAuthoredValue():
            return None, str(code.Get()), False
        self._fail("modelica.source", "program prim has neither info:sourceAsset nor info:sourceCode")
        return None, "", False

    def _read_file(self, path: Path) -> tuple[Path | None, str, bool]:
        """A source file's text (an FMU's content hash): only a regular file under the size cap is
        read; a FIFO, a folder, a device or a file that is not UTF-8 text is a positioned error."""
        from luncosim_core.fsutil import (
            MAX_LAYER_BYTES,
            UnreadableFile,
            file_problem,
            read_text_limited,
        )

        fmu = path.suffix.lower() == ".fmu"
        try:
            if fmu:
                problem = file_problem(path, "FMU", MAX_LAYER_BYTES)
                if problem:
                    raise UnreadableFile(problem)
                return path, hashlib.sha256(path.read_bytes()).hexdigest(), True
            return path, read_text_limited(path, "Modelica source"), False
        except (OSError, UnreadableFile) as exc:
            message = str(exc) if isinstance(exc, UnreadableFile) else f"cannot read {path}: {exc.strerror or exc}"
            self.error = message
            self._diags.append(Diagnostic("error", "modelica.source", message, path=self.prim_path, layer=str(path),
                                          line=getattr(exc, "line", None), source="modelica"))
            return None, "", False

    def _fail(self, code: str, message: str) -> None:
        self.error = message
        self._diags.append(Diagnostic("error", code, message, path=self.prim_path, source="modelica"))

    def _open_fmu(self) -> None:
        from luncosim_core.modelica import FmuParticipant

        authored: dict[str, float | tuple[float, ...]] = {n: v for n, (_, v) in self.declared_in.items() if v is not None}
        authored.update({n: v for n, (ns, _, v) in self.declared_arrays.items() if ns == "inputs" and v is not None})
        try:  # authored parameter values apply at initialization (fixed ones included)
            self.participant = FmuParticipant(self.source_path, self.period, name=self.prim_path, parameters=authored)
        except DiagnosticError as exc:
            for d in exc.diagnostics:
                self._diags.append(Diagnostic(d.severity, d.code, d.message, path=self.prim_path, layer=d.layer, line=d.line, column=d.column, source="modelica"))
            self.error = "FMU failed to open"
            return
        except Exception as exc:  # noqa: BLE001 - never a traceback out of the scene build
            self._fail("fmu.invalid", f"FMU {self.source_path.name} cannot run: {type(exc).__name__}: {exc}")
            self.error = "FMU failed to open"
            return
        self._bind(self.participant.interface)
        self.kind = "fmu"

    def _commit(self, compiled) -> None:
        """Install a compile result (on the simulation thread)."""
        from luncosim_core.modelica import ModelicaParticipant

        if compiled.source_hash and compiled.source_hash != self.revision:
            self._diags.append(Diagnostic("info", "modelica.stale-compile",
                                          "a compile result for an older source revision was discarded", path=self.prim_path, source="modelica"))
            return
        for d in compiled.diagnostics:
            self._diags.append(Diagnostic(d.severity, d.code, d.message, path=self.prim_path, layer=d.layer, line=d.line, column=d.column, source="modelica"))
        if not compiled.ok:
            self.error = "compile failed"
            return
        try:
            self.participant = ModelicaParticipant(compiled, self.period, name=self.prim_path)
        except DiagnosticError as exc:
            self._diags.extend(exc.diagnostics)
            self.error = "model cannot run"
            return
        self._compiled_for = self.revision
        self._bind(compiled.interface)

    def _bind(self, interface) -> None:
        from luncosim_core.modelica import check_interface

        self.interface = interface
        self._expand_arrays(interface)
        params = {p.name for p in interface.parameters}
        declared_inputs = {n: (u or None) for n, (u, _) in self.declared_in.items() if n not in params}
        diags = check_interface(interface, declared_inputs, {n: (u or None) for n, u in self.declared_out.items()},
                                prim_path=self.prim_path, model_name=getattr(self.participant, "name", ""))
        # a port that declares no unit takes the model's: nothing to warn about
        diags = [d for d in diags if not (d.code == "modelica.interface.unit_unchecked" and not d.data.get("declared"))]
        self._diags.extend(diags)
        if any(d.is_error for d in diags) or self.error == "interface mismatch":
            self.error = "interface mismatch"
            closer = getattr(self.participant, "close", None)
            if closer is not None:
                closer()
            self.participant = None

    def _expand_arrays(self, interface) -> None:
        """Array ports (``double[] outputs:y``) become element ports ``y[1]`` ... of the model's array."""
        self.declared_in, self.declared_out = dict(self._scalar_ports[0]), dict(self._scalar_ports[1])
        for name, (ns, unit, values) in sorted(self.declared_arrays.items()):
            pool = (*interface.inputs, *interface.parameters) if ns == "inputs" else interface.outputs
            elements = [v.name for v in pool if v.name.startswith(name + "[")]
            where = f"{self.prim_path}.{ns}:{name}"
            if not elements:
                self._diags.append(Diagnostic("error", "modelica.interface.missing",
                                              f"prim declares array {ns[:-1]} '{name}' but the model has no array "
                                              f"{ns[:-1]} '{name}'", path=where, source="modelica"))
                self.error = "interface mismatch"
                continue
            if values is not None and len(values) != len(elements):
                self._diags.append(Diagnostic("error", "modelica.interface.shape",
                                              f"prim authors {len(values)} value(s) for '{name}' but the model's "
                                              f"'{name}' has {len(elements)} element(s)", path=where, source="modelica"))
                self.error = "interface mismatch"
                continue
            for i, element in enumerate(elements):
                if ns == "inputs":
                    self.declared_in[element] = (unit, values[i] if values is not None else None)
                else:
                    self.declared_out[element] = unit

    # -- participant protocol -------------------------------------------------------------
    def wait_reason(self, sim) -> str:
        if getattr(self, "_reload", None) is not None:
            self._commit_reload(sim)
        if self.error or self.participant is not None:
            return ""
        if self.future is not None and not self.future.done():
            name = self.source_path.name if self.source_path else "inline source"
            return f"compiling {name}"
        if self.future is not None:
            try:
                compiled = self.future.result()
            except Exception as exc:  # the compiler itself crashed
                self._fail("modelica.compile", f"compiler failed: {exc}")
                sim.rebind_participant(self)
                return ""
            self.future = None
            self._commit(compiled)
            sim.rebind_participant(self)
        return ""

    def poll_source(self, sim) -> bool:
        """Hot reload: if the source file changed, recompile in the background.

        The running model keeps stepping until the new compile commits; a compile error keeps the
        running version and reports the error. Returns True when a recompile was started.
        """
        if self.is_fmu or self.source_path is None or not self.source_path.exists():
            return False
        from luncosim_core.fsutil import UnreadableFile, read_text_limited

        try:
            text = read_text_limited(self.source_path, "Modelica source")
        except (OSError, UnreadableFile) as exc:  # replaced by something unreadable: keep what runs
            message = f"reload kept the running version: {exc}"
            if message != getattr(self, "_unreadable", ""):
                self._unreadable = message
                self._diags.append(Diagnostic("error", "modelica.source", message, path=self.prim_path,
                                              layer=str(self.source_path), line=getattr(exc, "line", None),
                                              source="modelica"))
            return False
        self._unreadable = ""
        revision = hashlib.sha256(text.encode()).hexdigest()
        if revision == self.revision:
            return False
        self.text, self.revision = text, revision
        self._reload = compile_async(self.source_path, text, getattr(self, "_library_roots", ()))
        return True

    def _commit_reload(self, sim) -> None:
        fut = getattr(self, "_reload", None)
        if fut is None or not fut.done():
            return
        self._reload = None
        compiled = fut.result()
        if compiled.source_hash != self.revision:
            return  # superseded by a newer edit: its own compile will commit
        if not compiled.ok:
            for d in compiled.diagnostics:
                self._diags.append(Diagnostic(d.severity, d.code, d.message, path=self.prim_path, layer=d.layer,
                                              line=d.line, column=d.column, source="modelica"))
            self._diags.append(Diagnostic("warning", "modelica.reload-kept",
                                          "the edited source did not compile; the running version continues",
                                          path=self.prim_path, source="modelica"))
            return
        old, old_error = self.participant, self.error
        self.error = ""
        self._commit(compiled)
        if self.participant is None:  # new interface is broken: keep the old one
            self.participant, self.error = old, old_error
            return
        self._diags.append(Diagnostic("info", "modelica.reloaded", "recompiled after a source change; state restarted",
                                      path=self.prim_path, source="modelica"))
        sim.rebind_participant(self)

    def wait_for_compile(self, timeout: float | None = None) -> None:
        if self.future is not None:
            try:
                self.future.result(timeout)
            except Exception:
                pass

    def wire_demand(self, names: frozenset[str], implicit: frozenset[str] = frozenset()) -> None:
        """Outputs wires read from this prim; ``implicit``: the undeclared model outputs among them
        (port names; ``outputs:<name>`` where the bare name is also an input of the prim)."""
        self.implicit_out = tuple(sorted(n for n in implicit if n not in self.declared_out))

    def port_infos(self) -> list[tuple[PortInfo, float]]:
        """Declared ports, typed by the model once it is compiled (units from the model)."""
        out: list[tuple[PortInfo, float]] = []
        iface = self.interface
        src = self.kind
        for name, (unit, default) in sorted(self.declared_in.items()):
            var = None
            is_param = False
            if iface is not None:
                var = iface.input(name) or iface.parameter(name)
                is_param = iface.parameter(name) is not None and iface.input(name) is None
            initial = default if default is not None else (var.start if is_param and var is not None and var.start is not None else math.nan)
            out.append((PortInfo(self.prim_path, name, "in", var.type if var else self._authored_type.get(name, "double"), (var.unit if var and var.unit else unit) or "",
                                 var.min if var else None, var.max if var else None, src, "user", True, True,
                                 ("parameter: " if is_param else "") + ((var.description or "") if var else "")), initial))
        for name, unit in sorted(self.declared_out.items()):
            var = iface.output(name) if iface is not None else None
            out.append((PortInfo(self.prim_path, name, "out", var.type if var else self._authored_type.get(name, "double"), (var.unit if var and var.unit else unit) or "",
                                 var.min if var else None, var.max if var else None, src, f"{src}:{self.prim_path}",
                                 False, True, (var.description or "") if var else ""), math.nan))
        for name in self.implicit_out:
            var = iface.output(_model_name(name)) if iface is not None else None
            if iface is not None and var is None:
                continue  # not an output of the compiled model: the wire reports itself broken
            out.append((PortInfo(self.prim_path, name, "out", "double", var.unit or "" if var else "",
                                 var.min if var else None, var.max if var else None, src, f"{src}:{self.prim_path}",
                                 False, False, "implicit public output: " + ((var.description or "") if var else "")),
                        math.nan))
        return out

    def _slots(self, reg) -> tuple[list, list]:
        """Registry slots of the inputs (name, slot, is-a-parameter) and the outputs (slot, model
        variable, port name), computed once per registry, interface and port surface (not every step)."""
        key = (reg, self.interface, self.declared_in, len(self.declared_in), self.declared_out, self.implicit_out)
        if getattr(self, "_slot_key", None) != key:
            params = {v.name for v in self.interface.parameters} if self.interface else set()
            ins = [(name, reg.index[port_key(self.prim_path, name)],
                    name in params and self.interface.input(name) is None) for name in self.declared_in]
            outs = []
            for name in (*self.declared_out, *self.implicit_out):
                i = reg.index.get(port_key(self.prim_path, name))
                if i is not None:
                    outs.append((i, _model_name(name), name))
            self._slot_cache = (ins, outs)
            self._slot_key = key
        return self._slot_cache

    def step(self, sim) -> None:
        p = self.participant
        if p is None or sim.tick_count % self.every:
            return
        reg = sim.registry
        if getattr(p, "terminated", ""):
            self._note_ended(sim, p)
            return
        values = reg.values
        fast = self._fast_io(reg, p)
        if fast is not None and self._step_fast(sim, reg, p, fast):
            return
        ins = self._slots(reg)[0]
        inputs: dict[str, float] = {}
        missing = []
        for name, i, is_param in ins:
            v = values[i]
            if is_param:
                if not math.isnan(v) and self._params_sent.get(name) != v:
                    self._set_parameter(reg, i, name, float(v))
                continue
            if math.isnan(v):
                if name in self._loop_starts:  # the loop's initial sample holds until a real one arrives
                    v = self._loop_starts[name]
                else:
                    missing.append(name)
            elif self._loop_starts:
                self._loop_starts.pop(name, None)
            inputs[name] = float(v)
        if missing and not self._start_feedback_loop(sim, p, missing, inputs):
            self.missing_inputs = tuple(missing)
            self._wait_for(sim, p, missing)
            return
        self.missing_inputs = ()
        self._waiting_inputs = ""
        self._keep_clock(p, sim.tick_count // self.every)
        p.set_inputs(inputs)
        p.step()
        self._publish(reg, p)

    def _fast_io(self, reg, p) -> tuple | None:
        """The array form of this program's port I/O with its participant: input registry slots,
        their input-vector positions, the parameter inputs, output slots and the output gather;
        None when the participant has no vector I/O (an FMU) or a port is not in its model."""
        ins, outs = self._slots(reg)
        key = (self._slot_key, p)
        if getattr(self, "_fast_key", None) != key:
            plan = None
            if hasattr(p, "input_positions"):
                plain = [(name, i) for name, i, is_param in ins if not is_param]
                positions = p.input_positions([name for name, _i in plain])
                gather = p.output_gather([var for _i, var, _name in outs])
                if positions is not None and gather is not None:
                    plan = (np.array([i for _name, i in plain], dtype=np.intp), positions,
                            [(name, i) for name, i, is_param in ins if is_param],
                            np.array([i for i, _var, _name in outs], dtype=np.intp), gather)
            self._fast_plan, self._fast_key = plan, key
        return self._fast_plan

    def _step_fast(self, sim, reg, p, plan: tuple) -> bool:
        """The usual step (every input has a finite sample, no feedback-loop start held, every
        output finite) with array I/O; False, having changed nothing but parameters, otherwise
        (the general path then decides, diagnoses and steps)."""
        if self._loop_starts:
            return False
        in_slots, positions, params, out_slots, gather = plan
        values = reg.values
        for name, i in params:
            v = values[i]
            if not math.isnan(v) and self._params_sent.get(name) != v:
                self._set_parameter(reg, i, name, float(v))
        sample = values[in_slots]
        if not np.isfinite(sample).all():
            return False
        self.missing_inputs = ()
        self._waiting_inputs = ""
        self._keep_clock(p, sim.tick_count // self.every)
        p.set_input_vector(positions, sample)
        p.step()
        out = gather()
        if np.isfinite(out).all():
            values[out_slots] = out
            self._nonfinite.clear()
        else:
            self._publish(reg, p)
        return True

    def _start_feedback_loop(self, sim, p, missing: list[str], inputs: dict[str, float]) -> bool:
        """A participant that never stepped and waits only on a loop of waiting model participants
        (:mod:`luncosim_core.sim.feedback`) starts from its missing inputs' start values."""
        from luncosim_core.sim.feedback import deadlocked

        if self._running is p or not deadlocked(sim, self, missing):
            return False
        starts = {}
        for name in missing:
            var = self.interface.input(name) if self.interface is not None else None
            starts[name] = float(var.start) if var is not None and var.start is not None else 0.0
        inputs.update(starts)
        self._loop_starts = dict(starts)
        self._diags.append(Diagnostic(
            "info", "modelica.feedback-start",
            "inputs " + ", ".join(f"{n} = {v:g}" for n, v in sorted(starts.items())) + " start from their declared "
            "start values: they close a feedback loop of participants that all wait for each other",
            path=self.prim_path, source="modelica"))
        return True

    def _wait_for(self, sim, p, missing: list[str]) -> None:
        """Inputs without a sample: wait, visibly. Before the first step that is ``info``; a
        program that stepped and lost an input sample (its source went non-finite or pending)
        says so as a warning, since its outputs now hold older values."""
        if self._running is p:
            held = ", ".join((*self.declared_out, *self.implicit_out)) or "none"
            reason = (f"input {', '.join(missing)} lost its sample; outputs ({held}) hold their values "
                      f"from t={getattr(p, 'time', 0.0):.6g} s until it returns")
            severity, code = "warning", "modelica.input-lost"
        else:
            reason = f"waiting for input {', '.join(missing)} (no sample yet)"
            severity, code = "info", "modelica.input-pending"
        if reason != self._waiting_inputs:
            self._waiting_inputs = reason
            self._diags.append(Diagnostic(severity, code, reason, path=self.prim_path, source="modelica"))
        sim.note_wait(self.prim_path, reason)

    def _publish(self, reg, p) -> None:
        """Write the model's outputs to their ports. A non-finite output (``1/(1 - time)`` at
        t = 1) is an error naming the variable and prim, and the port holds no sample (NaN =
        pending), so consumers wait visibly rather than compute with inf or keep a stale value."""
        outs = p.outputs()
        values = reg.values
        for i, var, name in self._slots(reg)[1]:
            if var not in outs:
                continue
            value = outs[var]
            if math.isfinite(value):
                values[i] = value
                if self._nonfinite:
                    self._nonfinite.discard(name)
                continue
            values[i] = math.nan
            if name not in self._nonfinite:
                self._nonfinite.add(name)
                self._diags.append(Diagnostic(
                    "error", "modelica.output.nonfinite",
                    f"output {var} of {self.prim_path} is {value!r} at t={getattr(p, 'time', 0.0):.6g} s; the port holds no "
                    "sample until the value is finite again (its consumers wait)",
                    path=f"{self.prim_path}.outputs:{name}", source="modelica", data={"variable": var}))

    def _keep_clock(self, p, now: int) -> None:
        """Step at the scene's time: a participant that has not stepped yet starts at the current
        communication point; one that stepped and then waited catches up through the points it
        missed, holding its last inputs (zero-order hold of real samples, never invented ones)."""
        if self._running is not p:
            if p.ticks != now:
                p.reset(now)
            self._running = p
            return
        while p.ticks < now and not getattr(p, "terminated", ""):
            p.step()

    def _set_parameter(self, reg, i: int, name: str, value: float) -> None:
        """Stage a parameter port's value; a refused change is reported and the port reverts."""
        try:
            self.participant.set_parameter(name, value)
        except DiagnosticError as exc:
            self._diags.extend(Diagnostic(d.severity, d.code, d.message, path=f"{self.prim_path}.inputs:{name}",
                                          layer=d.layer, source="modelica") for d in exc.diagnostics)
            old = self._params_sent.get(name, math.nan)
            reg.values[i] = old
            if i in reg.held:
                reg.held[i] = old
            return
        self._params_sent[name] = value

    def _note_ended(self, sim, p) -> None:
        reason = f"the FMU ended the simulation {p.terminated}; its outputs hold their last values"
        if not self._ended:
            self._ended = True
            self._diags.append(Diagnostic("warning", "fmu.terminated", reason, path=self.prim_path, source="modelica"))
        sim.note_wait(self.prim_path, reason)

    def reset(self, sim) -> None:
        if self.participant is not None:
            self.participant.reset()
        self._params_sent.clear()
        self._running = None
        self._ended = False
        self.missing_inputs = ()
        self._loop_starts = {}

    def state_bytes(self) -> bytes:
        if self.participant is None:
            return struct.pack("<q", 0)
        return self.participant.state_bytes()

    def take_diagnostics(self) -> list[Diagnostic]:
        """This program's diagnostics plus its model's own (warning asserts, terminate)."""
        out, self._diags = self._diags, []
        taker = getattr(self.participant, "take_diagnostics", None)
        if taker is not None:
            out += [d if d.path else Diagnostic(d.severity, d.code, d.message, path=self.prim_path, layer=d.layer,
                                                line=d.line, column=d.column, source=d.source or "modelica", data=d.data)
                    for d in taker()]
        return out

    def close(self) -> None:
        closer = getattr(self.participant, "close", None)
        if closer is not None:
            closer()
        self.participant = None
