"""Typed document operations.

Every op names its edit target (``base`` or ``runtime``), checks its preconditions against the
composed stage before touching anything (a failure raises :class:`OpError` and changes nothing),
and returns its exact inverse (:class:`RestoreSpecs`) when applied. Ops are immutable values: the
journal stores them, panels and scripts create them, nobody mutates them.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pxr import Pcp, Sdf, Tf, Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.usd.snapshots import SpecSnapshot, top_missing_prim

EDIT_TARGETS = ("base", "runtime")


class OpError(DiagnosticError):
    """An op's precondition failed; nothing was changed."""


def _fail(op: Op, message: str, path: str = "") -> OpError:
    return OpError(Diagnostic("error", f"op-{op.kind}", message, path=path or getattr(op, "path", ""), source="usd"))


class DocumentAccess:
    """What an op needs from the document: the composed stage and the target layers."""

    stage: Usd.Stage

    def layer_for(self, target: str) -> Sdf.Layer:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class Op:
    """Base of every typed op."""

    kind: ClassVar[str] = "op"
    target: str = field(default="base", kw_only=True)

    def label(self) -> str:
        return self.kind

    # preflight + apply; returns the inverse
    def apply(self, doc: DocumentAccess) -> Op:
        if self.target not in EDIT_TARGETS:
            raise _fail(self, f"unknown edit target {self.target!r} (use base or runtime)")
        self.check(doc)
        layer = doc.layer_for(self.target)
        snapshots = self.capture(doc, layer)
        with Usd.EditContext(doc.stage, layer):
            self.do(doc, layer)
        return RestoreSpecs(snapshots=tuple(snapshots), target=self.target, undoes=self.label())

    def check(self, doc: DocumentAccess) -> None:
        """Raise :class:`OpError` when the op cannot apply."""

    def capture(self, doc: DocumentAccess, layer: Sdf.Layer) -> list[SpecSnapshot]:
        raise NotImplementedError

    def do(self, doc: DocumentAccess, layer: Sdf.Layer) -> None:
        raise NotImplementedError


# ---------------------------------------------------------------------------------- helpers
def _prim(op: Op, doc: DocumentAccess, path: str) -> Usd.Prim:
    if not path or not Sdf.Path.IsValidPathString(path) or not Sdf.Path(path).IsPrimPath():
        raise _fail(op, f"'{path}' is not a valid prim path", path)
    prim = doc.stage.GetPrimAtPath(path)
    if not prim:
        raise _fail(op, f"no prim at {path}", path)
    return prim


def _capture_property(layer: Sdf.Layer, prim_path: str, name: str) -> list[SpecSnapshot]:
    prop_path = Sdf.Path(prim_path).AppendProperty(name)
    missing = top_missing_prim(layer, prop_path)
    if missing is not None:
        return [SpecSnapshot.absent(missing)]
    return [SpecSnapshot.capture_fields(layer, prop_path)]


def _capture_prim_fields(layer: Sdf.Layer, prim_path: str) -> list[SpecSnapshot]:
    missing = top_missing_prim(layer, Sdf.Path(prim_path))
    if missing is not None:
        return [SpecSnapshot.absent(missing)]
    return [SpecSnapshot.capture_fields(layer, prim_path)]


def _value_type(op: Op, type_name: str) -> Sdf.ValueTypeName:
    vt = Sdf.ValueTypeNames.Find(type_name)
    if not vt:
        raise _fail(op, f"unknown USD value type '{type_name}'")
    return vt


# ---------------------------------------------------------------------------------- ops
@dataclass(frozen=True)
class RestoreSpecs(Op):
    """The inverse of an op: put specs back exactly as they were."""

    kind: ClassVar[str] = "restore"
    snapshots: tuple[SpecSnapshot, ...] = ()
    undoes: str = ""

    def label(self) -> str:
        return f"undo {self.undoes}"

    def apply(self, doc: DocumentAccess) -> Op:
        layer = doc.layer_for(self.target)
        redo_snaps = [
            SpecSnapshot.capture_subtree(layer, s.path) if (s.whole or not Sdf.Path(s.path).IsPropertyPath()) and not s.fields
            else SpecSnapshot.capture_fields(layer, s.path)
            for s in self.snapshots
        ]
        with Sdf.ChangeBlock():
            for snap in reversed(self.snapshots):
                snap.restore(layer)
        return RestoreSpecs(snapshots=tuple(redo_snaps), target=self.target, undoes=self.undoes)


