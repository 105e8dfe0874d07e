"""The diagram's Qt-free side: a Modelica class projected into nodes, ports and wires, the edit
transactions the canvas makes on the file, and live values from a snapshot.

Edits are the pure ops of :mod:`luncosim_core.modelica.syntax.ops`, made on the one
:class:`~luncosim_core.text.TextDocument` of the file that the code editors share: a gesture's ops
(dragging five icons is five SetPlacement ops) become one journal entry of that document (its
splices composed, its ops kept on the entry), so the editors' and the diagram's undo are one
history, an open editor changes only the lines the ops touch, and saving is the document's save
(which refuses to overwrite a file changed on disk). The diagram re-projects from the document
after every change, whoever made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from luncosim_core.modelica.syntax.geometry import Placement, placement_of
from luncosim_core.modelica.syntax.graphics import (
    Primitive,
    bitmap_path,
    coordinate_extent,
    primitives,
)
from luncosim_core.modelica.syntax.ops import Op, OpError, SetPlacement, apply_op
from luncosim_core.modelica.syntax.parser import ParseError, parse
from luncosim_core.modelica.syntax.resolve import (
    ConnectError,
    Connector,
    Library,
    connector_of,
    library_for,
)
from luncosim_core.modelica.syntax.tree import ClassDef, Component, StoredDefinition
from luncosim_core.text.document import TextDocument
from luncosim_core.text.splice import Splice, apply_splices

Extent = tuple[tuple[float, float], tuple[float, float]]
DEFAULT_COORDS: Extent = ((-100.0, -100.0), (100.0, 100.0))


@dataclass
class Icon:
    """A class's icon: its primitives (bases' first) in its coordinate system."""

    graphics: list[Primitive] = field(default_factory=list)
    coords: Extent = DEFAULT_COORDS
    class_name: str = ""
    found: bool = True


@dataclass
class PortView:
    name: str  # the connector's name inside its component ("" for the class's own connector node)
    placement: Placement  # in the owning icon's coordinates
    icon: Icon
    connector: Connector | None = None


@dataclass
class NodeView:
    name: str
    type_name: str
    placement: Placement  # in the diagram's coordinates
    icon: Icon
    ports: list[PortView] = field(default_factory=list)
    modifiers: dict[str, str] = field(default_factory=dict)
    description: str = ""
    own_connector: Connector | None = None  # set for a connector of the class itself
    inherited: bool = False  # declared in a base class: drawn, edited there
    locked: str = ""  # why it cannot be moved in this view (the Icon view shows connectors for reference)


@dataclass
class WireView:
    a: str
    b: str
    points: tuple[tuple[float, float], ...] = ()
    inherited: bool = False


@dataclass
class DiagramView:
    cls: str
    nodes: list[NodeView] = field(default_factory=list)
    wires: list[WireView] = field(default_factory=list)
    background: list[Primitive] = field(default_factory=list)  # the class's Diagram graphics
    coords: Extent = DEFAULT_COORDS
    unplaced: list[str] = field(default_factory=list)  # components with no Placement (not drawn)


def icon_of(lib: Library, cls: ClassDef | None, depth: int = 0) -> Icon:
    """The Icon graphics of ``cls`` merged over its ``extends`` (base classes drawn first)."""
    if cls is None:
        return Icon(found=False)
    graphics: list[Primitive] = []
    coords = DEFAULT_COORDS
    for base in reversed(lib.bases(cls)):
        home = lib.home(base)
        text = home.sd.text if home else ""
        graphics.extend(with_bitmaps(lib, primitives(text, base.graphics("Icon")), home.path if home else None))
        if base.annotation is not None and base.annotation.arg("Icon") is not None:
            coords = coordinate_extent(text, base.annotation.arg("Icon"))
    return Icon(graphics, coords, cls.name)


def with_bitmaps(lib: Library, prims: list[Primitive], home: Path | None) -> list[Primitive]:
    """``prims`` with each Bitmap's ``fileName`` resolved to a file (``extra["path"]``)."""
    if not any(p.kind == "Bitmap" for p in prims):
        return prims

    def package_dir(name: str) -> Path | None:
        found = lib.lookup(name)
        where = lib.home(found) if found is not None else None
        return where.path.parent if where is not None and where.path is not None else None

    out = []
    for p in prims:
        if p.kind == "Bitmap" and p.extra.get("fileName") and not p.extra.get("imageSource"):
            path = bitmap_path(p.extra["fileName"], home, package_dir)
            p = replace(p, extra={**p.extra, "path": str(path) if path is not None else ""})
        out.append(p)
    return out


