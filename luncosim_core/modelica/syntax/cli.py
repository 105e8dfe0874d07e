"""``luncosim modelica apply FILE --ops OPS.json [--out FILE]``: the diagram's edit ops, headless.

OPS.json is a JSON array of objects, each with an ``op`` key (AddComponent, RemoveComponent,
RenameComponent, SetPlacement, SetParameter, AddConnection, RemoveConnection, SetLinePoints) and
the op's fields, named as in docs/diagram.md (``class``, ``from``/``to`` for connections). All
ops apply, in order, or none: on an invalid op the verb names its index and reason, exits 1 and
writes nothing. The result is written atomically.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path

from luncosim_core.fsutil import atomic_write_text
from luncosim_core.modelica.syntax.ops import OPS, Op, OpError, apply_op
from luncosim_core.modelica.syntax.parser import ParseError, parse
from luncosim_core.modelica.syntax.resolve import library_for

_RENAMED = {"class": "cls", "from": "a", "to": "b"}


def _tuples(v: object) -> object:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def op_from_json(obj: object) -> Op:
    """One op from its JSON object (``ValueError`` saying what is wrong)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("op"), str):
        raise ValueError("an op must be an object with an 'op' name")
    kind = OPS.get(obj["op"])
    if kind is None:
        raise ValueError(f"unknown op {obj['op']!r} (known: {', '.join(sorted(OPS))})")
    names = {f.name for f in fields(kind)}
    kw: dict[str, object] = {"cls": None} if "cls" in names else {}
    placement = obj.get("placement")
    items = [(k, v) for k, v in obj.items() if k not in ("op", "placement")]
    if isinstance(placement, dict):
        items += list(placement.items())
    for key, value in items:
        name = _RENAMED.get(key, key)
        if name not in names:
            raise ValueError(f"{obj['op']} has no field {key!r}")
        kw[name] = value if name == "modifiers" else _tuples(value)
    if isinstance(kw.get("modifiers"), dict):
        kw["modifiers"] = tuple((str(k), str(v)) for k, v in kw["modifiers"].items())  # type: ignore[union-attr]
    try:
        return kind(**kw)
    except TypeError as exc:
        raise ValueError(f"{obj['op']}: {exc}") from None


def apply_ops(path: Path, ops_json: object, roots: tuple[Path, ...] = ()) -> tuple[str, str]:
    """The file's text and its text after every op; ``ValueError`` naming the first bad op."""
    text = path.read_text(encoding="utf-8")
    if not isinstance(ops_json, list):
        raise ValueError("OPS must be a JSON array of ops")
    lib = library_for(path, roots)
    new = text
    for i, obj in enumerate(ops_json):
        try:
            op = op_from_json(obj)
            sd = parse(new)
            new = apply_op(new, op, sd, lib).text
            parse(new)
        except (ValueError, OpError, ParseError) as exc:
            label = obj.get("op", "?") if isinstance(obj, dict) else "?"
            raise ValueError(f"op {i} ({label}): {exc}") from None
    return text, new


def cmd_modelica_apply(args: argparse.Namespace) -> int:
    try:
        ops_json = json.loads(Path(args.ops).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read ops {args.ops}: {exc}")
        return 1
    try:
        old, new = apply_ops(Path(args.file), ops_json)
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc}")
        return 1
    except ValueError as exc:
        print(f"error: {exc}; nothing written")
        return 1
    out = Path(args.out) if args.out else Path(args.file)
    atomic_write_text(out, new)
    changed = len(set(new.splitlines()) ^ set(old.splitlines()))
    print(f"applied {len(ops_json)} op(s) to {args.file}; wrote {out} ({changed} line(s) differ)")
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
