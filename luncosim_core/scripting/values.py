"""Converting between script values and the plain Python/JSON values of the command API."""

from __future__ import annotations

import math
from typing import Any

from luncosim_core.scripting.rhai import Char, FnPtr, Unit, to_display


def to_script(value: Any) -> Any:
    """A command/query result (dicts, lists, tuples, numpy scalars, None) as script values."""
    if value is None:
        return Unit
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {str(k): to_script(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_script(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return to_script(value.item())
    if hasattr(value, "to_json") and callable(value.to_json):
        return to_script(value.to_json())
    return str(value)


def from_script(value: Any) -> Any:
    """A script value as plain Python for command parameters (``()`` -> None)."""
    if value is Unit:
        return None
    if isinstance(value, Char):
        return str(value)
    if isinstance(value, dict):
        return {k: from_script(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_script(v) for v in value]
    if isinstance(value, FnPtr):
        return to_display(value)
    return value


def to_json_text(value: Any) -> str:
    """Compact JSON of a script value (non-finite floats become null)."""
    import json

    def clean(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    return json.dumps(clean(from_script(value)), separators=(",", ":"), allow_nan=False, default=str)
