"""The concrete-syntax model of a Modelica file: classes, components, connects, annotations.

Every node keeps the offsets of its text in the source ``str`` (``start``/``end`` half-open, in
code points), so an edit can splice exactly the span it changes and leave the rest of the file —
comments, blank lines, formatting — byte-identical. Annotations are modifications, so one shape
(:class:`Modification` of :class:`Arg`, values as :class:`Value`) holds them, component modifiers
and graphics primitives alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Value:
    """An expression. ``kind``: ``number``, ``string``, ``name`` (a dotted reference or true/false),
    ``array`` (``items``), ``call`` (``name`` + ``mod``: ``Rectangle(extent=...)``, ``max(a, b)``)
    or ``expr`` (anything else, kept as text)."""

    kind: str
    start: int
    end: int
    name: str = ""
    number: float | None = None
    items: list[Value] = field(default_factory=list)
    mod: Modification | None = None

    def arg(self, name: str) -> Arg | None:
        return self.mod.arg(name) if self.mod is not None else None


@dataclass
class Arg:
    """One argument of a modification: ``name(mod) = value``, any part optional (``name`` is None
    for a positional argument or an opaque ``redeclare``)."""

    name: str | None
    start: int
    end: int
    name_start: int = -1
    name_end: int = -1
    mod: Modification | None = None
    value: Value | None = None


@dataclass
class Modification:
    """``( arg, arg, ... )``: ``start`` at ``(``, ``end`` after ``)``."""

    start: int
    end: int
    args: list[Arg] = field(default_factory=list)

    def arg(self, name: str) -> Arg | None:
        for a in self.args:
            if a.name == name:
                return a
        return None

    def path(self, *names: str) -> Arg | None:
        """``path("Placement", "transformation")``: nested argument lookup."""
        mod: Modification | None = self
        found: Arg | None = None
        for n in names:
            if mod is None:
                return None
            found = mod.arg(n)
            if found is None:
                return None
            mod = found.mod
        return found


@dataclass
class Component:
    """One declared component (one declarator of a clause such as ``Real a, b;``)."""

    name: str
    type_name: str
    prefixes: tuple[str, ...]
    section: str  # "public" or "protected"
    clause_start: int  # the whole clause, prefixes to ';' inclusive
    clause_end: int
    start: int  # this declarator: name .. annotation
    end: int
    name_start: int
    name_end: int
    subscripts: str = ""  # array dimensions of the type and the declarator, e.g. "[3]"
    mod: Modification | None = None
    binding: Value | None = None
    description: str | None = None
    annotation: Modification | None = None
    annotation_start: int = -1  # the 'annotation' keyword
    declarators: int = 1  # how many components the clause declares
    index: int = 0  # this one's position among them

    @property
    def placement(self) -> Arg | None:
        return self.annotation.arg("Placement") if self.annotation is not None else None


@dataclass
class Connect:
    """``connect(a, b) annotation(Line(...));`` — ``a``/``b`` with blanks removed."""

    a: str
    b: str
    start: int  # 'connect'
    end: int  # after ';'
    a_span: tuple[int, int] = (0, 0)
    b_span: tuple[int, int] = (0, 0)
    annotation: Modification | None = None
    annotation_start: int = -1
    close: int = -1  # offset of the ')' closing connect(

    def joins(self, x: str, y: str) -> bool:
        return (self.a, self.b) in ((x, y), (y, x))

    @property
    def line(self) -> Arg | None:
        return self.annotation.arg("Line") if self.annotation is not None else None


@dataclass
class Extends:
    name: str
    start: int
    end: int
    mod: Modification | None = None
    annotation: Modification | None = None


@dataclass
class Section:
    """``public``/``protected`` element part or ``equation``/``algorithm`` part (``initial`` ones
    prefixed), from its keyword (or the class body's start) to the next section."""

    kind: str
    start: int
    end: int = -1


@dataclass
class ClassDef:
    name: str
    kind: str  # model, block, connector, record, package, type, function, class, ...
    qualified: str  # within the file: Pkg.Inner
    start: int
    end: int
    prefixes: tuple[str, ...] = ()
    description: str | None = None
    short: bool = False  # 'connector X = input Real(...)'
    short_base: str = ""  # the base type of a short class
    short_prefixes: tuple[str, ...] = ()  # input/output/flow of a short class
    short_mod: Modification | None = None  # the modification of a short class: Real(unit = "V")
    body_start: int = -1  # after the header (name, description)
    end_keyword: int = -1  # offset of 'end' of 'end Name;'
    components: list[Component] = field(default_factory=list)
    connects: list[Connect] = field(default_factory=list)
    extends: list[Extends] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)
    classes: list[ClassDef] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    annotation: Modification | None = None
    annotation_start: int = -1
    annotation_end: int = -1  # after the class annotation's ';'
    references: list[tuple[int, int]] = field(default_factory=list)  # identifiers that may name a component
    element_end: int = -1  # after the last element of the element part (components, extends, ...)

    def component(self, name: str) -> Component | None:
        for c in self.components:
            if c.name == name:
                return c
        return None

    def nested(self, name: str) -> ClassDef | None:
        for c in self.classes:
            if c.name == name:
                return c
        return None

    def graphics(self, layer: str = "Icon") -> Value | None:
        """The ``graphics`` array of this class's Icon (or Diagram) annotation."""
        if self.annotation is None:
            return None
        g = self.annotation.path(layer, "graphics")
        return g.value if g is not None else None


@dataclass
class StoredDefinition:
    """A parsed file: its ``within`` prefix and its top-level classes, over ``text``."""

    text: str
    within: str = ""
    classes: list[ClassDef] = field(default_factory=list)

    def all_classes(self) -> list[ClassDef]:
        out: list[ClassDef] = []
        todo = list(self.classes)
        while todo:
            c = todo.pop(0)
            out.append(c)
            todo[:0] = c.classes
        return out

    def find(self, qualified: str | None = None) -> ClassDef | None:
        """The class named ``qualified`` within the file (``Pkg.Circuit``; the ``within`` prefix
        may be included). ``None``: the file's only class (or its only non-package class)."""
        if qualified is None:
            return self._only_class()
        if self.within and qualified.startswith(self.within + "."):
            qualified = qualified[len(self.within) + 1:]
        for c in self.all_classes():
            if c.qualified == qualified:
                return c
        return None

    def _only_class(self) -> ClassDef | None:
        if len(self.classes) == 1 and not self.classes[0].classes:
            return self.classes[0]
        models = [c for c in self.all_classes() if c.kind not in ("package", "connector", "record", "type", "function")]
        return models[0] if len(models) == 1 else (self.classes[0] if len(self.classes) == 1 else None)
