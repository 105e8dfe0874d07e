"""The host API the scenario runtime builds on: scopes, call_fn with `this` write-back, host
functions, preludes, limits, the confined module resolver."""

from __future__ import annotations

from pathlib import Path

import pytest

from luncosim_core.scripting.rhai import (
    AST,
    Engine,
    FnPtr,
    Limits,
    RhaiRuntimeError,
    Scope,
    Unit,
)

# ── scope and top level ────────────────────────────────────────────────────────────────


def test_scope_keeps_script_variables_between_runs() -> None:
    eng = Engine()
    scope = Scope()
    eng.run(eng.compile("let count = 1; let name = \"rover\";"), scope)
    assert scope["count"] == 1 and scope["name"] == "rover"
    eng.run(eng.compile("count += 41;"), scope)
    assert scope["count"] == 42
    assert eng.eval("count * 2", scope) == 84


def test_host_pushed_variables_and_constants() -> None:
    eng = Engine()
    scope = Scope().push("speed", 2.5).push_constant("LIMIT", 10)
    assert eng.eval("speed * 2.0 + LIMIT", scope) == 15.0
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval("LIMIT = 3;", scope)
    assert "Cannot modify constant LIMIT" in ei.value.message


def test_inner_block_variables_do_not_leak_into_the_scope() -> None:
    eng = Engine()
    scope = Scope()
    eng.run(eng.compile("let a = 1; { let b = 2; }"), scope)
    assert "a" in scope and "b" not in scope


def test_functions_cannot_see_script_variables() -> None:
    eng = Engine()
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval("let secret = 7; fn peek() { secret } peek()")
    assert ei.value.message == "Variable not found: secret"
    scope = Scope().push("host_var", 1)
    with pytest.raises(RhaiRuntimeError):
        eng.eval("fn peek() { host_var } peek()", scope)


def test_closures_share_captured_variables_with_their_definer() -> None:
    eng = Engine()
    src = """
        let count = 0;
        let inc = || { count += 1; count };
        inc.call();
        inc.call();
        let seen_inside = inc.call();
        [count, seen_inside]
    """
    assert eng.eval(src) == [3, 3]


def test_top_level_return_gives_the_value() -> None:
    assert Engine().eval("let x = 3; if x > 2 { return \"big\"; } \"small\"") == "big"


# ── call_fn and `this` ─────────────────────────────────────────────────────────────────

ENTITY = """
fn on_start(me) {
    this.ticks = 0;
    this.id = me;
    this.log = [];
}
fn on_tick(me) {
    this.ticks += 1;
    this.log.push(me * 10);
    if this.ticks >= 3 { this.done = true; }
    this.ticks
}
fn replace_state() { this = #{ replaced: true }; }
"""


def test_call_fn_writes_this_back_so_state_persists() -> None:
    eng = Engine()
    ast = eng.compile(ENTITY, file="entity.rhai")
    state: dict = {}
    eng.call_fn(ast, "on_start", [7], this=state)
    results = [eng.call_fn(ast, "on_tick", [7], this=state) for _ in range(3)]
    assert results == [1, 2, 3]
    assert state == {"ticks": 3, "id": 7, "log": [70, 70, 70], "done": True}


def test_reassigning_this_updates_the_hosts_dict_in_place() -> None:
    eng = Engine()
    ast = eng.compile(ENTITY)
    state = {"old": 1}
    eng.call_fn(ast, "replace_state", [], this=state)
    assert state == {"replaced": True}


def test_call_fn_does_not_rerun_the_top_level() -> None:
    eng = Engine()
    ast = eng.compile('print("top"); fn f() { print("f"); 1 }')
    eng.call_fn(ast, "f")
    assert eng.printed == ["f"]


def test_has_fn_and_missing_function() -> None:
    eng = Engine()
    ast = eng.compile(ENTITY)
    assert eng.has_fn(ast, "on_tick", arity=1)
    assert not eng.has_fn(ast, "on_tick", arity=2)
    assert eng.has_fn(ast, "replace_state")
    assert not eng.has_fn(ast, "on_event")
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.call_fn(ast, "on_event", [1])
    assert "Function not found: on_event" in ei.value.message


def test_call_fn_sees_the_scripts_constants_through_global() -> None:
    eng = Engine()
    ast = eng.compile("const GAIN = 3; fn scale(x) { x * global::GAIN }")
    eng.run(ast)
    assert eng.call_fn(ast, "scale", [5]) == 15


# ── host functions ─────────────────────────────────────────────────────────────────────


