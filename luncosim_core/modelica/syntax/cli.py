"""``luncosim modelica apply FILE --ops OPS.json [--out FILE]``: the diagram's edit ops, headless.

OPS.json is a JSON array of objects, each with an ``op`` key (AddComponent, RemoveComponent,
RenameComponent, SetPlacement, SetParameter, AddConnection, RemoveConnection, SetLinePoints,
AddGraphic, RemoveGraphic, SetGraphic) and
the op's fields, named as in docs/diagram.md (``class``, ``from``/``to`` for connections). All
ops apply, in order, or none: on an invalid op the verb names its index and reason, exits 1 and
writes nothing. Every field is checked for its type (a point is ``[x, y]`` of numbers, a value
is a Modelica expression as a string); FILE and OPS.json are read only when they are regular files
under the size cap (a FIFO is refused, never waited on); FILE and ``--out`` must be ``.mo`` files.
The result is written atomically.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import MISSING, fields
from pathlib import Path

from luncosim_core.fsutil import UnreadableFile, atomic_write_text, file_problem, read_text_limited
from luncosim_core.modelica.syntax.ops import OPS, Op, OpError, apply_op
from luncosim_core.modelica.syntax.parser import ParseError, parse
from luncosim_core.modelica.syntax.resolve import library_for

_RENAMED = {"class": "cls", "from": "a", "to": "b"}
_JSON_NAME = {v: k for k, v in _RENAMED.items()}
MAX_OPS_BYTES = 16 * 1024 * 1024


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _point(key: str, v: object) -> tuple[float, float]:
    if not (isinstance(v, list) and len(v) == 2 and all(_is_number(x) for x in v)):
        raise ValueError(f"'{key}' must be a point [x, y] of two numbers, not {json.dumps(v)}")
    return (float(v[0]), float(v[1]))


def _points(key: str, v: object, least: int) -> tuple[tuple[float, float], ...]:
    if not isinstance(v, list) or len(v) < least:
        raise ValueError(f"'{key}' must be a list of at least {least} points [[x, y], ...], not {json.dumps(v)}")
    return tuple(_point(f"{key}[{i}]", p) for i, p in enumerate(v))


def _text(key: str, v: object, optional: bool = False) -> str | None:
    if v is None and optional:
        return None
    if not isinstance(v, str):
        what = "a string or null" if optional else "a string"
        hint = " (a Modelica expression as text, e.g. \"1.5\")" if key in ("value", "modifiers") else ""
        raise ValueError(f"'{key}' must be {what}{hint}, not {json.dumps(v)}")
    return v


def _field(key: str, name: str, v: object) -> object:
    """One JSON field as the op's value (``ValueError`` saying what it must be)."""
    if name in ("origin",):
        return _point(key, v)
    if name == "extent":
        pts = _points(key, v, 2)
        if len(pts) != 2:
            raise ValueError(f"'{key}' must be two points [[x1, y1], [x2, y2]], not {json.dumps(v)}")
        return pts
    if name == "points":
        return _points(key, v, 2)
    if name == "rotation":
        if not _is_number(v):
            raise ValueError(f"'{key}' must be a number of degrees, not {json.dumps(v)}")
        return float(v)  # type: ignore[arg-type]
    if name in ("flip_h", "flip_v"):
        if not isinstance(v, bool):
            raise ValueError(f"'{key}' must be true or false, not {json.dumps(v)}")
        return v
    if name == "modifiers":
        if not isinstance(v, dict):
            raise ValueError(f"'{key}' must be an object of modifier name to value text, not {json.dumps(v)}")
        return tuple((str(k), _text(f"modifiers.{k}", val)) for k, val in v.items())
    if name == "index":
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"'{key}' must be a whole number from 0 (the graphic's place in the array), not {json.dumps(v)}")
        return v
    if name in ("cls", "value", "description", "modification"):
        return _text(key, v, optional=True)
    return _text(key, v)


