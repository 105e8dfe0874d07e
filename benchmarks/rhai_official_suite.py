"""Agreement of our Rhai interpreter with the Rhai project's own test cases.

Usage: ``python benchmarks/rhai_official_suite.py PATH/TO/rhai/tests [-v]``

PATH is a checkout of the rhaiscript/rhai repository's ``tests`` directory (nothing of it is
kept in this repository). The script extracts the simple cases: ``engine.eval::<T>("...")`` on
an engine made with ``let engine = Engine::new();`` (no host functions, no settings), under the
default features, whose outcome is a literal (``assert_eq!(..., 42)``, ``assert!(...)``,
``assert!(!...)``) or an error (``.is_err()``, ``.unwrap_err()``, ``.expect_err``). It runs each
on a fresh :class:`Engine` and prints the agreement; ``-v`` lists every disagreement.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from luncosim_core.scripting.rhai import (  # noqa: E402
    Char,
    Engine,
    Limits,
    RhaiError,
    Unit,
)

ERROR = object()  # the expected outcome "an error"


@dataclass
class Case:
    file: str
    line: int
    type_: str
    script: str
    expected: Any


# --- Rust lexing helpers -------------------------------------------------------------------

_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def _rust_escape(text: str, i: int) -> tuple[str, int]:
    """Decode the escape starting after the backslash at ``text[i]``."""
    c = text[i]
    if c in _ESC:
        return _ESC[c], i + 1
    if c == "x":
        return chr(int(text[i + 1:i + 3], 16)), i + 3
    if c == "u":
        end = text.index("}", i)
        return chr(int(text[i + 2:end], 16)), end + 1
    if c == "\n":  # line continuation: skip the newline and the following whitespace
        i += 1
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        return "", i
    raise ValueError(f"escape \\{c}")


def parse_rust_string(text: str, i: int) -> tuple[str, int] | None:
    """A Rust string literal at ``text[i]`` (plain or raw); returns (value, end)."""
    m = re.compile(r'r(#*)"').match(text, i)
    if m:
        close = '"' + m.group(1)
        end = text.index(close, m.end())
        return text[m.end():end], end + len(close)
    if i >= len(text) or text[i] != '"':
        return None
    out = []
    i += 1
    while text[i] != '"':
        if text[i] == "\\":
            s, i = _rust_escape(text, i + 1)
            out.append(s)
        else:
            out.append(text[i])
            i += 1
    return "".join(out), i + 1


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _strip_comments(text: str) -> str:
    """Blank out // comments outside strings (keeps offsets and line numbers)."""
    out = list(text)
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if text[i] == '"' or text.startswith('r"', i) or text.startswith("r#", i):
            parsed = _try_string(text, i)
            if parsed is not None:
                i = parsed
                continue
        i += 1
    return "".join(out)


def _try_string(text: str, i: int) -> int | None:
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_") and text[i] == "r":
        return None
    try:
        parsed = parse_rust_string(text, i)
    except (ValueError, IndexError):
        return None
    return None if parsed is None else parsed[1]


# --- cfg handling ----------------------------------------------------------------------------

def cfg_enabled(expr: str) -> bool:
    """Evaluate a ``cfg(...)`` predicate for the default feature set."""
    py = re.sub(r'feature\s*=\s*"([^"]+)"', lambda m: str(m.group(1) == "std"), expr)
    py = re.sub(r'\w+\s*=\s*"[^"]*"', "False", py)
    py = py.replace("not(", "_not(").replace("any(", "_any(").replace("all(", "_all(")
    py = re.sub(r"\bdebug_assertions\b", "True", py)
    py = re.sub(r"\btest\b", "True", py)
    try:
        return bool(eval(py, {"_not": lambda a: not a, "_any": lambda *a: any(a),  # noqa: S307
                              "_all": lambda *a: all(a), "True": True, "False": False}))
    except Exception:  # noqa: BLE001 - an unknown predicate: treat as disabled
        return False


