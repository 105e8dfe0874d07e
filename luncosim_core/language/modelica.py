"""Modelica language services: diagnostics through the compiler, class index, definitions.

Diagnostics come from the Modelica front end (syntax, unresolved names, unbalanced models), run
through the compile server's child process, so a compiler crash is one
``modelica.compiler_crash`` diagnostic, never a dead workbench. The numeric back end (CasADi) is
left to the real compile (Save & Run reports what it finds). A file whose first class is a package, connector, record or function is not
simulated on its own: only its syntax and resolution errors are reported.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.modelica.compiler import BUNDLED_LIBRARY
from luncosim_core.modelica.source_text import CLASS_RE, blank_comments

BUILTINS = ("der", "pre", "edge", "change", "reinit", "initial", "terminal", "noEvent", "smooth", "sample",
            "abs", "sign", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log", "log10",
            "min", "max", "sum", "size", "zeros", "ones", "fill", "connect", "assert", "terminate", "time")
KEYWORDS = ("model", "block", "class", "package", "connector", "record", "function", "equation", "algorithm",
            "parameter", "constant", "input", "output", "flow", "stream", "discrete", "extends", "import",
            "within", "end", "if", "then", "else", "elseif", "for", "loop", "in", "when", "elsewhen", "while",
            "annotation", "initial", "partial", "replaceable", "redeclare", "final", "inner", "outer", "and",
            "or", "not", "true", "false", "Real", "Integer", "Boolean", "String")


def library_roots(roots=None) -> tuple[Path, ...]:
    """Folders of top-level packages a model may use: the asset library's models, the bundled one."""
    out: list[Path] = []
    if roots is not None:
        out.append(Path(roots.lunco_root) / "models")
    out.append(BUNDLED_LIBRARY)
    seen: list[Path] = []
    for p in out:
        p = p.resolve()
        if p.is_dir() and p not in seen:
            seen.append(p)
    return tuple(seen)


def check_modelica(text: str, file: str, roots=None) -> list[Diagnostic]:
    """Positioned diagnostics of a Modelica source buffer (see the module doc)."""
    from luncosim_core.modelica.compile_server import run_front_end
    from luncosim_core.modelica.compiler import _package_root
    from luncosim_core.modelica.source_text import guess_model_name

    path = Path(file).resolve()
    search = [str(p) for p in library_roots(roots)]
    pkg = _package_root(path)
    if pkg is not None and str(pkg) not in search:
        search.insert(0, str(pkg))
    name = guess_model_name(text, path)
    front = run_front_end(text, name, str(path), str(path), tuple(search), diagnostics_only=True)
    notes: list[Diagnostic] = []
    sibling = _unreadable_sibling(front.diagnostics, path)
    if sibling is not None:
        # rumoca also reads the other .mo files of the folder: one that is not UTF-8 fails the
        # whole compile with a line-less error. Check the buffer without them (as a bare file
        # name) and say which file was left out
        front = run_front_end(text, name, path.name, str(path), tuple(search), diagnostics_only=True)
        notes.append(Diagnostic("warning", "modelica.sibling-unreadable",
                                f"{sibling.name} in the same folder is not UTF-8 text: this check leaves it out "
                                "(the compiler fails on it when the model runs)", layer=file, source="modelica"))
    out = []
    for d in front.diagnostics:
        if d.code == "modelica.not_a_model":
            continue
        layer = d.layer if d.layer and d.layer not in ("<source>", path.name) else file
        out.append(Diagnostic(d.severity, d.code, d.message, layer=layer, line=d.line, column=d.column,
                              source="modelica", data=d.data))
    return out + notes


_READ_FAILED = re.compile(r"Failed to read (.+?\.mo)\b")


def _unreadable_sibling(diags, here: Path) -> Path | None:
    """The other file of ``here``'s folder a line-less compile error says could not be read."""
    for d in diags:
        m = _READ_FAILED.search(d.message) if d.line is None else None
        if m is not None:
            other = Path(m.group(1))
            if other.resolve() != here and other.resolve().parent == here.parent:
                return other
    return None


