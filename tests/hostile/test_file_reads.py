"""Every file the core reads is a regular file under a size cap, read as UTF-8 with a positioned
error otherwise: a FIFO never blocks, a folder or a device is refused by name, junk bytes say the
byte, offset and line. One test per reader (asset resolution, the Modelica compiler, lint
policies, the scenario prelude, the spawn catalog, the ports policy, mission task files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from luncosim_core.twin.roots import AssetRoots
from tests.hostile.test_files import luncosim

JUNK = bytes(range(128, 256)) * 8


def make(path: Path, kind: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(JUNK)
    return path


SAYS = {"fifo": "is a FIFO", "folder": "is a folder", "device": "is a device", "junk": "is not UTF-8 text"}


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_asset_resolution_refuses_what_is_not_a_regular_file(tmp_path, kind):
    make(tmp_path / "twin/models/M.mo", kind)
    check = AssetRoots(tmp_path / "twin").resolve_file("twin://models/M.mo")
    if kind == "device":  # a link to /dev/zero leaves the root before it is a device
        assert check.refused and check.diagnostic.code == "asset-escape-link" and "/dev/zero" in check.diagnostic.message
        return
    assert check.refused and check.diagnostic.code == "asset-not-a-file"
    assert SAYS[kind] in check.diagnostic.message and "@twin://models/M.mo@" in check.diagnostic.message


@pytest.mark.parametrize("kind", ["fifo", "folder", "junk"])
def test_the_modelica_compiler_reads_only_a_text_file(tmp_path, kind):
    from luncosim_core.modelica import compile_model

    compiled = compile_model(source_path=make(tmp_path / "M.mo", kind))
    assert not compiled.ok
    d = compiled.diagnostics[0]
    assert d.code == "modelica.source" and SAYS[kind] in d.message and "M.mo" in d.message
    if kind == "junk":
        assert d.line == 1 and "offset 0" in d.message


@pytest.mark.parametrize("kind", ["fifo", "junk"])
def test_an_unreadable_lint_policy_is_a_diagnostic_and_the_others_run(tmp_path, kind):
    from luncosim_core.lint.policy import run_policies

    folder = tmp_path / "policy"
    folder.mkdir()
    make(folder / "bad.rhai", kind)
    (folder / "good.rhai").write_text('fn rule_always(facts) { [#{rule: "always", severity: "info", subject: "", '
                                      'message: "ran"}] }\n', encoding="utf-8")
    diags = run_policies({}, folder)
    bad = [d for d in diags if d.code == "lint-policy-error"]
    assert len(bad) == 1 and SAYS[kind] in bad[0].message and bad[0].layer.endswith("bad.rhai")
    assert any(d.code == "always" for d in diags)


@pytest.mark.parametrize("kind", ["fifo", "junk"])
def test_an_unreadable_prelude_file_is_skipped_with_a_diagnostic(tmp_path, kind):
    from luncosim_core.scripting.prelude import load_prelude
    from luncosim_core.scripting.rhai import Engine

    lib = tmp_path / "lib"
    make(lib / "scripting/prelude/a_bad.rhai", kind)
    (lib / "scripting/prelude/b_good.rhai").write_text("fn helper() { 42 }\n", encoding="utf-8")
    loaded, diags = load_prelude(Engine(), AssetRoots(None, lib))
    assert [p.name for p in loaded] == ["b_good.rhai"]
    assert [d.code for d in diags] == ["scenario-prelude-error"] and SAYS[kind] in diags[0].message


@pytest.mark.parametrize("kind", ["fifo", "junk"])
def test_an_unreadable_catalog_entry_is_refused_by_name(tmp_path, kind):
    from luncosim_core.sim.spawn import SpawnRefused, find_entry

    make(tmp_path / "twin/vehicles/rover.usda", kind)
    with pytest.raises(SpawnRefused) as info:
        find_entry(AssetRoots(tmp_path / "twin", tmp_path / "lib"), "rover")
    d = info.value.diagnostic
    assert d.code == "spawn-entry-unreadable" and SAYS[kind] in d.message and "rover.usda" in d.message


@pytest.mark.parametrize("kind", ["fifo", "junk", "folder"])
def test_an_unreadable_manifest_gives_the_default_ports_policy(tmp_path, kind):
    from luncosim_core.ports.surface import PortsPolicy, ports_policy

    make(tmp_path / "twin/twin.toml", kind)
    assert ports_policy(AssetRoots(tmp_path / "twin")) == PortsPolicy()  # the twin loader says why


@pytest.mark.parametrize("kind", ["fifo", "junk", "folder", "deep"])
def test_an_unreadable_task_file_is_a_task_file_error(tmp_path, kind):
    from luncosim_core.mission.taskfile import TaskFileError, load_task_file

    path = tmp_path / "task.yaml"
    if kind == "deep":
        path.write_text("[" * 20_000 + "]" * 20_000, encoding="utf-8")
    else:
        make(path, kind)
    with pytest.raises(TaskFileError) as info:
        load_task_file(path)
    says = {**SAYS, "deep": "nested too deeply"}[kind]
    assert says in str(info.value)
    if kind == "junk":
        assert info.value.errors[0].line == 1


def test_mission_run_with_a_fifo_task_does_not_hang(tmp_path, demo_twin):
    make(tmp_path / "task.yaml", "fifo")
    r = luncosim("mission", "run", "--scene", str(demo_twin), "--task", str(tmp_path / "task.yaml"), timeout=60)
    assert r.returncode == 2 and "is a FIFO" in r.err


# ------------------------------------------------------------------ readers the fuzz campaign pointed at
def test_a_network_member_whose_source_is_junk_is_a_positioned_diagnostic(tmp_path):
    from pxr import Usd

    from luncosim_core.modelica.network_model import read_network

    make(tmp_path / "parts/Bad.mo", "junk")
    scene = tmp_path / "s.usda"
    scene.write_text('#usda 1.0\ndef Xform "W"\n{\n    def Scope "Net" (prepend apiSchemas = ["CollectionAPI:components"])\n'
                     '    {\n        prepend rel collection:components:includes = [</W/Bad>]\n    }\n'
                     '    def Scope "Bad" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {\n'
                     '        uniform token info:implementationSource = "sourceAsset"\n'
                     '        uniform asset info:sourceAsset = @./parts/Bad.mo@\n    }\n}\n', encoding="utf-8")
    net = read_network(Usd.Stage.Open(str(scene)), "/W/Net", ["/W/Bad"], AssetRoots(tmp_path))
    assert net.members == []
    [d] = [d for d in net.problems if d.path == "/W/Bad"]
    assert d.code == "modelica.source" and SAYS["junk"] in d.message and d.layer.endswith("Bad.mo") and d.line == 1


def _oversize(path: Path) -> Path:
    from luncosim_core.fsutil import MAX_TEXT_BYTES

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:  # sparse: the size is what is refused, nothing is read
        handle.truncate(MAX_TEXT_BYTES + 1)
    return path


@pytest.mark.parametrize("kind", ["junk", "oversize"])
def test_the_syntax_library_skips_a_file_it_cannot_read(tmp_path, kind):
    from luncosim_core.modelica.syntax.resolve import Library

    if kind == "oversize":
        _oversize(tmp_path / "Bad.mo")
    else:
        make(tmp_path / "Bad.mo", kind)
    (tmp_path / "Good.mo").write_text("model Good\n  Real x;\nend Good;\n", encoding="utf-8")
    lib = Library([tmp_path])
    assert lib.top("Bad") is None and lib.top("Good") is not None


@pytest.mark.parametrize("kind", ["junk", "oversize", "fifo", "device"])
def test_the_class_catalog_names_a_file_it_cannot_read(tmp_path, kind):
    from luncosim_core.modelica.syntax.catalog import read_root

    if kind == "oversize":
        _oversize(tmp_path / "Bad.mo")
    else:
        make(tmp_path / "Bad.mo", kind)
    (tmp_path / "Good.mo").write_text("model Good\n  Real x;\nend Good;\n", encoding="utf-8")
    catalog = read_root(tmp_path, "Twin")
    assert [e.qualified for e in catalog.entries] == ["Good"]
    if kind in ("fifo", "device"):  # not a file: never opened
        assert catalog.problems == []
        return
    [problem] = catalog.problems
    assert "Bad.mo" in problem and {"junk": "line 1", "oversize": "byte limit"}[kind] in problem


SUB = """within Lib;
model Sub
  input Real u = 1;
  output Real y;