@dataclass(frozen=True)
class SetAttribute(Op):
    """Author an attribute value; an existing attribute keeps its authored type."""

    kind: ClassVar[str] = "set-attribute"
    path: str = ""
    name: str = ""
    value: Any = None
    type_name: str | None = None  # required only when the attribute does not exist yet

    def label(self) -> str:
        return f"set {self.path}.{self.name}"

    def check(self, doc: DocumentAccess) -> None:
        prim = _prim(self, doc, self.path)
        if not Sdf.Path.IsValidNamespacedIdentifier(self.name):
            raise _fail(self, f"'{self.name}' is not a valid attribute name")
        attr = prim.GetAttribute(self.name)
        if prim.GetRelationship(self.name):
            raise _fail(self, f"{self.path}.{self.name} is a relationship, not an attribute")
        if not attr and not self.type_name:
            raise _fail(self, f"{self.path} has no attribute '{self.name}'; give type_name to create it")
        vt = attr.GetTypeName() if attr else _value_type(self, self.type_name or "")
        if self.type_name and attr and _value_type(self, self.type_name) != attr.GetTypeName():
            raise _fail(self, f"{self.path}.{self.name} is authored as {attr.GetTypeName()}, not {self.type_name}")
        try:
            Sdf.ValueTypeNames.Find(str(vt))  # type exists
            _coerce(vt, self.value)
        except (TypeError, ValueError) as exc:
            raise _fail(self, f"value {self.value!r} does not fit {self.path}.{self.name} ({vt}): {exc}") from exc
        if attr:
            self._check_allowed_tokens(attr)
            self._check_bounds(attr)

    def _check_allowed_tokens(self, attr: Usd.Attribute) -> None:
        """A token outside the attribute's ``allowedTokens`` (schema or authored) is refused, naming them."""
        allowed = attr.GetMetadata("allowedTokens")
        if not allowed or str(attr.GetTypeName().scalarType) != "token":
            return
        values = self.value if isinstance(self.value, (list, tuple)) else [self.value]
        bad = [v for v in values if isinstance(v, str) and v not in allowed]
        if bad:
            raise _fail(self, f"{bad[0]!r} is not an allowed token of {self.path}.{self.name} "
                              f"(allowed: {', '.join(str(t) for t in allowed)})")

    def _check_bounds(self, attr: Usd.Attribute) -> None:
        """A number outside the attribute's declared ``customData`` min/max is refused, naming it."""
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            return
        data = attr.GetCustomData() or {}
        for key, outside in (("min", lambda v, b: v < b), ("max", lambda v, b: v > b)):
            bound = data.get(key)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool) and outside(float(self.value), float(bound)):
                word = "below the minimum" if key == "min" else "above the maximum"
                raise _fail(self, f"{self.value:g} is {word} {float(bound):g} of {self.path}.{self.name} "
                                  f"(customData {key})")

    def capture(self, doc, layer):
        return _capture_property(layer, self.path, self.name)

    def do(self, doc, layer):
        prim = doc.stage.GetPrimAtPath(self.path)
        attr = prim.GetAttribute(self.name)
        vt = attr.GetTypeName() if attr else Sdf.ValueTypeNames.Find(self.type_name)
        if not attr or not layer.GetPropertyAtPath(attr.GetPath()):
            attr = prim.CreateAttribute(self.name, vt)
        attr.Set(_coerce(vt, self.value))


_INT_LIMITS = {"int": 2**31, "uint": 2**32, "int64": 2**63, "uint64": 2**64, "uchar": 256}


def _coerce(vt: Sdf.ValueTypeName, value: Any) -> Any:
    """Check and convert a Python value to the value type (raises TypeError/ValueError).

    Arrays are checked element by element with the element type's rules; vectors, quaternions
    (``(real, i, j, k)``) and matrices (rows) take tuples of finite numbers or their Gf value."""
    py = vt.type.pythonClass
    scalar = str(vt.scalarType)
    if vt.isArray:
        return _coerce_array(vt, value)
    if py is not None and py.__module__.endswith("Gf") and isinstance(value, py):
        value = _gf_components(value)
    if scalar == "bool":
        if not isinstance(value, bool):
            raise TypeError("expected a bool")
        return value
    if scalar in _INT_LIMITS:
        return _coerce_int(scalar, value)
    if scalar in ("float", "double", "half"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("expected a number")
        if not math.isfinite(float(value)):
            raise ValueError("non-finite value")
        return float(value)
    if scalar in ("string", "token"):
        if not isinstance(value, str):
            raise TypeError("expected a string")
        return value
    if scalar == "asset":
        return value if isinstance(value, Sdf.AssetPath) else Sdf.AssetPath(str(value))
    if py is not None and isinstance(value, (list, tuple)):
        return _coerce_gf(py, value)
    return value


def _coerce_array(vt: Sdf.ValueTypeName, value: Any) -> Any:
    py = vt.type.pythonClass
    if py is not None and isinstance(value, py):
        value = list(value)
    if not isinstance(value, (list, tuple)):
        raise TypeError("expected a list")
    items = []
    for i, item in enumerate(value):
        try:
            items.append(_coerce(vt.scalarType, item))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"element {i}: {exc}") from exc
    return py(items) if py is not None else items