_SECTION = frozenset({"equation", "algorithm"})
_BINARY = frozenset({"+", "-", "*", "/", "^", ".+", ".-", ".*", "./", ".^", "=", ":=", "==", "<>", "<", ">",
                     "<=", ">=", "and", "or"})
_NOT_AFTER_OPERATOR = frozenset({";", ")", "]", "}", ",", "*", "/", "^", ".*", "./", ".^", "=", ":=", "==", "<>",
                                 "<", ">", "<=", ">=", "and", "or", "then", "loop", "else", "elseif", "end"})
_OPERAND_END = frozenset({"NUM", "STR"})
_KEYWORDS = frozenset(KEYWORDS) | {"then", "else", "elseif", "loop", "in", "end", "if", "for", "when", "while",
                                   "elsewhen", "not", "and", "or", "initial", "annotation", "connect", "each",
                                   "break", "return", "der", "pre", "true", "false", "time"} - {
                                       "Real", "Integer", "Boolean", "String"}


def quick_modelica(text: str, file: str) -> tuple[list[Diagnostic], object | None, list | None]:
    """The fast syntax pass (see :mod:`luncosim_core.language.analysis`): ``(diagnostics, the
    parsed file or None, its tokens or None)``."""
    from luncosim_core.modelica.syntax.lexer import LexError, tokenize
    from luncosim_core.modelica.syntax.parser import ParseError, parse

    def at(offset: int, message: str) -> Diagnostic:
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return Diagnostic("error", "modelica.syntax", message, layer=file, line=line, column=col, source="modelica")

    try:
        sd, tokens = _parse_with_tokens(text, parse, tokenize)
    except LexError as exc:
        return [at(exc.offset, str(exc))], None, None
    except ParseError as exc:
        return [at(exc.offset, str(exc).split(": ", 1)[-1])], None, None
    except RecursionError:
        return [at(0, "the file nests too deeply to read")], None, None
    spans = [(s.start, s.end) for c in sd.all_classes() for s in c.sections if s.kind.split()[-1] in _SECTION]
    return _equation_problems(text, tokens, spans, at), sd, tokens


def _parse_with_tokens(text: str, parse, tokenize):
    """The syntax layer's tree and the tokens its parser read (one tokenization, not two)."""
    try:
        from luncosim_core.modelica.syntax.parser import _Parser

        parser = _Parser(text)
        sd = parser.stored_definition()
        return sd, parser.toks[:parser.n]
    except (ImportError, AttributeError):  # the parser's internals changed: parse and tokenize apart
        return parse(text), tokenize(text)


def _equation_problems(text: str, tokens, spans, at) -> list[Diagnostic]:
    """In equation and algorithm sections: an operator with no operand after it, two operands in
    a row (``x = 1 2;``). One finding per statement, at the token that is unexpected."""
    out: list[Diagnostic] = []
    spans = sorted(spans)
    i = 0
    prev = None
    flagged_until = -1
    for tok in tokens:
        while i < len(spans) and tok.start >= spans[i][1]:
            i, prev = i + 1, None
        if i >= len(spans):
            break
        if tok.start < spans[i][0]:
            continue
        word = text[tok.start:tok.end]
        kind = tok.kind if tok.kind in ("NUM", "STR", "ID") else word
        if prev is not None and tok.start > flagged_until:
            pword, pkind = prev
            operand = kind == "NUM" or (kind == "ID" and word not in _KEYWORDS)
            if pword in _BINARY and word in _NOT_AFTER_OPERATOR:
                out.append(at(tok.start, f"unexpected `{word}`"))
            elif operand and (pkind in _OPERAND_END or (pkind == "ID" and pword not in _KEYWORDS)
                              or pword in (")", "]")):
                out.append(at(tok.start, f"unexpected `{word}`"))
            else:
                prev = (word, kind)
                continue
            flagged_until = text.find(";", tok.start)
            flagged_until = len(text) if flagged_until < 0 else flagged_until
        prev = (word, kind)
    return out