def _modifiers(text: str, comp: Component) -> dict[str, str]:
    if comp.mod is None:
        return {}
    return {a.name: text[a.value.start:a.value.end] for a in comp.mod.args if a.name and a.value is not None}


def _ports(lib: Library, comp_cls: ClassDef) -> list[PortView]:
    out = []
    for base in lib.bases(comp_cls):
        for pc in base.components:
            pl = placement_of(pc, icon=True)
            if pl is None:
                continue
            try:
                conn = connector_of(lib, base, pc.name)
            except ConnectError:
                continue
            out.append(PortView(pc.name, pl, icon_of(lib, lib.resolve(pc.type_name, base)), conn))
    return out


def project(sd: StoredDefinition, cls: ClassDef, lib: Library) -> DiagramView:
    """The diagram of ``cls``: a node per placed component (its icon and ports), the class's own
    connectors as nodes, a wire per connect; what ``cls`` inherits (components, connects, Diagram
    graphics) is drawn too, marked ``inherited`` (it is edited in the base class, not here)."""
    from luncosim_core.modelica.syntax.ops import points_of

    view = DiagramView(cls.qualified)
    seen: set[str] = set()
    memo: dict[int, tuple[Icon, list[PortView]]] = {}  # a class's icon and ports, once per projection
    for base in reversed(lib.bases(cls)):  # bases first: the class's own items are drawn on top
        inherited = base is not cls
        home = lib.home(base)
        text = sd.text if not inherited else (home.sd.text if home else "")
        if base.annotation is not None and base.annotation.arg("Diagram") is not None:
            where = home.path if home is not None and home.path is not None else lib.document
            view.background.extend(with_bitmaps(lib, primitives(text, base.graphics("Diagram")), where))
            view.coords = coordinate_extent(text, base.annotation.arg("Diagram"))
        for comp in base.components:
            if comp.name in seen:
                continue
            seen.add(comp.name)
            node = _node(lib, cls, base, comp, text, inherited, memo)
            if node is None:
                if not inherited:
                    view.unplaced.append(comp.name)
                continue
            view.nodes.append(node)
        for k in base.connects:
            line = k.line
            arg = line.mod.arg("points") if line is not None and line.mod is not None else None
            pts = tuple(points_of(arg.value) or ()) if arg is not None else ()
            view.wires.append(WireView(k.a, k.b, pts, inherited))
    return view


def _node(lib: Library, cls: ClassDef, owner: ClassDef, comp: Component, text: str, inherited: bool,
          memo: dict[int, tuple[Icon, list[PortView]]]) -> NodeView | None:
    pl = placement_of(comp)
    if pl is None:
        return None
    comp_cls = lib.resolve(comp.type_name, owner) if comp.type_name not in ("Real", "Integer", "Boolean") else None
    if id(comp_cls) not in memo:
        memo[id(comp_cls)] = (icon_of(lib, comp_cls), _ports(lib, comp_cls) if comp_cls is not None else [])
    icon, ports = memo[id(comp_cls)]
    node = NodeView(comp.name, comp.type_name, pl, icon, modifiers=_modifiers(text, comp),
                    description=comp.description or "", inherited=inherited)
    try:
        node.own_connector = connector_of(lib, cls, comp.name)
    except ConnectError:
        node.own_connector = None
    if node.own_connector is not None:
        node.ports = [PortView("", Placement(((-100.0, -100.0), (100.0, 100.0))), Icon(found=False), node.own_connector)]
    elif comp_cls is not None:
        node.ports = list(ports)
    return node


@dataclass
class IconLayer:
    """A class's Icon as the Icon view edits it: its own graphics with their place in the
    ``graphics`` array, what it inherits (drawn, not edited), its coordinate system and its
    connectors at their ``iconTransformation`` (for reference)."""

    cls: str
    own: list[tuple[int, Primitive]] = field(default_factory=list)
    inherited: list[Primitive] = field(default_factory=list)
    coords: Extent = DEFAULT_COORDS
    connectors: list[NodeView] = field(default_factory=list)