def _coerce_gf(py: type, value: list | tuple) -> Any:
    """A Gf vector (``Vec3f``), quaternion or matrix (rows) from plain numbers."""
    name = py.__name__
    if name.startswith("Matrix") and all(isinstance(row, (list, tuple)) for row in value):
        size = int(name[6])
        if len(value) != size or any(len(row) != size for row in value):
            raise ValueError(f"expected {size} rows of {size} numbers")
        value = [v for row in value for v in row]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        raise ValueError("expected finite numbers")
    width = int(name[3]) if name.startswith("Vec") else 4 if name.startswith("Quat") else \
        int(name[6]) ** 2 if name.startswith("Matrix") else len(value)
    if len(value) != width:
        raise ValueError(f"expected {width} numbers, got {len(value)}")
    if name.startswith("Vec") and name.endswith("i"):
        value = [_coerce_int("int", v) for v in value]
    return py(*value)


def _gf_components(value: Any) -> tuple:
    """A Gf vector, quaternion or matrix as plain numbers (rows for a matrix)."""
    if hasattr(value, "GetReal"):
        return (value.GetReal(), *value.GetImaginary())
    if type(value).__name__.startswith("Matrix"):
        return tuple(tuple(row) for row in value)
    return tuple(value)


def _coerce_int(scalar: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if not (isinstance(value, float) and value.is_integer()):
            raise TypeError("expected an integer")
        value = int(value)
    hi = _INT_LIMITS[scalar]
    lo = 0 if scalar.startswith("u") else -hi
    if not lo <= value < hi:
        raise ValueError(f"{value} does not fit {scalar}")
    return value


@dataclass(frozen=True)
class SetConnection(Op):
    """Author ``<consumer>.<name>.connect = [sources]``; every source must exist."""

    kind: ClassVar[str] = "set-connection"
    path: str = ""
    name: str = ""
    sources: tuple[str, ...] = ()
    type_name: str = "float"

    def label(self) -> str:
        return f"wire {self.path}.{self.name}"

    def check(self, doc):
        _prim(self, doc, self.path)
        if not Sdf.Path.IsValidNamespacedIdentifier(self.name):
            raise _fail(self, f"'{self.name}' is not a valid property name")
        if self.name.startswith("outputs:"):
            # an output is produced, never a wire's sink; the one exception is interface
            # forwarding: an assembly's output fed by an output of a prim inside it
            inside = Sdf.Path(self.path)
            for src in self.sources:
                sp = Sdf.Path(src) if Sdf.Path.IsValidPathString(src) else None
                if sp is None or not sp.IsPropertyPath() or not sp.name.startswith("outputs:") or \
                        not sp.GetPrimPath().HasPrefix(inside) or sp.GetPrimPath() == inside:
                    raise _fail(self, f"{self.path}.{self.name} is an output: a wire's sink is an input (author "
                                      f"the wire on the consumer's inputs:<name>); an output is fed only by an "
                                      f"output of a prim inside {self.path} (interface forwarding), not by {src}")
        _value_type(self, self.type_name)
        for src in self.sources:
            if not Sdf.Path.IsValidPathString(src) or not Sdf.Path(src).IsPropertyPath():
                raise _fail(self, f"source '{src}' is not a property path (/Prim.outputs:name)")
            sp = Sdf.Path(src)
            src_prim = doc.stage.GetPrimAtPath(sp.GetPrimPath())
            if not src_prim:
                raise _fail(self, f"source prim {sp.GetPrimPath()} does not exist")
            if not src_prim.GetAttribute(sp.name):
                raise _fail(self, f"source {src} does not exist (declare {sp.name} on {sp.GetPrimPath()})")

    def capture(self, doc, layer):
        return _capture_property(layer, self.path, self.name)

    def do(self, doc, layer):
        prim = doc.stage.GetPrimAtPath(self.path)
        attr = prim.GetAttribute(self.name)
        if not attr:
            attr = prim.CreateAttribute(self.name, Sdf.ValueTypeNames.Find(self.type_name))
        elif not layer.GetPropertyAtPath(attr.GetPath()):
            attr = prim.CreateAttribute(self.name, attr.GetTypeName())
        attr.SetConnections([Sdf.Path(s) for s in self.sources])


@dataclass(frozen=True)
class SetRelationship(Op):
    """Author ``<prim>.<name> = [targets]`` (a joint's bodies, a material binding)."""

    kind: ClassVar[str] = "set-relationship"
    path: str = ""
    name: str = ""
    targets: tuple[str, ...] = ()

    def label(self) -> str:
        return f"relate {self.path}.{self.name}"

    def check(self, doc):
        prim = _prim(self, doc, self.path)
        if not Sdf.Path.IsValidNamespacedIdentifier(self.name):
            raise _fail(self, f"'{self.name}' is not a valid relationship name")
        if prim.GetAttribute(self.name):
            raise _fail(self, f"{self.path}.{self.name} is an attribute, not a relationship")
        for t in self.targets:
            if not Sdf.Path.IsValidPathString(t) or not doc.stage.GetObjectAtPath(t):
                raise _fail(self, f"target {t} does not exist")

    def capture(self, doc, layer):
        return _capture_property(layer, self.path, self.name)

    def do(self, doc, layer):
        rel = doc.stage.GetPrimAtPath(self.path).CreateRelationship(self.name, False)
        rel.SetTargets([Sdf.Path(t) for t in self.targets])


@dataclass(frozen=True)
class AddPrim(Op):
    kind: ClassVar[str] = "add-prim"
    path: str = ""
    type_name: str = "Xform"
    specifier: str = "def"

    def label(self) -> str:
        return f"add {self.path}"

    def check(self, doc):
        if not Sdf.Path.IsValidPathString(self.path) or not Sdf.Path(self.path).IsPrimPath():
            raise _fail(self, f"'{self.path}' is not a valid prim path")
        if doc.stage.GetPrimAtPath(self.path):
            raise _fail(self, f"a prim already exists at {self.path}")
        parent = Sdf.Path(self.path).GetParentPath()
        if parent != Sdf.Path.absoluteRootPath and not doc.stage.GetPrimAtPath(parent):
            raise _fail(self, f"parent {parent} does not exist")
        if self.specifier not in ("def", "over", "class"):
            raise _fail(self, f"unknown specifier {self.specifier!r}")

    def capture(self, doc, layer):
        missing = top_missing_prim(layer, Sdf.Path(self.path))
        return [SpecSnapshot.absent(missing or self.path)] if missing else [SpecSnapshot.capture_subtree(layer, self.path)]

    def do(self, doc, layer):
        if self.specifier == "def":
            doc.stage.DefinePrim(self.path, self.type_name)
        elif self.specifier == "over":
            doc.stage.OverridePrim(self.path)
        else:
            prim = doc.stage.CreateClassPrim(self.path)
            if self.type_name:
                prim.SetTypeName(self.type_name)


@dataclass(frozen=True)
class RemovePrim(Op):
    """Remove the prim's spec (and everything below it) from the edit target layer."""

    kind: ClassVar[str] = "remove-prim"
    path: str = ""

    def label(self) -> str:
        return f"remove {self.path}"

    def check(self, doc):
        _prim(self, doc, self.path)
        if not doc.layer_for(self.target).GetPrimAtPath(self.path):
            raise _fail(self, f"{self.path} has no opinion in the {self.target} layer (it comes from a reference or another layer)")

    def capture(self, doc, layer):
        return [SpecSnapshot.capture_subtree(layer, self.path)]

    def do(self, doc, layer):
        edit = Sdf.BatchNamespaceEdit()
        edit.Add(Sdf.NamespaceEdit.Remove(self.path))
        if not layer.Apply(edit):
            raise _fail(self, f"cannot remove {self.path}")


@dataclass(frozen=True)
class MovePrim(Op):
    """Rename and/or reparent a prim's spec in the edit target layer."""

    kind: ClassVar[str] = "move-prim"
    path: str = ""
    new_path: str = ""

    def label(self) -> str:
        return f"move {self.path} -> {self.new_path}"

    def check(self, doc):
        _prim(self, doc, self.path)
        layer = doc.layer_for(self.target)
        if not layer.GetPrimAtPath(self.path):
            raise _fail(self, f"{self.path} has no opinion in the {self.target} layer")
        if not Sdf.Path.IsValidPathString(self.new_path) or not Sdf.Path(self.new_path).IsPrimPath():
            raise _fail(self, f"'{self.new_path}' is not a valid prim path")
        if doc.stage.GetPrimAtPath(self.new_path) or layer.GetPrimAtPath(self.new_path):
            raise _fail(self, f"{self.new_path} already exists")
        new_parent = Sdf.Path(self.new_path).GetParentPath()
        if new_parent.HasPrefix(Sdf.Path(self.path)):
            raise _fail(self, f"cannot move {self.path} under itself")
        if new_parent != Sdf.Path.absoluteRootPath and not layer.GetPrimAtPath(new_parent):
            raise _fail(self, f"new parent {new_parent} has no spec in the {self.target} layer")

    def capture(self, doc, layer):
        return [SpecSnapshot.capture_subtree(layer, self.path), SpecSnapshot.absent(self.new_path)]

    def do(self, doc, layer):
        new = Sdf.Path(self.new_path)
        edit = Sdf.BatchNamespaceEdit()
        if new.GetParentPath() == Sdf.Path(self.path).GetParentPath():
            edit.Add(Sdf.NamespaceEdit.Rename(self.path, new.name))
        else:
            edit.Add(Sdf.NamespaceEdit.ReparentAndRename(self.path, new.GetParentPath(), new.name, -1))
        if not layer.Apply(edit):
            raise _fail(self, f"cannot move {self.path} to {self.new_path}")


def RenamePrim(path: str, new_name: str, *, target: str = "base") -> MovePrim:  # noqa: N802
    """A rename is a move within the same parent."""
    return MovePrim(path=path, new_path=str(Sdf.Path(path).GetParentPath().AppendChild(new_name)), target=target)


@dataclass(frozen=True)
class SetVariantSelection(Op):
    kind: ClassVar[str] = "set-variant"
    path: str = ""
    variant_set: str = ""
    selection: str = ""

    def label(self) -> str:
        return f"variant {self.path} {self.variant_set}={self.selection}"

    def check(self, doc):
        prim = _prim(self, doc, self.path)
        vsets = prim.GetVariantSets()
        if not vsets.HasVariantSet(self.variant_set):
            raise _fail(self, f"{self.path} has no variant set '{self.variant_set}' (has: {', '.join(vsets.GetNames()) or 'none'})")
        names = vsets.GetVariantSet(self.variant_set).GetVariantNames()
        if self.selection and self.selection not in names:
            raise _fail(self, f"variant set '{self.variant_set}' has no variant '{self.selection}' (has: {', '.join(names)})")

    def capture(self, doc, layer):
        return _capture_prim_fields(layer, self.path)

    def do(self, doc, layer):
        vset = doc.stage.GetPrimAtPath(self.path).GetVariantSets().GetVariantSet(self.variant_set)
        if self.selection:
            vset.SetVariantSelection(self.selection)
        else:
            vset.ClearVariantSelection()


@dataclass(frozen=True)
class SetTransform(Op):
    """Author translate / rotateXYZ (degrees) / scale ops.

    The prim's authored ``xformOpOrder`` is kept as it is (a pivot stack, a rotate before a
    translate): an op already in it is only given its new value, and a missing one is inserted
    where it does not move the others' meaning: translate first, rotate before the first scale,
    scale last. The order is authored only when an op was inserted."""

    kind: ClassVar[str] = "set-transform"
    path: str = ""
    translate: tuple[float, float, float] | None = None
    rotate_xyz: tuple[float, float, float] | None = None
    scale: tuple[float, float, float] | None = None

    def label(self) -> str:
        return f"transform {self.path}"

    _OPS = (("translate", "xformOp:translate"), ("rotate_xyz", "xformOp:rotateXYZ"), ("scale", "xformOp:scale"))

    def check(self, doc):
        prim = _prim(self, doc, self.path)
        if not prim.IsA(UsdGeom.Xformable):
            raise _fail(self, f"{self.path} ({prim.GetTypeName() or 'typeless'}) is not transformable")
        for field_name, _ in self._OPS:
            v = getattr(self, field_name)
            if v is not None and (len(v) != 3 or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in v)):
                raise _fail(self, f"{field_name} must be three finite numbers, got {v!r}")

    def capture(self, doc, layer):
        snaps: list[SpecSnapshot] = []
        missing = top_missing_prim(layer, Sdf.Path(self.path))
        if missing is not None:
            return [SpecSnapshot.absent(missing)]
        for field_name, attr in self._OPS:
            if getattr(self, field_name) is not None:
                snaps += _capture_property(layer, self.path, attr)
        snaps += _capture_property(layer, self.path, "xformOpOrder")
        return snaps

    def do(self, doc, layer):
        prim = doc.stage.GetPrimAtPath(self.path)
        order_attr = prim.GetAttribute("xformOpOrder")
        authored = list(order_attr.Get() or []) if order_attr else []
        order = list(authored)
        for field_name, attr_name in self._OPS:
            value = getattr(self, field_name)
            if value is None:
                continue
            attr = prim.GetAttribute(attr_name)
            vt = attr.GetTypeName() if attr else Sdf.ValueTypeNames.Double3
            if not attr or not layer.GetPropertyAtPath(attr.GetPath()):
                attr = prim.CreateAttribute(attr_name, vt, False)  # a schema property, not custom
            attr.Set(vt.type.pythonClass(*value))
            if attr_name not in order:
                insert_xform_op(order, attr_name)
        if order != authored:
            prim.CreateAttribute("xformOpOrder", Sdf.ValueTypeNames.TokenArray, False, Sdf.VariabilityUniform).Set(order)


