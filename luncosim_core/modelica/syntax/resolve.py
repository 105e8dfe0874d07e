"""Name lookup over parsed files, and what a connector is (for connect compatibility checks).

A :class:`Library` finds classes by qualified name in library roots laid out the Modelica way
(``Pkg/package.mo``, ``Pkg/Sub.mo``, ``Pkg/Sub/package.mo``, ``Pkg.mo``) plus the files it is
given, parsing each file once. ``resolve(name, scope)`` follows Modelica's lookup: the scope's
nested classes, its enclosing classes, their imports, the file's ``within`` packages, then the
top level. :func:`connector_of` and :func:`check_connect` say whether ``connect(a, b)`` joins
compatible connectors, and if not, why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.modelica.syntax.parser import ParseError, parse
from luncosim_core.modelica.syntax.tree import ClassDef, Component, StoredDefinition

BUILTIN_TYPES = frozenset({"Real", "Integer", "Boolean", "String"})


@dataclass(frozen=True)
class Home:
    """Where a class lives: its file's tree, its full name, the chain of enclosing classes."""

    sd: StoredDefinition
    full: str
    chain: tuple[ClassDef, ...]  # outermost first, the class itself last
    path: Path | None = None


class Library:
    def __init__(self, roots: list[Path] | tuple[Path, ...] = (), document: Path | None = None) -> None:
        self.roots = [Path(r) for r in roots]
        self.document = document  # the path of the file being edited (its trees come through add)
        self._files: dict[Path, StoredDefinition | None] = {}
        self._top: dict[str, ClassDef | None] = {}
        self._homes: dict[int, Home] = {}
        self._member_files: dict[tuple[Path, str], Path | None] = {}

    # -- files -----------------------------------------------------------------------------------
    def add(self, sd: StoredDefinition, path: Path | None = None) -> None:
        """Register a parsed file (an open document): its classes are found by name first, and
        under its path this tree replaces the one read from disk (or an older parse of it)."""
        path = path or self.document
        if path is not None:
            old = self._files.get(path)
            if old is not None and old is not sd:
                self._forget(old)
            self._files[path] = sd
        self._register(sd, path)
        for c in sd.classes:
            full = f"{sd.within}.{c.name}" if sd.within else c.name
            if "." not in full:
                self._top[full] = c

    def _register(self, sd: StoredDefinition, path: Path | None) -> None:
        prefix = sd.within

        def walk(c: ClassDef, chain: tuple[ClassDef, ...], scope: str) -> None:
            full = f"{scope}.{c.name}" if scope else c.name
            chain = (*chain, c)
            self._homes[id(c)] = Home(sd, full, chain, path)
            for n in c.classes:
                walk(n, chain, full)

        for c in sd.classes:
            walk(c, (), prefix)

    def _forget(self, sd: StoredDefinition) -> None:
        """Drop an older parse of a file (its classes are no longer found by name)."""
        gone = {id(c) for c in sd.all_classes()}
        for key in gone:
            self._homes.pop(key, None)
        for name, c in list(self._top.items()):
            if id(c) in gone:
                del self._top[name]

    def _load(self, path: Path) -> StoredDefinition | None:
        if path not in self._files:
            try:
                sd = parse(read_text_limited(path, "Modelica source"))
            except (OSError, UnreadableFile, ParseError, RecursionError):  # not found by name; the compiler says why
                sd = None
            self._files[path] = sd
            if sd is not None:
                self._register(sd, path)
        return self._files[path]

    def home(self, cls: ClassDef | None) -> Home | None:
        return self._homes.get(id(cls))

    # -- lookup ----------------------------------------------------------------------------------
    def top(self, name: str) -> ClassDef | None:
        if name not in self._top:
            self._top[name] = self._find_top(name)
        return self._top[name]

    def _find_top(self, name: str) -> ClassDef | None:
        for root in self.roots:
            for path in (root / name / "package.mo", root / f"{name}.mo"):
                if path.is_file():
                    sd = self._load(path)
                    found = next((c for c in sd.classes if c.name == name), None) if sd else None
                    if found is not None:
                        return found
        return None

    def member(self, cls: ClassDef, name: str) -> ClassDef | None:
        """A class ``name`` declared in ``cls`` (nested, or a file of its package directory)."""
        found = cls.nested(name)
        if found is not None:
            return found
        home = self.home(cls)
        if home is None or home.path is None or home.path.name != "package.mo" or len(home.chain) != 1:
            return None
        d = home.path.parent
        key = (d, name)
        if key not in self._member_files:  # where the file would be, looked up once (no stat per lookup)
            self._member_files[key] = next((p for p in (d / name / "package.mo", d / f"{name}.mo") if p.is_file()), None)
        path = self._member_files[key]
        if path is None:
            return None
        sd = self._load(path)
        return next((c for c in sd.classes if c.name == name), None) if sd else None

    def lookup(self, qualified: str) -> ClassDef | None:
        parts = qualified.lstrip(".").split(".")
        cls = self.top(parts[0])
        for p in parts[1:]:
            if cls is None:
                return None
            cls = self.member(cls, p)
        return cls

    def resolve(self, name: str, scope: ClassDef) -> ClassDef | None:
        """``name`` (possibly dotted) as Modelica resolves it from inside ``scope``."""
        if name.startswith("."):
            return self.lookup(name[1:])
        first, _, rest = name.partition(".")
        start = self._first(first, scope)
        if start is None or not rest:
            return start
        cls: ClassDef | None = start
        for p in rest.split("."):
            if cls is None:
                return None
            cls = self.member(cls, p)
        return cls

    def _first(self, first: str, scope: ClassDef) -> ClassDef | None:
        home = self.home(scope)
        chain = home.chain if home else (scope,)
        for c in reversed(chain):
            if c.name == first and c is not chain[-1]:
                return c
            hit = self.member(c, first)
            if hit is not None:
                return hit
            hit = self._imported(c, first)
            if hit is not None:
                return hit
        if home is not None and home.sd.within:
            parts = home.sd.within.split(".")
            for k in range(len(parts), 0, -1):
                pkg = self.lookup(".".join(parts[:k]))
                hit = self.member(pkg, first) if pkg is not None else None
                if hit is not None:
                    return hit
        return self.top(first)

    def _imported(self, cls: ClassDef, first: str) -> ClassDef | None:
        for imp in cls.imports:
            if "=" in imp:
                alias, target = imp.split("=", 1)
                if alias == first:
                    return self.lookup(target)
            elif imp.endswith(".*"):
                pkg = self.lookup(imp[:-2])
                hit = self.member(pkg, first) if pkg is not None else None
                if hit is not None:
                    return hit
            elif imp.rsplit(".", 1)[-1] == first:
                return self.lookup(imp)
        return None

    # -- inheritance -----------------------------------------------------------------------------
    def bases(self, cls: ClassDef, depth: int = 0) -> list[ClassDef]:
        """``cls`` and every class it extends (depth first), each once."""
        out = [cls]
        if depth > 20:
            return out
        for e in cls.extends:
            base = self.resolve(e.name, cls)
            if base is not None and base not in out:
                out.extend(b for b in self.bases(base, depth + 1) if b not in out)
        return out

    def element(self, cls: ClassDef, name: str) -> tuple[Component, ClassDef] | None:
        """The component ``name`` of ``cls`` (inherited ones included) and the class declaring it."""
        for c in self.bases(cls):
            comp = c.component(name)
            if comp is not None:
                return comp, c
        return None