def icon_layer(sd: StoredDefinition, cls: ClassDef, lib: Library) -> IconLayer:
    from luncosim_core.modelica.syntax.graphics import primitive

    out = IconLayer(cls.qualified)
    for base in reversed(lib.bases(cls)):
        home = lib.home(base)
        text = sd.text if base is cls else (home.sd.text if home else "")
        if base.annotation is not None and base.annotation.arg("Icon") is not None:
            out.coords = coordinate_extent(text, base.annotation.arg("Icon"))
        g = base.graphics("Icon")
        if g is None or g.kind != "array":
            continue
        for i, item in enumerate(g.items):
            p = primitive(text, item)
            if p is None:
                continue
            [p] = with_bitmaps(lib, [p], home.path if home is not None else None)
            if base is cls:
                out.own.append((i, p))
            else:
                out.inherited.append(p)
    for node in project(sd, cls, lib).nodes:
        if node.own_connector is None:
            continue
        found = lib.element(cls, node.name)
        pl = placement_of(found[0], icon=True) if found is not None else None
        if pl is not None:
            node.placement = pl
            node.locked = "a connector: placed in the diagram view (its iconTransformation)"
            out.connectors.append(node)
    return out


def graphic_text(kind: str, a: tuple[float, float], b: tuple[float, float]) -> str:
    """A new primitive drawn from corner ``a`` to corner ``b`` (icon coordinates), as Modelica text."""
    from luncosim_core.modelica.syntax.ops import fmt_points

    (x1, y1), (x2, y2) = a, b
    box = fmt_points(((x1, y1), (x2, y2)))
    blue = "{0, 0, 255}"
    if kind == "Line":
        return f"Line(points = {box}, color = {blue})"
    if kind == "Polygon":
        tri = fmt_points(((x1, y1), (x2, y1), ((x1 + x2) / 2, y2)))
        return f"Polygon(points = {tri}, lineColor = {blue}, fillColor = {{255, 255, 255}}, fillPattern = FillPattern.Solid)"
    if kind == "Text":
        return f'Text(extent = {box}, textString = "%name")'
    if kind in ("Rectangle", "Ellipse"):
        return f"{kind}(extent = {box}, lineColor = {blue})"
    raise ValueError(f"cannot draw a {kind}")


@dataclass(frozen=True)
class Transaction:
    """One entry of the document's journal as the diagram sees it: its label, the typed ops a
    diagram gesture made (none for a typed text edit) and its author."""

    label: str
    ops: tuple[Op, ...]
    author: str = "user"