def _block_end(text: str, i: int) -> int:
    """End of the item or statement starting at ``text[i]`` (brace-balanced, string-aware)."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "\"r":
            end = _try_string(text, i)
            if end is not None and (c == '"' or text[i + 1] in '"#'):
                i = end
                continue
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
            if depth == 0 and c == "}":
                return i + 1
            if depth < 0:
                return i
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    return i


def disabled_ranges(text: str) -> list[tuple[int, int]]:
    ranges = []
    m = re.search(r"#!\[cfg\((.*)\)\]", text)
    if m and not cfg_enabled(m.group(1)):
        return [(0, len(text))]
    for m in re.finditer(r"#\[cfg\((.*)\)\]", text):
        if not cfg_enabled(m.group(1)):
            start = _skip_ws(text, m.end())
            while text.startswith("#[", start):  # further attributes
                start = _skip_ws(text, text.index("]\n", start) + 1)
            ranges.append((m.start(), _block_end(text, start)))
    return ranges


# --- case extraction -------------------------------------------------------------------------

_LIT_EXPECTED = re.compile(
    r"""\s*(?:
        (?P<float>-?\d[\d_]*\.\d[\d_]*(?:e-?\d+)?) |
        (?P<int>-?\d[\d_]*)(?:\s*as\s*INT)? |
        (?P<bool>true|false) |
        (?P<unit>\(\)) |
        '(?P<char>\\.|[^'\\])'
    )\s*\)""", re.VERBOSE)


def parse_expected(text: str, i: int) -> Any:
    """The literal expected value at ``text[i]`` (after the comma), or None if not simple."""
    j = _skip_ws(text, i)
    if text[j] in '"r':
        parsed = _try_string(text, j)
        if parsed is None:
            return None
        value = parse_rust_string(text, j)[0]
        k = _skip_ws(text, parsed)
        if text.startswith(".to_string()", k):
            k = _skip_ws(text, k + len(".to_string()"))
        return value if text.startswith(")", k) else None
    m = _LIT_EXPECTED.match(text, j)
    if not m:
        return None
    if m.group("float"):
        return float(m.group("float").replace("_", ""))
    if m.group("int"):
        return int(m.group("int").replace("_", ""))
    if m.group("bool"):
        return m.group("bool") == "true"
    if m.group("unit"):
        return Unit
    ch = m.group("char")
    return Char(_ESC.get(ch[1], ch[1]) if ch.startswith("\\") else ch)


_EVAL = re.compile(r"engine\s*\.(?:eval::<(?P<type>[\w:]+|\(\))>|(?P<mode>compile|run))\(")
OK = object()  # the expected outcome "compiles" / "runs without error"


def _simple_engine_spans(text: str) -> list[tuple[int, int]]:
    """Test functions whose only engine is an unconfigured ``let engine = Engine::new();``."""
    spans = []
    for m in re.finditer(r"\bfn \w+\(\)[^{]*\{", text):
        end = _block_end(text, m.end() - 1)
        body = text[m.end():end]
        if re.search(r"let (mut )?engine = Engine::new\(\);", body) and not re.search(
                r"engine\s*\.(register|set_|on_|build_type|disable|define|add)", body):
            spans.append((m.start(), end))
    return spans


def _outcome(text: str, end: int, prefix: str) -> Any:
    """What the test expects of the eval call ending at ``text[end]``."""
    tail = text[end:end + 40]
    if re.match(r"\s*\.(is_err\(\)|unwrap_err\(\)|expect_err)", tail):
        return ERROR
    if not re.match(r"\s*\.unwrap\(\)", tail):
        return None
    after = text.index(")", end + tail.index("unwrap")) + 1
    if re.search(r"assert!\(\s*!\s*$", prefix):
        return False if re.match(r"\s*\)", text[after:]) else None
    if re.search(r"assert!\(\s*$", prefix):
        return True if re.match(r"\s*\)", text[after:]) else None
    if re.search(r"assert_eq!\(\s*$", prefix):
        k = _skip_ws(text, after)
        if text[k] != ",":
            return None
        return parse_expected(text, k + 1)
    return None


def extract(path: Path) -> list[Case]:
    text = _strip_comments(path.read_text())
    off = disabled_ranges(text)
    spans = _simple_engine_spans(text)
    cases = []
    for m in _EVAL.finditer(text):
        pos = m.start()
        if any(a <= pos < b for a, b in off) or not any(a <= pos < b for a, b in spans):
            continue
        j = _skip_ws(text, m.end())
        try:
            parsed = parse_rust_string(text, j)
        except (ValueError, IndexError):
            continue
        if parsed is None:
            continue
        script, k = parsed
        k = _skip_ws(text, k)
        if text[k] != ")":
            continue
        prefix = text[max(0, pos - 60):pos]
        expected = _outcome(text, k + 1, prefix)
        if m.group("mode") and expected is not ERROR:
            expected = OK if re.match(r"\s*(\.unwrap\(\)|\?)", text[k + 1:k + 20]) else None
        if expected is None:
            continue
        line = text.count("\n", 0, pos) + 1
        kind = m.group("type") or m.group("mode")
        cases.append(Case(path.name, line, kind, script, expected))
    return cases


# --- running ---------------------------------------------------------------------------------

_TYPES = {"INT": int, "i64": int, "FLOAT": float, "f64": float, "bool": bool, "String": str,
          "ImmutableString": str, "char": Char, "()": type(Unit)}


def type_ok(type_: str, value: Any) -> bool:
    want = _TYPES.get(type_.split("::")[-1])
    if want is None:
        return True  # Dynamic and friends
    if want is int:
        return type(value) is int
    if want is str:
        return type(value) is str
    return isinstance(value, want)


def judge(case: Case) -> tuple[bool, str]:
    eng = Engine(limits=Limits(max_operations=1_000_000))
    try:
        if case.type_ == "compile":
            eng.compile(case.script)
            return case.expected is OK, "compiled"
        got = eng.eval(case.script)
        if case.type_ == "run":
            return case.expected is OK, "ran"
    except RhaiError as e:
        return case.expected is ERROR, f"error: {e}"
    except RecursionError:
        return case.expected is ERROR, "error: Python recursion"
    except Exception as e:  # noqa: BLE001 - an interpreter crash is a disagreement
        return False, f"CRASH {type(e).__name__}: {e}"
    if case.expected is ERROR:
        return not type_ok(case.type_, got), f"value {got!r}"
    if not type_ok(case.type_, got):
        return False, f"type: got {type(got).__name__} {got!r}"
    exp = case.expected
    if isinstance(exp, float) and isinstance(got, float):
        ok = got == exp or math.isclose(got, exp, rel_tol=1e-12)
    else:
        ok = got == exp and type(got) is type(exp) or (exp is Unit and got is Unit)
    return ok, f"value {got!r}"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    root = Path(argv[0])
    verbose = "-v" in argv
    cases = [c for f in sorted(root.glob("*.rs")) for c in extract(f)]
    agree = 0
    kinds = {"wrong value": 0, "error where a value": 0, "accepted what Rhai rejects": 0}
    for case in cases:
        ok, note = judge(case)
        agree += ok
        if ok:
            continue
        if case.expected is ERROR:
            kinds["accepted what Rhai rejects"] += 1
        elif note.startswith(("error", "CRASH")):
            kinds["error where a value"] += 1
        else:
            kinds["wrong value"] += 1
        if verbose:
            exp = "<error>" if case.expected is ERROR else repr(case.expected)
            print(f"{case.file}:{case.line}: {case.script!r}\n    expected {exp}; {note}")
    pct = 100.0 * agree / max(1, len(cases))
    print(f"official suite: {agree}/{len(cases)} cases agree ({pct:.1f} %); "
          + ", ".join(f"{v} {k}" for k, v in kinds.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
