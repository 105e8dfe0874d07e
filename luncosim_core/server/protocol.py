"""The sim server's message vocabulary, in JSON: commands and queries by name, their results,
snapshots, and the JSON Schema of every command and query, generated from the ``api`` types.

One vocabulary, two encodings: HTTP clients and scripts speak the JSON forms here; the
workbench's pipe to its own child carries the same messages as typed values
(:mod:`luncosim_core.server.channel`). Version :data:`PROTOCOL_VERSION` is in every hello.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from typing import Any

import numpy as np

import luncosim_core.api  # noqa: F401  (registers every command and query class)
from luncosim_core.api.commands import ApplyOp, Command, CommandResult, Query, SetPorts
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic

PROTOCOL_VERSION = 1


class ProtocolError(ValueError):
    """A message that does not fit the vocabulary; ``field`` names the offending part."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def to_json(self) -> dict:
        return {"error": "bad-request", "field": self.field, "message": self.message}


def _subclasses(base: type) -> list[type]:
    out = []
    for cls in base.__subclasses__():
        out.append(cls)
        out.extend(_subclasses(cls))
    return out


def vocabulary() -> dict[str, type]:
    """Every command and query class of ``luncosim_core.api``, by name, sorted."""
    found = {c.name: c for c in (*_subclasses(Command), *_subclasses(Query)) if c.__module__.startswith("luncosim_core.api")}
    return dict(sorted(found.items()))