def insert_xform_op(order: list[str], name: str) -> None:
    """Put ``name`` (an ``xformOp:*`` the prim lacks) into ``order`` without reordering the ops
    already there: a translate first, a rotate or orient before the first scale, a scale (and
    anything else) last, inside trailing ``!invert!`` ops. A pivot (``xformOp:translate:pivot``) goes right after the translates
    with its inverse (``!invert!xformOp:translate:pivot``) last, as Kit authors it, so adding one
    moves nothing."""
    kind = name.split(":")[1] if name.count(":") >= 1 else ""
    end = len(order)  # "last" is inside the trailing inverse ops (a pivot's inverse closes the stack)
    while end > 0 and order[end - 1].startswith("!invert!"):
        end -= 1
    if kind == "translate" and name.endswith(":pivot"):
        at = 0
        while at < len(order) and order[at].split(":")[1:2] == ["translate"]:
            at += 1
        order.insert(at, name)
        if f"!invert!{name}" not in order:
            order.append(f"!invert!{name}")
    elif kind == "translate":
        order.insert(0, name)
    elif kind.startswith("rotate") or kind == "orient":
        scales = [i for i, n in enumerate(order[:end]) if n.split(":")[1:2] == ["scale"]]
        order.insert(scales[0] if scales else end, name)
    else:
        order.insert(end, name)