def test_register_fn_arity_from_signature_and_value_mapping() -> None:
    eng = Engine()
    seen: list = []

    def set_port(entity, name, value):
        seen.append((entity, name, value))

    def get_pose(entity, axis="x"):
        return {"x": 1.5, "y": -2.0}[axis]

    eng.register_fn("set_port", set_port)
    eng.register_fn("pose", get_pose)
    eng.register_fn("nothing", lambda: None)
    out = eng.eval('set_port(3, "throttle", 0.5); [pose(1), pose(1, "y"), nothing()]')
    assert out == [1.5, -2.0, Unit]
    assert seen == [(3, "throttle", 0.5)]
    assert type(seen[0][0]) is int


def test_host_function_type_and_failure_reporting() -> None:
    eng = Engine()

    def boom(x):
        raise ValueError("sensor offline")

    eng.register_fn("boom", boom)
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.run(eng.compile("let a = 1;\nboom(a)", file="m.rhai"))
    assert "sensor offline" in ei.value.message and "boom" in ei.value.message
    assert (ei.value.line, ei.value.col) == (2, 1)
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval("boom(1, 2)")
    assert ei.value.message == "Function not found: boom (i64, i64)"


def test_host_functions_are_callable_as_methods_and_through_fn_pointers() -> None:
    eng = Engine()
    eng.register_fn("twice", lambda x: x * 2)
    assert eng.eval('let f = Fn("twice"); [4.twice(), f.call(5), [1, 2].map(f)]') == \
        [8, 10, [2, 4]]


def test_bool_and_int_stay_distinct_across_the_boundary() -> None:
    eng = Engine()
    eng.register_fn("kind", lambda v: type(v).__name__)
    assert eng.eval("[kind(true), kind(1), kind(1.0), kind(()), kind('c')]") == \
        ["bool", "int", "float", "_UnitType", "Char"]


def test_global_module_functions_are_visible_to_every_script() -> None:
    eng = Engine()
    eng.register_global_module(
        "const K = 2; fn double(x) { x * global::K } private fn hidden() { 1 }",
        file="prelude.rhai")
    assert eng.eval("double(21)") == 42
    with pytest.raises(RhaiRuntimeError):
        eng.eval("hidden()")
    ast = eng.compile("fn on_tick(me) { double(me) }")
    assert eng.call_fn(ast, "on_tick", [4]) == 8


def test_script_functions_override_natives_by_name_and_arity() -> None:
    assert Engine().eval("fn abs(x) { 99 } abs(-1)") == 99


def test_fn_pointer_value_returned_to_host() -> None:
    fp = Engine().eval("|x| x + 1")
    assert isinstance(fp, FnPtr) and fp.is_anonymous()


# ── limits ─────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("src", [
    "loop { }",
    "while true { }",
    "let i = 0; while i >= 0 { i += 1; }",
    "do { } while true",
    "for x in 0..1000000000 { }",
    "fn f() { loop {} } f()",
])
def test_infinite_loop_is_stopped_by_the_operation_limit(src: str) -> None:
    eng = Engine(limits=Limits(max_operations=5000))
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval(src)
    assert "Too many operations" in ei.value.message
    assert ei.value.line == 1


def test_operation_budget_is_per_call() -> None:
    # each iteration counts its expressions (7 here): 300 iterations are about 2,100 ops
    eng = Engine(limits=Limits(max_operations=5000))
    ast = eng.compile("fn work() { let i = 0; while i < 300 { i += 1; } i }")
    for _ in range(5):
        assert eng.call_fn(ast, "work") == 300


def test_runaway_recursion_is_stopped_by_the_call_depth() -> None:
    eng = Engine(limits=Limits(max_call_depth=30))
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval("fn down(n) { down(n + 1) } down(0)")
    assert "Stack overflow" in ei.value.message
    assert eng.eval("fn d(n) { if n == 0 { 0 } else { 1 + d(n - 1) } } d(25)") == 25


@pytest.mark.parametrize(("limits", "src", "fragment"), [
    (Limits(max_string_size=10), 'let s = "abcdef"; s + s', "Length of string too large"),
    (Limits(max_string_size=10), 'let s = ""; loop { s += "x"; }', "Length of string too large"),
    (Limits(max_array_size=5), "let a = []; for i in 0..10 { a.push(i); }",
     "Size of array too large"),
    (Limits(max_array_size=3), "[1, 2, 3, 4]", "Size of array too large"),
    (Limits(max_map_size=2), "let m = #{}; m.a = 1; m.b = 2; m.c = 3;",
     "Size of object map too large"),
    (Limits(max_string_size=100), 'let s = "x"; s.pad(1000000000000, "y");',
     "Length of string too large"),
    (Limits(max_array_size=100), "let a = []; a.pad(1000000000000, 0);",
     "Size of array too large"),
    (Limits(max_array_size=100), "blob(1000000000000)", "Size of blob too large"),
])
def test_size_limits(limits: Limits, src: str, fragment: str) -> None:
    with pytest.raises(RhaiRuntimeError) as ei:
        Engine(limits=limits).eval(src)
    assert fragment in ei.value.message