class DiagramEdits:
    """The diagram's side of one shared :class:`~luncosim_core.text.TextDocument` (the one the
    code editors show): the newest text's parse and library, a gesture's ops turned into one
    journal entry, undo/redo through the document's one history (see the module doc)."""

    def __init__(self, doc: TextDocument, roots: tuple[Path, ...] | list[Path] = ()) -> None:
        self.doc = doc
        self.lib = library_for(doc.path, tuple(roots))
        self._sd: StoredDefinition | None = None
        self._rev = -1
        self._next: StoredDefinition | None = None  # the parse of the text a transaction is writing
        self.problem: str | None = None  # why the newest text does not parse (the diagram shows the last that did)
        self.refresh()
        if self._sd is None:
            parse(doc.text)  # raises the ParseError saying where

    @property
    def path(self) -> Path:
        return self.doc.path

    @property
    def text(self) -> str:
        return self.doc.text

    @property
    def sd(self) -> StoredDefinition:
        """The parse of the newest text that parsed."""
        self.refresh()
        assert self._sd is not None
        return self._sd

    def refresh(self) -> bool:
        """Parse the document's text if it changed since the last look; True when the diagram's
        tree is the newest text's (``problem`` says why not)."""
        if self._rev == self.doc.revision:
            return self.problem is None
        self._rev = self.doc.revision
        text = self.doc.text
        nxt, self._next = self._next, None
        try:
            if nxt is not None and nxt.text == text:
                nxt.text = text  # the document's own string: the ops see the parse is of this very text
                sd = nxt
            else:
                sd = parse(text)
        except ParseError as exc:
            self.problem = str(exc)
            return False
        self.problem = None
        self._sd = sd
        self.lib.add(sd, self.doc.path)
        return True

    def classes(self) -> list[str]:
        """Classes that can hold a diagram (models, blocks, ...), qualified within the file."""
        return [c.qualified for c in self.sd.all_classes()
                if not c.short and c.kind not in ("package", "function", "type", "record", "connector")]

    def choose_class(self, cls: str | None = None) -> str | None:
        """``cls`` as the file names it (``Pkg.Circuit``; a unique short name works too); given
        None (or a package), the first class with connections, else the first class with a
        diagram. :class:`OpError` when ``cls`` names no class of the file."""
        names = self.classes()
        sd = self.sd
        found = sd.find(cls) if cls is not None else None
        if cls is not None and found is None:
            short = [n for n in names if n.rsplit(".", 1)[-1] == cls]
            if len(short) != 1:
                known = ", ".join(names) or "none"
                raise OpError(f"no class {cls!r} in {self.path.name} (classes with a diagram: {known})")
            return short[0]
        if found is not None and found.qualified in names:
            return found.qualified
        wired = [n for n in names if sd.find(n).connects]
        return (wired or names or [None])[0]

    def view(self, cls: str | None) -> DiagramView:
        sd = self.sd
        found = sd.find(cls)
        if found is None:
            raise OpError(f"no class {cls!r} in {self.path.name}")
        return project(sd, found, self.lib)

    def icon_view(self, cls: str | None) -> IconLayer:
        sd = self.sd
        found = sd.find(cls)
        if found is None:
            raise OpError(f"no class {cls!r} in {self.path.name}")
        return icon_layer(sd, found, self.lib)

    def apply(self, ops: list[Op] | tuple[Op, ...], label: str, author: str = "user") -> Transaction:
        """Apply ``ops`` as one journal entry of the document (all or nothing); refused with
        :class:`OpError` when the text does not parse or an op does not apply."""
        if not self.refresh():
            raise OpError(f"{self.path.name} does not parse ({self.problem}): fix the text first")
        base = self.doc.text
        text, sd, groups = base, self._sd, []
        assert sd is not None
        try:
            if _independent(ops):  # one icon each: every op's span is disjoint, splice them at once
                splices: list[Splice] = []
                for op in ops:
                    splices.extend(apply_op(text, op, sd, self.lib).splices)
                text, _ = apply_splices(text, splices)
                groups.append(tuple(splices))
                sd = parse(text)
            else:
                for op in ops:
                    edit = apply_op(text, op, sd, self.lib)
                    text = edit.text
                    groups.append(edit.splices)
                    try:
                        sd = parse(text)
                    except ParseError as exc:  # an op must never break the file
                        raise OpError(f"{op.describe()} would leave text that does not parse: {exc}") from None
        except ParseError as exc:
            raise OpError(f"the edit would leave text that does not parse: {exc}") from None
        finally:
            self.lib.add(self._sd, self.doc.path)  # the ops' intermediate parses are not the document
        self._next = sd
        self.doc.apply_groups(groups, author=author, label=label, ops=tuple(ops))
        self.refresh()
        return Transaction(label, tuple(ops), author)

    @property
    def done(self) -> list[Transaction]:
        """The document's journal up to now (oldest first): what was done, by whom, with which ops."""
        return [Transaction(e.edit.label, tuple(e.edit.ops), e.author)
                for e in self.doc.entries()[:self.doc.position]]

    def undo(self) -> str | None:
        """Undo the newest entry of the shared history (a diagram gesture or typed text); its label."""
        if not self.doc.can_undo:
            return None
        label = self.doc.entries()[self.doc.position - 1].edit.label
        self.doc.undo()
        return label

    def redo(self) -> str | None:
        if not self.doc.can_redo:
            return None
        label = self.doc.entries()[self.doc.position].edit.label
        self.doc.redo()
        return label


def _independent(ops: list[Op] | tuple[Op, ...]) -> bool:
    names = [op.component for op in ops if isinstance(op, SetPlacement)]
    return len(ops) > 1 and len(names) == len(ops) and len(set(names)) == len(names)


@dataclass(frozen=True)
class Part:
    """A copied component: what AddComponent needs to declare it again."""

    name: str
    type: str  # its class's full name (so it resolves wherever it is pasted)
    modification: str | None
    description: str | None
    placement: Placement | None