# xformOp kind -> (the type a new op gets, the types it may have)
_VEC3 = ("double3", "float3", "half3")
XFORM_OP_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "translate": ("double3", _VEC3),
    "scale": ("float3", _VEC3),
    **{f"rotate{axis}": ("float", ("double", "float", "half")) for axis in "XYZ"},
    **{f"rotate{axes}": ("float3", _VEC3) for axes in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")},
    "orient": ("quatf", ("quatd", "quatf", "quath")),
    "transform": ("matrix4d", ("matrix4d",)),
}


def xform_op_kind(name: str) -> str | None:
    """The op kind of an ``xformOp:<kind>[:suffix]`` attribute name (None when it is not one)."""
    parts = name.split(":")
    if len(parts) < 2 or parts[0] != "xformOp" or parts[1] not in XFORM_OP_TYPES or not all(parts[2:]):
        return None
    return parts[1] if Sdf.Path.IsValidNamespacedIdentifier(name) else None


@dataclass(frozen=True)
class SetXformOp(Op):
    """Author one ``xformOp:*`` value (``xformOp:rotateY``, ``xformOp:orient``,
    ``xformOp:translate:pivot``, ``xformOp:rotateXYZ:tilt``, ...). An op the prim lacks is created
    (``type_name``, else the kind's usual type: translate double3, rotations and scale float3 or
    float, orient quatf, transform matrix4d) and put into ``xformOpOrder`` the way
    :func:`insert_xform_op` does; an op already in the order keeps its place."""

    kind: ClassVar[str] = "set-xform-op"
    path: str = ""
    name: str = ""
    value: Any = None
    type_name: str | None = None

    def label(self) -> str:
        return f"set {self.path}.{self.name}"

    def _type(self, prim: Usd.Prim) -> Sdf.ValueTypeName:
        attr = prim.GetAttribute(self.name)
        if attr:
            return attr.GetTypeName()
        return Sdf.ValueTypeNames.Find(self.type_name or XFORM_OP_TYPES[xform_op_kind(self.name)][0])

    def check(self, doc):
        prim = _prim(self, doc, self.path)
        if not prim.IsA(UsdGeom.Xformable):
            raise _fail(self, f"{self.path} ({prim.GetTypeName() or 'typeless'}) is not transformable")
        op_kind = xform_op_kind(self.name)
        if op_kind is None:
            raise _fail(self, f"'{self.name}' is not an xformOp name (xformOp:<{'|'.join(XFORM_OP_TYPES)}>[:suffix])")
        allowed = XFORM_OP_TYPES[op_kind][1]
        attr = prim.GetAttribute(self.name)
        if self.type_name and attr and _value_type(self, self.type_name) != attr.GetTypeName():
            raise _fail(self, f"{self.path}.{self.name} is authored as {attr.GetTypeName()}, not {self.type_name}")
        vt = self._type(prim) if (attr or not self.type_name) else _value_type(self, self.type_name)
        if str(vt) not in allowed:
            raise _fail(self, f"an xformOp:{op_kind} is one of {', '.join(allowed)}, not {vt}")
        try:
            _coerce(vt, self.value)
        except (TypeError, ValueError) as exc:
            raise _fail(self, f"value {self.value!r} does not fit {self.path}.{self.name} ({vt}): {exc}") from exc

    def capture(self, doc, layer):
        missing = top_missing_prim(layer, Sdf.Path(self.path))
        if missing is not None:
            return [SpecSnapshot.absent(missing)]
        return _capture_property(layer, self.path, self.name) + _capture_property(layer, self.path, "xformOpOrder")

    def do(self, doc, layer):
        prim = doc.stage.GetPrimAtPath(self.path)
        vt = self._type(prim)
        attr = prim.GetAttribute(self.name)
        if not attr or not layer.GetPropertyAtPath(attr.GetPath()):
            attr = prim.CreateAttribute(self.name, vt, False)  # an xformOp is not a custom property
        attr.Set(_coerce(vt, self.value))
        order_attr = prim.GetAttribute("xformOpOrder")
        authored = list(order_attr.Get() or []) if order_attr else []
        if self.name not in authored:
            order = list(authored)
            insert_xform_op(order, self.name)
            prim.CreateAttribute("xformOpOrder", Sdf.ValueTypeNames.TokenArray, False, Sdf.VariabilityUniform).Set(order)


