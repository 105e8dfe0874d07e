"""USDA text, binary ``.usdc`` layers and twin manifests, generated from their grammar and mutated
from real files, through ``luncosim validate``'s own path (composition, asset checks, lint,
programs compiled) and, for a subset of the USD inputs, the projection (``open_simulation`` and a
few ticks): a list of diagnostics or a clean result, never an exception, a crash, a hang or a
memory blow-up. Each input runs in the budgeted child of :mod:`tests.fuzz.usd_child`."""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path

from tests.fuzz.budget import fuzz, fuzz_mark
from tests.fuzz.strategies import (
    mutated,
    mutated_text,
    seed_files,
    toml_string,
    twin_toml,
    usda_document,
)
from tests.fuzz.usd_child import INPUT_SECONDS

SCENE_OK = '#usda 1.0\n(\n    defaultPrim = "W"\n)\ndef Xform "W" {}\n'
MANIFEST = 'name = "f"\n[usd]\ndefault_scene = "scenes/s.{suffix}"\n'
MARK = fuzz_mark(INPUT_SECONDS)
LABELS = {"usd-malformed-layer": "diagnostic (malformed layer)", "twin-manifest-syntax": "diagnostic (TOML syntax)",
          "twin-manifest-unreadable": "diagnostic (not text)"}


def _label(reply: dict) -> str:
    """The outcome, with the parser's refusals told apart from what the checks behind it found."""
    if reply["outcome"] != "diagnostic":
        return reply["outcome"]
    return next((LABELS[c] for c in reply["codes"] if c in LABELS), "diagnostic")


def _checker(tmp_path_factory, usd_child, outcome, target: str, write, project: bool):
    """``check(value)``: a fresh twin folder holding ``write(folder, value)``'s files, checked."""

    def check(value) -> None:
        folder = tmp_path_factory.mktemp("fuzz")
        (folder / "scenes").mkdir()
        write(folder, value)
        try:  # every input that validates clean is projected, and a third of the others (by content)
            reply = usd_child.check(folder, project=project, project_any=zlib.crc32(repr(value).encode()) % 3 == 0)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        outcome(target, _label(reply))
        outcome.peak(target, reply["peak_mb"])
        if "projection" in reply:
            outcome(f"{target} → projection", reply["projection"])

    return check


def _usda(folder: Path, text: str) -> None:
    (folder / "twin.toml").write_text(MANIFEST.format(suffix="usda"), encoding="utf-8")
    (folder / "scenes/s.usda").write_text(text, encoding="utf-8")


def _usda_bytes(folder: Path, data: bytes) -> None:
    (folder / "twin.toml").write_text(MANIFEST.format(suffix="usda"), encoding="utf-8")
    (folder / "scenes/s.usda").write_bytes(data)


def _usdc_bytes(folder: Path, data: bytes) -> None:
    (folder / "twin.toml").write_text(MANIFEST.format(suffix="usdc"), encoding="utf-8")
    (folder / "scenes/s.usdc").write_bytes(data)


def _manifest(folder: Path, data: str | bytes) -> None:
    (folder / "scenes/s.usda").write_text(SCENE_OK, encoding="utf-8")
    if isinstance(data, str):
        (folder / "twin.toml").write_text(data, encoding="utf-8")
    else:
        (folder / "twin.toml").write_bytes(data)


def usdc_seeds(folder: Path) -> list[bytes]:
    """Our ``.usda`` files exported as binary crate files: real ``.usdc`` files to mutate."""
    from pxr import Sdf

    out = []
    for i, data in enumerate(seed_files((".usda",))):
        src = folder / f"seed{i}.usda"
        src.write_bytes(data)
        layer = Sdf.Layer.FindOrOpen(str(src))
        if layer is not None and layer.Export(str(folder / f"seed{i}.usdc")):
            out.append((folder / f"seed{i}.usdc").read_bytes())
    return out


@MARK
def test_generated_usda(tmp_path_factory, usd_child, outcome, timer):
    check = _checker(tmp_path_factory, usd_child, outcome, "usda (grammar)", _usda, project=True)
    fuzz(usda_document(), check, ci_examples=30, record_time=timer, record=outcome, target="usda (grammar)")


@MARK
def test_mutated_usda(tmp_path_factory, usd_child, outcome, timer):
    check = _checker(tmp_path_factory, usd_child, outcome, "usda (mutated)", _usda_bytes, project=True)
    fuzz(mutated_text(seed_files((".usda",))), check, ci_examples=30, record_time=timer, record=outcome, target="usda (mutated)")


@MARK
def test_mutated_usdc(tmp_path_factory, usd_child, outcome, timer):
    seeds = usdc_seeds(tmp_path_factory.mktemp("usdc-seeds"))
    assert seeds
    check = _checker(tmp_path_factory, usd_child, outcome, "usdc (mutated)", _usdc_bytes, project=True)
    fuzz(mutated(seeds), check, ci_examples=8, record_time=timer, record=outcome, target="usdc (mutated)")


@MARK
def test_generated_twin_toml(tmp_path_factory, usd_child, outcome, timer):
    check = _checker(tmp_path_factory, usd_child, outcome, "twin.toml (grammar)", _manifest, project=False)
    fuzz(twin_toml(), check, ci_examples=60, record_time=timer, record=outcome, target="twin.toml (grammar)")


MANIFEST_SEED = (b'name = "yard"\nversion = "0.1.0"\n[usd]\ndefault_scene = "scenes/s.usda"\nruntime_persistence = false\n'
                 b'scenes = ["scenes/*.usda"]\ncomposition_policy = "allow_partial"\n')


@MARK
def test_mutated_twin_toml(tmp_path_factory, usd_child, outcome, timer):
    check = _checker(tmp_path_factory, usd_child, outcome, "twin.toml (mutated)", _manifest, project=False)
    fuzz(mutated_text([MANIFEST_SEED], quote=toml_string), check, ci_examples=60, record_time=timer, record=outcome, target="twin.toml (mutated)")