@dataclass(frozen=True)
class Connector:
    """What one side of a connect is: a physical connector (``variables``: name, flow/stream, base
    type) or a causal signal (``causality`` input/output, ``base`` Real/Integer/Boolean)."""

    ref: str
    type_name: str
    physical: bool
    variables: tuple[tuple[str, str, str], ...] = ()
    base: str = ""
    causality: str = ""
    dims: str = ""
    outer: bool = False  # a connector of the class itself (no component prefix)

    def describe(self) -> str:
        if self.physical:
            vs = ", ".join(f"{k + ' ' if k else ''}{n}" for n, k, _ in self.variables)
            return f"{self.ref} is a {self.type_name} connector ({vs})"
        return f"{self.ref} is an {self.causality} {self.base} signal"


class ConnectError(ValueError):
    """``connect`` of connectors that do not fit (the message says which and why)."""


def _base_type(lib: Library, type_name: str, scope: ClassDef, seen: int = 0) -> tuple[str, ClassDef | None, tuple[str, ...]]:
    """Follow short classes to a builtin: (builtin or '', the long class or None, prefixes)."""
    if type_name in BUILTIN_TYPES:
        return type_name, None, ()
    cls = lib.resolve(type_name, scope)
    if cls is None or seen > 20:
        return "", None, ()
    if cls.short:
        base, long_cls, pre = _base_type(lib, cls.short_base, cls, seen + 1)
        return base, long_cls, tuple(cls.short_prefixes) + pre
    for b in lib.bases(cls):
        if b.short:
            return _base_type(lib, b.short_base, b, seen + 1)
    return "", cls, ()


def _variables(lib: Library, cls: ClassDef) -> tuple[tuple[str, str, str], ...]:
    out = []
    for b in lib.bases(cls):
        for comp in b.components:
            kind = "flow" if "flow" in comp.prefixes else ("stream" if "stream" in comp.prefixes else "")
            base, _, _ = _base_type(lib, comp.type_name, b)
            out.append((comp.name, kind, base or comp.type_name))
    return tuple(sorted(out))