@dataclass(frozen=True)
class AddReference(Op):
    kind: ClassVar[str] = "add-reference"
    path: str = ""
    asset_path: str = ""
    prim_path: str = ""  # the referenced prim; "" = the asset's defaultPrim

    def label(self) -> str:
        return f"reference @{self.asset_path}@ on {self.path}"

    def _ref(self) -> Sdf.Reference:
        return Sdf.Reference(self.asset_path, Sdf.Path(self.prim_path) if self.prim_path else Sdf.Path())

    def check(self, doc):
        _prim(self, doc, self.path)
        if not self.asset_path:
            raise _fail(self, "asset_path is empty")
        roots = getattr(doc, "roots", None)
        if roots is not None:
            layer = doc.layer_for(self.target)
            result = roots.resolve_file(self.asset_path, layer.realPath or None)
            if result.diagnostic is not None:
                raise OpError(result.diagnostic)
            self._check_no_cycle(doc, layer, roots)

    def _check_no_cycle(self, doc, layer: Sdf.Layer, roots) -> None:
        """The scene file referencing itself around this prim (its default prim holds the prim, or
        the reverse), or an asset that brings the scene file in again, is refused. USD could not
        see it before the save: a ``twin://`` spelling of the scene is another layer until the
        file is read again, and then the scene no longer composes."""
        from luncosim_core.usd.compose import asset_closure, private_source

        root = doc.stage.GetRootLayer()
        scene = getattr(doc, "path", None) or private_source(root.identifier) or root.realPath
        if not scene:
            return
        own = os.path.realpath(str(scene))
        files = asset_closure(self.asset_path, layer if not layer.anonymous else root, roots)
        where = f"@{self.asset_path}@{f'<{self.prim_path}>' if self.prim_path else ''} from {self.path}"
        if files and files[0] == own:
            held = self.prim_path or (f"/{root.defaultPrim}" if root.defaultPrim else "")
            if held and Sdf.Path.IsValidPathString(held):
                held_path, prim_path = Sdf.Path(held), Sdf.Path(self.path)
                if prim_path.HasPrefix(held_path) or held_path.HasPrefix(prim_path):
                    raise _fail(self, f"referencing {where} makes a composition cycle: {held} of the scene itself "
                                      f"{'holds' if prim_path.HasPrefix(held_path) else 'is inside'} {self.path}; refused")
        elif own in files:
            raise _fail(self, f"referencing {where} makes a composition cycle: {os.path.basename(files[0])} brings "
                              f"the scene file {os.path.basename(own)} in again; refused")

    def apply(self, doc: DocumentAccess) -> Op:
        """As every op, and refused (undone at once) when the reference closes a composition cycle
        (the prim would contain itself: a scene referencing itself, or an asset referencing back)."""
        with Tf.DiagnosticTrap() as trap:
            before = {str(e) for e in doc.stage.GetCompositionErrors() if isinstance(e, Pcp.ErrorArcCycle)}
            inverse = super().apply(doc)
            cycles = [e for e in doc.stage.GetCompositionErrors()
                      if isinstance(e, Pcp.ErrorArcCycle) and str(e) not in before]
            if cycles:
                inverse.apply(doc)
                trap.Clear()  # USD's own report of the cycle: ours below says it
        if cycles:
            raise _fail(self, f"referencing @{self.asset_path}@{f'<{self.prim_path}>' if self.prim_path else ''} "
                              f"from {self.path} makes a composition cycle ({self.path} would contain itself); refused")
        return inverse

    def capture(self, doc, layer):
        return _capture_prim_fields(layer, self.path)

    def do(self, doc, layer):
        doc.stage.GetPrimAtPath(self.path).GetReferences().AddReference(self._ref())


