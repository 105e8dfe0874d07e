"""The batch interface: `luncosim rhai --jsonl` answers one JSON line per request, each on a
fresh engine, and a bad line never stops the stream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from luncosim_core.scripting.rhai.batch import run_jsonl, run_request

ROOT = Path(__file__).resolve().parents[2]


def test_values_come_back_typed_with_display_and_json() -> None:
    r = run_request(json.dumps({"code": "[1, 2.5, 'c', \"s\", #{b: (), a: true}]"}))
    assert r == {"ok": True, "type": "array", "display": '[1, 2.5, \'c\', "s", #{"a": true, '
                 '"b": ()}]', "value": [1, 2.5, "c", "s", {"a": True, "b": None}],
                 "printed": []}
    assert run_request('{"code": "blob(3, 0x41)"}')["value"] == [65, 65, 65]
    assert run_request('{"code": "()"}') == {"ok": True, "type": "()", "display": "",
                                            "value": None, "printed": []}
    r = run_request('{"code": "print(`x = ${1 + 1}`); 1.0 / 0.0"}')
    assert (r["type"], r["value"], r["printed"]) == ("f64", None, ["x = 2"])


def test_errors_name_kind_line_and_column() -> None:
    r = run_request(json.dumps({"code": "let a = 1;\nlet b = a +;"}))
    assert r["error"] == {"kind": "parse", "message": "Unexpected ';'", "line": 2,
                          "column": 12}
    r = run_request(json.dumps({"code": "let a = [1];\n  a[5]"}))
    assert r["ok"] is False and r["error"]["kind"] == "runtime"
    assert (r["error"]["line"], r["error"]["column"]) == (2, 4)
    assert "out of bounds" in r["error"]["message"]


def test_limits_apply_per_request() -> None:
    r = run_request(json.dumps({"code": "let s = 0; loop { s += 1; }",
                                "limits": {"max_operations": 1000}}))
    assert r["error"]["kind"] == "runtime" and "Too many operations" in r["error"]["message"]
    r = run_request(json.dumps({"code": "let a = []; for i in 0..100 { a.push(i); } a.len()",
                                "limits": {"max_array_size": 10}}))
    assert r["ok"] is False and "Size of array" in r["error"]["message"]
    r = run_request(json.dumps({"code": "fn f(n) { f(n + 1) } f(0)",
                                "limits": {"max_call_levels": 8}}))
    assert r["ok"] is False and "Stack overflow" in r["error"]["message"]
    r = run_request(json.dumps({"code": "x", "limits": {"max_stuff": 1}}))
    assert r["error"]["kind"] == "input" and "max_stuff" in r["error"]["message"]


def test_compile_only_does_not_run() -> None:
    r = run_request(json.dumps({"code": "print(1); fn f() { 2 }", "compile_only": True}))
    assert r["ok"] is True and r["printed"] == []
    r = run_request(json.dumps({"code": "fn f( { }", "compile_only": True}))
    assert r["error"]["kind"] == "parse"


def test_each_line_gets_a_fresh_engine_and_bad_lines_do_not_stop_it() -> None:
    out: list[str] = []
    failed = run_jsonl(['{"code": "let x = 1; x"}', "not json", "", '{"code": 5}',
                        '{"code": "x"}'], out.append)
    res = [json.loads(o) for o in out]
    assert len(res) == 4 and failed == 3
    assert res[0]["value"] == 1
    assert res[1]["error"]["kind"] == "input" and res[2]["error"]["kind"] == "input"
    assert res[3]["error"]["message"] == "Variable not found: x"  # nothing left from line 1


def test_cli_reads_stdin_and_writes_one_line_per_request() -> None:
    lines = ['{"code": "40 + 2"}', "{", '{"code": "\\"a\\" + 1"}']
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "luncosim_core.cli", "rhai", "--jsonl"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True,
                       env=env, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    res = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    assert [r["ok"] for r in res] == [True, False, True]
    assert res[0]["value"] == 42 and res[2]["value"] == "a1"