@dataclass(frozen=True)
class ClassDef:
    name: str  # qualified (Workbench.Control.FirstOrder)
    file: Path
    line: int


_WITHIN = re.compile(r"^\s*within\s+([A-Za-z_][\w.]*)?\s*;", re.M)


def _classes_in(path: Path) -> list[ClassDef]:
    try:
        text = blank_comments(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return []
    within = _WITHIN.search(text)
    prefix = (within.group(1) + ".") if within and within.group(1) else ""
    out = []
    first = True
    for m in CLASS_RE.finditer(text):
        line = text.count("\n", 0, m.start(1)) + 1
        name = m.group(1)
        # the file's first class sits under ``within``; later ones are nested (approximately) in it
        qual = prefix + name if first else f"{prefix}{out[0].name.rsplit('.', 1)[-1]}.{name}"
        out.append(ClassDef(qual, path, line))
        first = False
    return out


@functools.lru_cache(maxsize=8)
def _index(roots: tuple[Path, ...], stamp: tuple) -> tuple[ClassDef, ...]:
    out: list[ClassDef] = []
    for root in roots:
        for path in sorted(root.rglob("*.mo")):
            out.extend(_classes_in(path))
    return tuple(out)


_STAMPS: dict[tuple, tuple[float, tuple]] = {}
STAMP_TTL_S = 2.0  # how long a library's file list and times are trusted before looking again


def class_index(roots: tuple[Path, ...]) -> tuple[ClassDef, ...]:
    """Every class defined under the library ``roots`` (cached while no file changes; the files
    are looked at again at most every ``STAMP_TTL_S``, not on every keystroke that completes)."""
    key = tuple(roots)
    now = time.monotonic()
    seen = _STAMPS.get(key)
    if seen is None or now - seen[0] > STAMP_TTL_S:
        stamp = tuple((str(p), p.stat().st_mtime_ns) for r in roots for p in sorted(Path(r).rglob("*.mo")))
        _STAMPS[key] = seen = (now, stamp)
    return _index(key, seen[1])


def find_class(name: str, roots: tuple[Path, ...], extra: tuple[Path, ...] = ()) -> ClassDef | None:
    """The definition of ``name`` (qualified, or a unique last component) in ``roots`` or ``extra`` files."""
    defs = list(class_index(roots))
    for p in extra:
        defs.extend(_classes_in(p))
    exact = [d for d in defs if d.name == name]
    if exact:
        return exact[0]
    tail = [d for d in defs if d.name.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]]
    return tail[0] if tail else None


_PREFIXES = r"(?:(?:parameter|constant|input|output|flow|stream|discrete|final|inner|outer|replaceable|redeclare)\s+)*"
_DECL = re.compile(rf"^\s*{_PREFIXES}([A-Za-z_][\w.]*)\s+([A-Za-z_]\w*)(?=[\s(;=\[\"])", re.M)
_NOT_TYPES = {"equation", "algorithm", "end", "model", "block", "class", "package", "connector", "record",
              "function", "extends", "import", "within", "protected", "public", "annotation", "partial", "if",
              "for", "when", "while", "initial"}


def declarations(text: str) -> dict[str, str]:
    """Component name -> declared type name, for every declaration in ``text`` (comments ignored)."""
    out: dict[str, str] = {}
    for m in _DECL.finditer(blank_comments(text)):
        if m.group(1) not in _NOT_TYPES and m.group(2) not in _NOT_TYPES:
            out.setdefault(m.group(2), m.group(1))
    return out


def members(prefix: str, text: str, roots: tuple[Path, ...], here: Path) -> list[str]:
    """What may follow ``prefix.``: a component's fields (its class's declarations), or a
    package's classes."""
    head = prefix.split(".")[0]
    type_name = declarations(text).get(head)
    if type_name is not None:
        for part in prefix.split(".")[1:]:  # lag.sub.  -> the class of lag's component sub
            found = find_class(type_name, roots, (here,))
            if found is None:
                return []
            type_name = declarations(_class_text(found)).get(part)
            if type_name is None:
                return []
        found = find_class(type_name, roots, (here,))
        return sorted(declarations(_class_text(found))) if found else []
    return sorted({c.name[len(prefix) + 1:].split(".")[0] for c in class_index(roots)
                   if c.name.startswith(prefix + ".")})