def _fields(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


# ---------------------------------------------------------------------------- JSON Schema
def _type_schema(hint: Any) -> dict:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return {}
    if origin in (types.UnionType, typing.Union):
        return {"anyOf": [_type_schema(a) for a in args]}
    if hint is type(None):
        return {"type": "null"}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    if hint in simple:
        return {"type": simple[hint]}
    if origin in (tuple, list):
        item = args[0] if args else Any
        return {"type": "array", "items": _type_schema(item)}
    if origin is dict or hint is dict:
        return {"type": "object", "additionalProperties": _type_schema(args[1]) if args else {}}
    return {}


def command_schema(cls: type) -> dict:
    """The JSON Schema of one command's or query's ``params``."""
    props = {}
    required = []
    for name, hint in _fields(cls).items():
        props[name] = _type_schema(hint)
        field = next(f for f in dataclasses.fields(cls) if f.name == name)
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(name)
    if cls is ApplyOp:
        props["op"] = {"type": "object", "description": "a document op: {\"kind\": <op kind>, ...its fields}",
                       "required": ["kind"], "properties": {"kind": {"type": "string"}}}
    doc = (cls.__doc__ or "").strip()
    return {"type": "object", "title": cls.name, "description": " ".join(doc.split()),
            "kind": "command" if issubclass(cls, Command) else "query",
            "properties": props, "required": required, "additionalProperties": False}


def schema() -> dict:
    """``GET /api/commands/schema``: every command and query and the request envelope."""
    defs = {name: command_schema(cls) for name, cls in vocabulary().items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "LunCoSim sim server commands",
        "protocol": PROTOCOL_VERSION,
        "oneOf": [{"type": "object", "required": ["command"], "additionalProperties": False,
                   "properties": {"command": {"const": name}, "params": {"$ref": f"#/$defs/{name}"}}}
                  for name in defs],
        "$defs": defs,
    }


# ---------------------------------------------------------------------------- decoding requests
def _check(value: Any, hint: Any, where: str) -> Any:
    """``value`` checked against ``hint`` (lists become tuples where the type says tuple)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return value
    if origin in (types.UnionType, typing.Union):
        errors = []
        for a in args:
            try:
                return _check(value, a, where)
            except ProtocolError as err:
                errors.append(err.message)
        raise ProtocolError(where, " or ".join(errors))
    if hint is type(None):
        if value is not None:
            raise ProtocolError(where, f"expected null, got {type(value).__name__}")
        return None
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProtocolError(where, f"expected a number, got {_json_type(value)}")
        return float(value)
    if hint in (str, bool, int):
        if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
            raise ProtocolError(where, f"expected {_json_name(hint)}, got {_json_type(value)}")
        return value
    if origin in (tuple, list):
        if not isinstance(value, list):
            raise ProtocolError(where, f"expected an array, got {_json_type(value)}")
        return tuple(_check(v, args[0] if args else Any, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise ProtocolError(where, f"expected an object, got {_json_type(value)}")
        return {k: _check(v, args[1], f"{where}.{k}") for k, v in value.items()}
    return value


def _json_name(hint: type) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer"}[hint]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
            dict: "an object"}.get(type(value), type(value).__name__)


def decode_request(body: Any) -> Command | Query:
    """``{"command": NAME, "params": {...}}`` as a typed command or query (ProtocolError naming
    the field otherwise)."""
    if not isinstance(body, dict):
        raise ProtocolError("body", f"expected an object, got {_json_type(body)}")
    extra = set(body) - {"command", "params"}
    if extra:
        raise ProtocolError(sorted(extra)[0], "unknown field (a request has 'command' and 'params')")
    name = body.get("command")
    if not isinstance(name, str):
        raise ProtocolError("command", f"expected a command name, got {_json_type(name)}")
    known = vocabulary()
    cls = known.get(name)
    if cls is None:
        raise ProtocolError("command", f"unknown command or query '{name}' (known: {', '.join(known)})")
    params = body.get("params", {})
    if not isinstance(params, dict):
        raise ProtocolError("params", f"expected an object, got {_json_type(params)}")
    fields = _fields(cls)
    values = {}
    for key, value in params.items():
        if key not in fields:
            raise ProtocolError(f"params.{key}", f"{name} has no field '{key}' (fields: {', '.join(fields)})")
        if cls is ApplyOp and key == "op":
            values[key] = decode_op(value, "params.op")
        else:
            values[key] = _check(value, fields[key], f"params.{key}")
    if cls is SetPorts:
        for port, v in values.get("writes", {}).items():
            if isinstance(v, str) or v is None or (isinstance(v, float) and not math.isfinite(v)):
                raise ProtocolError(f"params.writes.{port}", f"expected a finite number or a boolean, got {_json_type(v)}")
    return cls(**values)


def decode_op(value: Any, where: str):
    """A document op from ``{"kind": ..., fields}`` (nested ``ops`` for a batch)."""
    from luncosim_core.usd import ops as ops_module

    if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
        raise ProtocolError(where, "expected an op object with a 'kind'")
    kinds = {c.kind: c for c in _subclasses(ops_module.Op) if c.__module__ == ops_module.__name__}
    cls = kinds.get(value["kind"])
    if cls is None or value["kind"] == "restore":
        raise ProtocolError(f"{where}.kind", f"unknown op kind '{value['kind']}' (known: {', '.join(sorted(k for k in kinds if k != 'restore'))})")
    fields = _fields(cls)
    out = {}
    for key, v in value.items():
        if key == "kind":
            continue
        if key not in fields:
            raise ProtocolError(f"{where}.{key}", f"op '{cls.kind}' has no field '{key}'")
        if key == "ops":
            if not isinstance(v, list):
                raise ProtocolError(f"{where}.ops", "expected an array of ops")
            out[key] = tuple(decode_op(o, f"{where}.ops[{i}]") for i, o in enumerate(v))
        else:
            out[key] = _check(v, fields[key], f"{where}.{key}")
    return cls(**out)


# ---------------------------------------------------------------------------- encoding replies
def to_jsonable(value: Any) -> Any:
    """Results as JSON: records as objects, arrays as lists, NaN as null, the rest as text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Diagnostic):
        return value.to_json()
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return str(value)


def result_json(result: CommandResult) -> dict:
    return {"ok": result.ok, "value": to_jsonable(result.value),
            "diagnostics": [d.to_json() for d in result.diagnostics],
            "tick": result.tick, "sequence": result.sequence}


def result_from_json(data: dict) -> CommandResult:
    diags = tuple(Diagnostic(d.get("severity", "error"), d.get("code", ""), d.get("message", ""),
                             path=d.get("path", ""), layer=d.get("layer", "")) for d in data.get("diagnostics", ()))
    return CommandResult(bool(data.get("ok")), data.get("value"), diags, data.get("tick"), data.get("sequence"))


def snapshot_json(snap: WorkbenchSnapshot) -> dict:
    """``GET /api/snapshot``: tick, time, status, ports, bodies (the ``luncosim run --json``
    shape) plus the reason, scene, generation and real-time factor."""
    out = snap.to_json()
    out.update({"reason": snap.reason, "scene": snap.scene, "generation": snap.generation,
                "real_time_factor": to_jsonable(snap.real_time_factor),
                "faults": [f.to_json() for f in snap.faults]})
    return out


def event_json(event: Any) -> dict:
    """A published event (console line, notification) or a diagnostic, its class as ``kind``."""
    body = to_jsonable(event)
    return {"kind": type(event).__name__, **(body if isinstance(body, dict) else {"value": body})}
