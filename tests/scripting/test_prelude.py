"""The prelude: our helpers' behaviour, and a library's own prelude loading instead of ours."""

from __future__ import annotations

from luncosim_core.scripting.prelude import bundled_prelude_dir, load_prelude, prelude_dir
from luncosim_core.scripting.rhai import Engine, Unit
from luncosim_core.scripting.vecmath import register_vector_helpers
from luncosim_core.twin.roots import AssetRoots


def _engine() -> tuple[Engine, list]:
    e = Engine()
    register_vector_helpers(e)
    emitted: list = []
    e.register_fn("emit", lambda name, value=True: emitted.append((name, value)) or True)
    e.register_fn("find", lambda path: 7 if path == "/Here" else -1)
    files, diags = load_prelude(e, None)
    assert diags == [] and {f.name for f in files} >= {"testing.rhai", "geometry.rhai"}
    return e, emitted


def test_checks_return_empty_on_pass_and_a_message_on_failure():
    e, _ = _engine()
    assert e.eval('t_true(1 < 2, "x")') == ""
    assert e.eval('t_true(false, "it broke")') == "it broke"
    assert e.eval('t_present((), "speed")').startswith("speed: nothing was measured")
    assert e.eval('t_range(0.5, 0.0, 1.0, "v")') == ""
    assert "is not within [0.0, 1.0]" in e.eval('t_range(1.5, 0.0, 1.0, "v")')
    assert e.eval('t_range(0.0/0.0, 0.0, 1.0, "v")') != ""  # NaN fails
    assert e.eval('t_max(-0.2, 0.3, "err")') == ""
    assert e.eval('t_rel(10.0, 10.5, 10.0, "r")') == ""
    assert "differ by" in e.eval('t_rel(10.0, 20.0, 10.0, "r")')
    assert "about zero" in e.eval('t_rel(0.0, 0.0, 10.0, "r")')
    assert e.eval('t_bounded([1.0, 2.0, 2.0], 5.0, "p")') == ""
    assert "outside 1.0 m" in e.eval('t_bounded([10.0, 0.0, 0.0], 1.0, "p")')
    assert "moved only" in e.eval('t_moved(0.1, 1.0, "rover")')
    assert e.eval("[r2(1.23456), r4(1.23456), r6(-1.0000004), r2(())]") == [1.23, 1.2346, -1.0, Unit]
    assert e.eval("seg([0.0, 0.0, 0.0], [3.0, 4.0, 0.0])") == 5.0 and e.eval("seg((), [1.0, 1.0, 1.0])") == 0.0
    assert e.eval('[find_or_none("/Here"), find_or_none("/Gone")]') == [7, Unit]


def test_report_verdict_and_fail_fast_emit_the_verdict():
    e, emitted = _engine()
    printed: list[str] = []
    e.on_print = printed.append
    assert e.eval('report_verdict(["", "bad thing"], "DEMO", "DEMO_CH")') is False
    assert printed == ["  FAIL: bad thing", "TESTS_FAIL 1/2", "DEMO: FAIL"]
    assert e.eval('report_verdict(["", ""], "DEMO", "DEMO_CH")') is True
    assert e.eval('fail_fast("no rover", "DEMO", "DEMO_CH")') is False
    e.eval('expect_fault("/A.x"); expect_runtime_fault("physics-body-escaped")')
    assert emitted == [("DEMO_CH", "FAIL"), ("DEMO_CH", "PASS"), ("DEMO_CH", "FAIL"),
                       ("EXPECT_FAULT", "/A.x"), ("EXPECT_RUNTIME_FAULT", "physics-body-escaped")]


def test_library_prelude_replaces_ours(tmp_path):
    lib = tmp_path / "lib"
    (lib / "scripting" / "prelude").mkdir(parents=True)
    (lib / "scripting" / "prelude" / "only_here.rhai").write_text("fn library_helper() { 41 + 1 }\n")
    roots = AssetRoots(None, lib)
    assert prelude_dir(roots) == lib / "scripting" / "prelude"
    e = Engine()
    files, diags = load_prelude(e, roots)
    assert [f.name for f in files] == ["only_here.rhai"] and diags == []
    assert e.eval("library_helper()") == 42
    # a library without a prelude folder gets ours
    assert prelude_dir(AssetRoots(None, tmp_path)) == bundled_prelude_dir()


def test_broken_prelude_file_is_a_positioned_diagnostic(tmp_path):
    lib = tmp_path / "lib"
    (lib / "scripting" / "prelude").mkdir(parents=True)
    (lib / "scripting" / "prelude" / "a.rhai").write_text("fn ok() { 1 }\n")
    (lib / "scripting" / "prelude" / "b.rhai").write_text("fn broken( { }\n")
    e = Engine()
    files, diags = load_prelude(e, AssetRoots(None, lib))
    assert [f.name for f in files] == ["a.rhai"]
    (d,) = diags
    assert d.code == "scenario-prelude-error" and d.line == 1 and d.layer.endswith("b.rhai")
