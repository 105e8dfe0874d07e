"""``luncosim edit``: typed edits of a scene file from the command line, through the journal.

``--set /Prim.attr=VALUE`` (VALUE in USD's own text syntax for the attribute's type: ``0.5``,
``(3, 0, 6)``, ``true``, ``"text"``; an ``xformOp:*`` the prim lacks is added to its
``xformOpOrder``), ``--add-reference /Prim=ASSET_URI`` (the prim is created as an Xform when it
does not exist) and ``--connect /Sink.inputs:x=/Source.outputs:y`` apply in the order given; the
file is saved once, atomically, changing only the lines the edits touched. Any bad path, type or
value exits 1 with the reason and leaves the file byte-identical.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from fractions import Fraction

from pxr import Sdf, Tf

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.usd.ops import (
    XFORM_OP_TYPES,
    AddPrim,
    AddReference,
    Batch,
    Op,
    OpError,
    SetAttribute,
    SetConnection,
    SetXformOp,
    xform_op_kind,
)


class _Ordered(argparse.Action):
    """Collect every edit option into one list, in the order given."""

    def __call__(self, parser, namespace, values, _option_string=None):
        edits = list(getattr(namespace, "edits", None) or [])
        edits.append((self.dest, values))
        namespace.edits = edits


def add_edit_verb(sub) -> None:
    p = sub.add_parser("edit", help="apply typed edits to a scene file and save it (minimal diff)")
    p.add_argument("path", help="the scene file (.usda)")
    p.add_argument("--set", dest="set", action=_Ordered, metavar="/PRIM.ATTR=VALUE", help="author a value (repeatable)")
    p.add_argument("--add-reference", dest="add_reference", action=_Ordered, metavar="/PRIM=ASSET_URI",
                   help="reference an asset from a prim, creating it as an Xform if missing (repeatable)")
    p.add_argument("--connect", dest="connect", action=_Ordered, metavar="/SINK.inputs:x=/SOURCE.outputs:y",
                   help="add a wire (repeatable)")
    p.set_defaults(func=cmd_edit, edits=[])


def _bad(message: str, path: str = "") -> OpError:
    return OpError(Diagnostic("error", "edit-argument", message, path=path, source="cli"))


def _split(text: str, what: str) -> tuple[str, str]:
    target, eq, value = text.partition("=")
    if not eq or not target:
        raise _bad(f"{what} {text!r}: expected {'/PRIM.ATTR=VALUE' if what == '--set' else 'LEFT=RIGHT'}")
    return target.strip(), value.strip()


def _property(text: str, what: str) -> Sdf.Path:
    if not Sdf.Path.IsValidPathString(text) or not Sdf.Path(text).IsPropertyPath():
        raise _bad(f"{what}: {text!r} is not a property path (/Prim.name)")
    return Sdf.Path(text)


# numeric literals of USD's text syntax (strings and asset paths are skipped whole)
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|@[^@]*@|(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?'
                      r'|[-+]?\b(?:inf|nan)\b)|(?P<word>\btrue\b|\bfalse\b)')
_INT_TYPES = {"int", "unsigned int", "long", "unsigned long", "unsigned char"}


def _leaf_kind(vt: Sdf.ValueTypeName) -> str:
    """What one number of a value of this type is: "bool", "int" or "real" ("" for non-numbers)."""
    name = vt.scalarType.type.typeName
    if name == "bool":
        return "bool"
    if name in _INT_TYPES or (name.startswith("GfVec") and name.endswith("i")):
        return "int"
    if name.startswith(("Gf", "pxr_half")) or name in ("float", "double"):
        return "real"
    return ""


def _plain(value):
    """A parsed USD value as the typed ops take it: numbers, strings, tuples (vectors, quaternions
    as (real, i, j, k), matrices as rows) and lists (arrays)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Sdf.AssetPath):
        return value.path
    if type(value).__name__.endswith("Array"):  # a Vt array
        return [_plain(v) for v in value]
    if hasattr(value, "GetReal"):
        return (float(value.GetReal()), *(float(v) for v in value.GetImaginary()))
    name = type(value).__name__
    if name.startswith("Matrix"):
        return tuple(tuple(float(v) for v in row) for row in value)
    if name.startswith("Vec"):
        return tuple(int(v) if name.endswith("i") else float(v) for v in value)
    return value


def _leaves(value) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _lossless(vt: Sdf.ValueTypeName, text: str, value, where: str) -> None:
    """Refuse a literal USD's parser would change on the way in (``int = 1.7`` stored as 1,
    ``bool = 1.5`` as true, ``float = 1e40`` as inf)."""
    kind = _leaf_kind(vt)
    if not kind:
        return
    literals = [m.group("num") or m.group("word") for m in _LITERAL.finditer(text) if m.group("num") or m.group("word")]
    leaves = _leaves(value)
    if len(literals) != len(leaves):
        return
    for literal, leaf in zip(literals, leaves, strict=True):
        if literal.lstrip("+-") in ("inf", "nan"):
            raise _bad(f"{where}: {literal} is not a finite number", where)
        if kind == "bool":
            if literal not in ("true", "false", "0", "1"):
                raise _bad(f"{where}: {literal} is not a bool (write true, false, 1 or 0)", where)
            continue
        exact = Fraction(literal)
        if kind == "int" and exact != leaf:
            raise _bad(f"{where}: {literal} is not an integer ({vt}); it would be stored as {leaf}", where)
        if kind == "real" and not math.isfinite(float(leaf)):
            raise _bad(f"{where}: {literal} is out of range for {vt}", where)