@dataclass(frozen=True)
class RemoveReference(Op):
    kind: ClassVar[str] = "remove-reference"
    path: str = ""
    asset_path: str = ""
    prim_path: str = ""

    def label(self) -> str:
        return f"unreference @{self.asset_path}@ on {self.path}"

    def check(self, doc):
        _prim(self, doc, self.path)
        spec = doc.layer_for(self.target).GetPrimAtPath(self.path)
        refs = spec.referenceList.GetAddedOrExplicitItems() if spec else []
        if not any(r.assetPath == self.asset_path and (not self.prim_path or str(r.primPath) == self.prim_path) for r in refs):
            raise _fail(self, f"{self.path} has no reference @{self.asset_path}@ in the {self.target} layer")

    def capture(self, doc, layer):
        return _capture_prim_fields(layer, self.path)

    def do(self, doc, layer):
        ref = Sdf.Reference(self.asset_path, Sdf.Path(self.prim_path) if self.prim_path else Sdf.Path())
        spec = layer.GetPrimAtPath(self.path)
        for items in (spec.referenceList.prependedItems, spec.referenceList.appendedItems, spec.referenceList.explicitItems):
            for r in list(items):
                if r.assetPath == ref.assetPath and (not self.prim_path or r.primPath == ref.primPath):
                    items.remove(r)


