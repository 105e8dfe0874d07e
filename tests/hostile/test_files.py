"""Hostile and clumsy files: every one ends in a positioned diagnostic and a non-zero exit,
never a traceback, a hang or a read outside the twin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCENE = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Z"\n    metersPerUnit = 1\n)\ndef Xform "W" {}\n'


def twin(folder: Path, default_scene: str | None = "scenes/s.usda", extra: str = "") -> Path:
    (folder / "scenes").mkdir(parents=True, exist_ok=True)
    usd = f'[usd]\ndefault_scene = "{default_scene}"\n' if default_scene else "[usd]\n"
    (folder / "twin.toml").write_text(f'name = "t"\n{usd}{extra}', encoding="utf-8")
    return folder


def luncosim(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "luncosim_core.cli", *args], capture_output=True, timeout=timeout)
    r.out = r.stdout.decode("utf-8", "replace")
    r.err = r.stderr.decode("utf-8", "replace")
    assert "Traceback" not in r.err, r.err
    return r


def test_a_default_scene_linked_outside_the_twin_is_refused(tmp_path):
    outside = tmp_path / "elsewhere.usda"
    outside.write_text(SCENE, encoding="utf-8")
    t = twin(tmp_path / "t")
    (t / "scenes/s.usda").symlink_to(outside)
    for verb in (["validate", str(t)], ["run", "--scene", str(t), "--ticks", "1"]):
        r = luncosim(*verb)
        assert r.returncode == 1
        assert "leads outside the twin" in r.out + r.err and str(outside) in r.out + r.err


@pytest.mark.parametrize(("scenes", "bad"), [('["../../*/*.usda"]', "../../*/*.usda"), ('["/etc/*"]', "/etc/*"),
                                            ('["lunco://x/*.usda"]', "lunco://x/*.usda")])
def test_scene_globs_must_stay_inside_the_twin(tmp_path, scenes, bad):
    t = twin(tmp_path, default_scene=None, extra=f"scenes = {scenes}\n")
    r = luncosim("validate", str(t))
    assert r.returncode == 1 and "twin-manifest-value" in r.out and repr(bad) in r.out and "twin.toml:" in r.out


@pytest.mark.parametrize("kind", ["fifo", "folder", "manifest", "device"])
def test_a_default_scene_that_is_not_a_scene_file(tmp_path, kind):
    name = {"folder": "scenes", "manifest": "twin.toml"}.get(kind, "scenes/s.usda")
    t = twin(tmp_path, default_scene=name)
    if kind == "fifo":
        os.mkfifo(t / "scenes/s.usda")
    elif kind == "device":
        (t / "scenes/s.usda").symlink_to("/dev/zero")
    for verb in (["validate", str(t)], ["run", "--scene", str(t), "--ticks", "1"]):
        r = luncosim(*verb, timeout=60)  # a FIFO must not hang either verb
        assert r.returncode == 1, (kind, r.out, r.err)
        said = r.out + r.err
        assert {"fifo": "is a FIFO", "folder": "is a folder", "manifest": "is not a USD file",
                "device": "/dev/zero"}[kind] in said


def test_a_fifo_sublayer_is_refused_and_the_rest_composes(tmp_path):
    t = twin(tmp_path)
    (t / "scenes/s.usda").write_text(SCENE.replace("metersPerUnit = 1", "metersPerUnit = 1\n    subLayers = [@./pipe.usda@]"),
                                     encoding="utf-8")
    os.mkfifo(t / "scenes/pipe.usda")
    r = luncosim("validate", str(t), timeout=60)
    assert r.returncode == 1
    assert "usd-layer-unreadable" in r.out and "pipe.usda is a FIFO" in r.out and "s.usda" in r.out


def test_random_bytes_as_manifest_layer_and_script(tmp_path):
    junk = bytes(range(128, 256)) * 8
    t = twin(tmp_path / "a")
    (t / "twin.toml").write_bytes(junk)
    r = luncosim("validate", str(t))
    assert r.returncode == 1 and "is not UTF-8 text" in r.out and "twin.toml" in r.out
    t = twin(tmp_path / "b")
    (t / "scenes/s.usda").write_bytes(junk)
    r = luncosim("validate", str(t))
    assert r.returncode == 1 and "usd-malformed-layer" in r.out and "s.usda" in r.out
    (tmp_path / "junk.rhai").write_bytes(junk)
    r = luncosim("rhai", str(tmp_path / "junk.rhai"))
    assert r.returncode == 1 and "not UTF-8 text" in r.err


def test_luncosim_rhai_refuses_a_device(tmp_path):
    r = luncosim("rhai", "/dev/zero", timeout=30)
    assert r.returncode == 1 and "is a device" in r.err


def test_prims_nested_thousands_deep_are_refused_quickly(tmp_path):
    t = twin(tmp_path)
    depth = 3000
    body = "".join(f'def Xform "P{i}" {{\n' for i in range(depth)) + "}\n" * depth
    (t / "scenes/s.usda").write_text('#usda 1.0\n(\n    defaultPrim = "P0"\n)\n' + body, encoding="utf-8")
    for verb in (["validate", str(t)], ["run", "--scene", str(t), "--ticks", "1"]):
        r = luncosim(*verb)
        assert r.returncode == 1 and "usd-namespace-too-deep" in r.out + r.err and "3000 levels" in r.out + r.err


@pytest.mark.parametrize(("args", "says"), [
    (["--tick-hz", "0"], "--tick-hz: 0 is outside"), (["--tick-hz", "nan"], "not a finite number"),
    (["--tick-hz", "inf"], "not a finite number"), (["--tick-hz", "-60"], "--tick-hz: -60 is outside"),
    (["--substeps", "0"], "--substeps: 0 is outside"), (["--ticks", "-1"], "--ticks: -1 is outside"),
])
def test_bad_numbers_on_the_command_line_are_usage_errors(args, says):
    r = luncosim("run", "--scene", "nowhere", *args)
    assert r.returncode == 2 and says in r.err


def test_an_unwritable_csv_is_a_clear_error(tmp_path):
    t = twin(tmp_path)
    (t / "scenes/s.usda").write_text(SCENE, encoding="utf-8")
    r = luncosim("run", "--scene", str(t), "--ticks", "1", "--csv", str(tmp_path / "no/such/dir/x.csv"))
    assert r.returncode == 2 and "cannot write --csv" in r.err