def _class_text(found: ClassDef) -> str:
    """The text of the class ``found`` from its header to its ``end Name;``."""
    try:
        lines = found.file.read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, UnicodeDecodeError):
        return ""
    body = "".join(lines[found.line - 1:])
    short = found.name.rsplit(".", 1)[-1]
    end = re.search(rf"^\s*end\s+{re.escape(short)}\s*;", body, re.M)
    return body[:end.start()] if end else body


@dataclass(frozen=True)
class Location:
    file: Path
    line: int  # 1-based
    column: int  # 1-based


def _line_col(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def dotted_name_at(text: str, offset: int) -> tuple[str, int]:
    """The dotted name around ``offset`` cut after the part the offset is in (``Workbench.Control``
    for a caret in ``Control`` of ``Workbench.Control.FirstOrder``), and where it starts."""
    ok = lambda ch: ch.isalnum() or ch == "_"  # noqa: E731
    a = offset
    while a > 0 and (ok(text[a - 1]) or (text[a - 1] == "." and a > 1 and ok(text[a - 2]))):
        a -= 1
    b = offset
    while b < len(text) and ok(text[b]):
        b += 1
    return text[a:b].strip("."), a


def _scope_at(sd, offset: int):
    """The innermost class whose text holds ``offset``."""
    best = None
    for cls in sd.all_classes():
        if cls.start <= offset < cls.end and (best is None or cls.start >= best.start):
            best = cls
    return best


def resolve_at(text: str, path: str | Path, offset: int, roots=None):
    """What the name at ``offset`` means, through the Modelica lookup rules of the syntax layer's
    resolver (the scope's nested classes, enclosing classes, imports, ``within``, the library):
    ``(kind, node, library, name)`` with kind ``class`` (a ClassDef) or ``component`` (a
    Component and the class declaring it), or None (the buffer does not parse, or the name means
    nothing the resolver knows: a builtin, a variable of an equation)."""
    from luncosim_core.modelica.syntax.parser import ParseError, parse
    from luncosim_core.modelica.syntax.resolve import library_for

    try:
        sd = parse(text)
    except (ParseError, RecursionError):
        return None
    name, _start = dotted_name_at(text, offset)
    scope = _scope_at(sd, offset)
    if not name or scope is None:
        return None
    here = Path(path).resolve()
    lib = library_for(here, library_roots(roots))
    lib.add(sd, here)
    first, _, rest = name.partition(".")
    found = lib.element(scope, first)
    if found is not None:  # a component, then fields through the classes of the components
        comp, owner = found
        for part in rest.split(".") if rest else ():
            cls = lib.resolve(comp.type_name, owner)
            found = lib.element(cls, part) if cls is not None else None
            if found is None:
                return None
            comp, owner = found
        return "component", (comp, owner), lib, name
    cls = lib.resolve(name, scope)
    return ("class", cls, lib, name) if cls is not None else None


def _where(lib, cls, here: Path) -> tuple[Path, str]:
    home = lib.home(cls)
    return (home.path or here, home.sd.text) if home is not None else (here, "")


def definition(text: str, path: str | Path, offset: int, roots=None) -> Location | None:
    """Where the name at ``offset`` is defined (a class's name in its file, a component's
    declaration), by :func:`resolve_at`; None when it resolves to nothing."""
    found = resolve_at(text, path, offset, roots)
    if found is None:
        return None
    kind, node, lib, _name = found
    here = Path(path).resolve()
    if kind == "component":
        comp, owner = node
        file, source = _where(lib, owner, here)
        return Location(file, *_line_col(source, comp.name_start))
    file, source = _where(lib, node, here)
    at = source.find(node.name, node.start) if source else -1
    return Location(file, *_line_col(source, at if at >= 0 else node.start))