def parse_value(type_name: str, text: str, where: str):
    """A value written in USD's text syntax for ``type_name``, as the typed ops take it; a literal
    the parser would change (a fraction for an int, 1.5 for a bool, an overflow) is refused."""
    vt = Sdf.ValueTypeNames.Find(type_name)
    layer = Sdf.Layer.CreateAnonymous(".usda")
    source = f'#usda 1.0\ndef "V"\n{{\n    custom {type_name} v = {text}\n}}\n'
    try:
        with Tf.DiagnosticTrap() as trap:
            ok = layer.ImportFromString(source)
            trap.Clear()
    except Exception:  # pxr raises Tf errors for malformed text
        ok = False
    attr = layer.GetAttributeAtPath("/V.v") if ok else None
    if attr is None or attr.default is None or not vt:
        raise _bad(f"{where}: {text!r} is not a {type_name} value in USD syntax", where)
    value = _plain(attr.default)
    _lossless(vt, text, value, where)
    return value


def _set_op(stage, text: str) -> Op:
    target, value_text = _split(text, "--set")
    path = _property(target, "--set")
    prim = stage.GetPrimAtPath(path.GetPrimPath())
    if not prim:
        raise _bad(f"--set: no prim at {path.GetPrimPath()}", str(path))
    attr = prim.GetAttribute(path.name)
    prim_path = str(path.GetPrimPath())
    if path.name.startswith("xformOp:"):
        op_kind = xform_op_kind(path.name)
        if op_kind is None:
            raise _bad(f"--set: {path.name!r} is not an xformOp name "
                       f"(xformOp:<{'|'.join(XFORM_OP_TYPES)}>[:suffix])", str(path))
        type_name = str(attr.GetTypeName()) if attr else XFORM_OP_TYPES[op_kind][0]
        return SetXformOp(path=prim_path, name=path.name, value=parse_value(type_name, value_text, str(path)))
    if not attr:
        raise _bad(f"--set: {path.GetPrimPath()} has no attribute {path.name}", str(path))
    value = parse_value(str(attr.GetTypeName()), value_text, str(path))
    return SetAttribute(path=prim_path, name=path.name, value=value)


def _reference_ops(stage, text: str) -> list[Op]:
    prim_path, uri = _split(text, "--add-reference")
    if not Sdf.Path.IsValidPathString(prim_path) or not Sdf.Path(prim_path).IsPrimPath():
        raise _bad(f"--add-reference: {prim_path!r} is not a prim path")
    ops: list[Op] = [] if stage.GetPrimAtPath(prim_path) else [AddPrim(path=prim_path, type_name="Xform")]
    return [*ops, AddReference(path=prim_path, asset_path=uri)]


def _connect_op(stage, text: str) -> Op:
    sink_text, source_text = _split(text, "--connect")
    sink, source = _property(sink_text, "--connect"), _property(source_text, "--connect")
    attr = stage.GetAttributeAtPath(sink)
    src_attr = stage.GetAttributeAtPath(source)
    existing = tuple(str(s) for s in attr.GetConnections()) if attr else ()
    type_name = str(attr.GetTypeName()) if attr else str(src_attr.GetTypeName()) if src_attr else "float"
    return SetConnection(path=str(sink.GetPrimPath()), name=sink.name, sources=(*existing, str(source)),
                         type_name=type_name)


def apply_edits(doc, edits: list[tuple[str, str]]) -> int:
    """Apply each edit through ``doc``'s journal (author ``api``); returns how many ops."""
    count = 0
    for kind, text in edits:
        stage = doc.stage
        if kind == "set":
            ops = [_set_op(stage, text)]
        elif kind == "add_reference":
            ops = _reference_ops(stage, text)
        else:
            ops = [_connect_op(stage, text)]
        doc.apply(ops[0] if len(ops) == 1 else Batch(ops=tuple(ops), name=f"add reference {text}"), author="api")
        count += len(ops)
    return count


def cmd_edit(args: argparse.Namespace) -> int:
    from luncosim_core.twin import open_path
    from luncosim_core.usd.document import UsdDocument

    if not args.edits:
        print("luncosim edit: nothing to do (give --set, --add-reference or --connect)", file=sys.stderr)
        return 2
    try:
        opened = open_path(args.path, args.lunco_root)
        if opened.scene is None:
            raise _bad(opened.reason or f"{args.path} has no scene")
        doc = UsdDocument(opened.scene, opened.twin.roots, policy=opened.twin.composition_policy)
        count = apply_edits(doc, args.edits)
        doc.save()
    except DiagnosticError as exc:
        for d in exc.diagnostics:
            print(f"luncosim edit: {d}", file=sys.stderr)
        return 1
    print(f"{doc.path}: {count} edit(s) saved")
    return 0