# ── modules ────────────────────────────────────────────────────────────────────────────


def _write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_import_resolves_inside_the_module_roots(tmp_path: Path) -> None:
    root = tmp_path / "scripts"
    _write(root, "lib/geo.rhai", """
        export const EARTH_G = 9.81;
        let internal = 1;
        fn weight(m) { m * EARTH_G_LOCAL() }
        fn EARTH_G_LOCAL() { 9.81 }
        private fn secret() { 0 }
    """)
    eng = Engine(module_roots=[root])
    src = 'import "lib/geo" as geo; [geo::EARTH_G, geo::weight(2.0)]'
    assert eng.eval(src) == [9.81, 19.62]
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval('import "lib/geo" as geo; geo::secret()')
    assert "Function not found: geo::secret" in ei.value.message
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval('import "lib/geo" as geo; geo::internal')
    assert "Variable not found" in ei.value.message


@pytest.mark.parametrize(("path", "fragment"), [
    ("../outside", "escapes the module roots"),
    ("lib/../../outside", "escapes the module roots"),
    # a leading "/" means "from a module root": it can never reach the filesystem root
    ("/etc/passwd", "Module not found: /etc/passwd"),
    (str(tmp_outside := Path("/tmp/outside").resolve()), f"Module not found: {tmp_outside}"),
    ("C:/windows/system", "absolute"),
    ("lib/missing", "Module not found: lib/missing"),
])
def test_import_refuses_escapes_and_absolute_paths(tmp_path: Path, path: str,
                                                    fragment: str) -> None:
    root = tmp_path / "scripts"
    root.mkdir()
    _write(tmp_path, "outside.rhai", "export const LEAK = 1;")
    eng = Engine(module_roots=[root])
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.run(eng.compile(f'import "{path}" as m; m::LEAK', file="main.rhai"))
    assert fragment in ei.value.message
    assert (ei.value.file, ei.value.line) == ("main.rhai", 1)


def test_leading_slash_resolves_from_the_module_root(tmp_path: Path) -> None:
    root = tmp_path / "assets"
    _write(root, "scripting/lib/shots.rhai", "export const N = 7;")
    eng = Engine(module_roots=[root])
    assert eng.eval('import "/scripting/lib/shots" as s; s::N') == 7


def test_import_refuses_a_symlink_that_leaves_the_root(tmp_path: Path) -> None:
    root = tmp_path / "scripts"
    root.mkdir()
    outside = _write(tmp_path, "outside.rhai", "export const LEAK = 1;")
    (root / "link.rhai").symlink_to(outside)
    with pytest.raises(RhaiRuntimeError) as ei:
        Engine(module_roots=[root]).eval('import "link" as m; m::LEAK')
    assert "escapes the module roots" in ei.value.message


def test_import_cycle_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "s"
    _write(root, "a.rhai", 'import "b" as b;')
    _write(root, "b.rhai", 'import "a" as a;')
    with pytest.raises(RhaiRuntimeError) as ei:
        Engine(module_roots=[root]).eval('import "a" as a;')
    assert "cycle" in ei.value.message


# ── determinism and AST ────────────────────────────────────────────────────────────────


def test_same_inputs_give_identical_results() -> None:
    src = """
        let m = #{z: 1.5, a: [1, 2.25], k: "x"};
        let out = [];
        for k in m.keys() { out.push(`${k}=${m[k]}`); }
        let f = 0.1; for i in 0..100 { f = f * 1.0001 + sin(to_float(i)); }
        [out, f, to_debug(m)]
    """
    results = [Engine().eval(src) for _ in range(3)]
    assert results[0] == results[1] == results[2]
    assert results[0][2] == '#{"a": [1, 2.25], "k": "x", "z": 1.5}'


def test_ast_lists_its_functions() -> None:
    ast = Engine().compile("fn a() {} fn b(x, y) {}")
    assert isinstance(ast, AST)
    assert ast.functions() == [("a", 0), ("b", 2)]


# ── names a function does not declare ──────────────────────────────────────────────────


def test_top_level_constants_are_readable_in_functions_but_variables_are_not() -> None:
    eng = Engine()
    ast = eng.compile("""
        const TOL_M = 0.5;
        let scratch = 1;
        fn verdict(d) { d > TOL_M }
        fn peek() { scratch }
        fn bump() { TOL_M = 2.0; }
    """)
    eng.run(ast)
    assert eng.call_fn(ast, "verdict", [0.75]) is True
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.call_fn(ast, "peek")
    assert ei.value.message == "Variable not found: scratch"
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.call_fn(ast, "bump")
    assert ei.value.message == "Cannot modify constant TOL_M"


