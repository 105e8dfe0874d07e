"""Rhai and Modelica source, generated from their grammar and mutated from real files of ours.

Rhai runs in the real interpreter under the limits a scenario gets (operations, call depth, sizes,
expression depth): every input ends in a value or a positioned :class:`RhaiError`. Modelica goes
the way ``luncosim run`` takes it: the compile server's child process (a crash or a memory blow-up
is a diagnostic there), then, when it compiles, ten communication periods of the stepper: every
input ends in a result or a diagnostic."""

from __future__ import annotations

import time

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.scripting.rhai import Engine, Limits, RhaiError
from tests.fuzz.budget import fuzz, fuzz_mark
from tests.fuzz.strategies import (
    modelica_model,
    modelica_seeds,
    mutated,
    mutated_text,
    rhai_program,
    seed_files,
)

RHAI_LIMITS = Limits(max_operations=50_000, max_call_depth=32, max_expr_depth=256, max_string_size=1 << 20,
                     max_array_size=1 << 16, max_map_size=1 << 16)
RHAI_SECONDS = 10.0  # the operation limit must stop any input well inside this
MODELICA_SECONDS = 60.0  # compile (child, bounded by the server's timeout) + ten steps


def _rhai(source: str, outcome, target: str) -> None:
    engine = Engine(RHAI_LIMITS)
    engine.on_print = engine.on_debug = lambda _s: None
    t0 = time.perf_counter()
    try:
        engine.eval(source, file="fuzz.rhai")
    except RhaiError as err:
        d = err.to_diagnostic()
        assert d.code and d.message  # a diagnostic that says what
        outcome(target, "diagnostic (limit)" if getattr(err, "kind", "") == "limit" else "diagnostic")
    else:
        outcome(target, "result")
    assert time.perf_counter() - t0 < RHAI_SECONDS


@fuzz_mark(RHAI_SECONDS)
def test_generated_rhai(outcome, timer):
    fuzz(rhai_program(), lambda source: _rhai(source, outcome, "rhai (grammar)"), ci_examples=60,
         record_time=timer, record=outcome, target="rhai (grammar)")


@fuzz_mark(RHAI_SECONDS)
def test_mutated_rhai(outcome, timer):
    fuzz(mutated(seed_files((".rhai",))), lambda data: _rhai(data.decode("utf-8", "replace"), outcome, "rhai (mutated)"),
         ci_examples=150, record_time=timer, record=outcome, target="rhai (mutated)")


def _modelica(source: str, outcome, target: str) -> None:
    from luncosim_core.modelica.compiler import compile_model
    from luncosim_core.modelica.participant import ModelicaParticipant

    t0 = time.perf_counter()
    compiled = compile_model(source_text=source)
    if not compiled.ok:
        assert compiled.diagnostics and all(isinstance(d, Diagnostic) and d.code for d in compiled.diagnostics)
        crashed = any(d.code.startswith("modelica.compiler_") for d in compiled.diagnostics)
        outcome(target, "diagnostic (compiler crash contained)" if crashed else "diagnostic")
        return
    try:
        part = ModelicaParticipant(compiled, name="/Fuzz")
        for _ in range(10):
            part.step()
    except DiagnosticError as err:
        assert err.diagnostics and all(d.code for d in err.diagnostics)
        outcome(target, "diagnostic (at run time)")
    else:
        outcome(target, "result")
    assert time.perf_counter() - t0 < MODELICA_SECONDS


@fuzz_mark(MODELICA_SECONDS)
def test_generated_modelica(outcome, timer):
    fuzz(modelica_model(), lambda source: _modelica(source, outcome, "modelica (grammar)"), ci_examples=25,
         record_time=timer, record=outcome, target="modelica (grammar)")


@fuzz_mark(MODELICA_SECONDS)
def test_mutated_modelica(outcome, timer):
    fuzz(mutated_text(modelica_seeds()), lambda data: _modelica(data.decode("utf-8", "replace"), outcome, "modelica (mutated)"),
         ci_examples=25, record_time=timer, record=outcome, target="modelica (mutated)")
