import json
import subprocess
import sys
from pathlib import Path

from luncosim_core.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_demo_twin_validates_without_error(demo_twin, capsys):
    assert main(["validate", str(demo_twin)]) == 0
    out = capsys.readouterr().out
    assert "0 error(s)" in out


def test_validate_json_shape_and_exit_code(writer, tmp_path, capsys):
    scene = writer(tmp_path / "s.usda", '#usda 1.0\ndef Xform "S" (\n    prepend references = @./gone.usda@\n)\n{\n}\n')
    bad = writer(tmp_path / "bad.usda", '#usda 1.0\ndef Xform "S"\n{\n    double = 1\n}\n')
    assert main(["validate", "--json", str(scene)]) == 0  # warnings only
    diags = json.loads(capsys.readouterr().out)
    assert {"severity", "code", "path", "layer", "message"} <= set(diags[0])
    assert any(d["code"] == "usd-missing-arc" for d in diags)
    assert main(["validate", "--json", str(bad)]) == 1
    diags = json.loads(capsys.readouterr().out)
    assert diags[0]["code"] == "usd-malformed-layer" and diags[0]["line"] == 4


def test_console_script_and_lunco_root_option(tmp_path, writer):
    lib = tmp_path / "lib"
    writer(lib / "thing.usda", '#usda 1.0\n(\n    defaultPrim = "T"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\ndef Xform "T"\n{\n}\n')
    scene = writer(tmp_path / "twin" / "s.usda", '#usda 1.0\n(\n    defaultPrim = "S"\n    upAxis = "Y"\n    metersPerUnit = 1\n)\ndef Xform "S" (\n    prepend references = @lunco://thing.usda@\n)\n{\n}\n')
    exe = Path(sys.executable).with_name("luncosim")
    ok = subprocess.run([str(exe), "--lunco-root", str(lib), "validate", "--json", str(scene)], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout) == []
    missing = subprocess.run([str(exe), "validate", "--json", str(scene)], capture_output=True, text=True)
    assert any(d["code"] == "usd-missing-arc" for d in json.loads(missing.stdout))


def test_unknown_path_is_an_error(capsys, tmp_path):
    assert main(["validate", str(tmp_path / "nope.usda")]) == 1