def _causality(prefixes: tuple[str, ...]) -> str:
    return "input" if "input" in prefixes else ("output" if "output" in prefixes else "")


def connector_of(lib: Library, cls: ClassDef, ref: str) -> Connector:
    """The connector ``ref`` (``comp.port`` or the class's own ``port``) names inside ``cls``.
    Raises :class:`ConnectError` when it names nothing or something that is not a connector."""
    head, _, rest = ref.partition(".")
    head_name = head.split("[")[0]
    found = lib.element(cls, head_name)
    if found is None:
        raise ConnectError(f"{cls.name} has no component or connector {head_name!r}")
    comp, owner = found
    if not rest:
        return _connector(lib, comp, owner, ref, outer=True)
    comp_cls = lib.resolve(comp.type_name, owner)
    if comp_cls is None:
        raise ConnectError(f"cannot find class {comp.type_name} of {head_name} (cannot check {ref})")
    port_name = rest.split(".")[0].split("[")[0]
    inner = lib.element(comp_cls, port_name)
    if inner is None:
        raise ConnectError(f"{comp.type_name} has no connector {port_name!r}")
    port, port_owner = inner
    return _connector(lib, port, port_owner, ref, outer=False)


def _connector(lib: Library, comp: Component, owner: ClassDef, ref: str, outer: bool) -> Connector:
    base, long_cls, pre = _base_type(lib, comp.type_name, owner)
    prefixes = tuple(comp.prefixes) + pre
    if long_cls is not None and long_cls.kind in ("connector", "expandable connector"):
        return Connector(ref, comp.type_name.rsplit(".", 1)[-1], True, _variables(lib, long_cls),
                         dims=comp.subscripts, outer=outer)
    cause = _causality(prefixes)
    if base and cause:
        return Connector(ref, comp.type_name.rsplit(".", 1)[-1], False, base=base, causality=cause,
                         dims=comp.subscripts, outer=outer)
    if long_cls is None and not base:
        raise ConnectError(f"cannot find class {comp.type_name} of {ref} (cannot check it)")
    what = f"a {long_cls.kind}" if long_cls is not None else f"a {base} without input/output"
    raise ConnectError(f"{ref} is not a connector ({comp.type_name} is {what})")


def _drives(c: Connector) -> bool:
    """Whether ``c`` drives its signal: a component's output, or the class's own input."""
    return (c.causality == "output") != c.outer


def check_connect(lib: Library, cls: ClassDef, a: str, b: str) -> None:
    """Raise :class:`ConnectError` saying why ``connect(a, b)`` in ``cls`` is refused (if it is)."""
    if a == b:
        raise ConnectError(f"{a} cannot be connected to itself")
    ca, cb = connector_of(lib, cls, a), connector_of(lib, cls, b)
    if ca.physical != cb.physical:
        raise ConnectError(f"{ca.describe()} but {cb.describe()}")
    if ca.physical and ca.variables != cb.variables:
        raise ConnectError(f"{ca.describe()} but {cb.describe()}: their variables differ")
    if not ca.physical:
        if ca.base != cb.base:
            raise ConnectError(f"{ca.describe()} but {cb.describe()}: the types differ")
        if _drives(ca) and _drives(cb):
            raise ConnectError(f"{ca.ref} and {cb.ref} both drive the signal (two outputs)")
    if ca.dims != cb.dims:
        raise ConnectError(f"{a}{ca.dims or ' (scalar)'} and {b}{cb.dims or ' (scalar)'} differ in array size")


def connectors(lib: Library, cls: ClassDef) -> list[tuple[Component, Connector]]:
    """The connectors ``cls`` declares or inherits (for drawing a component's ports)."""
    out = []
    for b in lib.bases(cls):
        for comp in b.components:
            try:
                out.append((comp, _connector(lib, comp, b, comp.name, outer=True)))
            except ConnectError:
                continue
    return out


def package_root(path: Path) -> Path | None:
    """The directory holding the outermost package that contains ``path`` (or None)."""
    d = path.parent
    root = None
    while (d / "package.mo").is_file():
        root = d.parent
        if d.parent == d:
            break
        d = d.parent
    return root


def library_for(path: Path | None, roots: list[Path] | tuple[Path, ...] = ()) -> Library:
    """A library for editing the file at ``path``: its package's root, ``roots``, our bundled library."""
    from luncosim_core.modelica.compiler import BUNDLED_LIBRARY

    found: list[Path] = []
    pkg = package_root(path.resolve()) if path is not None else None
    for r in ([pkg] if pkg else []) + [Path(r) for r in roots] + [BUNDLED_LIBRARY]:
        if r.resolve() not in found:
            found.append(r.resolve())
    if path is not None and not pkg and path.parent.resolve() not in found:
        found.insert(0, path.parent.resolve())
    return Library(found, document=path.resolve() if path is not None else None)
