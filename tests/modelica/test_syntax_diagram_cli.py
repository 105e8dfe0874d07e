"""``luncosim modelica diagram FILE [--class NAME] --out FILE.png|.svg``: the diagram rendered
headless (Qt's offscreen platform), and refusals with exit 1 and a reason."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from luncosim_core.cli import main

from .conftest import LIBRARY

pytest.importorskip("PySide6.QtWidgets")
if not os.environ.get("DISPLAY"):  # no X server: the test application is offscreen (the renderer's own choice)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _one_application(qapp):
    """The test process's QApplication (the session's platform): a render made here must not be
    the first to create one, or every later window in this process would be offscreen."""
    return qapp


def _ink(png: Path) -> int:
    """How many pixels of the picture are not white."""
    from PySide6.QtGui import QImage

    img = QImage(str(png))
    assert not img.isNull()
    step = 4
    return sum(img.pixelColor(x, y).lightness() < 250 for x in range(0, img.width(), step)
               for y in range(0, img.height(), step))


def test_renders_our_rc_circuit_to_png_and_svg(tmp_path, capsys):
    png, svg = tmp_path / "rc.png", tmp_path / "rc.svg"
    path = LIBRARY / "Workbench" / "Electrical" / "RCCircuit.mo"
    assert main(["modelica", "diagram", str(path), "--out", str(png), "--width", "800"]) == 0
    assert "rendered RCCircuit: 7 components, 4 connections" in capsys.readouterr().out
    from PySide6.QtGui import QImage

    assert QImage(str(png)).width() == 800 and _ink(png) > 200
    assert main(["modelica", "diagram", str(path), "--class", "RCCircuit", "--out", str(svg)]) == 0
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "RCCircuit" in text
    assert not list(tmp_path.glob(".*tmp*"))  # written atomically


def test_bad_files_classes_and_outputs_exit_1_with_a_reason(tmp_path, capsys):
    good = LIBRARY / "Workbench" / "Electrical" / "RCCircuit.mo"
    out = tmp_path / "x.png"
    broken = tmp_path / "Broken.mo"
    broken.write_text("model Broken\n  Real x\nend Broken;\n")
    fifo = tmp_path / "Pipe.mo"
    os.mkfifo(fifo)
    for argv, reason in (
        ([str(good), "--class", "Nope"], "no class 'Nope' in RCCircuit.mo (classes with a diagram: RCCircuit)"),
        ([str(tmp_path / "Missing.mo")], "cannot read"),
        ([str(broken)], "Broken.mo does not parse: line 3"),
        ([str(fifo)], "not a regular file"),
        ([str(LIBRARY / "README.md")], "is not a Modelica file (.mo)"),
    ):
        assert main(["modelica", "diagram", *argv, "--out", str(out)]) == 1, argv
        err = capsys.readouterr().err
        assert reason in err, (argv, err)
        assert not out.exists()
    assert main(["modelica", "diagram", str(good), "--out", str(tmp_path / "x.jpg")]) == 1
    assert "write a .png or an .svg" in capsys.readouterr().err


@pytest.mark.external
def test_renders_a_lunco_model_with_its_icons(tmp_path, capsys):
    root = os.environ.get("LUNCOSIM_EXTERNAL_ASSETS")
    if not root or not Path(root).is_dir():
        pytest.skip("LUNCOSIM_EXTERNAL_ASSETS not set")
    src = Path(root) / "models" / "AnnotatedRocketStage.mo"
    path = tmp_path / src.name
    shutil.copy(src, path)
    png = tmp_path / "stage.png"
    assert main(["modelica", "diagram", str(path), "--out", str(png)]) == 0
    assert "AnnotatedRocketStage.RocketStage: 4 components" in capsys.readouterr().out
    assert _ink(png) > 500
