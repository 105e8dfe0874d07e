"""The batch interface (``luncosim rhai --jsonl``): one JSON request per line in, one JSON
result per line out, each on a fresh engine, so one bad line never stops the stream.

Request: ``{"code": "...", "limits": {"max_operations": N, "max_array_size": N,
"max_string_size": N, "max_map_size": N, "max_call_levels": N, "max_expr_depth": N,
"max_memory_bytes": N}, "compile_only": false}`` (``limits`` and ``compile_only`` optional).

Result: ``{"ok": true, "type": "<type_of>", "display": "<Display>", "value": <JSON>,
"printed": [...]}`` or ``{"ok": false, "error": {"kind": "parse" | "runtime" | "input",
"message": "...", "line": L, "column": C}, "printed": [...]}``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

from .engine import Engine, Limits
from .errors import RhaiError, RhaiSyntaxError
from .values import Char, Unit, to_display, type_of

# Defaults when a request gives no limits: enough for any real script, small enough that a
# runaway one ends in about a second.
DEFAULT_LIMITS = {"max_operations": 5_000_000, "max_call_levels": 64, "max_expr_depth": 0,
                  "max_string_size": 1 << 24, "max_array_size": 1 << 20, "max_map_size": 1 << 20,
                  "max_memory_bytes": 256 << 20}
_LIMIT_FIELD = {"max_call_levels": "max_call_depth"}  # request key -> Limits field


class BadRequest(ValueError):
    """A request line that is not a valid request (named in the message)."""


def to_json_value(v: Any) -> Any:
    """The JSON form of a Rhai value: () -> null, char -> string, blob -> list of bytes;
    non-finite floats and values JSON cannot hold (function pointers, ranges, timestamps) ->
    null (their ``display`` still says what they are)."""
    t = type(v)
    if v is Unit:
        return None
    if t is bool or t is int or t is str:
        return v
    if t is Char:
        return str(v)
    if t is float:
        return v if math.isfinite(v) else None
    if t is list:
        return [to_json_value(x) for x in v]
    if t is dict:
        return {k: to_json_value(v[k]) for k in sorted(v)}
    if t is bytearray:
        return list(v)
    return None


def _limits(raw: Any) -> Limits:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise BadRequest("'limits' must be an object")
    vals = dict(DEFAULT_LIMITS)
    for key, value in raw.items():
        if key not in DEFAULT_LIMITS:
            raise BadRequest(f"unknown limit '{key}' (known: {', '.join(DEFAULT_LIMITS)})")
        if type(value) is not int or value < 0:
            raise BadRequest(f"limit '{key}' must be a non-negative integer, not {value!r}")
        vals[key] = value
    return Limits(**{_LIMIT_FIELD.get(k, k): v for k, v in vals.items()})


def _parse_request(line: str) -> tuple[str, Limits, bool]:
    try:
        req = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadRequest(f"not JSON: {e.msg} at column {e.colno}") from None
    if not isinstance(req, dict):
        raise BadRequest("a request must be a JSON object")
    unknown = set(req) - {"code", "limits", "compile_only"}
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(sorted(unknown))}")
    code = req.get("code")
    if type(code) is not str:
        raise BadRequest("'code' must be a string")
    compile_only = req.get("compile_only", False)
    if type(compile_only) is not bool:
        raise BadRequest("'compile_only' must be true or false")
    return code, _limits(req.get("limits")), compile_only


def _error(kind: str, message: str, line: int | None = None, col: int | None = None) -> dict:
    return {"ok": False, "error": {"kind": kind, "message": message, "line": line or None,
                                   "column": col or None}}


def run_request(line: str) -> dict[str, Any]:
    """Evaluate one request line on a fresh engine; never raises."""
    try:
        code, limits, compile_only = _parse_request(line)
    except BadRequest as e:
        return {**_error("input", str(e)), "printed": []}
    eng = Engine(limits=limits)
    try:
        ast = eng.compile(code)
        value = Unit if compile_only else eng.run(ast)
    except RhaiError as e:
        kind = "parse" if isinstance(e, RhaiSyntaxError) else "runtime"
        return {**_error(kind, e.message, e.line, e.col), "printed": eng.printed}
    except RecursionError:
        return {**_error("runtime", "Stack overflow"), "printed": eng.printed}
    except Exception as e:  # noqa: BLE001 - an interpreter fault must not end the stream
        return {**_error("runtime", f"internal error: {type(e).__name__}: {e}"),
                "printed": eng.printed}
    return {"ok": True, "type": type_of(value), "display": to_display(value),
            "value": to_json_value(value), "printed": eng.printed}


def run_jsonl(lines: Iterable[str], write: Callable[[str], None]) -> int:
    """Answer each non-blank line with one JSON line; returns how many requests failed."""
    failed = 0
    for line in lines:
        if not line.strip():
            continue
        result = run_request(line)
        failed += not result["ok"]
        write(json.dumps(result, ensure_ascii=False, allow_nan=False))
    return failed
