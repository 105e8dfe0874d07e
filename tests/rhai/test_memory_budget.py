"""The memory budget of an engine (``Limits.max_memory_bytes``): all live values together.

The growth patterns of the hardening issue (1,000 pushes of a 1,000,000-element array, 1,000
strings of 16 MB, a map of arrays) each grew past 3 GB under the per-container limits; with
the scenario budget (256 MB, ``DEFAULT_LIMITS``) each is refused with "memory budget exceeded"
at its line, in a few seconds and bounded memory, by ``luncosim rhai`` with exit 1. Values a
script frees do not count; a Python ``MemoryError`` becomes the same kind of error.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from luncosim_core.scripting.rhai import Engine, Limits, RhaiLimitError, Scope
from luncosim_core.scripting.runtime import DEFAULT_LIMITS

MB = 1 << 20

PUSHES = "let a = []; a.pad(1000000, 0);\nlet keep = [];\nfor i in 0..1000 { keep.push(#{a: a}); }\nkeep.len()"
STRINGS = 'let keep = [];\nfor i in 0..1000 {\n    let s = ""; s.pad(16000000, "x");\n    keep.push(s);\n}\nkeep.len()'
MAP_OF_ARRAYS = 'let m = #{};\nfor i in 0..1000 {\n    let a = []; a.pad(1000000, i);\n    m["k" + i] = a;\n}\nm.len()'
# (the line each pattern is refused at)
GROWTH = {"pushes": (PUSHES, 3), "strings": (STRINGS, 3), "map of arrays": (MAP_OF_ARRAYS, 4)}

# Runs a script as `luncosim rhai --eval` does (DEFAULT_LIMITS), reporting the outcome, the
# time it took and the peak memory of the process.
_CHILD = textwrap.dedent("""
    import json, resource, sys, time
    from luncosim_core.scripting.testrunner import run_rhai
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    errors = []
    t = time.perf_counter()
    rc = run_rhai(code=sys.argv[1], out=lambda s: None, err=errors.append)
    print(json.dumps({"rc": rc, "errors": errors, "seconds": time.perf_counter() - t,
                      "rss_before_mb": before / 1024,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
""")


def _run_child(code: str) -> dict:
    p = subprocess.run([sys.executable, "-c", _CHILD, code], capture_output=True, text=True,
                       timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_the_scenario_limits_carry_a_memory_budget():
    assert DEFAULT_LIMITS.max_memory_bytes == 256 * MB
    assert Limits().max_memory_bytes == 0  # a bare engine has none unless its host sets one


@pytest.mark.parametrize("name", list(GROWTH))
def test_each_growth_pattern_is_refused_quickly_in_bounded_memory(name):
    code, line = GROWTH[name]
    out = _run_child(code)
    assert out["rc"] == 1
    [err] = out["errors"]
    assert "memory budget exceeded" in err and "MB of 256 MB" in err, err
    assert f"(<eval>:{line}:" in err, err
    assert out["seconds"] < 20, out  # a few seconds on a quiet machine
    # the budget plus the working copies of one allocation, far from the 3 GB it reached
    assert out["rss_mb"] - out["rss_before_mb"] < 600, out


def _luncosim(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "luncosim_core.cli", *args], capture_output=True,
                       text=True, timeout=300, input=stdin)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def test_luncosim_rhai_exits_1_with_the_positioned_budget_error(tmp_path):
    script = tmp_path / "hog.rhai"
    script.write_text(STRINGS, encoding="utf-8")
    for args in ([str(script)], ["--eval", STRINGS]):
        p = _luncosim("rhai", *args)
        assert p.returncode == 1
        label = str(script) if args[0] == str(script) else "<eval>"
        assert "memory budget exceeded:" in p.stderr and f"({label}:3:" in p.stderr, p.stderr


def test_batch_requests_have_the_budget_and_may_set_it():
    reqs = [json.dumps({"code": "let k = []; loop { k.push(#{a: 0, b: 1}); }",
                        "limits": {"max_memory_bytes": 4 * MB, "max_operations": 0}}),
            json.dumps({"code": "1 + 1", "limits": {"max_memory_bytes": 0}})]
    p = _luncosim("rhai", "--jsonl", stdin="\n".join(reqs) + "\n")
    first, second = (json.loads(x) for x in p.stdout.splitlines())
    assert not first["ok"] and first["error"]["message"].startswith("memory budget exceeded: ")
    assert "MB of 4 MB" in first["error"]["message"] and first["error"]["line"] == 1
    assert second["ok"] and second["value"] == 2


# ── in process, with small budgets ──────────────────────────────────────────────────────

def _budget_error(src: str, budget: int = 16 * MB, **limits: int) -> RhaiLimitError:
    eng = Engine(Limits(max_memory_bytes=budget, **limits))
    with pytest.raises(RhaiLimitError) as info:
        eng.eval(src)
    assert info.value.message.startswith("memory budget exceeded: "), info.value
    return info.value


@pytest.mark.parametrize("src", [
    "let a = []; loop { a.push(|| 1); }",  # closures
    'let s = "x"; loop { s += s; }',  # doubling a string
    'let s = "x"; loop { s = `${s}${s}`; }',  # by interpolation
    'let m = #{}; let i = 0; loop { m["k" + i] = i; i += 1; }',  # map entries
    "let m = #{}; let i = 0; loop { m.set(`k${i}`, i); i += 1; }",
    "let a = []; loop { a += [1, 2, 3]; }",  # arrays growing by `+=`
    "let a = []; loop { a.append([1.5, 2.5]); }",
    "let b = blob(); loop { b += blob(1000); }",  # blobs
    'let big = ""; big.pad(1000000, "x"); let keep = []; loop { big[0] = \'y\'; keep.push(big); }',
    'let m = #{}; for i in 0..1000 { m["k" + i] = 0; } let keep = []; loop { keep.push(m); }',
])
def test_growth_through_every_kind_of_allocation_is_refused(src):
    err = _budget_error(src)
    assert err.line == 1 and err.col > 1


def test_an_allocation_that_would_pass_the_budget_is_refused_before_it_is_made():
    err = _budget_error('let big = ""; big.pad(4000000, "x"); let c = big.chars(); c.len()')
    assert err.col == 50  # `big.chars()`: 4 M characters would take ~250 MB
    for src in ('let s = ""; s.pad(1000000000000, "y");', "let a = []; a.pad(1000000000000, 0);",
                "blob(1000000000000)"):
        _budget_error(src)


def test_values_held_in_frames_and_temporaries_count():
    # 60 nested calls each holding 1 MB in a local variable
    err = _budget_error('fn f(n) { let s = ""; s.pad(1000000, "y"); if n > 0 { f(n - 1) } else { 0 } } '
                        "f(60)")
    assert len(err.call_stack) > 10
    # the results `map` is building (not yet in any variable)
    _budget_error('let a = []; a.pad(1000, 0); a.map(|x| { let s = ""; s.pad(1000000, "z"); s }).len()')
    # arguments being evaluated
    _budget_error('fn g(a, b) { b } fn f(n) { let s = ""; s.pad(1000000, "q"); '
                  'if n == 0 { 0 } else { g(s + "", f(n - 1)) } } f(60)')


def test_allocating_and_freeing_within_the_budget_keeps_running():
    eng = Engine(Limits(max_memory_bytes=32 * MB))
    src = ('let t = 0; for i in 0..100 { let s = ""; s.pad(4000000, "x"); let a = []; '
           "a.pad(100000, i); let m = #{a: a, s: s}; t += m.s.len() + m.a.len(); } t")
    assert eng.eval(src) == 100 * 4_100_000
    assert eng.rt.meter.measures > 5  # 400 MB allocated in all: the live values were measured
    assert eng.rt.meter.live < 32 * MB


def test_state_kept_across_calls_counts_and_freeing_it_makes_room():
    eng = Engine(Limits(max_memory_bytes=24 * MB))
    ast = eng.compile('fn grow() { let s = ""; s.pad(4000000, "x"); this.keep.push(s); }\n'
                      "fn drop() { this.keep = []; }")
    this, scope = {"keep": []}, Scope()
    with pytest.raises(RhaiLimitError, match="memory budget exceeded") as info:
        for _ in range(20):
            eng.call_fn(ast, "grow", this=this, scope=scope)
    assert info.value.line == 1 and 4 <= len(this["keep"]) <= 6
    eng.call_fn(ast, "drop", this=this, scope=scope)
    for _ in range(4):  # room again
        eng.call_fn(ast, "grow", this=this, scope=scope)


def test_every_scope_a_host_runs_the_engine_with_counts_while_it_lives():
    eng = Engine(Limits(max_memory_bytes=24 * MB))
    ast = eng.compile('fn grow() { let s = ""; s.pad(9000000, "x"); this.s = s; }')
    a, b, c = {}, {}, {}
    sa, sb, sc = Scope(), Scope(), Scope()
    eng.call_fn(ast, "grow", this=a, scope=sa)
    eng.call_fn(ast, "grow", this=b, scope=sb)
    with pytest.raises(RhaiLimitError, match="memory budget exceeded"):
        eng.call_fn(ast, "grow", this=c, scope=sc)  # 3 x 8.6 MB: the other two still hold theirs
    del sa, a
    eng.call_fn(ast, "grow", this=c, scope=sc)  # the first host scope is gone


def test_the_message_gives_live_and_budget_in_mb():
    err = _budget_error('let keep = []; loop { let s = ""; s.pad(1000000, "x"); keep.push(s); }',
                        budget=8 * MB)
    assert err.message.endswith(" MB of 8 MB")
    live = float(err.message.split(": ")[1].split(" MB")[0])
    assert 8 <= live <= 8 + 8 / 16 + 1.1  # up to a sixteenth over, plus the refused string


def test_an_engine_without_a_budget_has_no_meter():
    eng = Engine()
    assert eng.rt.meter is None
    assert eng.eval('let s = ""; s.pad(3000000, "x"); s.len()') == 3_000_000


# ── a Python MemoryError ────────────────────────────────────────────────────────────────

class _Exhausting:
    """A host value whose iteration runs out of memory (inside compiled code, not a native)."""

    def __rhai_iter__(self):
        raise MemoryError


@pytest.mark.parametrize("budget", [0, 64 * MB])
def test_a_python_memory_error_becomes_the_positioned_budget_error(budget):
    eng = Engine(Limits(max_memory_bytes=budget))

    def exhaust(_n):
        raise MemoryError

    eng.register_fn("exhaust", exhaust)
    scope = Scope().push("big", _Exhausting())
    with pytest.raises(RhaiLimitError, match="memory budget exceeded: the process ran out of memory") \
            as info:
        eng.eval("let x = 1;\nexhaust(x)", scope)
    assert (info.value.line, info.value.col) == (2, 1)
    with pytest.raises(RhaiLimitError, match="ran out of memory") as info:
        eng.eval("let n = 0;\nfor x in big { n += 1; }", scope)
    assert info.value.line == 2
    ast = eng.compile("fn hook() {\n    exhaust(1)\n}")
    with pytest.raises(RhaiLimitError, match="ran out of memory") as info:
        eng.call_fn(ast, "hook")
    assert info.value.line == 2
    assert eng.eval("40 + 2") == 42  # the engine goes on