def op_from_json(obj: object) -> Op:
    """One op from its JSON object (``ValueError`` saying what is wrong: an unknown op or field,
    a missing field, a field of the wrong type)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("op"), str):
        raise ValueError("an op must be an object with an 'op' name")
    kind = OPS.get(obj["op"])
    if kind is None:
        raise ValueError(f"unknown op {obj['op']!r} (known: {', '.join(sorted(OPS))})")
    known = {f.name: f for f in fields(kind) if f.name != "check"}  # connector checks cannot be switched off
    kw: dict[str, object] = {"cls": None} if "cls" in known else {}
    placement = obj.get("placement")
    if placement is not None and not isinstance(placement, dict):
        raise ValueError(f"'placement' must be an object (origin, extent, rotation), not {json.dumps(placement)}")
    items = [(k, v) for k, v in obj.items() if k not in ("op", "placement")]
    if isinstance(placement, dict):
        items += [(f"placement.{k}", v) for k, v in placement.items()]
    for key, value in items:
        name = _RENAMED.get(key.rsplit(".", 1)[-1], key.rsplit(".", 1)[-1])
        if name not in known:
            raise ValueError(f"{obj['op']} has no field {key!r}")
        kw[name] = _field(key, name, value)
    missing = [_JSON_NAME.get(f.name, f.name) for f in known.values()
               if f.name not in kw and f.default is MISSING and f.default_factory is MISSING]
    if missing:
        raise ValueError(f"{obj['op']} needs {', '.join(repr(m) for m in missing)}")
    return kind(**kw)


def apply_ops(path: Path, ops_json: object, roots: tuple[Path, ...] = ()) -> tuple[str, str]:
    """The file's text and its text after every op; ``ValueError`` naming the first bad op."""
    text = read_text_limited(path, "Modelica file")
    if not isinstance(ops_json, list):
        raise ValueError("OPS must be a JSON array of ops")
    lib = library_for(path, roots)
    new = text
    for i, obj in enumerate(ops_json):
        label = obj.get("op", "?") if isinstance(obj, dict) else "?"
        try:
            op = op_from_json(obj)
            sd = parse(new)
            new = apply_op(new, op, sd, lib).text
            parse(new)
        except (ValueError, TypeError, OpError, ParseError) as exc:  # OpError, ParseError, SpliceError are ValueErrors
            raise ValueError(f"op {i} ({label}): {exc}") from None
    return text, new


def cmd_modelica_apply(args: argparse.Namespace) -> int:
    file, out = Path(args.file), Path(args.out) if args.out else Path(args.file)
    for what, p in (("FILE", file), ("--out", out)):
        if p.suffix != ".mo":
            print(f"error: {what} {p} is not a Modelica file (.mo); nothing written")
            return 1
    try:
        ops_json = json.loads(read_text_limited(args.ops, "ops file", MAX_OPS_BYTES))
    except (UnreadableFile, OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read ops {args.ops}: {exc}; nothing written")
        return 1
    try:
        old, new = apply_ops(file, ops_json)
    except (UnreadableFile, OSError) as exc:
        print(f"error: cannot read {file}: {exc}; nothing written")
        return 1
    except ValueError as exc:
        print(f"error: {exc}; nothing written")
        return 1
    if out.exists() and file_problem(out, "output") is not None:
        print(f"error: --out {out}: {file_problem(out, 'output')}; nothing written")
        return 1
    try:
        atomic_write_text(out, new)
    except OSError as exc:
        print(f"error: cannot write {out}: {exc}")
        return 1
    changed = len(set(new.splitlines()) ^ set(old.splitlines()))
    print(f"applied {len(ops_json)} op(s) to {file}; wrote {out} ({changed} line(s) differ)")
    return 0


def modelica_verbs(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The sub-verbs of ``luncosim modelica`` (made on first use), for other packages to add to:
    the workbench adds ``diagram`` (it needs Qt, which the core never imports) from its
    ``luncosim.cli`` entry point."""
    p = sub.choices.get("modelica")
    if p is None:
        p = sub.add_parser("modelica", help="edit Modelica files with the diagram's ops (and render diagrams)")
        p.luncosim_verbs = p.add_subparsers(dest="modelica_verb", required=True)  # type: ignore[attr-defined]
    return p.luncosim_verbs  # type: ignore[attr-defined]


def add_modelica_verbs(sub: argparse._SubParsersAction) -> None:
    verbs = modelica_verbs(sub)
    if "apply" in verbs.choices:
        return
    a = verbs.add_parser("apply", help="apply a JSON array of ops to a .mo file, all or nothing")
    a.add_argument("file", help="the .mo file")
    a.add_argument("--ops", required=True, help="a JSON file: an array of ops")
    a.add_argument("--out", default=None, help="write here instead of over FILE")
    a.set_defaults(func=cmd_modelica_apply)
