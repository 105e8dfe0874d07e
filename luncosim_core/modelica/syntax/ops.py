"""Text-preserving edit ops on a Modelica file: each is a value that turns the parsed file into the
splices of its own span only (:mod:`luncosim_core.text.splice`) — comments, blank lines and the
formatting of everything else stay byte-identical — and names its exact inverse.

    edit = apply_op(text, SetPlacement("Circuit", "R1", origin=(10, 0)))
    edit.text          # the new file
    edit.splices       # what changed, as offsets into the old text
    edit.inverse       # splices that restore the old text exactly (offsets into the new text)
    edit.inverse_op    # the inverse as an op (a semantic one where exact, else a TextEdit)

An invalid op (unknown class or component, a name taken, a value that is not an expression,
incompatible connectors) raises :class:`OpError` saying what and why, before anything changes.
``cls`` is the class's name within the file (``Pkg.Circuit``); ``None`` means the file's only
class. Values of modifiers and parameters are Modelica expressions as text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from luncosim_core.modelica.syntax.parser import ParseError, parse, parse_value
from luncosim_core.modelica.syntax.resolve import ConnectError, Library, check_connect
from luncosim_core.modelica.syntax.tree import (
    Arg,
    ClassDef,
    Component,
    Connect,
    Modification,
    StoredDefinition,
)
from luncosim_core.text.splice import Splice, apply_splices

Point = tuple[float, float]
Extent = tuple[Point, Point]

KEYWORDS = frozenset("""algorithm and annotation block break class connect connector constant constrainedby der
discrete each else elseif elsewhen encapsulated end enumeration equation expandable extends external false final flow
for function if import impure in initial inner input loop model not operator or outer output package parameter partial
protected public pure record redeclare replaceable return stream then true type when while within""".split())
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
_REF = re.compile(r"[A-Za-z_]\w*(\[[^\]]*\])?(\.[A-Za-z_]\w*(\[[^\]]*\])?)*\Z")


class OpError(ValueError):
    """An op that cannot apply to this text (the message names the op's target and the reason)."""


# -- formatting ------------------------------------------------------------------------------------
def fmt_num(x: float) -> str:
    r = round(x)
    if abs(x - r) < 1e-9:
        return str(int(r))
    return format(x, ".6g")


def fmt_point(p: Point) -> str:
    return f"{{{fmt_num(p[0])}, {fmt_num(p[1])}}}"


def fmt_points(points: Sequence[Point]) -> str:
    return "{" + ", ".join(fmt_point(p) for p in points) + "}"


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to whole lines when nothing else shares them (a trailing
    ``//`` comment goes with it), else unchanged."""
    ls = text.rfind("\n", 0, start) + 1
    if text[ls:start].strip():
        return start, end
    le = text.find("\n", end)
    le = len(text) if le < 0 else le
    tail = text[end:le].strip()
    if tail and not tail.startswith("//"):
        return start, end
    return ls, min(le + 1, len(text))


def _indent_of(text: str, offset: int) -> str:
    ls = text.rfind("\n", 0, offset) + 1
    line = text[ls:offset]
    return line[:len(line) - len(line.lstrip())]


def _after_line(text: str, offset: int) -> int:
    """The start of the line after the one holding ``offset``."""
    le = text.find("\n", offset)
    return len(text) if le < 0 else le + 1


def _check_ident(name: str, what: str) -> None:
    if not _IDENT.match(name) or name in KEYWORDS:
        raise OpError(f"{what} {name!r} is not a Modelica identifier")


def _check_expr(value: str, what: str) -> None:
    try:
        parse_value(value)
    except ParseError as exc:
        raise OpError(f"{what}: {value!r} is not a Modelica expression ({exc})") from None


def _check_ref(ref: str) -> None:
    if not _REF.match(ref) or ref.split(".")[0].split("[")[0] in KEYWORDS:
        raise OpError(f"{ref!r} is not a connector reference (comp.port)")


def _find_class(sd: StoredDefinition, cls: str | None) -> ClassDef:
    found = sd.find(cls)
    if found is None:
        if cls is None:
            names = ", ".join(c.qualified for c in sd.all_classes()) or "none"
            raise OpError(f"the file holds several classes ({names}): name one with 'class'")
        raise OpError(f"no class {cls!r} in the file")
    if found.short:
        raise OpError(f"{found.qualified} is a short class definition: it has no components or equations")
    return found


def _find_component(c: ClassDef, name: str) -> Component:
    comp = c.component(name)
    if comp is None:
        raise OpError(f"{c.qualified} has no component {name!r}")
    return comp


def _find_connect(c: ClassDef, a: str, b: str) -> Connect:
    a, b = "".join(a.split()), "".join(b.split())
    for k in c.connects:
        if k.joins(a, b):
            return k
    raise OpError(f"{c.qualified} has no connect({a}, {b})")


# -- modification editing helpers -----------------------------------------------------------------
def set_arg(mod: Modification, name: str, value: str) -> Splice:
    """Set ``name = value`` in ``mod``: replace an existing value, else append the argument."""
    arg = mod.arg(name)
    if arg is not None:
        if arg.value is not None:
            return Splice(arg.value.start, arg.value.end, value)
        return Splice(arg.end, arg.end, f" = {value}")
    if mod.args:
        last = mod.args[-1].end
        return Splice(last, last, f", {name} = {value}")
    return Splice(mod.start + 1, mod.start + 1, f"{name} = {value}")


def remove_arg(mod: Modification, arg: Arg) -> Splice:
    """Remove ``arg`` with its separating comma (the whole ``(...)`` when it is the only one)."""
    k = mod.args.index(arg)
    if len(mod.args) == 1:
        return Splice(mod.start, mod.end, "")
    if k > 0:
        return Splice(mod.args[k - 1].end, arg.end, "")
    return Splice(arg.start, mod.args[1].start, "")


def _arg_text(text: str, mod: Modification | None, *path: str) -> str | None:
    arg = mod.path(*path) if mod is not None else None
    if arg is None or arg.value is None:
        return None
    return text[arg.value.start:arg.value.end]


# -- the ops ---------------------------------------------------------------------------------------
class Op:
    """Base of the edit ops: ``splices(sd, lib)`` and ``inverse(sd)`` (the op undoing this one,
    given the text before it; ``None`` when only the inverse splices are exact)."""

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        raise NotImplementedError

    def inverse(self, sd: StoredDefinition) -> Op | None:
        return None

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class TextEdit(Op):
    """Raw splices (a typed text edit, or the exact inverse of a structural op)."""

    edits: tuple[Splice, ...]

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        return self.edits


@dataclass(frozen=True)
class AddComponent(Op):
    cls: str | None
    type: str
    name: str
    modifiers: Mapping[str, str] | tuple[tuple[str, str], ...] = ()
    extent: Extent | None = None
    rotation: float | None = None
    origin: Point | None = None
    description: str | None = None
    modification: str | None = None  # the text inside ``(...)`` verbatim (a copied component's), instead of modifiers

    def declaration(self) -> str:
        mods = self.modifiers.items() if isinstance(self.modifiers, Mapping) else self.modifiers
        text = f"{self.type} {self.name}"
        if self.modification is not None and self.modification.strip():
            text += "(" + self.modification + ")"
        elif mods:
            text += "(" + ", ".join(f"{k} = {v}" for k, v in mods) + ")"
        if self.description:
            text += ' "' + self.description.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if self.extent is not None:
            fields = []
            if self.origin is not None:
                fields.append(f"origin = {fmt_point(self.origin)}")
            fields.append(f"extent = {fmt_points(self.extent)}")
            if self.rotation:
                fields.append(f"rotation = {fmt_num(self.rotation)}")
            text += f" annotation(Placement(transformation({', '.join(fields)})))"
        return text + ";"

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        _check_ident(self.name, "component name")
        if c.component(self.name) is not None or c.nested(self.name) is not None:
            raise OpError(f"{c.qualified} already has an element named {self.name!r}")
        if not re.match(r"\.?[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z", self.type):
            raise OpError(f"{self.type!r} is not a class name")
        mods = self.modifiers.items() if isinstance(self.modifiers, Mapping) else self.modifiers
        for k, v in mods:
            _check_ident(k.split(".")[0], "modifier")
            _check_expr(v, f"modifier {k} of {self.name}")
        if self.modification is not None and self.modification.strip():
            if mods:
                raise OpError(f"{self.name}: give modifiers or a modification, not both")
            try:
                probe = parse(f"model M\n  {self.type} {self.name}({self.modification});\nend M;\n")
            except ParseError as exc:
                raise OpError(f"the modification ({self.modification}) of {self.name} does not parse: {exc}") from None
            comps = probe.classes[0].components if probe.classes else []
            mod = comps[0].mod if len(comps) == 1 else None
            if mod is None or probe.text[mod.start:mod.end] != f"({self.modification})":
                raise OpError(f"the modification ({self.modification}) of {self.name} is not one modification")
        if lib is not None and self.type.split(".")[0] not in ("Real", "Integer", "Boolean", "String") \
                and lib.resolve(self.type, c) is None:
            raise OpError(f"cannot find class {self.type} from {c.qualified}")
        return (self._insert(sd.text, c),)

    def _insert(self, text: str, c: ClassDef) -> Splice:
        public = [m for m in c.components if m.section == "public"]
        if public:
            anchor = max(m.clause_end for m in public)
            indent = _indent_of(text, min(m.clause_start for m in public if m.clause_end == anchor))
            at = _after_line(text, anchor)
        else:
            indent = _indent_of(text, c.start) + "  "
            at = _after_line(text, c.body_start)
        if at == len(text) and not text.endswith("\n"):
            return Splice(at, at, "\n" + indent + self.declaration())
        return Splice(at, at, indent + self.declaration() + "\n")

    def inverse(self, sd: StoredDefinition) -> Op | None:
        return RemoveComponent(self.cls, self.name)


@dataclass(frozen=True)
class RemoveComponent(Op):
    """Remove a component and every connect that uses it."""

    cls: str | None
    name: str

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        comp = _find_component(c, self.name)
        text = sd.text
        out = [self._declaration(text, c, comp)]
        for k in c.connects:
            if self.name in (_head(k.a), _head(k.b)):
                out.append(Splice(*_line_bounds(text, k.start, k.end), ""))
        return tuple(out)

    @staticmethod
    def _declaration(text: str, c: ClassDef, comp: Component) -> Splice:
        if comp.declarators == 1:
            return Splice(*_line_bounds(text, comp.clause_start, comp.clause_end), "")
        siblings = [m for m in c.components if m.clause_start == comp.clause_start]
        if comp.index > 0:
            return Splice(siblings[comp.index - 1].end, comp.end, "")
        return Splice(comp.start, siblings[1].start, "")


def _head(ref: str) -> str:
    return ref.split(".")[0].split("[")[0]


@dataclass(frozen=True)
class RenameComponent(Op):
    """Rename a component and every reference to it in its class (connects, equations, bindings)."""

    cls: str | None
    name: str
    new_name: str

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        comp = _find_component(c, self.name)
        _check_ident(self.new_name, "new name")
        if self.new_name != self.name and (c.component(self.new_name) or c.nested(self.new_name)):
            raise OpError(f"{c.qualified} already has an element named {self.new_name!r}")
        text = sd.text
        starts = {comp.name_start}
        out = [Splice(comp.name_start, comp.name_end, self.new_name)]
        for s, e in c.references:
            if s not in starts and text[s:e] == self.name:
                starts.add(s)
                out.append(Splice(s, e, self.new_name))
        return tuple(out)

    def inverse(self, sd: StoredDefinition) -> Op | None:
        return RenameComponent(self.cls, self.new_name, self.name)


@dataclass(frozen=True)
class SetParameter(Op):
    """Set the modifier ``name = value`` of a component (``value`` None removes it)."""

    cls: str | None
    component: str
    name: str
    value: str | None

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        comp = _find_component(c, self.component)
        _check_ident(self.name, "parameter")
        if self.value is None:
            arg = comp.mod.arg(self.name) if comp.mod is not None else None
            if arg is None:
                return ()
            if arg.mod is not None and arg.value is not None:  # keep x(start=1), drop '= v'
                return (Splice(arg.mod.end, arg.value.end, ""),)
            return (remove_arg(comp.mod, arg),)
        _check_expr(self.value, f"{self.component}.{self.name}")
        if comp.mod is None:
            at = comp.name_end + len(comp.subscripts) if comp.subscripts and sd.text[comp.name_end] == "[" else comp.name_end
            return (Splice(at, at, f"({self.name} = {self.value})"),)
        return (set_arg(comp.mod, self.name, self.value),)

    def inverse(self, sd: StoredDefinition) -> Op | None:
        c = _find_class(sd, self.cls)
        comp = _find_component(c, self.component)
        old = _arg_text(sd.text, comp.mod, self.name)
        arg = comp.mod.arg(self.name) if comp.mod is not None else None
        if self.value is None and arg is not None:
            return None  # removing text: only the inverse splices put it back exactly
        if old is None and (arg is not None or (comp.mod is not None and not comp.mod.args)):
            return None
        return SetParameter(self.cls, self.component, self.name, old)


@dataclass(frozen=True)
class SetPlacement(Op):
    """Change only the given fields of a component's Placement; flips swap the extent's corners."""

    cls: str | None
    component: str
    origin: Point | None = None
    extent: Extent | None = None
    rotation: float | None = None
    flip_h: bool | None = None
    flip_v: bool | None = None

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        comp = _find_component(c, self.component)
        fields = self._fields(sd.text, comp)
        if not fields:
            return ()
        return self._write(comp, fields)

    def _fields(self, text: str, comp: Component) -> list[tuple[str, str]]:
        fields: list[tuple[str, str]] = []
        if self.origin is not None:
            fields.append(("origin", fmt_point(self.origin)))
        extent = self.extent
        if self.flip_h is not None or self.flip_v is not None:
            extent = extent or current_extent(text, comp) or ((-10.0, -10.0), (10.0, 10.0))
            (x1, y1), (x2, y2) = extent
            if self.flip_h is not None and (x1 > x2) != self.flip_h:
                x1, x2 = x2, x1
            if self.flip_v is not None and (y1 > y2) != self.flip_v:
                y1, y2 = y2, y1
            extent = ((x1, y1), (x2, y2))
        if extent is not None:
            fields.append(("extent", fmt_points(extent)))
        if self.rotation is not None:
            fields.append(("rotation", fmt_num(self.rotation)))
        return fields

    @staticmethod
    def _write(comp: Component, fields: list[tuple[str, str]]) -> tuple[Splice, ...]:
        flat = ", ".join(f"{k} = {v}" for k, v in fields)
        if comp.annotation is None:
            return (Splice(comp.end, comp.end, f" annotation(Placement(transformation({flat})))"),)
        placement = comp.annotation.arg("Placement")
        if placement is None:
            sep = ", " if comp.annotation.args else ""
            at = comp.annotation.start + 1
            return (Splice(at, at, f"Placement(transformation({flat})){sep}"),)
        if placement.mod is None:
            raise OpError(f"the Placement of {comp.name} has no arguments to edit")
        tr = placement.mod.arg("transformation")
        if tr is None or tr.mod is None:
            sep = ", " if placement.mod.args else ""
            at = placement.mod.start + 1
            return (Splice(at, at, f"transformation({flat}){sep}"),)
        return _merge_fields(tr.mod, fields)

    def inverse(self, sd: StoredDefinition) -> Op | None:
        return None


def _merge_fields(mod: Modification, fields: list[tuple[str, str]]) -> tuple[Splice, ...]:
    """Set each field in ``mod``: existing values replaced in place, new ones appended together,
    so the rest of the argument text is kept."""
    out: list[Splice] = []
    appended: list[tuple[str, str]] = []
    for k, v in fields:
        if mod.arg(k) is not None:
            out.append(set_arg(mod, k, v))
        else:
            appended.append((k, v))
    if appended:
        flat = ", ".join(f"{k} = {v}" for k, v in appended)
        if mod.args:
            at = mod.args[-1].end
            out.append(Splice(at, at, ", " + flat))
        else:
            out.append(Splice(mod.start + 1, mod.start + 1, flat))
    return tuple(out)


def current_extent(text: str, comp: Component) -> Extent | None:
    """The numeric extent of a component's Placement transformation (None if absent or not numbers)."""
    pl = comp.placement
    tr = pl.mod.arg("transformation") if pl is not None and pl.mod is not None else None
    ext = tr.mod.arg("extent") if tr is not None and tr.mod is not None else None
    return points_of(ext.value) if ext is not None and ext.value is not None else None  # type: ignore[return-value]


def points_of(v: object) -> list[Point] | None:
    """A ``{{x, y}, ...}`` array value as floats (None when it is not one)."""
    if v is None or getattr(v, "kind", "") != "array":
        return None
    out = []
    for item in v.items:  # type: ignore[attr-defined]
        if item.kind != "array" or len(item.items) != 2 or any(i.kind != "number" for i in item.items):
            return None
        out.append((item.items[0].number, item.items[1].number))
    return out


@dataclass(frozen=True)
class AddConnection(Op):
    cls: str | None
    a: str
    b: str
    points: tuple[Point, ...] | None = None
    check: bool = field(default=True, compare=False)

    def text(self) -> str:
        ann = f" annotation(Line(points = {fmt_points(self.points)}))" if self.points else ""
        return f"connect({self.a}, {self.b}){ann};"

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        _check_ref(self.a)
        _check_ref(self.b)
        for k in c.connects:
            if k.joins(self.a, self.b):
                raise OpError(f"connect({self.a}, {self.b}) is already in {c.qualified}")
        for ref in (self.a, self.b):
            if c.component(_head(ref)) is None and (lib is None or lib.element(c, _head(ref)) is None):
                raise OpError(f"{c.qualified} has no component or connector {_head(ref)!r}")
        if lib is not None and self.check:
            try:
                check_connect(lib, c, self.a, self.b)
            except ConnectError as exc:
                raise OpError(f"cannot connect {self.a} to {self.b}: {exc}") from None
        return (self._insert(sd.text, c),)

    def _insert(self, text: str, c: ClassDef) -> Splice:
        if c.connects:
            last = max(c.connects, key=lambda k: k.end)
            return Splice(_after_line(text, last.end), _after_line(text, last.end),
                          _indent_of(text, last.start) + self.text() + "\n")
        eqs = [s for s in c.sections if s.kind == "equation"]
        indent = _indent_of(text, c.start) + "  "
        if eqs:
            sec = eqs[-1]
            at = text.rfind("\n", 0, sec.end) + 1
            if at <= sec.start:
                at = _after_line(text, sec.start)
            return Splice(at, at, indent + self.text() + "\n")
        at = c.annotation_start if c.annotation_start > c.element_end else c.end_keyword
        at = text.rfind("\n", 0, at) + 1
        return Splice(at, at, _indent_of(text, c.start) + "equation\n" + indent + self.text() + "\n")

    def inverse(self, sd: StoredDefinition) -> Op | None:
        c = _find_class(sd, self.cls)
        if c.connects or any(s.kind == "equation" for s in c.sections):
            return RemoveConnection(self.cls, self.a, self.b)
        return None


@dataclass(frozen=True)
class RemoveConnection(Op):
    cls: str | None
    a: str
    b: str

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        k = _find_connect(_find_class(sd, self.cls), self.a, self.b)
        return (Splice(*_line_bounds(sd.text, k.start, k.end), ""),)


@dataclass(frozen=True)
class SetLinePoints(Op):
    """Set the route (``Line(points=...)``) of a connect."""

    cls: str | None
    a: str
    b: str
    points: tuple[Point, ...]

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        k = _find_connect(_find_class(sd, self.cls), self.a, self.b)
        pts = fmt_points(self.points)
        if k.annotation is None:
            return (Splice(k.close + 1, k.close + 1, f" annotation(Line(points = {pts}))"),)
        line = k.annotation.arg("Line")
        if line is None:
            sep = ", " if k.annotation.args else ""
            return (Splice(k.annotation.start + 1, k.annotation.start + 1, f"Line(points = {pts}){sep}"),)
        if line.mod is None:
            raise OpError(f"the Line of connect({k.a}, {k.b}) has no arguments to edit")
        return (set_arg(line.mod, "points", pts),)


GRAPHIC_KINDS = ("Rectangle", "Line", "Ellipse", "Polygon", "Text", "Bitmap")
LAYERS = ("Icon", "Diagram")


def _graphics(c: ClassDef, layer: str):
    """The class's ``layer(graphics = {...})`` array value (None when it has none)."""
    if layer not in LAYERS:
        raise OpError(f"layer {layer!r} is not Icon or Diagram")
    arg = c.annotation.path(layer, "graphics") if c.annotation is not None else None
    return arg.value if arg is not None and arg.value is not None and arg.value.kind == "array" else None


def _graphic_item(c: ClassDef, layer: str, index: int):
    g = _graphics(c, layer)
    items = g.items if g is not None else []
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(items):
        raise OpError(f"the {layer} of {c.qualified} has no graphic {index!r} (it has {len(items)})")
    return g, items[index]


@dataclass(frozen=True)
class AddGraphic(Op):
    """Append one primitive (its Modelica text, ``Rectangle(extent = {{-50, -50}, {50, 50}})``)
    to a class's Icon (or Diagram) graphics; the annotation, layer or array is created if missing."""

    cls: str | None
    item: str
    layer: str = "Icon"

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        try:
            v = parse_value(self.item)
        except ParseError as exc:
            raise OpError(f"graphic {self.item!r} is not a Modelica expression ({exc})") from None
        if v.kind != "call" or v.name not in GRAPHIC_KINDS:
            raise OpError(f"graphic {self.item!r} is not one of {', '.join(GRAPHIC_KINDS)}")
        text, item, layer = sd.text, self.item, self.layer
        g = _graphics(c, layer)
        if g is not None:
            if g.items:
                last = g.items[-1]
                sep = text[g.items[-2].end:last.start] if len(g.items) > 1 else ", "
                return (Splice(last.end, last.end, sep + item),)
            return (Splice(g.start + 1, g.start + 1, item),)
        ann = c.annotation
        if ann is None:
            at = text.rfind("\n", 0, c.end_keyword) + 1
            if text[at:c.end_keyword].strip():  # 'end' shares its line: put it before 'end'
                return (Splice(c.end_keyword, c.end_keyword, f"annotation({layer}(graphics = {{{item}}})); "),)
            indent = _indent_of(text, c.end_keyword) + "  "
            return (Splice(at, at, f"{indent}annotation({layer}(graphics = {{{item}}}));\n"),)
        lay = ann.arg(layer)
        if lay is None:
            if ann.args:
                return (Splice(ann.args[-1].end, ann.args[-1].end, f", {layer}(graphics = {{{item}}})"),)
            return (Splice(ann.start + 1, ann.start + 1, f"{layer}(graphics = {{{item}}})"),)
        if lay.mod is None:
            return (Splice(lay.name_end, lay.name_end, f"(graphics = {{{item}}})"),)
        old = lay.mod.arg("graphics")
        if old is not None:  # graphics = something that is not an array
            raise OpError(f"the {layer} graphics of {c.qualified} are not an array {{...}}")
        if lay.mod.args:
            return (Splice(lay.mod.args[-1].end, lay.mod.args[-1].end, f", graphics = {{{item}}}"),)
        return (Splice(lay.mod.start + 1, lay.mod.start + 1, f"graphics = {{{item}}}"),)


@dataclass(frozen=True)
class RemoveGraphic(Op):
    """Remove the ``index``-th item (0-based) of a class's Icon (or Diagram) graphics."""

    cls: str | None
    index: int
    layer: str = "Icon"

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        g, item = _graphic_item(c, self.layer, self.index)
        k = self.index
        if k > 0:
            return (Splice(g.items[k - 1].end, item.end, ""),)
        if len(g.items) > 1:
            return (Splice(item.start, g.items[1].start, ""),)
        return (Splice(item.start, item.end, ""),)


@dataclass(frozen=True)
class SetGraphic(Op):
    """Set one argument (``origin``, ``extent``, ``points``, ``lineColor``, ``textString``…) of the
    ``index``-th graphic to ``value`` (a Modelica expression; None removes it)."""

    cls: str | None
    index: int
    name: str
    value: str | None
    layer: str = "Icon"

    def splices(self, sd: StoredDefinition, lib: Library | None) -> tuple[Splice, ...]:
        c = _find_class(sd, self.cls)
        _check_ident(self.name, "graphic argument")
        _g, item = _graphic_item(c, self.layer, self.index)
        if item.kind != "call" or item.mod is None:
            raise OpError(f"graphic {self.index} of {c.qualified} is not a primitive call")
        if self.value is None:
            arg = item.mod.arg(self.name)
            return (remove_arg(item.mod, arg),) if arg is not None else ()
        _check_expr(self.value, f"graphic {self.index} {self.name}")
        return (set_arg(item.mod, self.name, self.value),)


OPS: dict[str, type[Op]] = {cls.__name__: cls for cls in (
    AddComponent, RemoveComponent, RenameComponent, SetParameter, SetPlacement, AddConnection,
    RemoveConnection, SetLinePoints, AddGraphic, RemoveGraphic, SetGraphic)}


def _coalesce(splices: tuple[Splice, ...]) -> tuple[Splice, ...]:
    """Touching splices merged into one (two removed adjacent lines are one removal), so the
    inverse never holds two insertions at one offset."""
    out: list[Splice] = []
    for s in sorted(splices, key=lambda s: (s.start, s.end)):
        if out and out[-1].end == s.start:
            prev = out.pop()
            s = Splice(prev.start, s.end, prev.text + s.text)
        out.append(s)
    return tuple(out)


@dataclass(frozen=True)
class Edit:
    """One applied op: the new text, the splices made and the splices undoing them."""

    op: Op
    text: str
    splices: tuple[Splice, ...]
    inverse: tuple[Splice, ...]
    inverse_op: Op


def apply_op(text: str, op: Op, sd: StoredDefinition | None = None, lib: Library | None = None) -> Edit:
    """Apply ``op`` to ``text`` (``sd``: its parse, when the caller has it). ``lib`` resolves
    types and checks connector compatibility (without it those checks are skipped)."""
    if sd is None or sd.text is not text:
        try:
            sd = parse(text)
        except ParseError as exc:
            raise OpError(f"the file does not parse: {exc}") from None
    if lib is not None and lib.home(sd.classes[0] if sd.classes else None) is None:
        lib.add(sd)
    splices = _coalesce(op.splices(sd, lib))
    new_text, inverse = apply_splices(text, splices)
    inv_op = op.inverse(sd) or TextEdit(inverse)
    return Edit(op, new_text, tuple(splices), inverse, inv_op)