@dataclass(frozen=True)
class SetApiSchemas(Op):
    """Set the prim's prepended applied API schemas (e.g. PhysicsRigidBodyAPI)."""

    kind: ClassVar[str] = "set-api-schemas"
    path: str = ""
    schemas: tuple[str, ...] = ()

    def label(self) -> str:
        return f"schemas {self.path}"

    def check(self, doc):
        _prim(self, doc, self.path)
        for s in self.schemas:
            if not s or not all(c.isalnum() or c in "_:" for c in s):
                raise _fail(self, f"'{s}' is not a schema name")

    def capture(self, doc, layer):
        return _capture_prim_fields(layer, self.path)

    def do(self, doc, layer):
        prim = doc.stage.GetPrimAtPath(self.path)
        spec = layer.GetPrimAtPath(self.path) or Sdf.CreatePrimInLayer(layer, self.path)
        if not spec:
            prim.SetMetadata("apiSchemas", Sdf.TokenListOp())
            spec = layer.GetPrimAtPath(self.path)
        listop = Sdf.TokenListOp()
        listop.prependedItems = list(self.schemas)
        spec.SetInfo("apiSchemas", listop)


@dataclass(frozen=True)
class Batch(Op):
    """Several ops applied in order and undone as one unit (all or nothing)."""

    kind: ClassVar[str] = "batch"
    ops: tuple[Op, ...] = ()
    name: str = "batch"

    def label(self) -> str:
        return self.name

    def apply(self, doc: DocumentAccess) -> Op:
        inverses: list[Op] = []
        try:
            for op in self.ops:
                inverses.append(op.apply(doc))
        except Exception:
            for inv in reversed(inverses):
                inv.apply(doc)
            raise
        return Batch(ops=tuple(reversed(inverses)), name=f"undo {self.name}", target=self.target)
