"""USDA text and twin manifests, generated from their grammar and mutated from real files, through
``luncosim validate``'s own path (composition, asset checks, lint): a list of diagnostics or a
clean result, never an exception."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.lint import run_lint
from luncosim_core.usd.validate import validate_path
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.strategies import mutated, seed_files, twin_toml, usda_document

SCENE_OK = '#usda 1.0\n(\n    defaultPrim = "W"\n)\ndef Xform "W" {}\n'


def _validate(folder: Path, outcome, target: str) -> None:
    diags = validate_path(folder, lint=run_lint)
    assert isinstance(diags, list) and all(isinstance(d, Diagnostic) for d in diags)
    for d in diags:
        assert d.code and d.message  # every diagnostic says what
    outcome(target, "diagnostic" if any(d.is_error for d in diags) else "result")


def _fresh(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "scenes").mkdir()
    return folder


@given(usda_document())
@fuzz_settings(per_second=4, ci_examples=40)
def test_generated_usda(tmp_path_factory, outcome, text):
    folder = _fresh(tmp_path_factory)
    (folder / "twin.toml").write_text('name = "f"\n[usd]\ndefault_scene = "scenes/s.usda"\n', encoding="utf-8")
    (folder / "scenes/s.usda").write_text(text, encoding="utf-8")
    _validate(folder, outcome, "usda (grammar)")
    shutil.rmtree(folder, ignore_errors=True)


@given(mutated(seed_files((".usda",))))
@fuzz_settings(per_second=4, ci_examples=40)
def test_mutated_usda(tmp_path_factory, outcome, data):
    folder = _fresh(tmp_path_factory)
    (folder / "twin.toml").write_text('name = "f"\n[usd]\ndefault_scene = "scenes/s.usda"\n', encoding="utf-8")
    (folder / "scenes/s.usda").write_bytes(data)
    _validate(folder, outcome, "usda (mutated)")
    shutil.rmtree(folder, ignore_errors=True)


@given(twin_toml())
@fuzz_settings(per_second=20, ci_examples=60)
def test_generated_twin_toml(tmp_path_factory, outcome, text):
    folder = _fresh(tmp_path_factory)
    (folder / "scenes/s.usda").write_text(SCENE_OK, encoding="utf-8")
    (folder / "twin.toml").write_text(text, encoding="utf-8")
    _validate(folder, outcome, "twin.toml (grammar)")
    shutil.rmtree(folder, ignore_errors=True)


@given(mutated([b'name = "yard"\nversion = "0.1.0"\n[usd]\ndefault_scene = "scenes/s.usda"\nruntime_persistence = false\n'
                b'scenes = ["scenes/*.usda"]\ncomposition_policy = "allow_partial"\n']))
@fuzz_settings(per_second=20, ci_examples=60)
def test_mutated_twin_toml(tmp_path_factory, outcome, data):
    folder = _fresh(tmp_path_factory)
    (folder / "scenes/s.usda").write_text(SCENE_OK, encoding="utf-8")
    (folder / "twin.toml").write_bytes(data)
    _validate(folder, outcome, "twin.toml (mutated)")
    shutil.rmtree(folder, ignore_errors=True)
