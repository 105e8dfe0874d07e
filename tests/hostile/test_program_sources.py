"""Program sources, hostile and clumsy: a Modelica or Rhai source that is a FIFO, a folder, junk
bytes, a syntax error or a model that crashes the compiler is a positioned error in
``luncosim validate`` (which compiles every program as ``run`` would) and makes ``luncosim run``
exit 1, never hang, traceback or exit 0."""

from __future__ import annotations

import json
import os

import pytest

from tests.hostile.test_files import SCENE, luncosim, twin

JUNK = bytes(range(128, 256)) * 8
DEEP = 8000  # rumoca's parser overflows its stack at about this many nested brackets


def program(name: str, asset: str) -> str:
    return (f'    def Scope "{name}" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {{\n'
            f'        asset info:sourceAsset = @{asset}@\n    }}\n')


def program_twin(folder, body: str):
    t = twin(folder)
    (t / "models").mkdir(exist_ok=True)
    (t / "scenarios").mkdir(exist_ok=True)
    (t / "scenes/s.usda").write_text(SCENE.replace('def Xform "W" {}', 'def Xform "W"\n{\n' + body + "}"),
                                     encoding="utf-8")
    return t


def put(t, rel: str, kind: str, text: str = "") -> None:
    """A source at ``t/rel``: a regular file with ``text``, a FIFO, a folder or junk bytes."""
    p = t / rel
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "folder":
        p.mkdir()
    elif kind == "junk":
        p.write_bytes(JUNK)
    else:
        p.write_text(text, encoding="utf-8")


def both(t, *, run_timeout: float = 120) -> tuple:
    """``validate --json`` (diagnostics) and ``run --json`` (output) of twin ``t``; both must exit 1."""
    v = luncosim("validate", "--json", str(t), timeout=120)
    r = luncosim("run", "--scene", str(t), "--ticks", "2", "--json", timeout=run_timeout)
    assert v.returncode == 1, v.out
    assert r.returncode == 1, (r.out, r.err)
    return json.loads(v.out), json.loads(r.out), r.err


SAYS = {"fifo": "is a FIFO", "folder": "is a folder", "junk": "is not UTF-8 text (invalid byte 0x80 at offset 0, line 1)"}


@pytest.mark.parametrize("kind", ["fifo", "folder", "junk"])
def test_an_unreadable_modelica_source(tmp_path, kind):
    t = program_twin(tmp_path, program("M", "twin://models/M.mo"))
    put(t, "models/M.mo", kind)
    diags, out, err = both(t)
    found = [d for d in diags if SAYS[kind] in d["message"]]
    assert found and found[0]["path"].startswith("/W/M") and "M.mo" in found[0]["message"], diags
    if kind == "junk":
        assert found[0]["code"] == "modelica.source" and found[0]["line"] == 1 and found[0]["path"] == "/W/M"
    else:
        assert found[0]["code"] == "asset-not-a-file" and found[0]["path"] == "/W/M.info:sourceAsset"
    assert any(SAYS[kind] in d["message"] and d["path"] == "/W/M" for d in out["diagnostics"]), out["diagnostics"]
    assert "/W/M did not load" in err


@pytest.mark.parametrize("kind", ["fifo", "folder", "junk", "missing", "syntax"])
def test_an_unloadable_rhai_scenario(tmp_path, kind):
    t = program_twin(tmp_path, program("S", "twin://scenarios/s.rhai"))
    if kind == "syntax":
        put(t, "scenarios/s.rhai", "text", "fn on_tick(me) {\n    let x = ;\n}\n")
    elif kind != "missing":
        put(t, "scenarios/s.rhai", kind)
    diags, out, err = both(t)
    says = {**SAYS, "missing": "not found", "syntax": "scenario does not compile"}[kind]
    assert any(says in d["message"] for d in diags), diags
    assert any(says in d["message"] for d in out["diagnostics"]), out["diagnostics"]
    assert "/W/S did not load" in err
    if kind == "syntax":
        d = next(d for d in diags if says in d["message"])
        assert (d["code"], d["path"], d["line"], d["column"]) == ("rhai.syntax", "/W/S", 2, 13)
        assert d["layer"].endswith("s.rhai")


