"""A Rhai module file is read as every source file is (``fsutil.read_text_limited``): a module of
junk bytes is a positioned error at its ``import`` naming the file, and ``luncosim rhai`` exits 1
with it, never a UnicodeDecodeError traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from luncosim_core.scripting.rhai import Engine, RhaiRuntimeError


def test_a_module_that_is_not_utf8_text_is_a_positioned_error(tmp_path):
    (tmp_path / "junk.rhai").write_bytes(bytes(range(256)) * 4)
    main = tmp_path / "main.rhai"
    main.write_text('let x = 1;\nimport "junk" as j;\nx', encoding="utf-8")
    eng = Engine(module_roots=[tmp_path])
    with pytest.raises(RhaiRuntimeError) as info:
        eng.eval(main.read_text(), file=str(main))
    err = info.value
    assert (err.line, err.col) == (2, 1) and err.file == str(main)
    assert "Module 'junk' cannot be read" in err.message and "junk.rhai" in err.message
    assert "not UTF-8 text" in err.message
    p = subprocess.run([sys.executable, "-m", "luncosim_core.cli", "rhai", str(main)],
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 1
    assert f"({main}:2:1)" in p.stderr and "junk.rhai is not UTF-8 text" in p.stderr, p.stderr


def test_a_module_that_is_a_folder_or_too_big_is_refused_by_name(tmp_path):
    (tmp_path / "big.rhai").write_bytes(b"// x\n" * (4 << 20))  # 20 MB of comments
    eng = Engine(module_roots=[tmp_path])
    with pytest.raises(RhaiRuntimeError, match=r"Module 'big' cannot be read: .*big\.rhai is "
                                               r"[\d,]+ bytes, over the [\d,]+-byte limit"):
        eng.eval('import "big" as b;')