def test_the_function_called_by_the_host_sees_the_scope_but_its_callees_do_not() -> None:
    eng = Engine()
    ast = eng.compile("fn entry() { speed * 2 } fn outer() { entry() }")
    scope = Scope().push("speed", 21)
    assert eng.call_fn(ast, "entry", [], scope=scope) == 42
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.call_fn(ast, "outer", [], scope=scope)
    assert ei.value.message == "Variable not found: speed"


def test_typed_host_functions_overload_with_builtins() -> None:
    eng = Engine()
    ports = {(3, "angle"): 0.25}

    def get(entity: int, port: str) -> float:
        return ports[(entity, port)]

    eng.register_fn("get", get)
    assert eng.eval('[get(3, "angle"), [10, 20].get(1), #{a: 1}.get("a")]') == [0.25, 20, 1]
    with pytest.raises(RhaiRuntimeError) as ei:
        eng.eval("get(1.5, 2)")
    assert ei.value.message == "Function not found: get (f64, i64)"


def test_host_calls_a_closure_the_script_handed_over() -> None:
    eng = Engine()
    ast = eng.compile("""
        fn make(step) { let total = 0; |x| { total += x * step; total } }
        fn named(x) { x + 100 }
    """)
    acc = eng.call_fn(ast, "make", [2])
    assert [eng.call_fn_ptr(acc, [1]), eng.call_fn_ptr(acc, [5])] == [2, 12]
    assert eng.call_fn_ptr(FnPtr("named"), [1], ast=ast) == 101
    state = {"n": 1}
    bump = eng.eval("|| this.n += 1")
    eng.call_fn_ptr(bump, [], this=state)
    assert state == {"n": 2}


def test_export_with_alias(tmp_path: Path) -> None:
    root = tmp_path / "m"
    _write(root, "consts.rhai", "let inner = 41; export inner as answer;")
    eng = Engine(module_roots=[root])
    assert eng.eval('import "consts" as c; c::answer + 1') == 42


PRELUDE = """
fn objective(id, spec) { #{ id: id, done: spec.done, state: "pending" } }
fn __init(me) {
    if this.mission == () && is_def_fn("mission", 1) { this.mission = mission(me); }
}
fn __run(me) {
    let m = this.mission;
    for i in 0..m.len() {
        if m[i].state == "pending" && m[i].done.call(me) { m[i].state = "complete"; }
    }
    this.mission = m;
    m.filter(|o| o.state == "complete").len()
}
"""


def test_prelude_driver_runs_a_scripts_declared_mission_across_ticks() -> None:
    eng = Engine()
    position = {"x": 0.0}
    eng.register_fn("pos_x", lambda me: position["x"])
    eng.register_global_module(PRELUDE, file="prelude.rhai")
    ast = eng.compile("""
        const GOAL = 5.0;
        fn mission(me) {
            let far = GOAL * 2.0;
            [objective("near", #{ done: |m| pos_x(m) > GOAL }),
             objective("far", #{ done: |m| pos_x(m) > far })]
        }
    """, file="scenario.rhai")
    eng.run(ast)
    state: dict = {}
    eng.call_fn(ast, "__init", [1], this=state)
    done = []
    for x in (1.0, 6.0, 11.0):
        position["x"] = x
        done.append(eng.call_fn(ast, "__run", [1], this=state))
    assert done == [0, 1, 2]
    assert [o["state"] for o in state["mission"]] == ["complete", "complete"]


def test_untyped_host_functions_rank_after_builtins_and_replace_each_other() -> None:
    eng = Engine()
    eng.register_fn("get", lambda ident, name: f"port {ident}.{name}")
    assert eng.eval('[get(3, "x"), #{a: 1}.get("a"), [5, 6].get(0)]') == ["port 3.x", 1, 5]
    eng.register_fn("get", lambda ident, name: "replaced")
    assert eng.eval('get(3, "x")') == "replaced"


def test_fully_typed_and_variadic_host_functions() -> None:
    eng = Engine()

    def pi() -> float:
        return 3.0

    eng.register_fn("PI", pi)
    eng.register_fn("log_all", lambda *parts: " ".join(str(p) for p in parts))
    assert eng.eval('[PI(), log_all(), log_all(1), log_all("a", 2)]') == [3.0, "", "1", "a 2"]


def test_constants_cannot_be_changed_through_methods(tmp_path: Path) -> None:
    root = tmp_path / "m"
    _write(root, "k.rhai", "export const LIST = [1];")
    eng = Engine(module_roots=[root])
    ast = eng.compile('const WAY = [1, 2]; fn f() { WAY.push(3); WAY.len() } '
                      'import "k" as k; k::LIST.push(2); [f(), WAY, k::LIST]')
    assert eng.run(ast) == [2, [1, 2], [1]]