@dataclass(frozen=True)
class Clipboard:
    """Copied components and the connections among them (with their Line points)."""

    parts: tuple[Part, ...]
    connects: tuple[tuple[str, str, tuple[tuple[float, float], ...]], ...]
    text: str  # the declarations as Modelica text (for pasting into an editor)

    def ops(self, cls: str | None, taken: set[str], offset: tuple[float, float]) -> tuple[list[Op], list[str]]:
        """AddComponent for each part (named uniquely against ``taken``, moved by ``offset``) and
        AddConnection for each connect among them; and the new names."""
        from luncosim_core.modelica.syntax.catalog import copy_name
        from luncosim_core.modelica.syntax.ops import AddComponent, AddConnection

        dx, dy = offset
        renamed: dict[str, str] = {}
        ops: list[Op] = []
        for p in self.parts:
            new = copy_name(p.name, taken)
            taken.add(new)
            renamed[p.name] = new
            pl = p.placement
            extent = origin = rotation = None
            if pl is not None:
                (x1, y1), (x2, y2) = pl.extent
                if pl.has_origin:
                    origin, extent = (pl.origin[0] + dx, pl.origin[1] + dy), pl.extent
                else:
                    extent = ((x1 + dx, y1 + dy), (x2 + dx, y2 + dy))
                rotation = pl.rotation or None
            ops.append(AddComponent(cls, p.type, new, extent=extent, rotation=rotation, origin=origin,
                                    description=p.description, modification=p.modification))

        def ref(r: str) -> str:
            head, dot, rest = r.partition(".")
            base, bracket, idx = head.partition("[")
            return renamed[base] + bracket + idx + dot + rest

        for a, b, pts in self.connects:
            moved_pts = tuple((x + dx, y + dy) for x, y in pts) or None
            ops.append(AddConnection(cls, ref(a), ref(b), moved_pts))
        return ops, list(renamed.values())


def clip(edits: DiagramEdits, cls: ClassDef, names: list[str]) -> Clipboard:
    """The components ``names`` of ``cls`` (builtin-typed ones, the class's own connectors, are
    left out) and the connects whose both ends are among them."""
    from luncosim_core.modelica.syntax.ops import points_of

    text = edits.text
    parts: list[Part] = []
    lines: list[str] = []
    for name in names:
        comp = cls.component(name)
        if comp is None or comp.type_name in ("Real", "Integer", "Boolean", "String"):
            continue
        target = edits.lib.resolve(comp.type_name, cls)
        home = edits.lib.home(target) if target is not None else None
        mod = text[comp.mod.start + 1:comp.mod.end - 1] if comp.mod is not None else None
        parts.append(Part(name, home.full if home else comp.type_name, mod, comp.description, placement_of(comp)))
        lines.append(text[comp.clause_start:comp.clause_end] if comp.declarators == 1 else
                     f"{comp.type_name} {text[comp.start:comp.end]};")
    kept = {p.name for p in parts}
    connects = []
    for k in cls.connects:
        heads = {r.split(".")[0].split("[")[0] for r in (k.a, k.b)}
        if heads <= kept:
            arg = k.line.mod.arg("points") if k.line is not None and k.line.mod is not None else None
            pts = tuple(points_of(arg.value) or ()) if arg is not None else ()
            connects.append((k.a, k.b, pts))
            lines.append(text[k.start:k.end])
    return Clipboard(tuple(parts), tuple(connects), "\n".join(lines))


def duplicate_class(text: str, cls: ClassDef, full: str, folder: Path) -> tuple[Path, str]:
    """An editable copy of ``cls`` (its text in ``text``): renamed ``<Name>Copy`` (a free file name
    in ``folder``), placed ``within`` the package it came from so its names still resolve."""
    import re

    k = 1
    new = f"{cls.name}Copy"
    while (folder / f"{new}.mo").exists():
        k += 1
        new = f"{cls.name}Copy{k}"
    body = text[cls.start:cls.end]
    head = re.compile(rf"\b{re.escape(cls.name)}\b")
    body = head.sub(new, body, count=1)
    tail = body.rfind("end")
    if tail >= 0:
        body = body[:tail] + re.sub(rf"end\s+{re.escape(cls.name)}\b", f"end {new}", body[tail:], count=1)
    indent = text[text.rfind("\n", 0, cls.start) + 1:cls.start]
    if indent and not indent.strip():
        body = "\n".join(ln[len(indent):] if ln.startswith(indent) else ln for ln in body.split("\n"))
    package = full.rpartition(".")[0]
    out = (f"within {package};\n" if package else "") + body.rstrip() + ";\n"  # the class ends before its ';'
    return folder / f"{new}.mo", out


def live_values(port_keys: tuple[str, ...], values: object, prims: tuple[str, ...]) -> dict[str, float]:
    """Values of the class's variables from a snapshot: ``/Prim.outputs:x`` (or ``.x``) of each prim
    running this file, by variable name (the first prim wins; NaN = pending is left out)."""
    out: dict[str, float] = {}
    for prim in prims:
        prefix = prim + "."
        for i, key in enumerate(port_keys):
            if not key.startswith(prefix):
                continue
            name = key[len(prefix):].split(":", 1)[-1]
            v = float(values[i])  # type: ignore[index]
            if v == v and name not in out:
                out[name] = v
    return out