equation
  y = 2*u;
end Sub;
"""
TOP = "model Top\n  Lib.Sub driven;\n  output Real a;\nequation\n  driven.u = sin(time);\n  a = driven.y;\nend Top;\n"


def test_input_defaults_skip_a_library_file_that_is_not_text(tmp_path):
    from luncosim_core.modelica.input_defaults import drop_overridden_input_defaults

    make(tmp_path / "lib/Lib/Sub.mo", "junk")
    (tmp_path / "lib/Lib/package.mo").write_text("package Lib\nend Lib;\n", encoding="utf-8")
    text, moved = drop_overridden_input_defaults(TOP, None, (str(tmp_path / "lib"),))
    assert text == TOP and moved == []  # Sub cannot be read: nothing to drop (the compiler says why)


@pytest.mark.parametrize("kind", ["fifo", "device", "junk"])
def test_the_library_overlay_never_reads_or_copies_a_special_file(tmp_path, kind):
    from luncosim_core.modelica.input_defaults import LibraryOverlay

    root = tmp_path / "lib"
    (root / "Lib").mkdir(parents=True)
    (root / "Lib/package.mo").write_text("package Lib\nend Lib;\n", encoding="utf-8")
    (root / "Lib/Sub.mo").write_text(SUB, encoding="utf-8")
    (root / "Lib/Top.mo").write_text("within Lib;\n" + TOP.replace("Lib.Sub", "Sub"), encoding="utf-8")
    make(root / "Lib/Odd.mo", kind)
    overlay = LibraryOverlay()
    try:
        (copy,), moved = overlay.roots((str(root),))
        assert copy != str(root) and moved  # Top sets driven.u: Sub's default is dropped in a copy
        copied = Path(copy) / "Lib/Odd.mo"
        assert copied.exists() == (kind == "junk")  # a FIFO or a device is left out of the copy
    finally:
        overlay.close()


@pytest.mark.parametrize("kind", ["fifo", "junk", "folder"])
def test_a_runtime_sidecar_that_is_not_text_is_a_diagnostic(tmp_path, kind):
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.usd.document import UsdDocument

    scene = tmp_path / "s.usda"
    scene.write_text('#usda 1.0\ndef Xform "W" {}\n', encoding="utf-8")
    sidecar = make(tmp_path / "s.runtime.usda", kind)
    with pytest.raises(DiagnosticError) as info:
        UsdDocument(scene, AssetRoots(tmp_path), runtime_sidecar=sidecar, persist_runtime=True, register=False)
    d = info.value.diagnostics[0]
    assert d.code == "usd-layer-unreadable" and SAYS[kind] in d.message and d.layer == str(sidecar)
    if kind == "junk":
        assert d.line == 1


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_scene_document_on_a_special_file_is_refused_without_reading_it(tmp_path, kind):
    from luncosim_core.diagnostics import DiagnosticError
    from luncosim_core.usd.document import FileStamp, UsdDocument

    scene = make(tmp_path / "s.usda", kind)
    assert FileStamp.of(scene) is None  # never read: a FIFO would block, /dev/zero never ends
    with pytest.raises(DiagnosticError) as info:
        UsdDocument(scene, AssetRoots(tmp_path), register=False)
    assert info.value.diagnostics[0].code in ("usd-layer-unreadable", "asset-escape-link")


@pytest.mark.parametrize("kind", ["fifo", "junk", "folder", "device", "deep"])
def test_an_unreadable_sweep_file_is_a_sweep_error(tmp_path, kind):
    from luncosim_core.batch.spec import SweepError, load_sweep

    path = tmp_path / "sweep.toml"
    if kind == "deep":
        path.write_text("a = " + "[" * 100_000, encoding="utf-8")
    else:
        make(path, kind)
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    says = {**SAYS, "deep": "nested too deeply"}[kind]
    assert says in str(info.value) and "sweep.toml" in str(info.value)
    if kind == "junk":
        assert "line 1" in str(info.value)


@pytest.mark.parametrize("kind", ["fifo", "junk"])
def test_an_unreadable_verdict_script_is_a_sweep_error(tmp_path, kind):
    from luncosim_core.batch.spec import SweepError, load_sweep

    make(tmp_path / "verdict.rhai", kind)
    (tmp_path / "s.usda").write_text('#usda 1.0\ndef Xform "W" {}\n', encoding="utf-8")
    path = tmp_path / "sweep.toml"
    path.write_text('scene = "s.usda"\nverdict = "verdict.rhai"\n[[parameter]]\nport = "/W.x"\nvalues = [1]\n',
                    encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert SAYS[kind] in str(info.value) and "verdict" in str(info.value)