def test_validate_compiles_modelica_and_positions_its_errors(tmp_path):
    inline = ('    def Scope "Inline" (prepend apiSchemas = ["LunCoProgramAPI"])\n    {\n'
              '        string info:sourceCode = """model Inline\n  Real x;\nequation\n  x = y;\nend Inline;"""\n    }\n')
    t = program_twin(tmp_path, program("M", "twin://models/M.mo") + inline + program("Ok", "twin://models/Ok.mo"))
    put(t, "models/M.mo", "text", "model M\n  Real x;\nequation\n  x = ;\nend M;\n")
    put(t, "models/Ok.mo", "text", "model Ok\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend Ok;\n")
    v = luncosim("validate", "--json", str(t))
    assert v.returncode == 1
    diags = json.loads(v.out)
    syntax = next(d for d in diags if d["path"] == "/W/M")
    assert (syntax["code"], syntax["line"], syntax["column"]) == ("modelica.syntax", 4, 7)
    assert syntax["layer"].endswith("models/M.mo")
    unresolved = next(d for d in diags if d["path"] == "/W/Inline")
    assert unresolved["layer"] == "/W/Inline.info:sourceCode" and "y" in unresolved["message"]
    assert not [d for d in diags if d["path"] == "/W/Ok"]  # the good model compiles


def test_a_model_that_crashes_the_compiler_fails_validate_and_run(tmp_path):
    t = program_twin(tmp_path, program("Deep", "twin://models/Deep.mo"))
    put(t, "models/Deep.mo", "text", "model Deep\n  Real x;\nequation\n  x = " + "(" * DEEP + "1" + ")" * DEEP + ";\nend Deep;\n")
    diags, out, err = both(t)
    for found in (diags, out["diagnostics"]):
        crash = [d for d in found if d["code"] == "modelica.compiler_crash" and d["path"] == "/W/Deep"]
        assert crash and "SIGSEGV" in crash[0]["message"] and "nothing else was affected" in crash[0]["message"]
    assert "/W/Deep did not load" in err


def test_a_huge_array_is_contained_by_the_memory_limit(tmp_path, monkeypatch):
    n = 2_000_000
    t = program_twin(tmp_path, program("Big", "twin://models/Big.mo"))
    put(t, "models/Big.mo", "text", f"model Big\n  parameter Real a[{n}] = fill(1.0, {n});\n  output Real y;\n"
                                     "equation\n  y = sum(a);\nend Big;\n")
    monkeypatch.setenv("LUNCOSIM_COMPILE_MEMORY_MB", "1024")  # the child's address space; the run survives
    r = luncosim("run", "--scene", str(t), "--ticks", "2", "--json", timeout=200)
    assert r.returncode == 1
    found = [d for d in json.loads(r.out)["diagnostics"] if d["path"] == "/W/Big" and d["severity"] == "error"]
    assert found and found[0]["code"] in ("modelica.compiler_memory", "modelica.compiler_crash"), found
    assert "1,024 MB limit" in found[0]["message"] or "out of memory" in found[0]["message"]


def test_a_fifo_sublayer_under_run(tmp_path):
    t = twin(tmp_path)
    (t / "scenes/s.usda").write_text(SCENE.replace("metersPerUnit = 1", "metersPerUnit = 1\n    subLayers = [@./pipe.usda@]"),
                                     encoding="utf-8")
    os.mkfifo(t / "scenes/pipe.usda")
    r = luncosim("run", "--scene", str(t), "--ticks", "2", timeout=60)  # must not block on the FIFO
    assert r.returncode == 1, (r.out, r.err)
    assert "pipe.usda is a FIFO" in r.out + r.err
