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
